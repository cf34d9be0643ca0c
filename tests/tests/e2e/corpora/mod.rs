//! Published third-party corpora replayed end to end: WAFFLED's JSON and multipart bypasses and
//! its valid multipart requests, charset-channel requests, HTTP Garden's parsing discrepancies,
//! PayloadsAllTheThings' traversal encodings and NFKC lookalikes, and OWASP CRS's encoding-rule
//! regression cases. Each wire request goes to the real gateway on loopback with the recording
//! upstream behind it.
//!
//! The data lives outside the repository, in `../shared/peers/external/` (its README.md and each
//! SOURCE.txt say where every file comes from); nothing of it is copied here. Without that folder
//! the tests print one line and pass, unless `REQUIRE_EXTERNAL_CORPORA=1` (CI) makes that a
//! failure.
//!
//! The expectation is utf8gate's own rule, not the source's: a request that is malformed or that
//! a backend can read two ways is refused (a 4xx from the gateway, nothing reaches the upstream);
//! a valid request is forwarded byte for byte; an attack hidden by a request's shape (the source's
//! SQL/XSS marker replaced by a UTF-8 attack that only appears after the backend's decoding) is
//! refused. Every case of a corpus runs; its test then fails once, listing every case that broke
//! the rule.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;
use utf8gate_e2e::{Gateway, Recorded, Upstream};

mod charset_channels;
mod crs;
mod http_garden;
mod payloads;
mod pybytes;
mod waffled;

/// Where the corpora are, relative to this package (`tests/`): the `shared/` folder beside the
/// repository.
const EXTERNAL: &str = "../../shared/peers/external";

/// The corpus folder `name` under [`EXTERNAL`], or `None` (one line on stderr, once per run) when
/// the corpora are absent; with `REQUIRE_EXTERNAL_CORPORA` set, absence is a failure instead.
pub(super) fn corpus(name: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXTERNAL);
    if !root.is_dir() {
        assert!(
            std::env::var_os("REQUIRE_EXTERNAL_CORPORA").is_none(),
            "REQUIRE_EXTERNAL_CORPORA is set but {} is missing",
            root.display()
        );
        static SKIP: Once = Once::new();
        SKIP.call_once(|| {
            eprintln!(
                "skipped: the external corpora are not at {} (REQUIRE_EXTERNAL_CORPORA=1 makes this fail)",
                root.display()
            );
        });
        return None;
    }
    let dir = root.join(name);
    assert!(dir.is_dir(), "{} is missing", dir.display());
    Some(dir)
}

/// The text of a corpus file.
pub(super) fn read(dir: &Path, file: &str) -> String {
    let path = dir.join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A recording upstream and the gateway in front of it, configured with `toml`.
pub(super) async fn start(toml: &str) -> (Upstream, Gateway) {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(toml, Some(&upstream.url())).await;
    (upstream, gw)
}

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

/// The de-chunked body of a well-formed chunked message body (the corpora's own requests).
pub(super) fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let end = find(body, b"\r\n").expect("a chunk-size line");
        let size = std::str::from_utf8(&body[..end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
            .expect("a hexadecimal chunk size");
        body = &body[end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A request split into its head (without the blank line) and its body.
pub(super) fn split(request: &[u8]) -> (&[u8], &[u8]) {
    let at = find(request, b"\r\n\r\n").expect("a request head ending in a blank line");
    (&request[..at], &request[at + 4..])
}

/// `(method, target)` of a request line.
pub(super) fn request_line(request: &[u8]) -> (String, String) {
    let line = request.split(|&b| b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split(' ');
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    (method, target)
}

/// Every occurrence of `marker` in the body replaced by `with` (at least one must be there), and
/// the `Content-Length` line, if any, set to the new body's length.
pub(super) fn substitute(request: &[u8], marker: &[u8], with: &[u8]) -> Vec<u8> {
    let (head, body) = split(request);
    assert!(
        find(body, marker).is_some(),
        "marker {:?} not in the body {:?}",
        String::from_utf8_lossy(marker),
        String::from_utf8_lossy(body)
    );
    let mut new_body = Vec::new();
    let mut rest = body;
    while let Some(at) = find(rest, marker) {
        new_body.extend_from_slice(&rest[..at]);
        new_body.extend_from_slice(with);
        rest = &rest[at + marker.len()..];
    }
    new_body.extend_from_slice(rest);
    let mut out = Vec::new();
    for (i, line) in head.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        if line.to_ascii_lowercase().starts_with(b"content-length:") {
            let cr = if line.ends_with(b"\r") { "\r" } else { "" };
            out.extend_from_slice(format!("Content-Length: {}{cr}", new_body.len()).as_bytes());
        } else {
            out.extend_from_slice(line);
        }
    }
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(&new_body);
    out
}

/// The cases of one corpus and those that broke the rule.
pub(super) struct Tally {
    corpus: String,
    cases: usize,
    failures: Vec<String>,
}

impl Tally {
    pub(super) fn new(corpus: &str) -> Tally {
        Tally {
            corpus: corpus.to_string(),
            cases: 0,
            failures: Vec::new(),
        }
    }

    /// Counts a case; when `ok` is false, keeps `id: shape: expected ...; got ...`.
    pub(super) fn check(&mut self, id: &str, shape: &str, expected: &str, ok: bool, got: &Outcome) {
        self.check_with(id, shape, expected, ok, &got.describe());
    }

    /// [`Tally::check`] with the outcome already described.
    pub(super) fn check_with(
        &mut self,
        id: &str,
        shape: &str,
        expected: &str,
        ok: bool,
        got: &str,
    ) {
        self.cases += 1;
        if std::env::var_os("CORPORA_VERBOSE").is_some() {
            let verdict = if ok { "pass" } else { "FAIL" };
            println!("{verdict} {} {id}: {shape}: {got}", self.corpus);
        }
        if !ok {
            self.failures
                .push(format!("{id}: {shape}: expected {expected}; got {got}"));
        }
    }

    /// Prints the counts; panics listing every failure, if any.
    pub(super) fn finish(self) {
        let failed = self.failures.len();
        println!(
            "{}: {} cases, {} passed, {} failed",
            self.corpus,
            self.cases,
            self.cases - failed,
            failed
        );
        assert!(
            self.failures.is_empty(),
            "{}: {failed} of {} cases break the rule:\n  {}",
            self.corpus,
            self.cases,
            self.failures.join("\n  ")
        );
    }
}
