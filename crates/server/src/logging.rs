//! Logs: tracing-subscriber, JSON lines by default. Offending bytes are never logged raw; the
//! audit line carries kinds and counts, and verdict bytes are hex.
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

use crate::config::LogFormat;

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

/// One request's audit line (target `utf8gate::audit`, message `request`).
#[derive(Debug)]
pub struct AuditLine<'a> {
    /// The request id.
    pub request_id: &'a str,
    /// proxy, scan, sanitize or authz.
    pub mode: &'a str,
    /// allow, sanitize or reject.
    pub decision: &'a str,
    /// Whether the decision was enforced (not monitor mode).
    pub enforced: bool,
    /// The profile's name.
    pub profile: &'a str,
    /// The finding kinds, comma-separated.
    pub kinds: &'a str,
    /// How many findings.
    pub findings: u64,
    /// The response status.
    pub status: u16,
    /// Time from the request's arrival to its verdict's response.
    pub duration_ms: f64,
}

/// Writes an audit line. In the JSON format it is serialized here and handed to the writer
/// thread directly: the same line as `tracing`'s JSON formatter writes, at a tenth of its cost
/// per request. Otherwise (pretty format, or before [`init`]) it goes through `tracing`.
pub fn audit(line: &AuditLine<'_>) {
    if !tracing::enabled!(target: "utf8gate::audit", tracing::Level::INFO) {
        return;
    }
    let Some(writer) = AUDIT.get() else {
        tracing::info!(
            target: "utf8gate::audit",
            request_id = line.request_id,
            mode = line.mode,
            decision = line.decision,
            enforced = line.enforced,
            profile = line.profile,
            kinds = line.kinds,
            findings = line.findings,
            status = line.status,
            duration_ms = line.duration_ms,
            "request"
        );
        return;
    };
    let _ = writer
        .clone()
        .write_all(&json_line(line, std::time::SystemTime::now()));
}

/// The JSON audit line with its newline, written directly: the keys, order and escaping of
/// `tracing`'s JSON formatter (which uses serde_json), without its per-field machinery.
fn json_line(line: &AuditLine<'_>, now: std::time::SystemTime) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"{\"timestamp\":\"");
    push_timestamp(&mut out, now);
    out.extend_from_slice(b"\",\"level\":\"INFO\",\"message\":\"request\",\"request_id\":");
    push_json_str(&mut out, line.request_id);
    out.extend_from_slice(b",\"mode\":");
    push_json_str(&mut out, line.mode);
    out.extend_from_slice(b",\"decision\":");
    push_json_str(&mut out, line.decision);
    out.extend_from_slice(if line.enforced {
        b",\"enforced\":true,\"profile\":"
    } else {
        b",\"enforced\":false,\"profile\":"
    });
    push_json_str(&mut out, line.profile);
    out.extend_from_slice(b",\"kinds\":");
    push_json_str(&mut out, line.kinds);
    out.extend_from_slice(b",\"findings\":");
    // Writing numbers to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, &line.findings);
    out.extend_from_slice(b",\"status\":");
    let _ = serde_json::to_writer(&mut out, &line.status);
    out.extend_from_slice(b",\"duration_ms\":");
    let _ = serde_json::to_writer(&mut out, &line.duration_ms);
    out.extend_from_slice(b",\"target\":\"utf8gate::audit\"}\n");
    out
}

/// `text` as a JSON string: copied between quotes when nothing in it needs escaping (the usual
/// case), else escaped by serde_json.
fn push_json_str(out: &mut Vec<u8>, text: &str) {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(&mut *out, text);
    }
}

thread_local! {
    /// The last second a time stamp was written for on this thread, and its text up to the
    /// fraction: `YYYY-MM-DDTHH:MM:SS.`
    static SECOND: std::cell::RefCell<(u64, String)> = const { std::cell::RefCell::new((u64::MAX, String::new())) };
}

