#!/usr/bin/env bash
# The third-party CRDs the chart's optional objects are checked against on the test API server: the Prometheus
# Operator's ServiceMonitor and PodMonitor, and the Gateway API's standard channel (HTTPRoute and what it refers to).
# Taken from the projects' Go modules (the module proxy serves their YAML with the Go code), copied into a cache
# outside the clone and stamped with the versions, so nothing third-party is vendored into the repository.
#
#   test/helm/third-party-crds.sh     fetch (or reuse) the CRDs; prints the directory holding the YAML files
#
# The cache is $TOLLGATE_CRD_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/crds).
set -euo pipefail

PROMETHEUS_OPERATOR_VERSION=v0.85.0
GATEWAY_API_VERSION=v1.4.1

CACHE="${TOLLGATE_CRD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/crds}"
STAMP="prometheus-operator@$PROMETHEUS_OPERATOR_VERSION gateway-api@$GATEWAY_API_VERSION"
OUT="$CACHE/current"

log() { printf '[third-party-crds] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ -d "$OUT" ] && [ "$(cat "$OUT/.version" 2>/dev/null)" = "$STAMP" ]; then
  echo "$OUT"
  exit 0
fi

command -v go >/dev/null || die "go is needed to fetch the CRDs from the Go module proxy"

# The module's directory in the module cache (downloads it the first time). Outside any module, so the repository
# gets no go.mod and no go.sum; the checksum database still verifies the download.
mkdir -p "$CACHE"
module_dir() { # module version
  local json dir
  json=$(cd "$CACHE" && GOFLAGS=-mod=mod go mod download -json "$1@$2") || die "go mod download $1@$2 failed: $json"
  dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [ -d "$dir" ] || die "go mod download $1@$2 gave no directory: $json"
  echo "$dir"
}

log "fetching $STAMP from the Go module proxy"
prom=$(module_dir github.com/prometheus-operator/prometheus-operator "$PROMETHEUS_OPERATOR_VERSION")
gw=$(module_dir sigs.k8s.io/gateway-api "$GATEWAY_API_VERSION")

tmp="$CACHE/.tmp.$$"
rm -rf "$tmp" && mkdir -p "$tmp"
for kind in servicemonitors podmonitors; do
  src="$prom/example/prometheus-operator-crd/monitoring.coreos.com_$kind.yaml"
  [ -f "$src" ] || die "$src is missing: the module's layout changed"
  cp "$src" "$tmp/"
done
for kind in gatewayclasses gateways httproutes referencegrants; do
  src="$gw/config/crd/standard/gateway.networking.k8s.io_$kind.yaml"
  [ -f "$src" ] || die "$src is missing: the module's layout changed"
  cp "$src" "$tmp/"
done
# The module cache is read-only; the copies must be removable by the next fetch.
chmod -R u+w "$tmp"
echo "$STAMP" >"$tmp/.version"
rm -rf "$OUT"
mv "$tmp" "$OUT"
echo "$OUT"
