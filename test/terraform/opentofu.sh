#!/usr/bin/env bash
# OpenTofu (`tofu`) for the Terraform end-to-end tests, built from the Go module proxy into a cache outside the clone,
# so that every test in test/terraform/ runs under both `terraform` and `tofu` (test/terraform/kit.ts).
#
#   test/terraform/opentofu.sh build     build (or reuse) tofu; prints the directory that holds it
#
# The binary goes to $TOLLGATE_OPENTOFU_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/opentofu), stamped
# with its version, so CI's fresh clones rebuild only when the version below changes. A cold build took 23 minutes on
# two heavily loaded cores (expect 5 to 10 on idle ones); with Go's build cache warm, a minute or two.
set -euo pipefail
# shellcheck source=../lib/go-tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/go-tools.sh"

# The newest release whose go.mod asks for a Go that the machines have (1.26); raise both together.
OPENTOFU_VERSION=v1.12.6
MODULE=github.com/opentofu/opentofu

CACHE="${TOLLGATE_OPENTOFU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/opentofu}"
BIN="$CACHE/bin"

log() { printf '[opentofu] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# `go install module@version` refuses a module whose go.mod has replace directives, and OpenTofu's has one (its
# fork of hcl). So build from a throwaway module of our own that requires it and carries over its replace lines and
# its godebug settings (those apply only in the main module, and the release binaries are built with them).
write_build_module() { # dir
  local dir=$1
  rm -rf "$dir" && mkdir -p "$dir"
  local gomod
  gomod=$(cd "$dir" && go mod download -json "$MODULE@$OPENTOFU_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [ -f "$gomod" ] || die "could not download the go.mod of $MODULE@$OPENTOFU_VERSION"
  local want have
  want=$(awk '/^go / { print $2; exit }' "$gomod")
  have=$(go env GOVERSION); have=${have#go}
  if [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -1)" != "$want" ]; then
    die "$MODULE@$OPENTOFU_VERSION needs Go $want, this machine has $have: install a newer Go or lower OPENTOFU_VERSION in $0"
  fi
  {
    echo "module tollgate.dev/opentofu-build"
    echo
    echo "go $want"
    echo
    echo "require $MODULE $OPENTOFU_VERSION"
    echo
    # the godebug block or line, as it is
    awk '
      /^godebug \(/ { ingd = 1; print; next }
      ingd { print; if ($0 ~ /^\)/) ingd = 0; next }
      /^godebug [^(]/ { print }
    ' "$gomod"
    # replace lines whose target is a module (a local path would not exist here)
    awk '
      /^replace \(/ { inrep = 1; next }
      inrep && /^\)/ { inrep = 0; next }
      inrep && NF && $1 !~ /^\/\// { line = $0; sub(/^[[:space:]]+/, "", line); if (line !~ /=>[[:space:]]*\.\.?\//) print "replace " line }
      /^replace [^(]/ && $0 !~ /=>[[:space:]]*\.\.?\// { print }
    ' "$gomod"
  } >"$dir/go.mod"
}

cmd_build() {
  mkdir -p "$BIN"
  command -v go >/dev/null || die "go is not on the PATH (it is needed only to build tofu for the tests)"
  build_lock "$CACHE"
  local stamp="$BIN/tofu.version"
  if [ -x "$BIN/tofu" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$OPENTOFU_VERSION" ]; then
    echo "$BIN"
    return 0
  fi
  local dir="$CACHE/src"
  local started=$SECONDS
  log "building tofu $OPENTOFU_VERSION from the Go module proxy (cold: many minutes; warm: seconds)"
  write_build_module "$dir"
  (
    cd "$dir"
    export GOFLAGS=-mod=mod CGO_ENABLED=0 GOTOOLCHAIN=local
    log "resolving the dependencies"
    nice -n 10 go get "$MODULE/cmd/tofu@$OPENTOFU_VERSION" >/dev/null 2>"$dir/get.log" || { cat "$dir/get.log" >&2; exit 1; }
    log "compiling (a line a minute until done)"
    local t0; t0=$(date +%s)
    # The sleeps hold none of our descriptors, so a reader of our output is not kept waiting after the kill below.
    (while sleep 60 </dev/null >/dev/null 2>&1; do log "still compiling, $(($(date +%s) - t0)) s"; done) >/dev/null &
    local ticker=$!
    # version.dev=no is what release builds set: without it tofu calls itself "1.12.6-dev".
    local rc=0
    nice -n 10 go build -trimpath -o "$BIN/tofu.tmp" -ldflags "-s -w -X $MODULE/version.dev=no" "$MODULE/cmd/tofu" || rc=$?
    kill "$ticker" 2>/dev/null || true
    exit "$rc"
  ) || die "building tofu failed (see above)"
  mv "$BIN/tofu.tmp" "$BIN/tofu"
  echo "$OPENTOFU_VERSION" >"$stamp"
  log "built $(TF_CLI_CONFIG_FILE=/dev/null "$BIN/tofu" version 2>/dev/null | head -1) in $((SECONDS - started)) s"
  echo "$BIN"
}

case "${1:-}" in
  build) cmd_build ;;
  *) echo "usage: $0 build" >&2; exit 2 ;;
esac
