//! Configuration: the embedded default, a file, `UTF8GATE_*` environment variables, flags.
//!
//! The layers are merged into one TOML table, each over the one below (`config::layers`):
//! the embedded default has every key, so a file, variable or flag sets only what it changes.
//! The table is deserialized (unknown keys refused, unit-suffixed names) and validated into
//! durations and limits before any socket is bound. Every error names its source: a file's
//! line and column, or the environment variable or flag.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use utf8gate_policy::Profile;

use raw::Raw;

mod cidr;
mod env;
mod error;
mod layers;
mod raw;
mod validate;

pub use cidr::Cidr;
pub use error::ConfigError;

/// The embedded default configuration (`config/utf8gate.toml`).
pub const DEFAULT_TOML: &str = include_str!("../../../config/utf8gate.toml");

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
    /// Threads serving the proxy listener (at least 1).
    pub proxy_threads: usize,
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
    /// Time to receive the request head.
    pub header_read_timeout: Duration,
    /// Time to handle one request.
    pub request_timeout: Duration,
    /// Requests handled at once per listener.
    pub max_concurrent_requests: usize,
    /// Drain time on shutdown.
    pub shutdown_grace: Duration,
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
}

/// Command-line values that override the configuration.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--upstream`.
    pub upstream: Option<String>,
    /// `--proxy-addr`.
    pub proxy_addr: Option<String>,
    /// `--api-addr`.
    pub api_addr: Option<String>,
    /// `--admin-addr`.
    pub admin_addr: Option<String>,
    /// `--profile`.
    pub profile: Option<String>,
}

impl Config {
    /// The embedded default.
    pub fn default_config() -> Config {
        Config::load(
            DEFAULT_TOML,
            "embedded default",
            &[],
            &Overrides::default(),
            &|_| None,
        )
        .unwrap_or_else(|e| panic!("the embedded default configuration is invalid: {e}"))
    }

    /// Builds the configuration from the TOML text of a file (`source` names it in errors),
    /// laid over the embedded default ([`DEFAULT_TOML`]), then `UTF8GATE_*` environment
    /// variables (name and value pairs), then flags. `read_file` reads profile files (the only
    /// I/O, passed in so tests need no files).
    pub fn load(
        text: &str,
        source: &str,
        env: &[(String, String)],
        overrides: &Overrides,
        read_file: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let mut sources = layers::Sources::default();
        let mut table = sources.file("embedded default", DEFAULT_TOML)?;
        let defaults = table.clone();
        let file = sources.file(source, text)?;
        layers::overlay(&mut table, file, &sources)?;
        for (name, raw) in env {
            let (section, key, value) =
                env::read(&defaults, name, raw).map_err(|message| ConfigError {
                    source: name.clone(),
                    line: None,
                    column: None,
                    message,
                })?;
            let value = sources.named(name, raw, value);
            layers::set(&mut table, &section, &key, value);
        }
        for (flag, section, key, value) in overrides.flags() {
            if let Some(value) = value {
                let value = sources.flag(flag, value);
                layers::set(&mut table, section, key, value);
            }
        }
        let raw = Raw::from_table(table)
            .map_err(|e| sources.error(e.span().unwrap_or(0..0), e.message().to_string()))?;
        validate::validate(raw, &sources, read_file)
    }
}

impl Overrides {
    /// Each flag with the key it sets and its value, if given.
    fn flags(&self) -> [(&'static str, &'static str, &'static str, Option<&str>); 5] {
        [
            (
                "--proxy-addr",
                "listen",
                "proxy_addr",
                self.proxy_addr.as_deref(),
            ),
            ("--api-addr", "listen", "api_addr", self.api_addr.as_deref()),
            (
                "--admin-addr",
                "listen",
                "admin_addr",
                self.admin_addr.as_deref(),
            ),
            ("--upstream", "upstream", "url", self.upstream.as_deref()),
            ("--profile", "policy", "profile", self.profile.as_deref()),
        ]
    }
}

/// The host and port of an upstream URL of the only form the configuration accepts,
/// `http://host:port` (a trailing `/` allowed; no path, query, user or `https`), else `None`.
pub fn upstream_authority(url: &str) -> Option<axum::http::uri::Authority> {
    let host = url.strip_prefix("http://")?.trim_end_matches('/');
    if host.is_empty() || host.contains(['/', '?', '#', '@']) {
        return None;
    }
    host.parse().ok()
}

#[cfg(test)]
mod tests;
