//! The audit line: one JSON object per request (target `utf8gate::audit`, message `request`),
//! with kinds and counts, never the offending bytes; a request refused before a verdict has
//! one too (`refused`: decision `refused` and the problem's type).
//!
//! The gate attaches an [`AuditRecord`] to the response it decides; the listener's audit layer
//! (`layers::audit`) adds the status and the duration and calls [`write`]. In the JSON log
//! format the line is serialized here with serde_json and handed straight to the log writer
//! thread: the same keys in the same order as `tracing`'s JSON formatter writes, at a fraction
//! of its cost per request. Otherwise it goes through `tracing`.

use std::sync::Arc;
use std::time::SystemTime;

#[cfg(test)]
use serde::Serialize;
use utf8gate_policy::{Decision, Mode};

use crate::routes::Route;

mod clock;
mod refused;

use clock::{Timestamp, milliseconds};
pub use refused::{Refusal, write_refused};

/// What the gate decided about one request, for its audit line and metrics.
#[derive(Clone, Debug)]
pub struct AuditRecord {
    /// proxy, scan, authz or ext_proc.
    pub mode: Mode,
    /// allow, sanitize or reject.
    pub decision: Decision,
    /// Whether the decision was enforced (not monitor mode).
    pub enforced: bool,
    /// The profile's name (shared with the profile).
    pub profile: Arc<str>,
    /// The finding kinds, comma-separated.
    pub kinds: String,
    /// How many findings.
    pub findings: u64,
    /// The kinds of the findings an exclusion exempted, comma-separated.
    pub excluded: String,
    /// The route of a proxied request or authorization check.
    pub route: Option<Arc<Route>>,
    /// The identity of the client certificate of the request's connection (mutual TLS): set
    /// by the listener's audit layer, written as `client` after `request_id` when there is one.
    pub client: Option<Arc<str>>,
}

impl AuditRecord {
    /// The route's name, or `-`.
    pub fn route_name(&self) -> &str {
        self.route.as_ref().map_or("-", |r| r.name.as_str())
    }
}

/// One audit line, serialized by serde_json: the reference [`json_line`] is tested against.
#[cfg(test)]
#[derive(Serialize)]
struct Line<'a> {
    timestamp: Timestamp,
    level: &'static str,
    message: &'static str,
    request_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<&'a str>,
    mode: &'static str,
    decision: &'static str,
    enforced: bool,
    profile: &'a str,
    route: &'a str,
    kinds: &'a str,
    excluded: &'a str,
    findings: u64,
    status: u16,
    duration_ms: f64,
    target: &'static str,
}

/// Writes the audit line of `record` for request `request_id`, answered with `status` after
/// `seconds`.
pub fn write(record: &AuditRecord, request_id: &str, status: u16, seconds: f64) {
    if !tracing::enabled!(target: "utf8gate::audit", tracing::Level::INFO) {
        return;
    }
    let duration_ms = milliseconds(seconds);
    let Some(writer) = crate::ops::logging::direct_writer() else {
        tracing::info!(
            target: "utf8gate::audit",
            request_id,
            client = record.client.as_deref(),
            mode = record.mode.as_str(),
            decision = record.decision.as_str(),
            enforced = record.enforced,
            profile = &*record.profile,
            route = record.route_name(),
            kinds = record.kinds.as_str(),
            excluded = record.excluded.as_str(),
            findings = record.findings,
            status,
            duration_ms,
            "request"
        );
        return;
    };
    LINE.with_borrow_mut(|line| {
        line.clear();
        let now = SystemTime::now();
        write_json_line(line, record, request_id, status, duration_ms, now);
        let _ = std::io::Write::write_all(&mut writer.clone(), line);
    });
}

