//! Logs: tracing-subscriber, JSON lines by default. Offending bytes are never logged raw; the
//! audit line (`crate::ops::audit`) carries kinds and counts, and verdict bytes are hex.
//!
//! Lines are formatted on the request's thread and handed to one writer thread
//! (tracing-appender) that writes them to stderr in batches, so a request never waits for a
//! write, and a reader of stderr that stalls never stalls the proxy: past `log.buffer_lines`
//! queued lines, new lines are dropped and counted ([`dropped_lines`]). After each batch the
//! writer thread pauses for [`PACE`]: lines queue up meanwhile without waking it, so under load
//! the proxy's threads hand over lines with no system call and the thread writes them a batch
//! at a time, instead of being woken and writing once per request.

use std::io::Write;
use std::sync::OnceLock;
use std::time::Duration;

use tracing_appender::non_blocking::{ErrorCounter, NonBlocking, NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

use crate::ops::config::LogFormat;

static DROPPED: OnceLock<ErrorCounter> = OnceLock::new();

/// The writer audit lines go to directly, in the JSON format.
static AUDIT: OnceLock<NonBlocking> = OnceLock::new();

/// How long the writer thread pauses after writing a batch: how late a line may reach stderr.
pub const PACE: Duration = Duration::from_millis(10);

/// A writer that pauses after each flush that wrote something (the writer thread flushes once
/// per batch).
struct Paced<W> {
    inner: W,
    wrote: bool,
}

impl<W: Write> Write for Paced<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.wrote = true;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()?;
        if std::mem::take(&mut self.wrote) {
            std::thread::sleep(PACE);
        }
        Ok(())
    }
}

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
        .finish(Paced {
            inner: std::io::BufWriter::with_capacity(64 << 10, std::io::stderr()),
            wrote: false,
        });
    let counter = writer.error_counter();
    let audit = writer.clone();
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
    if format == LogFormat::Json {
        let _ = AUDIT.set(audit);
    }
    Some(LogGuard { _writer: guard })
}

/// Log lines dropped so far because the writer thread was `log.buffer_lines` behind.
pub fn dropped_lines() -> u64 {
    DROPPED.get().map_or(0, |c| c.dropped_lines() as u64)
}

/// The writer the audit lines go to directly (the JSON format only; see `crate::ops::audit`).
pub fn direct_writer() -> Option<&'static NonBlocking> {
    AUDIT.get()
}
