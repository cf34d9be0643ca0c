//! Configuration: the embedded default, a file, `UTF8GATE_*` environment overrides, flags.
//!
//! Raw (serde, unknown keys refused, unit-suffixed names) is turned into validated values
//! (durations, non-zero limits) before any socket is bound. Every error carries the source and,
//! for files, the line.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use utf8gate_policy::Profile;

use raw::Raw;

mod cidr;
mod env;
mod error;
mod raw;

pub use cidr::Cidr;
pub use error::ConfigError;
use error::{line_of, seconds, toml_error};

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

    /// Builds the configuration from TOML text (`source` names it), environment variables
    /// (`UTF8GATE_*` pairs) and flags. `read_file` reads profile files (the only I/O, passed
    /// in so tests need no files).
    pub fn load(
        text: &str,
        source: &str,
        env: &[(String, String)],
        overrides: &Overrides,
        read_file: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let mut value: toml::Table =
            toml::from_str(text).map_err(|e| toml_error(&e, text, source))?;
        for (name, raw) in env {
            env::apply(&mut value, name, raw)?;
        }
        let raw: Raw =
            toml::Value::Table(value.clone())
                .try_into()
                .map_err(|e: toml::de::Error| {
                    // Point at the key in the file when the value came from there.
                    let key = e
                        .message()
                        .split('`')
                        .nth(1)
                        .unwrap_or_default()
                        .to_string();
                    ConfigError {
                        source: source.to_string(),
                        line: (!key.is_empty()).then(|| line_of(text, &key)).flatten(),
                        message: e.message().to_string(),
                    }
                })?;
        validate(raw, source, text, overrides, read_file)
    }
}

