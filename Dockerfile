# syntax=docker/dockerfile:1
# Stage 1: build the standalone Bun binary from the bundle.
FROM node:20-bookworm-slim AS build
# A compiler for native addons whose prebuilt download is unavailable (better-sqlite3 on an
# unusual platform); the binary itself uses Bun's built-in SQLite.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# Bun compiles the binary; it is pinned apart from the project's dependencies (tools/runtimes).
COPY tools/runtimes/package.json tools/runtimes/package-lock.json tools/runtimes/
RUN npm ci --prefix tools/runtimes --no-audit --no-fund
COPY . .
# Writes dist/cronstable (scripts/build-binary.mjs), the file the runtime stage copies.
RUN npm run build:binary

# Stage 2: the binary alone on a slim base, as an unprivileged user.
# Only the state volume needs to be writable: run with --read-only and a volume at /var/lib/cronstable.
FROM debian:bookworm-slim AS runtime
RUN groupadd --system --gid 10001 cronstable \
 && useradd --system --uid 10001 --gid cronstable --home-dir /var/lib/cronstable --shell /usr/sbin/nologin cronstable \
 && mkdir -p /etc/cronstable.d /var/lib/cronstable \
 && chown cronstable:cronstable /var/lib/cronstable
COPY --from=build /src/dist/cronstable /usr/local/bin/cronstable
COPY example/demo/ /etc/cronstable.d/
USER cronstable:cronstable
VOLUME ["/var/lib/cronstable"]
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/cronstable"]
CMD ["-c", "/etc/cronstable.d"]

# Stage 3 (opt-in, `--target grand-tour`): the runtime plus the tools example/grand-tour's jobs and
# its certificate step use (curl for the second-level probes, openssl for gen-certs.sh).
FROM runtime AS grand-tour
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/*
USER cronstable:cronstable

# The default target stays the lean runtime image.
FROM runtime
