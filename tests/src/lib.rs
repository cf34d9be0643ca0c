//! Test support for the end-to-end tests of utf8gate (`tests/e2e/`).
//!
//! Everything runs on loopback (127.0.0.1, port 0):
//!
//! - [`Gateway`]: the real binary, `utf8gate serve`, as a child process with its three
//!   listeners (proxy, api, admin); the test reads the bound ports from its JSON log, stops it
//!   with SIGTERM and can read every log line it wrote.
//! - [`Upstream`]: a real HTTP application behind the proxy, an axum echo router that records
//!   every request it receives (method, target, raw header bytes, body) so tests can assert
//!   what reached it, and that nothing did.
//! - [`HungUpstream`] (accepts, never answers), [`ResettingUpstream`] (answers part of a
//!   response, then resets) and [`dead_addr`] (refuses).
//! - A raw HTTP/1.1 client over [`TcpStream`]: [`exchange`] writes bytes no well-behaved
//!   client would send (raw header bytes, oversized heads) while reading the response, and
//!   [`RawConn`] drives a connection step by step (slowloris).
//!
//! Every wait is bounded: exchanges have a timeout, polls have a deadline.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use http_body_util::BodyExt;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

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

/// The name of the binary target this crate builds from `crates/server/src/main.rs`, the very
/// file of the `utf8gate` binary (see `tests/Cargo.toml`): cargo builds a package's binaries
/// before it runs that package's integration tests, so the binary under test is never stale.
const BINARY: &str = "utf8gate-under-test";

/// How long [`Gateway::start`] waits for the three "listening" log lines.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The path of the binary under test: beside the test executable's `deps/` directory
/// (`target/<profile>/`).
pub fn binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| panic!("{} has no target/<profile> directory", exe.display()));
    let path = profile_dir.join(format!("{BINARY}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is missing: run the tests with `cargo test -p utf8gate-e2e` (or --workspace), which builds it",
        path.display()
    );
    path
}

/// The real `utf8gate serve` process: proxy (only with an upstream), api and admin listeners
/// on 127.0.0.1, ports chosen by the kernel and read back from the JSON "listening" log lines.
/// Its stderr (the JSON log) is kept for [`Gateway::logs`]. Killed when dropped.
pub struct Gateway {
    /// The proxy listener; without an upstream the binary binds none, and this is an address
    /// nothing listens on.
    pub proxy: SocketAddr,
    /// The API listener (`/v1/scan`, `/v1/sanitize`, `/authz/...`).
    pub api: SocketAddr,
    /// The admin listener (`/metrics`, `/healthz`, `/readyz`).
    pub admin: SocketAddr,
    child: Child,
    logs: Arc<Mutex<Vec<Vec<u8>>>>,
    config_file: PathBuf,
}

impl Gateway {
    /// Writes `toml` (a configuration file, layered over the defaults like any other) to a
    /// temporary file and starts `utf8gate serve --config FILE` with every listener on
    /// 127.0.0.1:0 and `--upstream URL` when given. Panics if the process does not report its
    /// listeners within [`START_TIMEOUT`] (its log is in the message).
    pub async fn start(toml: &str, upstream: Option<&str>) -> Gateway {
        Gateway::start_inner(toml, upstream, false).await
    }

    /// [`Gateway::start`], then stops reading the process's stderr (the pipe stays open and
    /// fills up), as a log shipper that has stalled would.
    pub async fn start_with_stalled_log(toml: &str, upstream: Option<&str>) -> Gateway {
        Gateway::start_inner(toml, upstream, true).await
    }

