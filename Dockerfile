# Build stage: compile TypeScript and the native SQLite driver.
# Node 24 is an LTS line that better-sqlite3 12.x builds for.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json app.ts server.ts config.ts ./
COPY plugins ./plugins
COPY schemas ./schemas
COPY db ./db
COPY console ./console
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

# Runtime stage: only the compiled server and production dependencies.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
CMD ["node", "dist/server.js"]
