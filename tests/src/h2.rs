//! HTTP/2 clients for the h2c tests: Debian's `curl --http2-prior-knowledge` (a real client),
//! and [`H2Raw`], a frame writer over a [`TcpStream`] for what curl will not send (a `Host`
//! header that differs from `:authority`, bursts of HEADERS + RST_STREAM).
//!
//! [`H2Raw`] encodes header blocks as HPACK literals without indexing or Huffman coding, so
//! any bytes go out as given; it reads frames back and keeps what the tests look at: the
//! response's first header-block byte (an indexed `:status`), its DATA, a GOAWAY's error code.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::{DEFAULT_TIMEOUT, front_tool};

/// curl, or `None` (skip) unless `REQUIRE_CURL` is set.
pub fn curl_tool() -> Option<PathBuf> {
    front_tool("curl", "CURL_BIN", &[], "REQUIRE_CURL")
}

/// What curl got: the status, the HTTP version it spoke (`2` for HTTP/2) and the body.
#[derive(Debug)]
pub struct CurlResponse {
    /// Status code (0 if none).
    pub status: u16,
    /// `%{http_version}`: "2" over HTTP/2.
    pub version: String,
    /// The response body.
    pub body: Vec<u8>,
}

/// Runs `curl --http2-prior-knowledge` with `args` against `http://{addr}{target}`.
pub async fn curl_h2(
    curl: &PathBuf,
    addr: SocketAddr,
    target: &str,
    args: &[&str],
) -> CurlResponse {
    let out = tokio::process::Command::new(curl)
        .args([
            "-sS",
            "--http2-prior-knowledge",
            "--path-as-is",
            "--max-time",
            "10",
        ])
        .args(["-w", "\n%{http_code} %{http_version}"])
        .args(args)
        .arg(format!("http://{addr}{target}"))
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(DEFAULT_TIMEOUT + Duration::from_secs(2), out)
        .await
        .expect("curl finished in time")
        .expect("curl ran");
    let stdout = out.stdout;
    let split = stdout.iter().rposition(|&b| b == b'\n').unwrap_or(0);
    let tail = String::from_utf8_lossy(&stdout[split..]).trim().to_string();
    let (status, version) = tail.split_once(' ').unwrap_or(("0", ""));
    CurlResponse {
        status: status.parse().unwrap_or(0),
        version: version.to_string(),
        body: stdout[..split].to_vec(),
    }
}

/// The HTTP/2 connection preface.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Frame types.
const DATA: u8 = 0;
const HEADERS: u8 = 1;
const RST_STREAM: u8 = 3;
const SETTINGS: u8 = 4;
const GOAWAY: u8 = 7;
const CONTINUATION: u8 = 9;
/// The largest frame payload before SETTINGS say otherwise (RFC 9113 §4.2).
const MAX_FRAME: usize = 16_384;
/// Flags.
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const ACK: u8 = 0x1;

/// An h2c connection driven frame by frame.
pub struct H2Raw {
    stream: TcpStream,
}

/// What came back on a connection.
#[derive(Debug, Default)]
pub struct H2Read {
    /// The first byte of the header block of stream 1's response: `0x88` is `:status: 200`
    /// and `0x8c` is `:status: 400` (HPACK static table indices 8 and 12).
    pub status_byte: Option<u8>,
    /// That header block, whole (a status outside the static table is a literal in it).
    pub head: Vec<u8>,
    /// The error code of a RST_STREAM of stream 1, if one came.
    pub reset: Option<u32>,
    /// Stream 1's DATA.
    pub body: Vec<u8>,
    /// The error code of a GOAWAY frame, if one came.
    pub goaway: Option<u32>,
    /// The connection was closed (EOF or reset) before the read ended.
    pub closed: bool,
}

impl H2Raw {
    /// Connects and sends the preface with empty SETTINGS.
    pub async fn connect(addr: SocketAddr) -> H2Raw {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        let mut out = PREFACE.to_vec();
        frame(&mut out, SETTINGS, 0, 0, &[]);
        stream.write_all(&out).await.expect("write preface");
        H2Raw { stream }
    }

