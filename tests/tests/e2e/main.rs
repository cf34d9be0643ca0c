//! End-to-end tests: the real `utf8gate serve` process on loopback, a real upstream behind it,
//! and a raw HTTP/1.1 client that sends exactly the bytes each test needs.
//!
//! One test binary, a module per area: proxy (allow, sanitize, reject), readings (coded bodies,
//! requests with two readings, forwarding headers), upstream failures, limits, API (scan,
//! sanitize), authz, front proxies (Traefik, HAProxy, Chromium), HTTP/2 (h2c), admin, reload
//! (SIGHUP, `POST /admin/reload`), shutdown, the memory budget and peak memory, and published
//! third-party corpora replayed (corpora).
//! Each module ends its sections with a "New ... tests go here" signpost. Every wait is bounded (exchange
//! timeouts, polls with a deadline); no sleep is used to wait for something a poll can observe.

mod admin;
mod api;
mod authz;
mod authz_refused;
mod budget;
mod cli;
mod corpora;
mod embedded;
mod errors;
mod ext_proc;
mod file_uploads;
mod fronts;
mod grpc_authz;
mod http2;
mod http2_cookies;
mod identity;
mod limits;
mod memory;
mod proxy;
mod readings;
mod reload;
mod routes;
mod shutdown;
mod support;
mod tls;
mod uploads;
mod upstream;
mod upstream_connections;
mod websocket;
