#!/usr/bin/env bash
# A real Kubernetes control plane for the operator and chart tests: etcd, kube-apiserver and kube-controller-manager
# (garbage collection and namespace deletion live there), plus helm, built from the Go module proxy into a cache
# outside the clone, started on loopback with generated credentials and stopped by PID.
#
#   test/k8s/control-plane.sh build          build (or reuse) the binaries; prints their directory
#   test/k8s/control-plane.sh up DIR         start a control plane whose state, logs and kubeconfig live in DIR
#   test/k8s/control-plane.sh down DIR       stop what `up DIR` started and remove DIR
#
# The binaries go to $TOLLGATE_K8S_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/k8s-testenv), stamped
# with their versions, so CI's fresh clones rebuild only when a version below changes. A cold build takes about 20
# minutes on two loaded cores; with Go's build cache warm, under a minute.
set -euo pipefail
# shellcheck source=../lib/go-tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/go-tools.sh"

KUBERNETES_VERSION=v1.34.2
ETCD_VERSION=v3.6.5
HELM_VERSION=v3.19.0

CACHE="${TOLLGATE_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tollgate/k8s-testenv}"
BIN="$CACHE/bin"

log() { printf '[control-plane] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------------------------
# build

# A module with local `replace ... => ./dir` directives cannot be `go install`ed. Build it from a throwaway module of
# our own that requires it and maps every module that its go.mod both requires and replaces locally to the
# published version of the same release (mapping the others, such as etcd's FORBIDDEN_DEPENDENCY guards, breaks tidy).
write_build_module() { # dir module version sibling-version
  local dir=$1 module=$2 version=$3 sibling=$4
  rm -rf "$dir" && mkdir -p "$dir"
  local gomod
  gomod=$(cd "$dir" && go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [ -f "$gomod" ] || die "could not download the go.mod of $module@$version"
  {
    echo "module tollgate.dev/k8s-testenv-build"
    echo
    echo "go 1.24"
    echo
    echo "require $module $version"
    # required modules (lines inside `require (...)` or single `require x v`)
    awk '
      /^require \(/ { inreq = 1; next }
      inreq && /^\)/ { inreq = 0; next }
      inreq { print $1 }
      /^require [^(]/ { print $2 }
    ' "$gomod" | sort -u >"$dir/required.txt"
    # local replaces whose target starts with ./ or ../, kept only when required
    awk '
      /^replace \(/ { inrep = 1; next }
      inrep && /^\)/ { inrep = 0; next }
      inrep && ($3 ~ /^\.\.?\//) { print $1 }
      /^replace [^(]/ && ($4 ~ /^\.\.?\//) { print $2 }
    ' "$gomod" | sort -u >"$dir/local.txt"
    comm -12 "$dir/required.txt" "$dir/local.txt" | while read -r m; do
      echo "replace $m => $m $sibling"
    done
  } >"$dir/go.mod"
}

build_go() { # name module version sibling-version package ldflags
  local name=$1 module=$2 version=$3 sibling=$4 pkg=$5 ldflags=$6
  local stamp="$BIN/$name.version"
  if [ -x "$BIN/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
    return 0
  fi
  local dir="$CACHE/src/$name"
  local started=$SECONDS
  log "building $name $version from the Go module proxy (cold: many minutes; warm: seconds)"
  write_build_module "$dir" "$module" "$version" "$sibling"
  (
    cd "$dir"
    export GOFLAGS=-mod=mod CGO_ENABLED=0
    nice -n 10 go get "$pkg@$version" >/dev/null 2>"$dir/get.log" || { cat "$dir/get.log" >&2; exit 1; }
    nice -n 10 go build -o "$BIN/$name.tmp" -ldflags "-s -w $ldflags" "$pkg"
  ) || die "building $name failed (see above)"
  mv "$BIN/$name.tmp" "$BIN/$name"
  echo "$version" >"$stamp"
  log "built $name in $((SECONDS - started)) s"
}

cmd_build() {
  mkdir -p "$BIN"
  command -v go >/dev/null || die "go is not on the PATH (it is needed only to build the test control plane)"
  build_lock "$CACHE"
  local kv="-X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
  local minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
  kv="$kv -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
  kv="$kv -X k8s.io/component-base/version.gitTreeState=clean"
  kv="$kv -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"
  local k8s_sibling="v0.${KUBERNETES_VERSION#v1.}"
  build_go etcd go.etcd.io/etcd/server/v3 "$ETCD_VERSION" "$ETCD_VERSION" go.etcd.io/etcd/server/v3 ""
  build_go kube-apiserver k8s.io/kubernetes "$KUBERNETES_VERSION" "$k8s_sibling" \
    k8s.io/kubernetes/cmd/kube-apiserver "$kv"
  build_go kube-controller-manager k8s.io/kubernetes "$KUBERNETES_VERSION" "$k8s_sibling" \
    k8s.io/kubernetes/cmd/kube-controller-manager "$kv"
  build_go helm helm.sh/helm/v3 "$HELM_VERSION" "$HELM_VERSION" helm.sh/helm/v3/cmd/helm \
    "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  echo "$BIN"
}

# ---------------------------------------------------------------------------------------------------------------
# up / down

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

wait_for() { # seconds description command...
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}

start_bg() { # dir name binary args...
  local dir=$1 name=$2; shift 2
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/pids/$name"
}

cmd_up() {
  local dir=${1:?usage: control-plane.sh up DIR}
  for b in etcd kube-apiserver kube-controller-manager; do
    [ -x "$BIN/$b" ] || die "$BIN/$b is missing; run: test/k8s/control-plane.sh build"
  done
  mkdir -p "$dir"/{pki,logs,pids,etcd}
  dir=$(cd "$dir" && pwd)
  local pki="$dir/pki"

  # Credentials: a CA, the API server's serving certificate, the service-account signing key, an admin token.
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=tollgate-test-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n' >"$pki/san.ext"
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
    -extfile "$pki/san.ext" -out "$pki/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  local token
  token=$(openssl rand -hex 24)
  echo "$token,admin,admin,system:masters" >"$pki/tokens.csv"

  local etcd_port etcd_peer api_port
  etcd_port=$(free_port); etcd_peer=$(free_port); api_port=$(free_port)

  start_bg "$dir" etcd "$BIN/etcd" --data-dir "$dir/etcd" --name test \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "test=http://127.0.0.1:$etcd_peer" --log-level warn --quota-backend-bytes 1073741824
  wait_for 30 etcd curl -sf "http://127.0.0.1:$etcd_port/health" || { tail -20 "$dir/logs/etcd.log" >&2; die "etcd did not start"; }

  # --etcd-compaction-interval and --watch-cache=false make an old watch answer 410 Gone within seconds, which the
  # operator's tests rely on; --endpoint-reconciler-type=none stops the "loopback range" error loop.
  start_bg "$dir" kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
    --secure-port "$api_port" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" --token-auth-file "$pki/tokens.csv" --authorization-mode RBAC \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.96.0.0/16 \
    --endpoint-reconciler-type none --etcd-compaction-interval 10s --watch-cache=false \
    --enable-priority-and-fairness=false --profiling=false
  local server="https://127.0.0.1:$api_port"

  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: $server
    certificate-authority: $pki/ca.crt
users:
- name: admin
  user:
    token: $token
contexts:
- name: test
  context: {cluster: test, user: admin, namespace: default}
current-context: test
EOF
  ready() { [ "$(curl -sf --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" "$server/readyz")" = ok ] &&
    curl -sf --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" "$server/api/v1/namespaces/default" >/dev/null; }
  wait_for 90 kube-apiserver ready || { tail -30 "$dir/logs/kube-apiserver.log" >&2; die "kube-apiserver did not become ready"; }

  start_bg "$dir" kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig "$dir/kubeconfig" \
    --leader-elect=false --secure-port 0 --service-account-private-key-file "$pki/sa.key" \
    --root-ca-file "$pki/ca.crt" --use-service-account-credentials=false \
    --controllers namespace-controller,garbage-collector-controller,serviceaccount-controller,serviceaccount-token-controller
  sa_ready() { curl -sf --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" \
    "$server/api/v1/namespaces/default/serviceaccounts/default" >/dev/null; }
  wait_for 60 kube-controller-manager sa_ready || { tail -30 "$dir/logs/kube-controller-manager.log" >&2; die "kube-controller-manager did not start"; }

  echo "$server" >"$dir/server"
  log "up: $server (kubeconfig $dir/kubeconfig)"
  echo "$dir/kubeconfig"
}

cmd_down() {
  local dir=${1:?usage: control-plane.sh down DIR}
  [ -d "$dir/pids" ] || return 0
  for name in kube-controller-manager kube-apiserver etcd; do
    local f="$dir/pids/$name"
    [ -f "$f" ] || continue
    local pid; pid=$(cat "$f")
    stop_pid "$pid"
    rm -f "$f"
  done
  rm -rf "$dir"
}

case "${1:-}" in
  build) cmd_build ;;
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  *) echo "usage: $0 build | up DIR | down DIR" >&2; exit 2 ;;
esac