thread_local! {
    /// The buffer each thread writes its audit lines in (the writer copies each line out).
    static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The JSON line with its newline, in a new buffer (for the tests).
#[cfg(test)]
fn json_line(
    record: &AuditRecord,
    request_id: &str,
    status: u16,
    duration_ms: f64,
    now: SystemTime,
) -> Vec<u8> {
    let mut out = Vec::new();
    write_json_line(&mut out, record, request_id, status, duration_ms, now);
    out
}

/// Appends the JSON line with its newline to `out`: the keys and values serde_json writes for
/// the same line (a test compares them), written directly. Strings are copied as they are
/// unless they hold something JSON escapes (request ids come from clients); integers by
/// `itoa`, the float by serde_json. Nothing goes through `core::fmt`.
fn write_json_line(
    out: &mut Vec<u8>,
    record: &AuditRecord,
    request_id: &str,
    status: u16,
    duration_ms: f64,
    now: SystemTime,
) {
    out.extend_from_slice(b"{\"timestamp\":\"");
    Timestamp(now).write_to(out);
    out.extend_from_slice(b"\",\"level\":\"INFO\",\"message\":\"request\",\"request_id\":");
    json_string(out, request_id);
    if let Some(client) = &record.client {
        out.extend_from_slice(b",\"client\":");
        json_string(out, client);
    }
    for (key, value) in [
        (&b",\"mode\":"[..], record.mode.as_str()),
        (b",\"decision\":", record.decision.as_str()),
    ] {
        out.extend_from_slice(key);
        json_string(out, value);
    }
    out.extend_from_slice(match record.enforced {
        true => b",\"enforced\":true",
        false => b",\"enforced\":false",
    });
    for (key, value) in [
        (&b",\"profile\":"[..], &*record.profile),
        (b",\"route\":", record.route_name()),
        (b",\"kinds\":", &record.kinds),
        (b",\"excluded\":", &record.excluded),
    ] {
        out.extend_from_slice(key);
        json_string(out, value);
    }
    out.extend_from_slice(b",\"findings\":");
    decimal(out, record.findings);
    out.extend_from_slice(b",\"status\":");
    decimal(out, u64::from(status));
    out.extend_from_slice(b",\"duration_ms\":");
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, &duration_ms);
    out.extend_from_slice(b",\"target\":\"utf8gate::audit\"}\n");
}

