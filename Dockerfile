# syntax=docker/dockerfile:1
# The service's image. Each RUN below is a command .ci/run also runs (build,
# then `npm ci --omit=dev` into a clean copy and `node dist/src/server.js`),
# since no Docker engine runs where this project is built and tested.

# Node 24, the Active LTS (.nvmrc pins the exact release CI tests on).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# jemalloc instead of glibc's malloc: glibc keeps, as holes in its arenas, what
# the process's threads free under load, and the RSS stays at its high-water
# mark; jemalloc gives freed pages back within about a second
# (docs/performance-history.md, "Memory: locale data and the allocator").
# Debian's package, at one path on every arch.
RUN apt-get update \
  && apt-get install -y --no-install-recommends libjemalloc2 \
  && rm -rf /var/lib/apt/lists/* \
  && ln -s "/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2" /usr/local/lib/libjemalloc.so.2
# V8 sizes how far the old generation may grow past its live data (about
# 20 MB here) from this cap: from 1.3x at 256 MB or less to 4x at 2 GB and more.
# `npm run bench` measured a peak RSS under load of about 190 MB per process
# with no cap (4x); with 96 MB, 125 MB but two full collections per 1,000
# requests; with 1024 MB (1.6x), about 131 MB and 1.3 per 1,000.
# The young generation: Node 24 lets each semi-space grow to 32 MB; held at
# 8 MB, the bench's peak RSS is under 150 MB (docs/performance.md, "The
# young generation: 8 MB, scavenged on the main thread").
# npm run bench starts the service with this same NODE_OPTIONS, LD_PRELOAD and
# MALLOC_CONF, read from here.
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=1024 --max-semi-space-size=8" \
    LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    MALLOC_CONF=background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0 \
    PORT=8080 \
    METRICS_PORT=9464 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# No secrets here: signing key, clients and DATABASE_URL come from the
# environment or mounted files at run time.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE ${PORT} ${METRICS_PORT}
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# --no-allocation-site-pretenuring: under load V8 decided that pg's per-query
# objects (row descriptions, rows) live long and allocated them straight in the
# old generation, so a full collection (4-9 ms, every request waiting) came
# every 0.7 s and scavenges took 1.5 ms. Without it they die young: scavenges of
# 0.5 ms, a few full collections a minute; the bench's reads went from about
# 1.1-1.3x to 0.6-0.85x of ceiling (b)'s p99 and 15-20 % fewer CPU us per request.
# --heap-growing-percent=30: after each full collection the old generation may
# grow by 30 % of what survived before the next, where V8 otherwise allows up
# to 60 % under the 1024 MB cap: a lower peak for a few more full collections
# (docs/performance-history.md, "Memory: the old generation's growth").
# --no-parallel-scavenge: a scavenge on the main thread alone pauses as long
# as one shared with helper threads, which on a machine whose cores are busy
# with the database only wait for a core: half the CPU a scavenge costs.
# V8 flags NODE_OPTIONS refuses, so they are given here; npm run bench reads
# them from this line.
CMD ["node", "--no-allocation-site-pretenuring", "--heap-growing-percent=30", "--no-parallel-scavenge", "dist/src/server.js"]
