#!/usr/bin/env bash
# A local OCI registry for the chart tests (`helm push` / `helm install oci://...`): the CNCF distribution registry
# built from the Go module proxy into a cache outside the clone, started on a free loopback port over plain HTTP
# (helm's --plain-http), its blobs in a directory of the caller's, and stopped by PID.
#
#   test/helm/oci-registry.sh build        build (or reuse) the registry; prints its directory
#   test/helm/oci-registry.sh up DIR       start a registry whose config, storage and log live in DIR; prints host:port
#   test/helm/oci-registry.sh down DIR     stop what `up DIR` started and remove DIR
#
# The binary goes to $TOLLGATE_OCI_REGISTRY_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/oci-registry),
# stamped with its version, so CI's fresh clones rebuild only when the version below changes. A cold build takes about
# 5 minutes on two loaded cores; with Go's module and build caches warm, seconds.
set -euo pipefail
# shellcheck source=../lib/go-tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/go-tools.sh"

DISTRIBUTION_VERSION=v3.1.2

CACHE="${TOLLGATE_OCI_REGISTRY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/oci-registry}"
BIN="$CACHE/bin"

log() { printf '[oci-registry] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

cmd_build() {
  mkdir -p "$BIN"
  local stamp="$BIN/registry.version"
  build_lock "$CACHE"
  if [ -x "$BIN/registry" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$DISTRIBUTION_VERSION" ]; then
    echo "$BIN"
    return 0
  fi
  command -v go >/dev/null || die "go is not on the PATH (it is needed only to build the test registry)"
  local started=$SECONDS tmp="$CACHE/build"
  log "building registry $DISTRIBUTION_VERSION from the Go module proxy (cold: minutes; warm: seconds)"
  rm -rf "$tmp" && mkdir -p "$tmp"
  # The module has no local replace directives, so `go install module@version` builds it as released.
  GOBIN="$tmp" CGO_ENABLED=0 GOFLAGS=-mod=mod nice -n 10 \
    go install -ldflags "-s -w" "github.com/distribution/distribution/v3/cmd/registry@$DISTRIBUTION_VERSION" \
    || die "building the registry failed (see above)"
  mv "$tmp/registry" "$BIN/registry"
  rm -rf "$tmp"
  echo "$DISTRIBUTION_VERSION" >"$stamp"
  log "built registry in $((SECONDS - started)) s"
  echo "$BIN"
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

cmd_up() {
  local dir=${1:?usage: oci-registry.sh up DIR}
  [ -x "$BIN/registry" ] || die "$BIN/registry is missing; run: test/helm/oci-registry.sh build"
  mkdir -p "$dir/storage"
  dir=$(cd "$dir" && pwd)
  local port addr
  port=$(free_port)
  addr="127.0.0.1:$port"
  cat >"$dir/config.yml" <<EOF
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $dir/storage
  delete:
    enabled: true
http:
  addr: $addr
  # One instance: a fixed secret only silences the warning about a generated one.
  secret: tollgate-test-registry
EOF
  # No telemetry collector here: without this the registry tries to export traces to localhost:4318.
  OTEL_TRACES_EXPORTER=none setsid "$BIN/registry" serve "$dir/config.yml" >"$dir/registry.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
  local deadline=$((SECONDS + 30))
  until curl -sf "http://$addr/v2/" >/dev/null 2>&1; do
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      tail -20 "$dir/registry.log" >&2
      die "the registry did not start"
    fi
    sleep 0.1
  done
  log "up: http://$addr (storage $dir/storage)"
  echo "$addr"
}

cmd_down() {
  local dir=${1:?usage: oci-registry.sh down DIR}
  [ -d "$dir" ] || return 0
  if [ -f "$dir/pid" ]; then
    local pid; pid=$(cat "$dir/pid")
    stop_pid "$pid"
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  build) cmd_build ;;
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  *) echo "usage: $0 build | up DIR | down DIR" >&2; exit 2 ;;
esac