    async fn start_inner(toml: &str, upstream: Option<&str>, stall_log: bool) -> Gateway {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let config_file = std::env::temp_dir().join(format!(
            "utf8gate-e2e-{}-{}.toml",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&config_file, toml)
            .unwrap_or_else(|e| panic!("write {}: {e}", config_file.display()));
        let mut command = Command::new(binary());
        command.arg("serve").arg("--config").arg(&config_file);
        for flag in ["--proxy-addr", "--api-addr", "--admin-addr"] {
            command.args([flag, "127.0.0.1:0"]);
        }
        if let Some(url) = upstream {
            command.args(["--upstream", url]);
        }
        // UTF8GATE_* variables are configuration overrides: none leak in from the test run.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("UTF8GATE_") {
                command.env_remove(key);
            }
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", binary().display()));
        let stderr = child.stderr.take().expect("piped stderr");
        let logs = Arc::new(Mutex::new(Vec::new()));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let kept = Arc::clone(&logs);
        let started = Arc::new(tokio::sync::Notify::new());
        let stall = stall_log.then(|| Arc::clone(&started));
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(stderr);
            if let Some(started) = stall {
                // Read up to the listening lines, then never again (keeping the pipe open).
                let read_head = async {
                    loop {
                        let mut line = Vec::new();
                        match reader.read_until(b'\n', &mut line).await {
                            Ok(0) | Err(_) => break,
                            Ok(_) => {
                                let _ = tx.send(line);
                            }
                        }
                    }
                };
                tokio::select! {
                    () = read_head => {}
                    () = started.notified() => {}
                }
                std::future::pending::<()>().await;
            }
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let _ = tx.send(line.clone());
                        kept.lock().unwrap_or_else(|p| p.into_inner()).push(line);
                    }
                }
            }
        });

        let wanted = if upstream.is_some() { 3 } else { 2 };
        let mut bound = BTreeMap::new();
        let deadline = tokio::time::Instant::now() + START_TIMEOUT;
        while bound.len() < wanted {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(line)) => {
                    if let Some((name, addr)) = listening(&line) {
                        bound.insert(name, addr);
                    }
                }
                Ok(None) | Err(_) => {
                    let status = child.try_wait().ok().flatten();
                    let log = String::from_utf8_lossy(
                        &logs.lock().unwrap_or_else(|p| p.into_inner()).concat(),
                    )
                    .into_owned();
                    panic!(
                        "utf8gate did not report its listeners (exit: {status:?}); its log:\n{log}"
                    );
                }
            }
        }
        started.notify_one();
        let proxy = match bound.get("proxy") {
            Some(addr) => *addr,
            None => dead_addr().await,
        };
        Gateway {
            proxy,
            api: bound["api"],
            admin: bound["admin"],
            child,
            logs,
            config_file,
        }
    }

    /// Sends SIGTERM (graceful shutdown: stop accepting, drain) without waiting.
    pub fn shutdown(&mut self) {
        if let Some(pid) = self.child.id() {
            let sent = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
            assert!(
                matches!(sent, Ok(s) if s.success()),
                "kill -TERM {pid}: {sent:?}"
            );
        }
    }

    /// Sends SIGTERM and waits at most `within` for the process to exit; `true` if it exited
    /// with status 0.
    pub async fn stop(&mut self, within: Duration) -> bool {
        self.shutdown();
        matches!(
            tokio::time::timeout(within, self.child.wait()).await,
            Ok(Ok(status)) if status.success()
        )
    }

    /// Every line the process has written to stderr so far (JSON log lines), raw bytes.
    pub fn logs(&self) -> Vec<Vec<u8>> {
        self.logs.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The log lines parsed as JSON objects (lines that are not JSON are skipped).
    pub fn log_records(&self) -> Vec<serde_json::Value> {
        self.logs()
            .iter()
            .filter_map(|l| serde_json::from_slice(l).ok())
            .collect()
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
        let _ = self.child.start_kill();
        let _ = std::fs::remove_file(&self.config_file);
    }
}

/// `(listener, address)` from a JSON log line `{"message":"listening","listener":..,"addr":..}`.
fn listening(line: &[u8]) -> Option<(String, SocketAddr)> {
    let record: serde_json::Value = serde_json::from_slice(line).ok()?;
    if record.get("message")?.as_str()? != "listening" {
        return None;
    }
    let name = record.get("listener")?.as_str()?.to_string();
    let addr = record.get("addr")?.as_str()?.parse().ok()?;
    Some((name, addr))
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

/// An upstream that reads each request head, writes `reply` (raw bytes: nothing, or a response
/// head and part of its body) and then resets the connection (SO_LINGER 0, so an RST, not a
/// FIN).
pub struct ResettingUpstream {
    /// Where it listens.
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl ResettingUpstream {
    /// Binds 127.0.0.1:0 and answers every connection with `reply`, then an RST.
    pub async fn start(reply: Vec<u8>) -> ResettingUpstream {
        let socket = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind the resetting upstream: {e}"));
        let addr = socket
            .local_addr()
            .unwrap_or_else(|e| panic!("resetting upstream address: {e}"));
        let reply = Arc::new(reply);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = socket.accept().await {
                let reply = Arc::clone(&reply);
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while find(&head, b"\r\n\r\n").is_none() {
                        match tokio::time::timeout(DEFAULT_TIMEOUT, stream.read(&mut buf)).await {
                            Ok(Ok(n)) if n > 0 => head.extend_from_slice(&buf[..n]),
                            _ => return,
                        }
                    }
                    let _ = stream.write_all(&reply).await;
                    let _ = stream.flush().await;
                    // Let the bytes leave before the RST discards anything still queued.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let _ = stream.set_zero_linger();
                    drop(stream);
                });
            }
        });
        ResettingUpstream { addr, task }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for ResettingUpstream {
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
