# syntax=docker/dockerfile:1
# SheetPort's server image: `sheetport serve` on 0.0.0.0:8787 with its data dir in /data (docs/deploy.md).
# The server runs its TypeScript sources through Node's type stripping, as `npm start` does in a checkout, so
# nothing is compiled; the build stage only installs the packages and builds the dashboard (renderer/dist).

# ---- build: every package, the dashboard built, then the development packages dropped ----
FROM node:22.23.3-bookworm-slim AS build
WORKDIR /app
# Electron (the tray app's runtime, a development package here) is never downloaded: the image has no tray.
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1
COPY package.json package-lock.json ./
# No install scripts: better-sqlite3 loads the prebuilt addon its package ships (linux x64/arm64), so no compiler
# is needed; `prepare` (the dashboard's build) runs below, once the sources are in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build:ui && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# ---- runtime: the production packages, the server's sources and the built dashboard, as a user without root ----
FROM node:22.23.3-bookworm-slim
# MALLOC_ARENA_MAX: glibc's allocator keeps at most two pools of freed memory instead of one per thread that
# allocated (the parse and piece threads, zlib on the thread pool): about 60-80 MB less resident with a
# million-row workbook, at no measured cost in time (docs/performance.md). MALLOC_MMAP_THRESHOLD_: buffers of 1 MB
# or more mapped on their own, so freeing one gives it back (the threshold otherwise grows up to 32 MB). The
# `sheetport` command sets the same (bin/sheetport.js) where they are not set already, as here.
ENV NODE_ENV=production \
    SHEETPORT_DATA_DIR=/data \
    SHEETPORT_SECRETS=file \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=1048576
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/LICENSE ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/bin ./bin
COPY --from=build --chown=node:node /app/server ./server
COPY --from=build --chown=node:node /app/docs ./docs
COPY --from=build --chown=node:node /app/renderer/dist ./renderer/dist
# The data dir and the shared workbooks' folder belong to the user the server runs as (a new volume mounted there
# takes that owner); `sheetport` on the PATH for `docker compose exec`.
RUN mkdir -p /data /workbooks && chown node:node /data /workbooks \
    && ln -s /app/bin/sheetport.js /usr/local/bin/sheetport
USER node
VOLUME ["/data"]
EXPOSE 8787
# Liveness through Node's own fetch (the slim image has no curl).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/sheetport.js", "serve", "--host", "0.0.0.0", "--port", "8787"]
