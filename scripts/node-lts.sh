#!/usr/bin/env bash
# The current Node LTS beside the development Node: the image runs the LTS (Dockerfile), so CI runs the server,
# operator and provider tests on it too (scripts/test-lts.sh). Both come from the npm registry into a cache outside
# the clone, stamped by version:
#
#   scripts/node-lts.sh install     fetch (or reuse) the LTS and re2 compiled for it; prints the node binary's path
#   scripts/node-lts.sh re2         the same; prints the directory of the re2 package compiled for the LTS
#
# The node binary is the npm package node-linux-<arch> (it ships include/node, the headers node-gyp needs). re2, the
# server's native module, is compiled against a Node's ABI; the shared node_modules holds the build for the
# development Node, which others use while the LTS tests run. So the LTS gets its own copy of re2, at the version the
# lockfile installed, compiled in the cache; scripts/node-lts-hooks.mjs points the LTS at it. Nothing in the
# checkout changes. A cold install takes about 10 minutes on two loaded cores (re2 compiles); afterwards, a second.
set -euo pipefail

NODE_LTS_VERSION="${TOLLGATE_NODE_LTS_VERSION:-26.12.1}"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${TOLLGATE_NODE_LTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/node-lts}"
DIR="$CACHE/$NODE_LTS_VERSION"

log() { printf '[node-lts] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

case "$(uname -m)" in
  x86_64) ARCH=x64 ;;
  aarch64 | arm64) ARCH=arm64 ;;
  *) die "no node-linux package for $(uname -m)" ;;
esac

NODE_PKG="$DIR/node/node_modules/node-linux-$ARCH"
NODE_BIN="$NODE_PKG/bin/node"

install_node() {
  if [ -x "$NODE_BIN" ] && [ "$(cat "$DIR/node.version" 2>/dev/null)" = "$NODE_LTS_VERSION" ]; then
    return 0
  fi
  log "fetching node-linux-$ARCH@$NODE_LTS_VERSION from the npm registry"
  rm -rf "$DIR/node" && mkdir -p "$DIR/node"
  # --no-bin-links: the package's bin would otherwise link node into $DIR/node/node_modules/.bin, which nothing uses.
  npm install --prefix "$DIR/node" --no-save --no-package-lock --no-audit --no-fund --no-bin-links \
    "node-linux-$ARCH@$NODE_LTS_VERSION" >&2
  [ -f "$NODE_PKG/include/node/node.h" ] || die "node-linux-$ARCH@$NODE_LTS_VERSION ships no include/node"
  [ "$("$NODE_BIN" --version)" = "v$NODE_LTS_VERSION" ] || die "$NODE_BIN is not v$NODE_LTS_VERSION"
  echo "$NODE_LTS_VERSION" >"$DIR/node.version"
}

# re2 at the version the lockfile installed, so both Nodes run the same regex engine; TOLLGATE_NODE_LTS_RE2 tries
# another version on the LTS before the lockfile takes it.
re2_version() {
  [ -n "${TOLLGATE_NODE_LTS_RE2:-}" ] && { echo "$TOLLGATE_NODE_LTS_RE2"; return; }
  "$NODE_BIN" -p "require('$ROOT/node_modules/re2/package.json').version" 2>/dev/null \
    || die "node_modules/re2 is missing: run npm ci first"
}

# One directory per re2 version, so a failed build of another version never removes a good one.
re2_prefix() { echo "$DIR/re2-$(re2_version)"; }

install_re2() {
  local version prefix
  version=$(re2_version)
  prefix="$(re2_prefix)"
  if [ -f "$prefix/ok" ]; then
    return 0
  fi
  log "compiling re2@$version for node v$NODE_LTS_VERSION (minutes)"
  rm -rf "$prefix" && mkdir -p "$prefix"
  # The LTS first on the PATH: re2's install script and node-gyp run `node`, and the ABI is the one of that node.
  # npm_config_nodedir overrides any nodedir of the user's npmrc: the headers are the LTS package's own.
  # DEVELOPMENT_SKIP_GETTING_ASSET: re2's installer would first try a prebuilt binary from GitHub; compile instead.
  PATH="$(dirname "$NODE_BIN"):$PATH" npm_config_nodedir="$NODE_PKG" DEVELOPMENT_SKIP_GETTING_ASSET=1 \
    nice -n 10 npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --foreground-scripts \
    "re2@$version" >&2 \
    || die "compiling re2@$version for node v$NODE_LTS_VERSION failed (see above): it needs g++, make and python3, and a
    re2 release that supports this Node (server/package.json, package-lock.json)"
  "$NODE_BIN" -e "const RE2 = require('$prefix/node_modules/re2'); if (!new RE2('a+').test('caa')) process.exit(1)" \
    || die "the re2 compiled for node v$NODE_LTS_VERSION does not load"
  touch "$prefix/ok"
}

case "${1:-}" in
  install)
    install_node
    install_re2
    echo "$NODE_BIN"
    ;;
  re2)
    install_node
    install_re2
    echo "$(re2_prefix)/node_modules/re2"
    ;;
  *)
    echo "usage: $0 install|re2" >&2
    exit 2
    ;;
esac