fn validate(
    raw: Raw,
    source: &str,
    text: &str,
    overrides: &Overrides,
    read_file: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let bad = |key: &str, message: String| ConfigError {
        source: source.to_string(),
        line: line_of(text, key),
        message: format!("{key}: {message}"),
    };
    let addr = |key: &str, value: &str| -> Result<SocketAddr, ConfigError> {
        value.parse().map_err(|_| {
            bad(
                key,
                format!("{value:?} is not a socket address (like 127.0.0.1:8080)"),
            )
        })
    };
    let proxy_addr = addr(
        "proxy_addr",
        overrides
            .proxy_addr
            .as_deref()
            .unwrap_or(&raw.listen.proxy_addr),
    )?;
    let api_addr = addr(
        "api_addr",
        overrides
            .api_addr
            .as_deref()
            .unwrap_or(&raw.listen.api_addr),
    )?;
    let admin_addr = addr(
        "admin_addr",
        overrides
            .admin_addr
            .as_deref()
            .unwrap_or(&raw.listen.admin_addr),
    )?;
    let url = overrides.upstream.clone().unwrap_or(raw.upstream.url);
    let upstream = if url.is_empty() {
        None
    } else {
        if upstream_authority(&url).is_none() {
            return Err(bad(
                "url",
                format!("{url:?} must be http://host:port (no path, no https)"),
            ));
        }
        Some(url.trim_end_matches('/').to_string())
    };
    let l = &raw.limits;
    let limit = |key: &str, v: u64, min: u64, max: u64| -> Result<u64, ConfigError> {
        if (min..=max).contains(&v) {
            Ok(v)
        } else {
            Err(bad(key, format!("{v} is outside {min}..={max}")))
        }
    };
    let max_header_bytes = limit("max_header_bytes", l.max_header_bytes, 1024, 1 << 20)? as usize;
    let max_body_bytes = limit("max_body_bytes", l.max_body_bytes, 1, 1 << 32)? as usize;
    let max_scan_bytes = limit("max_scan_bytes", l.max_scan_bytes, 1, u64::MAX)?;
    let max_concurrent_requests = limit(
        "max_concurrent_requests",
        l.max_concurrent_requests,
        1,
        1 << 20,
    )? as usize;
    let max_json_depth = limit("max_json_depth", l.max_json_depth, 1, 10_000)? as usize;
    let max_multipart_parts =
        limit("max_multipart_parts", l.max_multipart_parts, 1, 100_000)? as usize;
    for (key, status) in [
        ("reject_status", raw.policy.reject_status),
        ("authz_deny_status", raw.policy.authz_deny_status),
    ] {
        if !(400..=499).contains(&status) {
            return Err(bad(key, format!("{status} is not a 4xx status")));
        }
    }
    let mut profiles = BTreeMap::new();
    for name in Profile::BUILT_IN {
        if let Some(p) = Profile::built_in(name) {
            profiles.insert(name.to_string(), p);
        }
    }
    for file in &raw.policy.profile_files {
        let text =
            read_file(file).ok_or_else(|| bad("profile_files", format!("cannot read {file:?}")))?;
        let p = Profile::from_toml(&text, file).map_err(|e| ConfigError {
            source: e.source.clone(),
            line: Some(e.line),
            message: e.message.clone(),
        })?;
        profiles.insert(p.name.clone(), p);
    }
    for p in profiles.values_mut() {
        p.limits.max_json_depth = max_json_depth;
        p.limits.max_multipart_parts = max_multipart_parts;
        // max_body_bytes bounds what a coded body decodes to as well (never raised).
        p.limits.max_decoded_bytes = p.limits.max_decoded_bytes.min(max_body_bytes);
    }
    let profile = overrides.profile.clone().unwrap_or(raw.policy.profile);
    if !profiles.contains_key(&profile) {
        let known: Vec<_> = profiles.keys().cloned().collect();
        return Err(bad(
            "profile",
            format!("unknown profile {profile:?} (known: {})", known.join(", ")),
        ));
    }
    let cidrs = |key: &str, list: &[String]| -> Result<Vec<Cidr>, ConfigError> {
        list.iter()
            .map(|t| {
                Cidr::parse(t).ok_or_else(|| bad(key, format!("{t:?} is not an address or CIDR")))
            })
            .collect()
    };
    let trusted_peers = cidrs("trusted_peers", &raw.authz.trusted_peers)?;
    let trusted_proxies = cidrs("trusted_proxies", &raw.listen.trusted_proxies)?;
    let proxy_threads = match limit("proxy_threads", raw.listen.proxy_threads, 0, 1024)? {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n as usize,
    };
    let log_buffer_lines = limit("buffer_lines", raw.log.buffer_lines, 1, 1 << 20)? as usize;
    let log_format = match raw.log.format.as_str() {
        "json" => LogFormat::Json,
        "pretty" => LogFormat::Pretty,
        other => return Err(bad("format", format!("{other:?} is not json or pretty"))),
    };
    Ok(Config {
        proxy_addr,
        api_addr,
        admin_addr,
        proxy_threads,
        refuse_untrusted_path_overrides: raw.listen.refuse_untrusted_path_overrides,
        allow_trace: raw.listen.allow_trace,
        upstream,
        connect_timeout: seconds(
            raw.upstream.connect_timeout_seconds,
            "connect_timeout_seconds",
            source,
            text,
            false,
        )?,
        response_timeout: seconds(
            raw.upstream.response_timeout_seconds,
            "response_timeout_seconds",
            source,
            text,
            false,
        )?,
        profile,
        profiles,
        reject_status: raw.policy.reject_status,
        authz_deny_status: raw.policy.authz_deny_status,
        max_header_bytes,
        max_body_bytes,
        max_scan_bytes,
        header_read_timeout: seconds(
            l.header_read_timeout_seconds,
            "header_read_timeout_seconds",
            source,
            text,
            false,
        )?,
        request_timeout: seconds(
            l.request_timeout_seconds,
            "request_timeout_seconds",
            source,
            text,
            false,
        )?,
        max_concurrent_requests,
        shutdown_grace: seconds(
            l.shutdown_grace_seconds,
            "shutdown_grace_seconds",
            source,
            text,
            true,
        )?,
        trusted_peers,
        trusted_proxies,
        log_format,
        log_level: raw.log.level,
        log_buffer_lines,
    })
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
