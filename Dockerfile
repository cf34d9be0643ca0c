# syntax=docker/dockerfile:1
#
# The utf8gate container image: the `utf8gate` binary and its default configuration, nothing
# else, running as an unprivileged numeric user. It writes no file, so it runs with a read-only
# root filesystem (docker run --read-only, Kubernetes readOnlyRootFilesystem: true).
#
#   docker build -t utf8gate .
#   docker run --read-only -p 8080:8080 -p 9090:9090 utf8gate serve \
#       --config /etc/utf8gate/utf8gate.toml --upstream http://app:3000
#
# Base images are build arguments; keep both on the same Debian release, because the binary links
# against the build image's glibc:
#   docker build --build-arg RUST_IMAGE=rust:1.95-trixie --build-arg RUNTIME_IMAGE=debian:trixie-slim .
#
# With a binary built on the host (no Rust image needed), on a runtime base of the same release:
#   cargo build --release --locked -p utf8gate-server && install -D target/release/utf8gate dist/utf8gate
#   podman build --build-arg BINARY_FROM=host .
#
# Checked by .ci/deploy-checks with hadolint, and built and run by .ci/image-check (podman, a
# Debian base made with debootstrap, the host-built binary). Kubernetes manifests:
# deploy/kubernetes/.

ARG RUST_IMAGE=rust:1.95-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim
# Where the binary comes from: "source" (built in the image from this context, the default) or
# "host" (dist/utf8gate in the context, built beforehand with
# `cargo build --release --locked -p utf8gate-server` on a machine with the runtime image's
# glibc: used where no Rust image can be pulled, as in .ci/image-check).
ARG BINARY_FROM=source

FROM ${RUST_IMAGE} AS binary-source
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p utf8gate-server \
    && install -D -m 0755 target/release/utf8gate /out/utf8gate

FROM ${RUNTIME_IMAGE} AS binary-host
COPY dist/utf8gate /out/utf8gate

# The configuration shipped in the image is config/utf8gate.toml with the three listen addresses
# on 0.0.0.0 (inside a container, 127.0.0.1 is unreachable from outside it); every other value is
# the documented default. It is checked by the binary that goes into the image, and the build
# fails if the three substitutions did not all apply. (DL3006 does not apply: this FROM names one
# of the two stages above, not an image.)
# hadolint ignore=DL3006
FROM binary-${BINARY_FROM} AS binary
COPY config/utf8gate.toml /out/utf8gate.default.toml
RUN sed -e 's/^proxy_addr = "127\.0\.0\.1:8080"$/proxy_addr = "0.0.0.0:8080"/' \
        -e 's/^api_addr = "127\.0\.0\.1:8081"$/api_addr = "0.0.0.0:8081"/' \
        -e 's/^admin_addr = "127\.0\.0\.1:9090"$/admin_addr = "0.0.0.0:9090"/' \
        /out/utf8gate.default.toml > /out/utf8gate.toml \
    && test "$(grep -c '^[a-z]*_addr = "0\.0\.0\.0:' /out/utf8gate.toml)" -eq 3 \
    && /out/utf8gate check-config /out/utf8gate.toml

FROM ${RUNTIME_IMAGE}
LABEL org.opencontainers.image.title="utf8gate" \
      org.opencontainers.image.description="Strict UTF-8 gateway: proxy, scanning API, Envoy/nginx/Traefik authorization checks" \
      org.opencontainers.image.licenses="MIT OR Apache-2.0"
COPY --from=binary /out/utf8gate /usr/local/bin/utf8gate
COPY --from=binary /out/utf8gate.toml /etc/utf8gate/utf8gate.toml
# glibc keeps a malloc arena per thread that allocates, and what a blocking evaluation frees
# stays in its arena: four 8 MiB hostile bodies at once peaked 133-150 MiB above idle with the
# default, 83 MiB with two arenas, at no throughput cost measured (docs/BENCHMARKS.md). The
# binary caps them at two itself (budget::arenas); the variable says so where it is seen.
ENV MALLOC_ARENA_MAX=2
# A numeric user that exists nowhere in the image: nothing to own, nothing to write.
USER 10001:10001
# proxy (only with an upstream), api, admin (/metrics, /healthz, /readyz).
EXPOSE 8080 8081 9090
# utf8gate drains in-flight requests on SIGTERM for limits.shutdown_grace_seconds.
STOPSIGNAL SIGTERM
# The image has no HTTP client; bash (part of debian:*-slim) speaks enough HTTP over /dev/tcp to
# ask the admin listener's /healthz. It assumes the admin listener on port 9090; orchestrators
# that probe over HTTP themselves (Kubernetes: deploy/kubernetes) ignore this.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/9090 && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && read -r _ status _ <&3 && [ \"$status\" = 200 ]"]
ENTRYPOINT ["/usr/local/bin/utf8gate"]
CMD ["serve", "--config", "/etc/utf8gate/utf8gate.toml"]
