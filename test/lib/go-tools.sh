# Sourced by the scripts that build test tools from the Go module proxy into a cache outside the clone and run them by
# PID (test/k8s/control-plane.sh, test/terraform/opentofu.sh, test/helm/oci-registry.sh).

# build_lock CACHE: one build at a time per cache, since several test files may ask for the same tool at once. The lock
# is held on fd 9 until the calling script exits.
build_lock() {
  mkdir -p "$1"
  exec 9>"$1/.build.lock"
  flock 9
}

# stop_pid PID: SIGTERM, up to 5 s to exit, then SIGKILL. A process already gone is fine.
stop_pid() {
  kill "$1" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$1" 2>/dev/null || true
}
