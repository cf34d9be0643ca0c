//! Logs: tracing-subscriber, JSON lines by default. Offending bytes are never logged raw; the
//! audit line carries kinds and counts, and verdict bytes are hex.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber, writing to stderr. Returns `false` if one was already set.
pub fn init(format: LogFormat, level: &str) -> bool {
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init()
            .is_ok(),
        LogFormat::Pretty => builder.try_init().is_ok(),
    }
}