/// Appends `n` in decimal (`itoa`, serde_json's own integer writer).
fn decimal(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `text` as a JSON string: copied between quotes when nothing in it needs an escape, else
/// escaped by serde_json.
fn json_string(out: &mut Vec<u8>, text: &str) {
    // Every byte tested without an early exit: a loop the compiler vectorizes (the strings
    // are short and nearly always plain).
    let escaped = text.bytes().fold(false, |any, b| {
        any | !(0x20..0x7F).contains(&b) | (b == b'"') | (b == b'\\')
    });
    let plain = !escaped;
    if plain {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        let _ = serde_json::to_writer(&mut *out, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};
    use std::time::UNIX_EPOCH;

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
            let record = AuditRecord {
                mode: Mode::Proxy,
                decision: if status == 200 {
                    Decision::Allow
                } else {
                    Decision::Reject
                },
                enforced: true,
                profile: "strict".into(),
                excluded: "not_nfc".into(),
                route: None,
                kinds: kinds.into(),
                findings: 3,
                client: None,
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
            tracing::subscriber::with_default(subscriber, || {
                write(&record, id, status, ms / 1000.0)
            });
            let formatted = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
            let stamp = |line: &str| {
                line.strip_prefix("{\"timestamp\":\"")
                    .and_then(|rest| rest.split_once('"'))
                    .map(|(stamp, rest)| (stamp.to_string(), rest.to_string()))
                    .expect("a time stamp first")
            };
            let (formatted_stamp, formatted_rest) = stamp(&formatted);
            let rounded = milliseconds(ms / 1000.0);
            let direct =
                String::from_utf8(json_line(&record, id, status, rounded, SystemTime::now()))
                    .unwrap();
            let expected = if status == 200 { "0.25" } else { "41.871" };
            assert!(
                direct.contains(&format!("\"duration_ms\":{expected},")),
                "{direct}"
            );
            let (direct_stamp, direct_rest) = stamp(&direct);
            assert_eq!(direct_rest, formatted_rest);
            assert_eq!(
                direct_stamp.len(),
                formatted_stamp.len(),
                "{direct_stamp} {formatted_stamp}"
            );
        }
    }

    /// The reference: the same line serialized by serde_json from [`Line`].
    fn serde_line(r: &AuditRecord, id: &str, status: u16, ms: f64, now: SystemTime) -> Vec<u8> {
        let line = Line {
            timestamp: Timestamp(now),
            level: "INFO",
            message: "request",
            request_id: id,
            client: r.client.as_deref(),
            mode: r.mode.as_str(),
            decision: r.decision.as_str(),
            enforced: r.enforced,
            profile: &r.profile,
            route: r.route_name(),
            kinds: &r.kinds,
            excluded: &r.excluded,
            findings: r.findings,
            status,
            duration_ms: ms,
            target: "utf8gate::audit",
        };
        let mut out = serde_json::to_vec(&line).unwrap();
        out.push(b'\n');
        out
    }

    proptest::proptest! {
        /// The directly written line is serde_json's, byte for byte, whatever the strings hold
        /// (quotes, backslashes, controls, non-ASCII) and whatever the numbers are.
        #[test]
        fn direct_lines_equal_serde_jsons(
            id in ".{0,40}",
            client in proptest::option::of(".{0,30}"),
            profile in "[a-z_\\-\"\\\\\u{0}-\u{1f}\u{7f}é]{0,20}",
            kinds in "[a-z_,]{0,40}",
            excluded in ".{0,20}",
            enforced in proptest::prelude::any::<bool>(),
            findings in proptest::prelude::any::<u64>(),
            status in proptest::prelude::any::<u16>(),
            ms in proptest::prelude::any::<f64>(),
            secs in 0u64..253_402_300_799,
        ) {
            let record = AuditRecord {
                mode: Mode::Scan,
                decision: Decision::Sanitize,
                enforced,
                profile: profile.into(),
                kinds,
                findings,
                excluded,
                route: None,
                client: client.map(Into::into),
            };
            let now = UNIX_EPOCH + std::time::Duration::from_secs(secs);
            let ms = if ms.is_finite() { ms } else { 0.5 };
            proptest::prop_assert_eq!(
                String::from_utf8(json_line(&record, &id, status, ms, now)).unwrap(),
                String::from_utf8(serde_line(&record, &id, status, ms, now)).unwrap()
            );
        }
    }

    /// Time stamps as `tracing`'s timer writes them, for fixed instants (leap day, century
    /// rules, the last four-digit year) and for now.
    #[test]
    fn time_stamps_equal_the_timers() {
        use std::time::Duration;
        for (seconds, micros, expected) in [
            (0, 0, "1970-01-01T00:00:00.000000Z"),
            (951_782_400, 7, "2000-02-29T00:00:00.000007Z"),
            (1_700_000_000, 123_456, "2023-11-14T22:13:20.123456Z"),
            (4_107_542_400, 999_999, "2100-03-01T00:00:00.999999Z"),
            (253_402_300_799, 500_000, "9999-12-31T23:59:59.500000Z"),
        ] {
            let at = UNIX_EPOCH + Duration::from_secs(seconds) + Duration::from_micros(micros);
            // Twice: the second one comes from the cached second.
            let twice = format!("{}{}", Timestamp(at), Timestamp(at));
            assert_eq!(twice, expected.repeat(2));
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
            let ours = Timestamp(SystemTime::now()).to_string();
            let after = timer();
            ours.len() == before.len() && before[..16] == after[..16] && ours[..16] == before[..16]
        });
        assert!(agreed);
    }
}
