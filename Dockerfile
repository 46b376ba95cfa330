# syntax=docker/dockerfile:1
# Stage 1: build the standalone Bun binary from the bundle.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:binary

# Stage 2: the binary alone on a slim base, as an unprivileged user.
# Only the state volume needs to be writable: run with --read-only and a volume at /var/lib/cronstable.
FROM debian:bookworm-slim
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
