#!/usr/bin/env bash
# The server, operator and provider tests on the Node LTS that the image runs (Dockerfile), next to the development
# Node's full run (`npm test`): scripts/node-lts.sh fetches the LTS and re2 compiled for it into a cache outside the
# clone; scripts/node-lts-hooks.mjs, preloaded through NODE_OPTIONS into every node process the tests start, loads
# that re2 (its directory is the preload's query parameter). The LTS is first on the PATH, so the processes that tests
# spawn as `node` run on it too.
#
#   scripts/test-lts.sh                 server/src, operator/src and provider/src
#   scripts/test-lts.sh FILTER...       the test files whose path contains a FILTER (as scripts/test.mjs)
set -euo pipefail
cd "$(dirname "$0")/.."

node_bin=$(bash scripts/node-lts.sh install)
re2=$(bash scripts/node-lts.sh re2)
export PATH="$(dirname "$node_bin"):$PATH"
# A file URL: percent-encoded, so no space can split NODE_OPTIONS.
hooks=$(node -e 'const u = require("node:url").pathToFileURL(process.argv[1]); u.searchParams.set("re2", process.argv[2]);
  console.log(u.href)' "$PWD/scripts/node-lts-hooks.mjs" "$re2")
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--import=$hooks"

echo "[test-lts] node $(node --version), re2 from $re2" >&2
[ $# -gt 0 ] || set -- server/src operator/src provider/src
exec node scripts/test.mjs "$@"
