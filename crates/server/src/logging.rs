//! Logs: tracing-subscriber, JSON lines by default. Offending bytes are never logged raw; the
//! audit line carries kinds and counts, and verdict bytes are hex.
//!
//! Lines are formatted on the request's thread and handed to one writer thread
//! (tracing-appender) that writes them to stderr in batches, so a request never waits for a
//! write, and a reader of stderr that stalls never stalls the proxy: past `log.buffer_lines`
//! queued lines, new lines are dropped and counted ([`dropped_lines`]).

use std::sync::OnceLock;

use tracing_appender::non_blocking::{ErrorCounter, NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

static DROPPED: OnceLock<ErrorCounter> = OnceLock::new();

/// Keeps the writer thread; dropping it writes out the queued lines (at exit).
#[must_use = "dropping the guard stops the log writer"]
pub struct LogGuard {
    _writer: WorkerGuard,
}

/// Installs the global subscriber, writing to stderr through the writer thread. Returns `None`
/// if a subscriber was already set.
pub fn init(format: LogFormat, level: &str, buffer_lines: usize) -> Option<LogGuard> {
    let filter = EnvFilter::try_new(level).unwrap_or_else(|_| EnvFilter::new("info"));
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(buffer_lines)
        .thread_name("utf8gate-log")
        .finish(std::io::BufWriter::with_capacity(
            64 << 10,
            std::io::stderr(),
        ));
    let counter = writer.error_counter();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    let installed = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init()
            .is_ok(),
        LogFormat::Pretty => builder.try_init().is_ok(),
    };
    if !installed {
        return None;
    }
    let _ = DROPPED.set(counter);
    Some(LogGuard { _writer: guard })
}

/// Log lines dropped so far because the writer thread was `log.buffer_lines` behind.
pub fn dropped_lines() -> u64 {
    DROPPED.get().map_or(0, |c| c.dropped_lines() as u64)
}
