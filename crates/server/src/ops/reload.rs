//! Reload without restart: `SIGHUP`, or `POST /admin/reload` (`admin.reload`), reads the
//! configuration again (the file given to `--config`, its profile files, the routes, under the
//! same environment and flags), validates it as start-up does, and puts the new [`Snapshot`]
//! in force for the requests that start from then on; requests in flight finish under the
//! snapshot they started with (`crate::state`).
//!
//! A reload is all or nothing. An invalid configuration is refused with start-up's error (its
//! file, line and column), and one that changes a key bound at start-up ([`RESTART_ONLY`]:
//! sockets, threads, the memory budget, the stacks' limits, the upstream's connection pools,
//! the log) is refused naming every such key; either way the old configuration stays, the
//! refusal is logged and counted (`utf8gate_config_reloads_total{result="error"}`). Metrics
//! are kept across reloads (one registry); the series of routes a reload adds start at 0.

use std::sync::Arc;

use crate::ops::config::{Config, ConfigError};
use crate::state::{AppState, Snapshot};
use crate::tls::LiveTls;

/// Every key a reload may not change, with what binds it at start-up.
pub const RESTART_ONLY: [(&str, &str); 34] = [
    ("listen.proxy_addr", "a bound socket"),
    ("listen.api_addr", "a bound socket"),
    ("listen.admin_addr", "a bound socket"),
    ("listen.grpc_authz_addr", "a bound socket"),
    ("listen.proxy_threads", "the proxy's threads"),
    ("listen.http2", "the listeners' connection builders"),
    ("upstream.url", "the proxy listener and its upstream pools"),
    ("upstream.http2", "the upstream pools"),
    ("upstream.connect_timeout_seconds", "the upstream pools"),
    ("upstream.max_idle_connections", "the upstream pools"),
    ("upstream.idle_timeout_seconds", "the upstream pools"),
    ("limits.max_header_bytes", "the connection builders"),
    (
        "limits.header_read_timeout_seconds",
        "the connection builders",
    ),
    ("limits.max_concurrent_streams", "the connection builders"),
    (
        "limits.h2_max_pending_accept_reset_streams",
        "the connection builders",
    ),
    (
        "limits.h2_max_local_error_reset_streams",
        "the connection builders",
    ),
    (
        "limits.max_concurrent_requests",
        "the listeners' concurrency limits",
    ),
    (
        "limits.max_concurrent_evaluations",
        "the blocking evaluations' places",
    ),
    (
        "limits.request_timeout_seconds",
        "the listeners' timeout layers",
    ),
    ("limits.max_scan_bytes", "the API listener's body limit"),
    ("limits.max_buffered_bytes", "the memory budget"),
    ("limits.buffer_wait_seconds", "the memory budget"),
    (
        "limits.shutdown_grace_seconds",
        "the drain, set up at start-up",
    ),
    (
        "limits.max_body_bytes",
        "the gRPC check's largest message (only with grpc_authz_addr)",
    ),
    ("explain.enabled", "the API listener's routes"),
    ("log.format", "the log writer"),
    ("log.level", "the log filter"),
    ("log.buffer_lines", "the log writer's queue"),
    ("websocket.max_tunnels", "the tunnels' semaphore"),
    ("tls.listeners", "the listeners' accept loops"),
    ("upstream.tls_ca", "the upstream pools"),
    ("upstream.tls_cert", "the upstream pools"),
    ("upstream.tls_key", "the upstream pools"),
    ("upstream.tls_server_name", "the upstream pools"),
];

/// Why a reload was refused; the old configuration stays in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReloadError {
    /// The configuration cannot be read or is invalid: start-up's error, with its file, line
    /// and column (or its variable or flag).
    Invalid(ConfigError),
    /// The configuration (named) is valid but changes keys that need a restart (each named).
    RestartOnly(String, Vec<&'static str>),
    /// Nothing to read again: the state was built from a configuration in memory.
    NoSource,
    /// The configuration is valid but the TLS files it names do not load (the file named).
    Tls(String),
}

impl std::fmt::Display for ReloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReloadError::Invalid(e) => write!(f, "{e}"),
            ReloadError::RestartOnly(source, keys) => write!(
                f,
                "{source}: changes settings that need a restart: {}; nothing was reloaded \
                 (restart to change them, or set them back)",
                keys.join(", ")
            ),
            ReloadError::NoSource => write!(f, "no configuration file to read again"),
            ReloadError::Tls(why) => write!(f, "TLS: {why}; nothing was reloaded"),
        }
    }
}

impl std::error::Error for ReloadError {}

