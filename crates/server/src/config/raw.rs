//! The configuration file as written: one struct per TOML section, every key with its
//! default, unknown keys refused. `validate` in the parent module turns it into a [`Config`](super::Config).

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub(super) struct Raw {
    pub(super) listen: RawListen,
    pub(super) upstream: RawUpstream,
    pub(super) policy: RawPolicy,
    pub(super) limits: RawLimits,
    pub(super) authz: RawAuthz,
    pub(super) log: RawLog,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawListen {
    pub(super) proxy_addr: String,
    pub(super) api_addr: String,
    pub(super) admin_addr: String,
    pub(super) proxy_threads: u64,
    pub(super) trusted_proxies: Vec<String>,
    pub(super) refuse_untrusted_path_overrides: bool,
    pub(super) allow_trace: bool,
}

impl Default for RawListen {
    fn default() -> RawListen {
        RawListen {
            proxy_addr: "127.0.0.1:8080".into(),
            api_addr: "127.0.0.1:8081".into(),
            admin_addr: "127.0.0.1:9090".into(),
            proxy_threads: 0,
            trusted_proxies: Vec::new(),
            refuse_untrusted_path_overrides: false,
            allow_trace: false,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawUpstream {
    pub(super) url: String,
    pub(super) connect_timeout_seconds: f64,
    pub(super) response_timeout_seconds: f64,
}

impl Default for RawUpstream {
    fn default() -> RawUpstream {
        RawUpstream {
            url: String::new(),
            connect_timeout_seconds: 2.0,
            response_timeout_seconds: 30.0,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawPolicy {
    pub(super) profile: String,
    pub(super) profile_files: Vec<String>,
    pub(super) reject_status: u16,
    pub(super) authz_deny_status: u16,
}

impl Default for RawPolicy {
    fn default() -> RawPolicy {
        RawPolicy {
            profile: "strict".into(),
            profile_files: Vec::new(),
            reject_status: 400,
            authz_deny_status: 403,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawLimits {
    pub(super) max_header_bytes: u64,
    pub(super) max_body_bytes: u64,
    pub(super) max_scan_bytes: u64,
    pub(super) header_read_timeout_seconds: f64,
    pub(super) request_timeout_seconds: f64,
    pub(super) max_concurrent_requests: u64,
    pub(super) shutdown_grace_seconds: f64,
    pub(super) max_json_depth: u64,
    pub(super) max_multipart_parts: u64,
}

impl Default for RawLimits {
    fn default() -> RawLimits {
        RawLimits {
            max_header_bytes: 65_536,
            max_body_bytes: 8 << 20,
            max_scan_bytes: 1 << 30,
            header_read_timeout_seconds: 10.0,
            request_timeout_seconds: 60.0,
            max_concurrent_requests: 1024,
            shutdown_grace_seconds: 30.0,
            max_json_depth: 64,
            max_multipart_parts: 100,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawAuthz {
    pub(super) trusted_peers: Vec<String>,
}

impl Default for RawAuthz {
    fn default() -> RawAuthz {
        RawAuthz {
            trusted_peers: vec!["127.0.0.0/8".into(), "::1/128".into()],
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawLog {
    pub(super) format: String,
    pub(super) level: String,
    pub(super) buffer_lines: u64,
}

impl Default for RawLog {
    fn default() -> RawLog {
        RawLog {
            format: "json".into(),
            level: "info".into(),
            buffer_lines: 16_384,
        }
    }
}