/// Appends `now` as `tracing`'s `SystemTime` timer writes it (RFC 3339, UTC, microseconds):
/// the date and time of day are computed once per second per thread.
fn push_timestamp(out: &mut Vec<u8>, now: std::time::SystemTime) {
    let since = now
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = since.as_secs();
    SECOND.with(|cached| {
        let mut cached = cached.borrow_mut();
        if cached.0 != seconds {
            *cached = (seconds, second_prefix(seconds));
        }
        out.extend_from_slice(cached.1.as_bytes());
    });
    let micros = since.subsec_micros();
    let mut digits = [b'0'; 6];
    let mut rest = micros;
    for d in digits.iter_mut().rev() {
        *d = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend_from_slice(&digits);
    out.push(b'Z');
}

/// `YYYY-MM-DDTHH:MM:SS.` for a count of seconds since the Unix epoch (UTC), with the civil
/// date from the day count (H. Hinnant's `civil_from_days`).
fn second_prefix(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let of_day = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year = if year > 9999 {
        format!("+{year}")
    } else {
        format!("{year:04}")
    };
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer into a shared buffer, for a test subscriber.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if let Ok(mut v) = self.0.lock() {
                v.extend_from_slice(buf);
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The line written directly is byte for byte the one `tracing`'s JSON formatter (set up
    /// as `init` sets it up) writes for the same event, but for the time stamp.
    #[test]
    fn direct_audit_lines_equal_the_formatters() {
        for (id, kinds, status, ms) in [
            ("0011aabb", "", 200, 0.25),
            (
                "client \"id\" \\ \u{e9}",
                "overlong,cesu8_pair",
                400,
                41.871452000000005,
            ),
        ] {
            let line = AuditLine {
                request_id: id,
                mode: "proxy",
                decision: if status == 200 { "allow" } else { "reject" },
                enforced: true,
                profile: "strict",
                kinds,
                findings: 3,
                status,
                duration_ms: ms,
            };
            let captured = Captured::default();
            let sink = captured.clone();
            let subscriber = tracing_subscriber::fmt()
                .with_writer(move || sink.clone())
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .finish();
            // No direct writer is installed in tests, so `audit` goes through the formatter.
            tracing::subscriber::with_default(subscriber, || audit(&line));
            let formatted = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
            let stamp = |line: &str| {
                line.strip_prefix("{\"timestamp\":\"")
                    .and_then(|rest| rest.split_once('"'))
                    .map(|(stamp, rest)| (stamp.to_string(), rest.to_string()))
                    .expect("a time stamp first")
            };
            let (formatted_stamp, formatted_rest) = stamp(&formatted);
            let direct = String::from_utf8(json_line(&line, std::time::SystemTime::now())).unwrap();
            let (direct_stamp, direct_rest) = stamp(&direct);
            assert_eq!(direct_rest, formatted_rest);
            assert_eq!(
                direct_stamp.len(),
                formatted_stamp.len(),
                "{direct_stamp} {formatted_stamp}"
            );
        }
    }

    /// Time stamps as `tracing`'s timer writes them, for fixed instants (leap day, century
    /// rules, the last four-digit year) and for now.
    #[test]
    fn time_stamps_equal_the_timers() {
        use std::time::{Duration, SystemTime, UNIX_EPOCH};
        for (seconds, micros, expected) in [
            (0, 0, "1970-01-01T00:00:00.000000Z"),
            (951_782_400, 7, "2000-02-29T00:00:00.000007Z"),
            (1_700_000_000, 123_456, "2023-11-14T22:13:20.123456Z"),
            (4_107_542_400, 999_999, "2100-03-01T00:00:00.999999Z"),
            (253_402_300_799, 500_000, "9999-12-31T23:59:59.500000Z"),
        ] {
            let mut out = Vec::new();
            let at = UNIX_EPOCH + Duration::from_secs(seconds) + Duration::from_micros(micros);
            push_timestamp(&mut out, at);
            // Twice: the second one comes from the cached second.
            push_timestamp(&mut out, at);
            assert_eq!(String::from_utf8(out).unwrap(), expected.repeat(2));
        }
        // Against the timer itself: equal up to the minute unless a minute ends in between.
        let timer = || {
            use tracing_subscriber::fmt::time::FormatTime;
            let mut s = String::new();
            let _ = tracing_subscriber::fmt::time::SystemTime
                .format_time(&mut tracing_subscriber::fmt::format::Writer::new(&mut s));
            s
        };
        let agreed = (0..3).any(|_| {
            let before = timer();
            let mut ours = Vec::new();
            push_timestamp(&mut ours, SystemTime::now());
            let after = timer();
            let ours = String::from_utf8(ours).unwrap();
            ours.len() == before.len() && before[..16] == after[..16] && ours[..16] == before[..16]
        });
        assert!(agreed);
    }
}