/// The keys of [`RESTART_ONLY`] whose values differ between `old` and `new`, in that order.
pub fn restart_only_changes(old: &Config, new: &Config) -> Vec<&'static str> {
    let grpc_message = old.grpc_authz_addr.is_some() && old.max_body_bytes != new.max_body_bytes;
    let same = [
        old.proxy_addr == new.proxy_addr,
        old.api_addr == new.api_addr,
        old.admin_addr == new.admin_addr,
        old.grpc_authz_addr == new.grpc_authz_addr,
        old.proxy_threads_set == new.proxy_threads_set,
        old.http2.enabled == new.http2.enabled,
        old.upstream == new.upstream,
        old.upstream_http2 == new.upstream_http2,
        old.connect_timeout == new.connect_timeout,
        old.upstream_max_idle == new.upstream_max_idle,
        old.upstream_idle_timeout == new.upstream_idle_timeout,
        old.max_header_bytes == new.max_header_bytes,
        old.header_read_timeout == new.header_read_timeout,
        old.http2.max_concurrent_streams == new.http2.max_concurrent_streams,
        old.http2.max_pending_accept_reset_streams == new.http2.max_pending_accept_reset_streams,
        old.http2.max_local_error_reset_streams == new.http2.max_local_error_reset_streams,
        old.max_concurrent_requests == new.max_concurrent_requests,
        old.max_concurrent_evaluations == new.max_concurrent_evaluations,
        old.request_timeout == new.request_timeout,
        old.max_scan_bytes == new.max_scan_bytes,
        old.max_buffered_bytes == new.max_buffered_bytes,
        old.buffer_wait == new.buffer_wait,
        old.shutdown_grace == new.shutdown_grace,
        !grpc_message,
        old.explain == new.explain,
        old.log_format == new.log_format,
        old.log_level == new.log_level,
        old.log_buffer_lines == new.log_buffer_lines,
        old.websocket.max_tunnels == new.websocket.max_tunnels,
        old.tls.listeners == new.tls.listeners,
        old.upstream_tls.ca == new.upstream_tls.ca,
        old.upstream_tls.client.as_ref().map(|p| &p.cert)
            == new.upstream_tls.client.as_ref().map(|p| &p.cert),
        old.upstream_tls.client.as_ref().map(|p| &p.key)
            == new.upstream_tls.client.as_ref().map(|p| &p.key),
        old.upstream_tls.server_name == new.upstream_tls.server_name,
    ];
    (RESTART_ONLY.iter().zip(same))
        .filter(|(_, same)| !same)
        .map(|((key, _), _)| *key)
        .collect()
}

/// The reload decision: the configuration to put in force in place of `current`, or why not.
/// `loaded` is the configuration read again from `source` (named in errors).
pub fn decide(
    current: &Config,
    source: &str,
    loaded: Result<Config, ConfigError>,
) -> Result<Config, ReloadError> {
    let new = loaded.map_err(ReloadError::Invalid)?;
    match restart_only_changes(current, &new) {
        keys if keys.is_empty() => Ok(new),
        keys => Err(ReloadError::RestartOnly(source.to_string(), keys)),
    }
}

/// Reads the configuration again and puts it in force, or keeps the old one: logged and
/// counted either way. One reload at a time; reading and validating (files, host names) run
/// off the async threads.
pub async fn reload(state: &AppState) -> Result<(), ReloadError> {
    let reloading = state.reloading.clone();
    let _one_at_a_time = reloading.lock.lock().await;
    let outcome = match reloading.source.clone() {
        None => Err(ReloadError::NoSource),
        Some(source) => {
            let current = state.snapshot().config.clone();
            let tls = state.tls.is_some();
            let read = tokio::task::spawn_blocking(move || {
                let loaded = crate::cli::environment().and_then(|env| source.read(&env));
                let config = decide(&current, &source.name(), loaded)?;
                // The certificate files are read again too, and must load.
                let prepared = tls
                    .then(|| LiveTls::prepare(&config.tls).map_err(ReloadError::Tls))
                    .transpose()?;
                Ok((config, prepared))
            });
            match read.await {
                Ok(decided) => decided,
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            }
        }
    };
    let metrics = state.metrics.reloads();
    match outcome {
        Ok((config, prepared)) => {
            if let (Some(live), Some(prepared)) = (&state.tls, prepared) {
                live.commit(prepared);
            }
            let (profile, routes) = (config.profile.clone(), config.routes.list().len());
            (state.metrics).routes(config.routes.list().iter().map(|r| r.name.as_str()));
            state.live.store(Arc::new(Snapshot::new(
                config,
                &state.metrics,
                &state.evaluations,
            )));
            metrics.succeeded();
            tracing::info!(profile, routes, "configuration reloaded");
            Ok(())
        }
        Err(e) => {
            metrics.failed();
            if let (Some(live), ReloadError::Tls(why)) = (&state.tls, &e) {
                live.refuse(why);
            }
            let (source, line, column) = match &e {
                ReloadError::Invalid(c) => (c.source.as_str(), c.line, c.column),
                ReloadError::RestartOnly(source, _) => (source.as_str(), None, None),
                ReloadError::NoSource | ReloadError::Tls(_) => ("", None, None),
            };
            tracing::error!(
                source,
                line,
                column,
                error = %e,
                "configuration reload refused: the old configuration stays in force"
            );
            Err(e)
        }
    }
}

/// Reloads on every signal `hangups` receives (`SIGHUP`, from `crate::listen::serve::hangups`), for
/// the life of the process.
#[cfg(unix)]
pub async fn on_hangups(state: AppState, mut hangups: tokio::signal::unix::Signal) {
    while hangups.recv().await.is_some() {
        tracing::info!("SIGHUP: reloading the configuration");
        let _ = reload(&state).await;
    }
}

#[cfg(test)]
mod tests;
