//! The configuration as written: one struct per TOML section, unknown keys refused, every
//! value that validation can refuse kept with its span (see [`layers`](super::layers)).
//!
//! There are no defaults here: the merged table always holds every key, since the embedded
//! default (`config/utf8gate.toml`) sets them all and is its bottom layer. A key missing from
//! it is a bug, which `Config::default_config` (and its tests) would report.

use serde::Deserialize;
use toml::Spanned;
use toml::de::DeTable;

use super::size::RawSize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Raw {
    pub(super) route: Vec<super::routes::RawRoute>,
    pub(super) listen: RawListen,
    pub(super) upstream: RawUpstream,
    pub(super) policy: RawPolicy,
    pub(super) limits: RawLimits,
    pub(super) explain: RawExplain,
    pub(super) authz: RawAuthz,
    pub(super) log: RawLog,
    pub(super) errors: RawErrors,
    pub(super) websocket: super::websocket::RawWebSocket,
    pub(super) admin: RawAdmin,
    pub(super) tls: super::tls::RawTls,
}

impl Raw {
    /// Deserializes the merged table; errors carry the span of the value (or unknown key).
    pub(super) fn from_table(table: DeTable<'_>) -> Result<Raw, toml::de::Error> {
        Raw::deserialize(toml::de::Deserializer::from(Spanned::new(0..0, table)))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawListen {
    pub(super) proxy_addr: Spanned<String>,
    pub(super) api_addr: Spanned<String>,
    pub(super) admin_addr: Spanned<String>,
    pub(super) grpc_authz_addr: Spanned<String>,
    pub(super) proxy_threads: Spanned<u64>,
    pub(super) trusted_proxies: Vec<Spanned<String>>,
    pub(super) refuse_untrusted_path_overrides: bool,
    pub(super) allow_trace: bool,
    pub(super) http2: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUpstream {
    pub(super) url: Spanned<String>,
    pub(super) connect_timeout_seconds: Spanned<f64>,
    pub(super) response_timeout_seconds: Spanned<f64>,
    pub(super) max_idle_connections: Spanned<u64>,
    pub(super) idle_timeout_seconds: Spanned<f64>,
    pub(super) http2: bool,
    pub(super) tls_ca: Spanned<String>,
    pub(super) tls_cert: Spanned<String>,
    pub(super) tls_key: Spanned<String>,
    pub(super) tls_server_name: Spanned<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPolicy {
    pub(super) profile: Spanned<String>,
    pub(super) profile_files: Vec<Spanned<String>>,
    pub(super) reject_status: Spanned<u16>,
    pub(super) authz_deny_status: Spanned<u16>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLimits {
    pub(super) max_header_bytes: Spanned<RawSize>,
    pub(super) max_body_bytes: Spanned<RawSize>,
    pub(super) max_scan_bytes: Spanned<RawSize>,
    pub(super) max_archive_bytes: Spanned<RawSize>,
    pub(super) max_buffered_bytes: Spanned<RawSize>,
    pub(super) buffer_wait_seconds: Spanned<f64>,
    pub(super) header_read_timeout_seconds: Spanned<f64>,
    pub(super) request_timeout_seconds: Spanned<f64>,
    pub(super) max_concurrent_requests: Spanned<u64>,
    pub(super) max_concurrent_evaluations: Spanned<u64>,
    pub(super) max_concurrent_streams: Spanned<u64>,
    pub(super) h2_max_pending_accept_reset_streams: Spanned<u64>,
    pub(super) h2_max_local_error_reset_streams: Spanned<u64>,
    pub(super) shutdown_grace_seconds: Spanned<f64>,
    pub(super) max_json_depth: Spanned<u64>,
    pub(super) max_multipart_parts: Spanned<u64>,
    pub(super) max_multipart_depth: Spanned<u64>,
    pub(super) max_archive_entries: Spanned<u64>,
    pub(super) max_archive_name_bytes: Spanned<u64>,
    pub(super) max_archive_unpacked_bytes: Spanned<RawSize>,
    pub(super) max_archive_depth: Spanned<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawExplain {
    pub(super) enabled: bool,
    pub(super) max_text_bytes: Spanned<RawSize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAuthz {
    pub(super) trusted_peers: Vec<Spanned<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLog {
    pub(super) format: Spanned<String>,
    pub(super) level: String,
    pub(super) buffer_lines: Spanned<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAdmin {
    pub(super) reload: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawErrors {
    pub(super) detail: Spanned<String>,
    pub(super) html: bool,
}
