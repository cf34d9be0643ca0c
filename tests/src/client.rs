//! The raw HTTP/1.1 client: exact bytes out, responses parsed by hand.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::*;

/// A request as raw bytes: request line, `Host: e2e.test`, the headers as given (raw bytes,
/// nothing checked), `Content-Length` when there is a body, a blank line and the body.
pub fn request(method: &str, target: &str, headers: &[(&str, &[u8])], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{method} {target} HTTP/1.1\r\nHost: e2e.test\r\n").into_bytes();
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    if !body.is_empty() {
        out.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// `GET target` with no headers but `Host`.
pub fn get(target: &str) -> Vec<u8> {
    request("GET", target, &[], b"")
}

/// A `Transfer-Encoding: chunked` POST whose body is sent as exactly these chunks.
pub fn chunked_post(target: &str, headers: &[(&str, &[u8])], chunks: &[&[u8]]) -> Vec<u8> {
    let total: usize = chunks.iter().map(|c| c.len() + 16).sum();
    let mut out = Vec::with_capacity(total + 256);
    out.extend_from_slice(
        format!("POST {target} HTTP/1.1\r\nHost: e2e.test\r\nTransfer-Encoding: chunked\r\n")
            .as_bytes(),
    );
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    for chunk in chunks.iter().filter(|c| !c.is_empty()) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// The first value of header `name` (any case) in a list of names and raw values.
pub(crate) fn first_header<'a>(headers: &'a [(String, Vec<u8>)], name: &str) -> Option<&'a [u8]> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_slice())
}

/// A response as read off the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawResponse {
    /// The status code.
    pub status: u16,
    /// Header names (lowercased) and raw values, in order.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
}

impl RawResponse {
    /// The first value of a header.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        first_header(&self.headers, name)
    }

    /// The first value of a header as text (lossy), or "" when absent.
    pub fn header_str(&self, name: &str) -> String {
        self.header(name)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .unwrap_or_default()
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; panics with the body when it is not JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "response {} is not JSON ({e}): {}",
                self.status,
                self.text()
            )
        })
    }

    /// `true` if the content type is `application/problem+json`.
    pub fn is_problem(&self) -> bool {
        self.header("content-type") == Some(b"application/problem+json")
    }
}

/// Sends `bytes` on a new connection and reads one response, writing and reading at once (a
/// server may answer before it has read everything: 413, 431). Panics on error or after
/// [`DEFAULT_TIMEOUT`].
pub async fn exchange(addr: SocketAddr, bytes: &[u8]) -> RawResponse {
    try_exchange(addr, bytes.to_vec(), DEFAULT_TIMEOUT)
        .await
        .unwrap_or_else(|e| panic!("exchange with {addr}: {e}"))
}

/// [`exchange`] returning the error, with a timeout (`TimedOut` when it passes).
pub async fn try_exchange(
    addr: SocketAddr,
    bytes: Vec<u8>,
    timeout: Duration,
) -> io::Result<RawResponse> {
    let stream = tokio::time::timeout(timeout, TcpStream::connect(addr))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))??;
    stream.set_nodelay(true)?;
    let (read, mut write) = stream.into_split();
    // The writer gives its half back so the connection is not half-closed before the
    // response is read (hyper closes connections whose client has shut down its side).
    let writer = tokio::spawn(async move {
        let result = write.write_all(&bytes).await;
        (write, result)
    });
    let mut reader = ResponseReader::new(read);
    let response = tokio::time::timeout(timeout, reader.read_response())
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no complete response in time"));
    writer.abort();
    response?
}

/// Reads HTTP/1.1 responses from a stream.
pub(crate) struct ResponseReader<R> {
    stream: R,
    buf: Vec<u8>,
}

impl<R: tokio::io::AsyncRead + Unpin> ResponseReader<R> {
    pub(crate) fn new(stream: R) -> Self {
        ResponseReader {
            stream,
            buf: Vec::new(),
        }
    }