    /// Sends a request on stream `id`: `headers` (pseudo-headers first, names lowercase, any
    /// value bytes) and, if not empty, `body` in one DATA frame. A header block over 16 KiB
    /// goes in a HEADERS frame and CONTINUATION frames.
    pub async fn request(&mut self, id: u32, headers: &[(&str, &[u8])], body: &[u8]) {
        let mut out = Vec::new();
        let end_stream = if body.is_empty() { END_STREAM } else { 0 };
        let block = header_block(headers);
        let chunks: Vec<&[u8]> = block.chunks(MAX_FRAME).collect();
        for (n, chunk) in chunks.iter().enumerate() {
            let last = if n + 1 == chunks.len() {
                END_HEADERS
            } else {
                0
            };
            match n {
                0 => frame(&mut out, HEADERS, end_stream | last, id, chunk),
                _ => frame(&mut out, CONTINUATION, last, id, chunk),
            }
        }
        if !body.is_empty() {
            frame(&mut out, DATA, END_STREAM, id, body);
        }
        self.stream.write_all(&out).await.expect("write request");
    }

    /// Opens `count` streams (1, 3, 5...) with a GET of `/` for `authority` and cancels each
    /// at once (RST_STREAM CANCEL), all in one write: the rapid-reset pattern.
    pub async fn rapid_reset(&mut self, authority: &str, count: u32) {
        let block = header_block(&[
            (":method", b"GET"),
            (":scheme", b"http"),
            (":path", b"/"),
            (":authority", authority.as_bytes()),
        ]);
        let mut out = Vec::new();
        for n in 0..count {
            let id = 2 * n + 1;
            frame(&mut out, HEADERS, END_HEADERS | END_STREAM, id, &block);
            frame(&mut out, RST_STREAM, 0, id, &8u32.to_be_bytes());
        }
        // The server may close the connection while this is still being written.
        let _ = self.stream.write_all(&out).await;
    }

    /// Reads frames for at most `within`: until stream 1 ends, a GOAWAY, or the end of the
    /// connection. SETTINGS are acknowledged.
    pub async fn read(&mut self, within: Duration) -> H2Read {
        let mut read = H2Read::default();
        let _ = tokio::time::timeout(within, self.read_into(&mut read)).await;
        read
    }

    async fn read_into(&mut self, read: &mut H2Read) {
        loop {
            let mut head = [0u8; 9];
            if self.stream.read_exact(&mut head).await.is_err() {
                read.closed = true;
                return;
            }
            let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            let (kind, flags) = (head[3], head[4]);
            let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
            let mut payload = vec![0u8; len];
            if self.stream.read_exact(&mut payload).await.is_err() {
                read.closed = true;
                return;
            }
            match kind {
                SETTINGS if flags & ACK == 0 => {
                    let mut ack = Vec::new();
                    frame(&mut ack, SETTINGS, ACK, 0, &[]);
                    let _ = self.stream.write_all(&ack).await;
                }
                HEADERS if id == 1 && read.status_byte.is_none() => {
                    read.status_byte = payload.first().copied();
                    read.head = payload;
                    if flags & END_STREAM != 0 {
                        return;
                    }
                }
                DATA if id == 1 => {
                    read.body.extend_from_slice(&payload);
                    if flags & END_STREAM != 0 {
                        return;
                    }
                }
                RST_STREAM if id == 1 && payload.len() >= 4 => {
                    read.reset = Some(u32::from_be_bytes([
                        payload[0], payload[1], payload[2], payload[3],
                    ]));
                    return;
                }
                GOAWAY if payload.len() >= 8 => {
                    read.goaway = Some(u32::from_be_bytes([
                        payload[4], payload[5], payload[6], payload[7],
                    ]));
                }
                _ => {}
            }
        }
    }
}

/// Appends one frame.
fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, id: u32, payload: &[u8]) {
    let len = u32::try_from(payload.len()).expect("frame size");
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.extend_from_slice(&[kind, flags]);
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(payload);
}

/// An HPACK header block of literals without indexing, with literal names, no Huffman coding.
fn header_block(headers: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in headers {
        out.push(0);
        string(&mut out, name.as_bytes());
        string(&mut out, value);
    }
    out
}

/// An HPACK string literal (RFC 7541 §5.2), not Huffman-coded: its length with a 7-bit prefix.
fn string(out: &mut Vec<u8>, bytes: &[u8]) {
    let mut len = bytes.len();
    if len < 127 {
        out.push(len as u8);
    } else {
        out.push(127);
        len -= 127;
        while len >= 128 {
            out.push((len % 128) as u8 | 0x80);
            len /= 128;
        }
        out.push(len as u8);
    }
    out.extend_from_slice(bytes);
}
