# Outpost's image: the compiled server on Node.js LTS, running as the unprivileged `node` user.
# Node 24 is an LTS line that better-sqlite3 12.x builds for; bump NODE_VERSION within an LTS line, but
# not to 24.19+ while better-sqlite3 is 12.x (it aborts there: docs/deployment.md, "Docker"). .ci/run tests this version.
ARG NODE_VERSION=24.11.1

# Build stage: compile TypeScript and the native SQLite driver.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json app.ts server.ts cluster-primary.ts config.ts ./
COPY features ./features
COPY platform ./platform
COPY db ./db
COPY console ./console
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

# Runtime stage: only the compiled server and production dependencies, owned by root (read-only to
# the server); the data directory is the one place the server writes.
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    DB_PATH=/app/data/outpost.db
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# The server runs in the data directory: the SQLite database and, on a first start without API_KEY,
# the .env with the generated keys (printed once in the log) both land in the volume and outlive the
# container. `docker run -v outpost-data:/app/data -p 8080:8080 outpost` needs no other setting.
WORKDIR /app/data
VOLUME ["/app/data"]
EXPOSE 8080
# Liveness: the process answers. A database outage shows in /health/ready, not as a dead container.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The same Node flags as `npm start` (package.json): a young generation of 2 × 8 MB instead of V8's
# 2 × 16 MB held a worker under load at 188 MB instead of 222 MB, with CPU per request within ±5 %
# (docs/performance.md, "Settings that matter").
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=100", "/app/dist/server.js"]
