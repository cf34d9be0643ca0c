//! The validated configuration's types (a leaf of `config`: loading and validation build them).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use utf8gate_policy::Profile;

use crate::problem::ErrorStyle;

use super::cidr::Cidr;
use crate::routes::Routes;

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Human-readable.
    Pretty,
}

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Proxy listener address.
    pub proxy_addr: SocketAddr,
    /// API listener address.
    pub api_addr: SocketAddr,
    /// Admin listener address.
    pub admin_addr: SocketAddr,
    /// Envoy gRPC `ext_authz` listener address, if enabled.
    pub grpc_authz_addr: Option<SocketAddr>,
    /// Threads serving the proxy listener (at least 1).
    pub proxy_threads: usize,
    /// `listen.proxy_threads` as set (0: one per available core, which `proxy_threads` is):
    /// what a reload compares, so that a changed CPU quota is no change of the setting.
    pub proxy_threads_set: usize,
    /// Upstream base URL (`http://host:port`), if proxying.
    pub upstream: Option<String>,
    /// Upstream connect timeout.
    pub connect_timeout: Duration,
    /// Upstream response-head timeout.
    pub response_timeout: Duration,
    /// Default profile name.
    pub profile: String,
    /// Every profile by name: the built-ins and the loaded ones, with the limits applied.
    pub profiles: BTreeMap<String, Profile>,
    /// The routes of the proxy and authorization checks (`[[route]]`), then the default one.
    pub routes: Routes,
    /// Status of a rejected proxied request.
    pub reject_status: u16,
    /// Status of a denied authorization check.
    pub authz_deny_status: u16,
    /// Largest request head.
    pub max_header_bytes: usize,
    /// Largest buffered body.
    pub max_body_bytes: usize,
    /// Largest scanned body.
    pub max_scan_bytes: u64,
    /// Largest archive `utf8gate scan` reads whole for its entry names (`limits.max_archive_bytes`).
    pub max_archive_bytes: u64,
    /// The memory budget of buffered bodies, across requests and listeners
    /// (`limits.max_buffered_bytes`).
    pub max_buffered_bytes: u64,
    /// How long a body waits for the memory budget before it is refused with 503
    /// (`limits.buffer_wait_seconds`).
    pub buffer_wait: Duration,
    /// Time to receive the request head.
    pub header_read_timeout: Duration,
    /// Time to handle one request.
    pub request_timeout: Duration,
    /// Requests handled at once per listener.
    pub max_concurrent_requests: usize,
    /// Evaluations of large or coded bodies run at once, for the process
    /// (`limits.max_concurrent_evaluations` as set; 0: one per available core).
    pub max_concurrent_evaluations: usize,
    /// The HTTP/2 settings of the proxy and API listeners (`listen.http2`, `[limits]`).
    pub http2: Http2,
    /// Speak h2c (prior knowledge) to the upstream (`upstream.http2`).
    pub upstream_http2: bool,
    /// Idle HTTP/1.1 upstream connections kept per proxy thread
    /// (`upstream.max_idle_connections`).
    pub upstream_max_idle: usize,
    /// How long an idle upstream connection is kept (`upstream.idle_timeout_seconds`).
    pub upstream_idle_timeout: Duration,
    /// Drain time on shutdown.
    pub shutdown_grace: Duration,
    /// Serve the explain page, `GET /explain` (`[explain] enabled`).
    pub explain: bool,
    /// Largest text `/v1/scan?explain=true` accepts.
    pub explain_max_text_bytes: usize,
    /// Peers trusted by `/authz/forward`.
    pub trusted_peers: Vec<Cidr>,
    /// Peers of the proxy listener whose forwarding headers (`X-Forwarded-*`, `Forwarded`)
    /// are kept and extended; those of any other peer are replaced. Empty: trust nobody.
    pub trusted_proxies: Vec<Cidr>,
    /// Refuse (400) rather than remove the path-override headers (`X-Original-URL`...) of
    /// peers that are not trusted proxies.
    pub refuse_untrusted_path_overrides: bool,
    /// Forward `TRACE` requests (refused with 405 otherwise).
    pub allow_trace: bool,
    /// Log format.
    pub log_format: LogFormat,
    /// Log level or filter directive.
    pub log_level: String,
    /// Log lines queued for the writer thread; more are dropped (and counted), never waited for.
    pub log_buffer_lines: usize,
    /// How errors are answered by default (`[errors]`): detail, and whether HTML may be served.
    pub errors: ErrorStyle,
    /// WebSocket upgrades and tunnels (`[websocket]`).
    pub websocket: super::WebSocket,
    /// Serve `POST /admin/reload` on the admin listener (`admin.reload`).
    pub admin_reload: bool,
    /// TLS on the listeners (`[tls]`).
    pub tls: super::Tls,
    /// TLS to an `https://` upstream (`upstream.tls_*`).
    pub upstream_tls: super::UpstreamTls,
}

/// Whether an upstream URL (as [`upstream_authority`] accepts it) is `https://`.
pub fn upstream_is_https(url: &str) -> bool {
    url.starts_with("https://")
}

impl Config {
    /// The largest gRPC message the `ext_authz` check reads: the described request's head
    /// (twice the head limit, for the raw and the string values) and body, and room for the
    /// rest of the check.
    pub fn grpc_max_message(&self) -> usize {
        (self.max_body_bytes)
            .saturating_add(self.max_header_bytes.saturating_mul(2))
            .saturating_add(64 * 1024)
    }
}

/// The HTTP/2 (h2c) settings of the proxy and API listeners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Http2 {
    /// Serve h2c next to HTTP/1.1 (`listen.http2`).
    pub enabled: bool,
    /// Streams open at once per connection (`limits.max_concurrent_streams`).
    pub max_concurrent_streams: u32,
    /// Streams a client may reset before they are served (`limits.h2_max_pending_accept_reset_streams`).
    pub max_pending_accept_reset_streams: usize,
    /// Streams the server may reset for protocol errors (`limits.h2_max_local_error_reset_streams`).
    pub max_local_error_reset_streams: usize,
}

/// The host and port of an upstream URL of the only forms the configuration accepts,
/// `http://host:port` and `https://host:port` (a trailing `/` allowed; no path, query or
/// user), else `None`.
pub fn upstream_authority(url: &str) -> Option<axum::http::uri::Authority> {
    let host = (url.strip_prefix("http://"))
        .or_else(|| url.strip_prefix("https://"))?
        .trim_end_matches('/');
    if host.is_empty() || host.contains(['/', '?', '#', '@']) {
        return None;
    }
    host.parse().ok()
}
