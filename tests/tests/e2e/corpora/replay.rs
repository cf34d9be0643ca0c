//! [`replay`]: one request's exact bytes to the gateway's proxy listener on a connection of its
//! own, every response read back (only as far as status and origin), and what reached the
//! upstream meanwhile.

use std::fmt::Write as _;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;
use utf8gate_e2e::{Gateway, Recorded, Upstream};

use super::wire::find;

/// How long [`replay`] waits.
#[derive(Debug, Clone, Copy)]
pub(super) enum Wait {
    /// Until the first complete response (or the end of the connection).
    First,
    /// Until the connection ends or stays quiet for a while after a response: pipelined
    /// requests get their answers, and the upstream whatever reaches it.
    Quiet,
}

/// Longest wait for a first response: a request the gateway is still reading (a body it waits
/// for) has not been forwarded, and the case's verdict does not change by waiting longer.
const NO_ANSWER: Duration = Duration::from_secs(2);
/// How long a connection must stay quiet after a response for [`Wait::Quiet`].
const QUIET: Duration = Duration::from_millis(300);

/// What came of one replayed request.
#[derive(Debug)]
pub(super) struct Outcome {
    /// Each complete HTTP/1 response: its status and whether it came from the upstream (the echo
    /// upstream marks its answers with `x-upstream`).
    pub(super) responses: Vec<(u16, bool)>,
    /// How the wait ended: "closed", "reset", "open" (still open when it stopped).
    pub(super) ended: &'static str,
    /// Bytes after the last complete response that are no HTTP/1 response (an HTTP/2 answer).
    pub(super) unparsed: usize,
    /// What reached the upstream meanwhile.
    pub(super) received: Vec<Recorded>,
}

impl Outcome {
    /// Refused: nothing reached the upstream, and every answer is the gateway's own 4xx (or 501 /
    /// 505, RFC 9112's answers to an unknown transfer coding or HTTP version), or none came and
    /// the gateway ended the connection (a connection still open without an answer is a request
    /// the gateway is still reading, not a refusal).
    pub(super) fn refused(&self) -> bool {
        self.received.is_empty()
            && (!self.responses.is_empty() || self.ended != "open")
            && self
                .responses
                .iter()
                .all(|&(s, up)| !up && ((400..500).contains(&s) || s == 501 || s == 505))
    }

    /// One line: the statuses and what the upstream got.
    pub(super) fn describe(&self) -> String {
        let mut out = String::new();
        if self.responses.is_empty() {
            out.push_str("no response");
        }
        for (i, (status, up)) in self.responses.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            let from = if *up { " (upstream's)" } else { "" };
            let _ = write!(out, "{sep}{status}{from}");
        }
        let _ = write!(out, "; connection {}", self.ended);
        if self.unparsed > 0 {
            let _ = write!(out, " ({} other bytes)", self.unparsed);
        }
        if self.received.is_empty() {
            out.push_str("; upstream got nothing");
        }
        for r in &self.received {
            let _ = write!(
                out,
                "; upstream got {} {} with a {}-byte body {:?}",
                r.method,
                r.target,
                r.body.len(),
                String::from_utf8_lossy(&r.body[..r.body.len().min(60)])
            );
        }
        out
    }
}

/// Sends `bytes` on a new connection to the proxy listener (then shuts down the write side when
/// `half_close`), reads what comes back as `wait` says, and returns it with what reached the
/// upstream meanwhile. Never panics on what the gateway does to the connection.
pub(super) async fn replay(
    gw: &Gateway,
    upstream: &Upstream,
    bytes: &[u8],
    half_close: bool,
    wait: Wait,
) -> Outcome {
    let before = upstream.count();
    let stream = TcpStream::connect(gw.proxy)
        .await
        .unwrap_or_else(|e| panic!("connect {}: {e}", gw.proxy));
    stream.set_nodelay(true).unwrap_or_default();
    let (mut read, mut write) = stream.into_split();
    let bytes = bytes.to_vec();
    // The write half is handed back and kept: dropping it would half-close the connection.
    let writer = tokio::spawn(async move {
        if write.write_all(&bytes).await.is_ok() && half_close {
            let _ = write.shutdown().await;
        }
        write
    });
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let started = Instant::now();
    let ended = loop {
        let (responses, _) = parse_responses(&buf);
        let until = match (wait, responses.is_empty()) {
            (_, true) => started + NO_ANSWER,
            (Wait::First, false) => break "open",
            (Wait::Quiet, false) => Instant::now() + QUIET,
        };
        match tokio::time::timeout_at(until, read.read(&mut chunk)).await {
            Err(_) => break "open",
            Ok(Ok(0)) => break "closed",
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
            Ok(Err(_)) => break "reset",
        }
    };
    writer.abort();
    let (responses, consumed) = parse_responses(&buf);
    Outcome {
        responses,
        ended,
        unparsed: buf.len() - consumed,
        received: upstream.records().split_off(before),
    }
}

/// The complete HTTP/1 responses at the start of `buf` (status, from the upstream) and how many
/// bytes they take.
fn parse_responses(buf: &[u8]) -> (Vec<(u16, bool)>, usize) {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(end) = find(&buf[at..], b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&buf[at..at + end]).to_ascii_lowercase();
        let Some(status) = head
            .strip_prefix("http/1.")
            .and_then(|h| h.get(2..5))
            .and_then(|s| s.parse::<u16>().ok())
        else {
            break;
        };
        let header = |name: &str| {
            head.lines()
                .skip(1)
                .filter_map(|l| l.split_once(':'))
                .find(|(n, _)| n.trim() == name)
                .map(|(_, v)| v.trim().to_string())
        };
        let mut next = at + end + 4;
        if !(100..200).contains(&status) && status != 204 && status != 304 {
            if header("transfer-encoding").is_some_and(|te| te.ends_with("chunked")) {
                match chunked_len(&buf[next..]) {
                    Some(n) => next += n,
                    None => break,
                }
            } else {
                let length = header("content-length").and_then(|v| v.parse::<usize>().ok());
                next += length.unwrap_or(buf.len() - next);
                if next > buf.len() {
                    break;
                }
            }
        }
        at = next;
        if !(100..200).contains(&status) {
            out.push((status, header("x-upstream").is_some()));
        }
    }
    (out, at)
}

/// The length of a complete chunked body (with its last chunk and empty trailer) at the start
/// of `buf`, or `None` while it is incomplete.
fn chunked_len(buf: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let line_end = find(&buf[at..], b"\r\n")?;
        let line = String::from_utf8_lossy(&buf[at..at + line_end]).into_owned();
        let size = usize::from_str_radix(line.split(';').next()?.trim(), 16).ok()?;
        at += line_end + 2;
        if size == 0 {
            return Some(at + find(&buf[at..], b"\r\n")? + 2);
        }
        at += size + 2;
        if at > buf.len() {
            return None;
        }
    }
}