    /// Reads more bytes into the buffer; `UnexpectedEof` at the end of the stream.
    async fn fill(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 64 * 1024];
        let n = self.stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "connection closed; {} unparsed bytes: {:?}",
                    self.buf.len(),
                    String::from_utf8_lossy(&self.buf[..self.buf.len().min(200)])
                ),
            ));
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }

    /// Takes bytes up to and including the first `delimiter`.
    async fn take_until(&mut self, delimiter: &[u8]) -> io::Result<Vec<u8>> {
        let mut searched: usize = 0;
        loop {
            let from = searched.saturating_sub(delimiter.len());
            if let Some(i) = find(&self.buf[from..], delimiter) {
                let end = from + i + delimiter.len();
                return Ok(self.buf.drain(..end).collect());
            }
            searched = self.buf.len();
            self.fill().await?;
        }
    }

    async fn take(&mut self, n: usize) -> io::Result<Vec<u8>> {
        while self.buf.len() < n {
            self.fill().await?;
        }
        Ok(self.buf.drain(..n).collect())
    }

    pub(crate) async fn read_response(&mut self) -> io::Result<RawResponse> {
        loop {
            let head = self.take_until(b"\r\n\r\n").await?;
            let (status, headers) = parse_head(&head)?;
            if (100..200).contains(&status) {
                continue;
            }
            let value = |name: &str| {
                headers
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| String::from_utf8_lossy(v).trim().to_ascii_lowercase())
            };
            let body = if status == 204 || status == 304 {
                Vec::new()
            } else if value("transfer-encoding").is_some_and(|te| te.ends_with("chunked")) {
                self.read_chunked().await?
            } else if let Some(length) = value("content-length") {
                let length = length
                    .parse::<usize>()
                    .map_err(|_| invalid(format!("bad content-length {length:?}")))?;
                self.take(length).await?
            } else {
                // Delimited by the end of the connection.
                loop {
                    match self.fill().await {
                        Ok(()) => {}
                        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
                        Err(e) => return Err(e),
                    }
                }
                std::mem::take(&mut self.buf)
            };
            return Ok(RawResponse {
                status,
                headers,
                body,
            });
        }
    }

    async fn read_chunked(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line = self.take_until(b"\r\n").await?;
            let line = String::from_utf8_lossy(&line[..line.len() - 2]).into_owned();
            let size = line.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size, 16)
                .map_err(|_| invalid(format!("bad chunk size line {line:?}")))?;
            if size == 0 {
                // Trailers, up to the blank line.
                while self.take_until(b"\r\n").await?.len() > 2 {}
                return Ok(body);
            }
            body.extend_from_slice(&self.take(size).await?);
            if self.take(2).await? != b"\r\n" {
                return Err(invalid("chunk not followed by CRLF".into()));
            }
        }
    }
}

pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

type Head = (u16, Vec<(String, Vec<u8>)>);

fn parse_head(head: &[u8]) -> io::Result<Head> {
    let head = &head[..head.len() - 4];
    let mut lines = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let status_line = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
    let mut parts = status_line.split(' ');
    let version = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(invalid(format!(
            "not an HTTP/1 status line: {status_line:?}"
        )));
    }
    let status = parts
        .next()
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| invalid(format!("bad status line {status_line:?}")))?;
    let headers = lines
        .map(|line| {
            let colon = line.iter().position(|&b| b == b':').ok_or_else(|| {
                invalid(format!(
                    "bad header line {:?}",
                    String::from_utf8_lossy(line)
                ))
            })?;
            let name = String::from_utf8_lossy(&line[..colon]).to_ascii_lowercase();
            let value = line[colon + 1..].trim_ascii().to_vec();
            Ok((name, value))
        })
        .collect::<io::Result<Vec<_>>>()?;
    Ok((status, headers))
}

/// How a connection the test is waiting on ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The server closed it (EOF) after sending these bytes (usually none).
    Closed(Vec<u8>),
    /// The server reset it (or another I/O error) after sending these bytes.
    Reset(Vec<u8>, io::ErrorKind),
    /// Still open when the wait ended; these bytes had arrived.
    StillOpen(Vec<u8>),
}

/// One client connection driven step by step.
pub struct RawConn {
    stream: TcpStream,
}

impl RawConn {
    /// Connects to `addr` (at most [`DEFAULT_TIMEOUT`]).
    pub async fn connect(addr: SocketAddr) -> io::Result<RawConn> {
        let stream = tokio::time::timeout(DEFAULT_TIMEOUT, TcpStream::connect(addr))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))??;
        stream.set_nodelay(true)?;
        Ok(RawConn { stream })
    }

    /// A connection over a stream the caller opened (from a chosen local address, say).
    pub fn from_stream(stream: TcpStream) -> RawConn {
        RawConn { stream }
    }

    /// Writes all of `bytes`.
    pub async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes).await
    }

    /// Reads one response (at most `timeout`).
    pub async fn read_response(&mut self, timeout: Duration) -> io::Result<RawResponse> {
        let mut reader = ResponseReader::new(&mut self.stream);
        tokio::time::timeout(timeout, reader.read_response())
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no complete response in time"))?
    }

    /// Reads until the server ends the connection or `within` passes.
    pub async fn wait_for_end(&mut self, within: Duration) -> Ending {
        let deadline = tokio::time::Instant::now() + within;
        let mut received = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match tokio::time::timeout_at(deadline, self.stream.read(&mut buf)).await {
                Err(_) => return Ending::StillOpen(received),
                Ok(Ok(0)) => return Ending::Closed(received),
                Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
                Ok(Err(e)) => return Ending::Reset(received, e.kind()),
            }
        }
    }
}
