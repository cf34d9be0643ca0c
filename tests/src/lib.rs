//! Test support for the end-to-end tests of utf8gate (`tests/e2e.rs`).
//!
//! Everything runs in-process on loopback (127.0.0.1, port 0):
//!
//! - [`Gateway`]: the three utf8gate listeners (proxy, api, admin) bound with
//!   [`utf8gate_server::serve::Listener::bind`] and served by [`utf8gate_server::serve::run`]
//!   until the test triggers the shutdown (a tokio oneshot).
//! - [`Upstream`]: a real HTTP application behind the proxy, an axum echo router that records
//!   every request it receives (method, target, raw header bytes, body) so tests can assert
//!   what reached it, and that nothing did.
//! - [`HungUpstream`] (accepts, never answers) and [`dead_addr`] (refuses).
//! - A raw HTTP/1.1 client over [`TcpStream`]: [`exchange`] writes bytes no well-behaved
//!   client would send (raw header bytes, oversized heads) while reading the response, and
//!   [`RawConn`] drives a connection step by step (slowloris).
//!
//! Every wait is bounded: exchanges have a timeout, polls have a deadline.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use utf8gate_server::config::{Config, Overrides};
use utf8gate_server::serve::{self, Listener};
use utf8gate_server::state::AppState;

/// How long an [`exchange`] waits for a complete response by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Polls `check` every 10 ms until it is true or `within` has passed; returns its last value.
pub async fn poll_until(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---------------------------------------------------------------------------------------------
// The gateway under test
// ---------------------------------------------------------------------------------------------

/// A configuration from TOML text (as in `config/utf8gate.toml`), with every listener on
/// 127.0.0.1 port 0 and `upstream` (an `http://host:port` URL) as the upstream.
///
/// Panics if the configuration is invalid: that is a mistake in the test.
pub fn config(toml: &str, upstream: Option<&str>) -> Config {
    let overrides = Overrides {
        upstream: upstream.map(str::to_string),
        proxy_addr: Some("127.0.0.1:0".into()),
        api_addr: Some("127.0.0.1:0".into()),
        admin_addr: Some("127.0.0.1:0".into()),
        profile: None,
    };
    Config::load(toml, "test", &[], &overrides, &|_| None)
        .unwrap_or_else(|e| panic!("invalid test configuration: {e}"))
}

/// utf8gate running in this process: proxy, api and admin listeners on loopback.
pub struct Gateway {
    /// The proxy listener (always bound; without an upstream it answers 502).
    pub proxy: SocketAddr,
    /// The API listener (`/v1/scan`, `/v1/sanitize`, `/authz/...`).
    pub api: SocketAddr,
    /// The admin listener (`/metrics`, `/healthz`, `/readyz`).
    pub admin: SocketAddr,
    /// The state the listeners share (configuration, metrics, upstream client).
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Gateway {
    /// Starts the gateway with [`config`]`(toml, upstream)`.
    pub async fn start(toml: &str, upstream: Option<&str>) -> Gateway {
        Gateway::start_with(config(toml, upstream)).await
    }

    /// Starts the gateway with a ready configuration: binds the three listeners (the
    /// configured addresses, port 0 in tests) and serves them until [`Gateway::shutdown`].
    pub async fn start_with(config: Config) -> Gateway {
        let state = AppState::new(config);
        let (proxy, api, admin) = utf8gate_server::routers(&state);
        let c = state.config.clone();
        let mut listeners = Vec::new();
        for (name, addr, router) in [
            ("proxy", c.proxy_addr, proxy),
            ("api", c.api_addr, api),
            ("admin", c.admin_addr, admin),
        ] {
            let listener = Listener::bind(name, addr, router)
                .await
                .unwrap_or_else(|e| panic!("cannot bind the {name} listener on {addr}: {e}"));
            listeners.push(listener);
        }
        let addr = |i: usize| {
            listeners[i]
                .local_addr()
                .unwrap_or_else(|e| panic!("listener address: {e}"))
        };
        let (proxy, api, admin) = (addr(0), addr(1), addr(2));
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            serve::run(
                listeners,
                c.max_header_bytes,
                c.header_read_timeout,
                c.shutdown_grace,
                async move {
                    // A dropped sender is a shutdown too.
                    let _ = rx.await;
                },
            )
            .await;
        });
        Gateway {
            proxy,
            api,
            admin,
            state,
            shutdown: Some(tx),
            task: Some(task),
        }
    }

    /// Triggers the graceful shutdown (stop accepting, drain) without waiting for it.
    pub fn shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Triggers the shutdown and waits at most `within` for [`serve::run`] to return;
    /// `true` if it did.
    pub async fn stop(&mut self, within: Duration) -> bool {
        self.shutdown();
        match self.task.take() {
            Some(task) => tokio::time::timeout(within, task).await.is_ok(),
            None => true,
        }
    }

    /// Scrapes `/metrics` from the admin listener over a socket.
    pub async fn metrics(&self) -> Metrics {
        let response = exchange(self.admin, &get("/metrics")).await;
        assert_eq!(response.status, 200, "GET /metrics: {}", response.text());
        Metrics::parse(&response.text())
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// A parsed Prometheus text exposition.
#[derive(Debug, Clone, Default)]
pub struct Metrics {
    /// Each sample line as `name{labels}` (exactly as written) and its value.
    pub samples: BTreeMap<String, f64>,
    /// The whole text.
    pub text: String,
}

impl Metrics {
    /// Parses the sample lines (`name{labels} value`); comments are kept only in `text`.
    pub fn parse(text: &str) -> Metrics {
        let samples = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (key, value) = l
                    .rsplit_once(' ')
                    .unwrap_or_else(|| panic!("metric line without a value: {l:?}"));
                let value = value
                    .parse::<f64>()
                    .unwrap_or_else(|e| panic!("metric value in {l:?}: {e}"));
                (key.to_string(), value)
            })
            .collect();
        Metrics {
            samples,
            text: text.to_string(),
        }
    }

    /// The value of a sample, `name{labels}` exactly as exposed (labels in name order), or
    /// 0 when the series does not exist yet (a counter that was never incremented).
    pub fn value(&self, key: &str) -> f64 {
        self.samples.get(key).copied().unwrap_or(0.0)
    }

    /// The metric name of every sample (before `{`).
    pub fn names(&self) -> Vec<&str> {
        self.samples
            .keys()
            .map(|k| k.split('{').next().unwrap_or(k))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Upstreams
// ---------------------------------------------------------------------------------------------

/// Request header that makes [`Upstream`] wait this many milliseconds before answering.
pub const DELAY_HEADER: &str = "x-test-delay-ms";
/// Request header that sets the status [`Upstream`] answers with (default 200).
pub const STATUS_HEADER: &str = "x-test-status";

/// One request as the upstream received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The method.
    pub method: String,
    /// The request target (path and query), as received.
    pub target: String,
    /// Header names (lowercase) and raw values, in the order received.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Recorded {
    /// The first value of a header.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }
}

type Records = Arc<Mutex<Vec<Recorded>>>;

fn lock(records: &Records) -> MutexGuard<'_, Vec<Recorded>> {
    // A test that panicked while holding the lock must not hide what was recorded.
    records.lock().unwrap_or_else(|e| e.into_inner())
}

