//! [`Raw`] to [`Config`]: addresses, ranges, durations, statuses and profiles checked, every
//! error about the value's own span (so its file, line and column, or its variable or flag).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use toml::Spanned;
use utf8gate_policy::Profile;

use super::caps::Caps;
use super::cidr::Cidr;
use super::error::ConfigError;
use super::error::from_profile;
use super::layers::Sources;
use super::raw::Raw;
use super::routes;
use super::size::RawSize;
use super::values::{Config, Http2, LogFormat, upstream_authority};
use crate::problem::{Detail, ErrorStyle};

/// Checks `raw` (whose spans are in `sources`); `read_file` reads profile files.
pub(super) fn validate(
    raw: Raw,
    sources: &Sources<'_>,
    read_file: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let bad = |key: &str, span: std::ops::Range<usize>, message: String| {
        sources.about(key, span, message)
    };
    let addr = |key: &str, value: &Spanned<String>| -> Result<SocketAddr, ConfigError> {
        listen_address(value.get_ref()).map_err(|message| bad(key, value.span(), message))
    };
    let limit = |key: &str, v: &Spanned<u64>, min: u64, max: u64| -> Result<u64, ConfigError> {
        let value = *v.get_ref();
        if (min..=max).contains(&value) {
            Ok(value)
        } else {
            Err(bad(
                key,
                v.span(),
                format!("{value} is outside {min}..={max}"),
            ))
        }
    };
    let size = |key: &str, v: &Spanned<RawSize>, min: u64, max: u64| -> Result<u64, ConfigError> {
        let value = v.get_ref().bytes().map_err(|m| bad(key, v.span(), m))?;
        limit(key, &Spanned::new(v.span(), value), min, max)
    };
    let seconds = |key: &str, v: &Spanned<f64>, allow_zero: bool| {
        let value = *v.get_ref();
        let ok = value.is_finite() && (value > 0.0 || (allow_zero && value == 0.0)) && value < 1e9;
        if ok {
            Ok(Duration::from_secs_f64(value))
        } else {
            let bound = if allow_zero { ">= 0" } else { "> 0" };
            let message = format!("{value} is not a number of seconds {bound}");
            Err(bad(key, v.span(), message))
        }
    };
    let cidrs = |key: &str, list: &[Spanned<String>]| -> Result<Vec<Cidr>, ConfigError> {
        list.iter()
            .map(|t| {
                Cidr::parse(t.get_ref()).ok_or_else(|| {
                    let message = format!("{:?} is not an address or CIDR", t.get_ref());
                    bad(key, t.span(), message)
                })
            })
            .collect()
    };

    let (listen, upstream, policy, l, log) = (
        &raw.listen,
        &raw.upstream,
        &raw.policy,
        &raw.limits,
        &raw.log,
    );
    let url = upstream.url.get_ref();
    let upstream_url = if url.is_empty() {
        None
    } else if upstream_authority(url).is_none() {
        let message = format!("{url:?} must be http://host:port or https://host:port (no path)");
        return Err(bad("upstream.url", upstream.url.span(), message));
    } else {
        Some(url.trim_end_matches('/').to_string())
    };
    let max_body_bytes = size("limits.max_body_bytes", &l.max_body_bytes, 1, 1 << 32)? as usize;
    for (key, status) in [
        ("policy.reject_status", &policy.reject_status),
        ("policy.authz_deny_status", &policy.authz_deny_status),
    ] {
        if !(400..=499).contains(status.get_ref()) {
            let message = format!("{} is not a 4xx status", status.get_ref());
            return Err(bad(key, status.span(), message));
        }
    }
    let caps = Caps {
        max_json_depth: limit("limits.max_json_depth", &l.max_json_depth, 1, 10_000)? as usize,
        max_multipart_parts: limit(
            "limits.max_multipart_parts",
            &l.max_multipart_parts,
            1,
            100_000,
        )? as usize,
        max_multipart_depth: limit("limits.max_multipart_depth", &l.max_multipart_depth, 1, 16)?
            as usize,
        max_body_bytes,
        archive: [
            limit(
                "limits.max_archive_entries",
                &l.max_archive_entries,
                1,
                65_534,
            )?,
            limit(
                "limits.max_archive_name_bytes",
                &l.max_archive_name_bytes,
                1,
                1 << 16,
            )?,
            size(
                "limits.max_archive_unpacked_bytes",
                &l.max_archive_unpacked_bytes,
                1,
                u64::MAX,
            )?,
            limit("limits.max_archive_depth", &l.max_archive_depth, 1, 16)?,
        ],
    };
    let mut profiles = BTreeMap::new();
    for name in Profile::BUILT_IN {
        if let Some(mut p) = Profile::built_in(name) {
            caps.apply(&mut p, None);
            profiles.insert(name.to_string(), p);
        }
    }
    for file in &policy.profile_files {
        let text = read_file(file.get_ref()).ok_or_else(|| {
            let message = format!("cannot read {:?}", file.get_ref());
            bad("policy.profile_files", file.span(), message)
        })?;
        let mut p = Profile::from_toml(&text, file.get_ref()).map_err(from_profile)?;
        caps.apply(&mut p, Some(&text));
        profiles.insert(p.name.to_string(), p);
    }
    let profile = policy.profile.get_ref().clone();
    if !profiles.contains_key(&profile) {
        let known: Vec<_> = profiles.keys().cloned().collect();
        let message = format!("unknown profile {profile:?} (known: {})", known.join(", "));
        return Err(bad("policy.profile", policy.profile.span(), message));
    }
    let errors = &raw.errors;
    let Some(detail) = Detail::parse(errors.detail.get_ref()) else {
        let message = format!(
            "{:?} is not {}",
            errors.detail.get_ref(),
            Detail::NAMES.join(" or ")
        );
        return Err(bad("errors.detail", errors.detail.span(), message));
    };
    let error_style = ErrorStyle {
        detail,
        html: errors.html,
    };
    let defaults = routes::Defaults {
        profiles: &profiles,
        profile: &profile,
        max_body_bytes: max_body_bytes as u64,
        errors: error_style,
    };
    let routes = routes::build(&raw.route, &defaults, sources)?;
    let proxy_threads_set = limit("listen.proxy_threads", &listen.proxy_threads, 0, 1024)? as usize;
    let proxy_threads = match proxy_threads_set {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let log_format = match log.format.get_ref().as_str() {
        "json" => LogFormat::Json,
        "pretty" => LogFormat::Pretty,
        other => {
            let message = format!("{other:?} is not json or pretty");
            return Err(bad("log.format", log.format.span(), message));
        }
    };
    let config = Config {
        proxy_addr: addr("listen.proxy_addr", &listen.proxy_addr)?,
        api_addr: addr("listen.api_addr", &listen.api_addr)?,
        admin_addr: addr("listen.admin_addr", &listen.admin_addr)?,
        grpc_authz_addr: match listen.grpc_authz_addr.get_ref().is_empty() {
            true => None,
            false => Some(addr("listen.grpc_authz_addr", &listen.grpc_authz_addr)?),
        },
        proxy_threads,
        proxy_threads_set,
        upstream: upstream_url,
        connect_timeout: seconds(
            "upstream.connect_timeout_seconds",
            &upstream.connect_timeout_seconds,
            false,
        )?,
        response_timeout: seconds(
            "upstream.response_timeout_seconds",
            &upstream.response_timeout_seconds,
            false,
        )?,
        profile,
        profiles,
        routes,
        reject_status: *policy.reject_status.get_ref(),
        authz_deny_status: *policy.authz_deny_status.get_ref(),
        max_header_bytes: size(
            "limits.max_header_bytes",
            &l.max_header_bytes,
            1024,
            1 << 20,
        )? as usize,
        max_body_bytes,
        max_scan_bytes: size("limits.max_scan_bytes", &l.max_scan_bytes, 1, u64::MAX)?,
        max_archive_bytes: size(
            "limits.max_archive_bytes",
            &l.max_archive_bytes,
            1,
            u64::MAX,
        )?,
        max_buffered_bytes: size(
            "limits.max_buffered_bytes",
            &l.max_buffered_bytes,
            1,
            u64::MAX,
        )?,
        buffer_wait: seconds("limits.buffer_wait_seconds", &l.buffer_wait_seconds, true)?,
        header_read_timeout: seconds(
            "limits.header_read_timeout_seconds",
            &l.header_read_timeout_seconds,
            false,
        )?,
        request_timeout: seconds(
            "limits.request_timeout_seconds",
            &l.request_timeout_seconds,
            false,
        )?,
        max_concurrent_requests: limit(
            "limits.max_concurrent_requests",
            &l.max_concurrent_requests,
            1,
            1 << 20,
        )? as usize,
        max_concurrent_evaluations: limit(
            "limits.max_concurrent_evaluations",
            &l.max_concurrent_evaluations,
            0,
            4096,
        )? as usize,
        http2: Http2 {
            enabled: listen.http2,
            max_concurrent_streams: limit(
                "limits.max_concurrent_streams",
                &l.max_concurrent_streams,
                1,
                65535,
            )? as u32,
            max_pending_accept_reset_streams: limit(
                "limits.h2_max_pending_accept_reset_streams",
                &l.h2_max_pending_accept_reset_streams,
                1,
                1 << 20,
            )? as usize,
            max_local_error_reset_streams: limit(
                "limits.h2_max_local_error_reset_streams",
                &l.h2_max_local_error_reset_streams,
                1,
                1 << 20,
            )? as usize,
        },
        upstream_http2: upstream.http2,
        upstream_max_idle: limit(
            "upstream.max_idle_connections",
            &upstream.max_idle_connections,
            0,
            65536,
        )? as usize,
        upstream_idle_timeout: seconds(
            "upstream.idle_timeout_seconds",
            &upstream.idle_timeout_seconds,
            false,
        )?,
        shutdown_grace: seconds(
            "limits.shutdown_grace_seconds",
            &l.shutdown_grace_seconds,
            true,
        )?,
        explain: raw.explain.enabled,
        explain_max_text_bytes: size(
            "explain.max_text_bytes",
            &raw.explain.max_text_bytes,
            1,
            16 << 20,
        )? as usize,
        trusted_peers: cidrs("authz.trusted_peers", &raw.authz.trusted_peers)?,
        trusted_proxies: cidrs("listen.trusted_proxies", &listen.trusted_proxies)?,
        refuse_untrusted_path_overrides: listen.refuse_untrusted_path_overrides,
        allow_trace: listen.allow_trace,
        log_format,
        log_level: log.level.clone(),
        log_buffer_lines: limit("log.buffer_lines", &log.buffer_lines, 1, 1 << 20)? as usize,
        errors: error_style,
        websocket: super::websocket::validate(&raw.websocket, &bad, &size, &seconds)?,
        tls: super::tls::validate(&raw.tls, &bad, &seconds)?,
        upstream_tls: super::tls::validate_upstream(
            super::tls::RawUpstreamTls {
                ca: &upstream.tls_ca,
                cert: &upstream.tls_cert,
                key: &upstream.tls_key,
                server_name: &upstream.tls_server_name,
            },
            &bad,
        )?,
        admin_reload: raw.admin.reload,
    };
    let span = l.max_buffered_bytes.span();
    budget_holds_a_body(&config).map_err(|m| bad("limits.max_buffered_bytes", span, m))?;
    Ok(config)
}

/// The memory budget must hold the largest body one request may buffer, times the evaluation
/// factor: a smaller one would refuse such a body forever (503), never once answer it.
fn budget_holds_a_body(c: &Config) -> Result<(), String> {
    let mut bodies = vec![
        ("limits.max_body_bytes".to_string(), c.max_body_bytes as u64),
        (
            "explain.max_text_bytes".to_string(),
            c.explain_max_text_bytes as u64,
        ),
    ];
    if c.grpc_authz_addr.is_some() {
        let message = c.grpc_max_message() as u64;
        bodies.push(("the gRPC check's largest message".to_string(), message));
    }
    for route in c.routes.list() {
        let name = format!("route {:?}: max_body_bytes", route.name);
        bodies.push((name, route.max_body_bytes));
    }
    let Some((what, largest)) = bodies.into_iter().max_by_key(|b| b.1) else {
        return Ok(());
    };
    let factor = crate::budget::EVALUATION_FACTOR;
    let needed = largest.saturating_mul(factor);
    match c.max_buffered_bytes >= needed {
        true => Ok(()),
        false => Err(format!(
            "{} cannot hold one body of {what} ({largest} bytes) times {factor} (the body, \
             its decoded or rewritten copy, the evaluation's memory): at least {needed}",
            c.max_buffered_bytes
        )),
    }
}
/// A listen address: an IP address and port (`127.0.0.1:8080`, `[::1]:8080`), or a host name
/// and port (`localhost:8080`) resolved now, once, at start-up. A name that resolves to several
/// addresses is bound on the first IPv4 one (`localhost` is 127.0.0.1 whatever the order of
/// `/etc/hosts`), else the first.
fn listen_address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let expected = "is not a socket address (like 127.0.0.1:8080, [::1]:8080 or localhost:8080)";
    let Some((host, port)) = text.rsplit_once(':') else {
        return Err(format!("{text:?} {expected}"));
    };
    let is_name = !host.is_empty()
        && host.len() <= 253
        && host
            .split('.')
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    let Ok(port) = port.parse::<u16>() else {
        return Err(format!("{text:?} {expected}"));
    };
    if !is_name {
        return Err(format!("{text:?} {expected}"));
    }
    let addrs: Vec<SocketAddr> = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
        .map_err(|e| format!("{host:?} does not resolve: {e}"))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| addrs.first())
        .copied()
        .ok_or_else(|| format!("{host:?} resolves to no address"))
}
