# syntax=docker/dockerfile:1
# One image for every Tollgate process (docs/helm.md):
#   serve --role api         the management API
#   serve --role gateway     the gateway (proxy traffic, and its admin listener)
#   serve                    both roles in one process (the embedded trial)
#   operator                 the Kubernetes operator
# Every process runs compiled JavaScript (contract/dist, server/dist, operator/dist); no TypeScript source, tsx or
# esbuild is in the image. It runs as the numeric user 10001 on a read-only root filesystem: the processes write only
# under /tmp and, in embedded mode, under TOLLGATE_DATA_DIR (the chart mounts /data).
# test/helm/image-entrypoints.test.ts lays out the runtime stage's COPY lines below from a built workspace and runs
# each entry point from it as that user; it cannot build this file (no container engine where the tests run).

# The image runs the current Node LTS, the supported runtime; CI runs the server, operator and provider tests on the
# same major (scripts/test-lts.sh, scripts/node-lts.sh pins its version). Development may use Node 20.18+ (package.json
# "engines"). re2 compiles here against this Node's headers, so its locked version must support this major.
ARG NODE_IMAGE=node:26-bookworm-slim

# The Node LTS and the toolchain of the native module re2 (node-gyp: g++, make, python3).
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ make python3 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
COPY contract/package.json contract/
COPY server/package.json server/
COPY operator/package.json operator/
COPY provider/package.json provider/
COPY testkit/package.json testkit/
COPY dashboard/package.json dashboard/

# The build: every dependency (without install scripts: tsc needs no native module, so re2 compiles once, in deps),
# then contract/dist, server/dist and operator/dist (scripts/build.mjs: `tsc -b` over tsconfig.build.json, the compile
# step of `npm run build`; the rest of `npm run build` builds the Terraform provider and checks generated files, which
# the image does not ship).
FROM toolchain AS build
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/
COPY contract/ contract/
COPY server/ server/
COPY operator/ operator/
RUN node scripts/build.mjs
# The dashboard's static files (Vite), served by the API at /.
COPY scripts/build-dashboard.mjs scripts/
COPY dashboard/ dashboard/
RUN node scripts/build-dashboard.mjs

# What runs: the production dependencies of the server, the operator and the contract (not the provider's, not the
# dev tools: tsx, and the esbuild it brings, are development dependencies of the root package), re2 compiled here.
FROM toolchain AS deps
RUN npm ci --omit=dev --no-audit --no-fund -w server -w operator -w contract

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /src/node_modules node_modules
COPY package.json ./
COPY contract/package.json contract/
COPY --from=build /src/contract/dist contract/dist
COPY server/package.json server/
COPY server/bin server/bin
COPY --from=build /src/server/dist server/dist
COPY operator/package.json operator/
COPY operator/bin operator/bin
COPY --from=build /src/operator/dist operator/dist
COPY --from=build /src/dashboard/dist dashboard/dist
# No sources ship, so server/bin/compiled.mjs counts each build as fresh: `tollgate` runs server/dist, and the operator
# (`tollgate operator`, operator/bin/tollgate-operator.mjs) runs operator/dist. Without the build they would stop with
# an error rather than fall back to sources and a loader that are not here; the checks below fail the image build then.
# `tollgate` on the PATH, for `kubectl exec ... -- tollgate admin ...`.
RUN ln -s /app/server/bin/tollgate.mjs /usr/local/bin/tollgate \
 && node server/bin/tollgate.mjs version | grep -q 'compiled build' \
 && node operator/bin/tollgate-operator.mjs --version | grep -q 'compiled build' \
 && test ! -e node_modules/tsx && test ! -e node_modules/esbuild
USER 10001:10001
EXPOSE 8080 8081 8082 8083
ENTRYPOINT ["node", "server/bin/tollgate.mjs"]
CMD ["serve"]