/// A real upstream application on loopback: echoes every request's body back, with status
/// [`STATUS_HEADER`] (default 200) after [`DELAY_HEADER`] ms, and records the request first.
pub struct Upstream {
    /// Where it listens.
    pub addr: SocketAddr,
    records: Records,
    task: JoinHandle<()>,
}

impl Upstream {
    /// Binds 127.0.0.1:0 and serves.
    pub async fn start() -> Upstream {
        let records: Records = Arc::default();
        let router = Router::new().fallback(echo).with_state(records.clone());
        let socket = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind the upstream: {e}"));
        let addr = socket
            .local_addr()
            .unwrap_or_else(|e| panic!("upstream address: {e}"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(socket, router).await;
        });
        Upstream {
            addr,
            records,
            task,
        }
    }

    /// `http://127.0.0.1:PORT`, for the gateway's configuration.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far.
    pub fn records(&self) -> Vec<Recorded> {
        lock(&self.records).clone()
    }

    /// How many requests were received so far.
    pub fn count(&self) -> usize {
        lock(&self.records).len()
    }

    /// Waits at most `within` until at least `n` requests were received; `true` if they were.
    pub async fn wait_for(&self, n: usize, within: Duration) -> bool {
        poll_until(within, || self.count() >= n).await
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn echo(State(records): State<Records>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(c) => c.to_bytes().to_vec(),
        Err(_) => {
            return Response::builder()
                .status(StatusCode::BAD_REQUEST)
                .body(Body::from("upstream: body could not be read"))
                .unwrap_or_default();
        }
    };
    let header_text = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let delay = header_text(DELAY_HEADER)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        .min(10_000);
    let status = header_text(STATUS_HEADER)
        .and_then(|v| v.parse::<u16>().ok())
        .and_then(|s| StatusCode::from_u16(s).ok())
        .unwrap_or(StatusCode::OK);
    lock(&records).push(Recorded {
        method: parts.method.as_str().to_string(),
        target: parts
            .uri
            .path_and_query()
            .map_or("/", |pq| pq.as_str())
            .to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), v.as_bytes().to_vec()))
            .collect(),
        body: body.clone(),
    });
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    Response::builder()
        .status(status)
        .header("x-upstream", "echo")
        .header("content-type", "application/octet-stream")
        .body(Body::from(body))
        .unwrap_or_default()
}

/// An upstream that accepts connections and reads requests but never answers.
pub struct HungUpstream {
    /// Where it listens.
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl HungUpstream {
    /// Binds 127.0.0.1:0 and accepts forever.
    pub async fn start() -> HungUpstream {
        let socket = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind the hung upstream: {e}"));
        let addr = socket
            .local_addr()
            .unwrap_or_else(|e| panic!("hung upstream address: {e}"));
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((stream, _)) = socket.accept().await {
                // Read and discard so the client's writes never block; never answer.
                held.push(tokio::spawn(async move {
                    let mut stream = stream;
                    let mut buf = vec![0u8; 16 * 1024];
                    while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
                    // Keep the socket open after the client half-closes, too.
                    std::future::pending::<()>().await;
                }));
            }
        });
        HungUpstream { addr, task }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for HungUpstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A loopback address nothing listens on: a port bound, then released.
pub async fn dead_addr() -> SocketAddr {
    let socket = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("bind: {e}"));
    socket
        .local_addr()
        .unwrap_or_else(|e| panic!("address: {e}"))
}

// ---------------------------------------------------------------------------------------------
// The raw HTTP/1.1 client
// ---------------------------------------------------------------------------------------------

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
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
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
struct ResponseReader<R> {
    stream: R,
    buf: Vec<u8>,
}

impl<R: tokio::io::AsyncRead + Unpin> ResponseReader<R> {
    fn new(stream: R) -> Self {
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

    async fn read_response(&mut self) -> io::Result<RawResponse> {
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

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
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

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*), so random inputs are the same every run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is replaced by a constant).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}
