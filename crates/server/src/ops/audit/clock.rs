//! Time as the audit lines write it (a leaf): time stamps as `tracing`'s timer writes them,
//! the calendar computed once per second, and durations in milliseconds.

use std::cell::RefCell;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(test)]
use serde::Serialize;

/// `seconds` in milliseconds, rounded to the microsecond (`41.871`, not `41.871452000000005`):
/// a finer figure is timer noise, and its binary tail only lengthens every line.
pub(super) fn milliseconds(seconds: f64) -> f64 {
    (seconds * 1_000_000.0).round() / 1000.0
}

/// A time as `tracing`'s `SystemTime` timer writes it: RFC 3339, UTC, microseconds.
pub(super) struct Timestamp(pub(super) SystemTime);

thread_local! {
    /// The last second a time stamp was written for on this thread, and its text up to the
    /// fraction: `YYYY-MM-DDTHH:MM:SS.` (the calendar is computed once per second).
    static SECOND: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
}

impl Timestamp {
    /// Appends the time stamp to `out`: the second's text (cached), then the microseconds.
    pub(super) fn write_to(&self, out: &mut Vec<u8>) {
        let since = self.0.duration_since(UNIX_EPOCH).unwrap_or_default();
        let seconds = since.as_secs();
        SECOND.with(|cached| {
            let mut cached = cached.borrow_mut();
            if cached.0 != seconds {
                *cached = (seconds, second_prefix(seconds));
            }
            out.extend_from_slice(cached.1.as_bytes());
        });
        let mut micros = since.subsec_micros();
        let mut digits = *b"000000Z";
        for d in digits[..6].iter_mut().rev() {
            *d = b'0' + (micros % 10) as u8;
            micros /= 10;
        }
        out.extend_from_slice(&digits);
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = Vec::with_capacity(32);
        self.write_to(&mut text);
        f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

#[cfg(test)]
impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// `YYYY-MM-DDTHH:MM:SS.` of a count of seconds since the Unix epoch, in UTC (the calendar is
/// the `time` crate's, whose range ends with the year 9999).
fn second_prefix(seconds: u64) -> String {
    let t = i64::try_from(seconds)
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}
