//! Upstreams behind the proxy: the recording [`Upstream`], and ones that hang, reset or refuse.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::*;

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
    /// The HTTP version it came over: `HTTP/1.1` or `HTTP/2.0`.
    pub version: String,
}

impl Recorded {
    /// The first value of a header.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        first_header(&self.headers, name)
    }
}

type Records = Arc<Mutex<Vec<Recorded>>>;

/// What the echo handler shares: the records and, for [`Upstream::start_with_page`], the page.
#[derive(Clone)]
struct Echo {
    records: Records,
    page: Option<Arc<Page>>,
}

/// An HTML page served at one path (a browser test's page).
struct Page {
    path: String,
    html: String,
}

fn lock(records: &Records) -> MutexGuard<'_, Vec<Recorded>> {
    // A test that panicked while holding the lock must not hide what was recorded.
    records.lock().unwrap_or_else(|e| e.into_inner())
}

/// A real upstream application on loopback: echoes every request's body back, with status
/// [`STATUS_HEADER`] (default 200) after [`DELAY_HEADER`] ms, and records the request first.
pub struct Upstream {
    listening: Listening,
    records: Records,
}

impl Upstream {
    /// Binds 127.0.0.1:0 and serves.
    pub async fn start() -> Upstream {
        Upstream::serve(None).await
    }

    /// [`Upstream::start`], and `GET path` answers `html` (`text/html; charset=utf-8`); every
    /// other request is echoed as `text/plain; charset=utf-8`, which a browser shows in a
    /// frame (the default `application/octet-stream` would start a download instead).
    /// Requests for the page are recorded too.
    pub async fn start_with_page(path: &str, html: String) -> Upstream {
        let path = path.to_string();
        Upstream::serve(Some(Arc::new(Page { path, html }))).await
    }

    /// [`Upstream::start`] with the application's router wrapped by `wrap` (a layer in front
    /// of it: what passes the layer is recorded).
    pub async fn start_wrapped(wrap: impl FnOnce(Router) -> Router) -> Upstream {
        Upstream::serve_wrapped(None, wrap).await
    }

    async fn serve(page: Option<Arc<Page>>) -> Upstream {
        Upstream::serve_wrapped(page, |router| router).await
    }

    async fn serve_wrapped(
        page: Option<Arc<Page>>,
        wrap: impl FnOnce(Router) -> Router,
    ) -> Upstream {
        let records: Records = Arc::default();
        let state = Echo {
            records: records.clone(),
            page,
        };
        let router = wrap(Router::new().fallback(echo).with_state(state));
        let listening = Listening::start("the upstream", |socket| async move {
            let _ = axum::serve(socket, router).await;
        })
        .await;
        Upstream { listening, records }
    }

    /// `http://127.0.0.1:PORT`, for the gateway's configuration.
    pub fn url(&self) -> String {
        self.listening.url()
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

async fn echo(State(Echo { records, page }): State<Echo>, request: Request) -> Response {
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
        version: format!("{:?}", parts.version),
    });
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let (content_type, body) = match page {
        None => ("application/octet-stream", body),
        Some(page) if parts.method == "GET" && parts.uri.path() == page.path => {
            ("text/html; charset=utf-8", page.html.clone().into_bytes())
        }
        Some(_) => ("text/plain; charset=utf-8", body),
    };
    Response::builder()
        .status(status)
        .header("x-upstream", "echo")
        .header("content-type", content_type)
        .body(Body::from(body))
        .unwrap_or_default()
}

/// A listener on 127.0.0.1:0 served by a task, stopped when dropped.
struct Listening {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Listening {
    /// Binds 127.0.0.1:0 and hands the socket to `serve` in a task.
    async fn start<F, Fut>(what: &str, serve: F) -> Listening
    where
        F: FnOnce(TcpListener) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let socket = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind {what}: {e}"));
        let addr = socket
            .local_addr()
            .unwrap_or_else(|e| panic!("address of {what}: {e}"));
        Listening {
            addr,
            task: tokio::spawn(serve(socket)),
        }
    }

    /// Accepts connections and handles each with `conn` in its own task; the connections'
    /// tasks end with the listener's.
    async fn each_connection<F, Fut>(what: &str, conn: F) -> Listening
    where
        F: Fn(TcpStream) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Listening::start(what, |socket| async move {
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((stream, _)) = socket.accept().await {
                connections.spawn(conn(stream));
            }
        })
        .await
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An upstream that accepts connections and reads requests but never answers.
pub struct HungUpstream(Listening);

impl HungUpstream {
    /// Binds 127.0.0.1:0 and accepts forever.
    pub async fn start() -> HungUpstream {
        HungUpstream(
            Listening::each_connection("the hung upstream", |mut stream| async move {
                // Read and discard so the client's writes never block; never answer.
                let mut buf = vec![0u8; 16 * 1024];
                while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
                // Keep the socket open after the client half-closes, too.
                std::future::pending::<()>().await;
            })
            .await,
        )
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.0.url()
    }
}

/// An upstream that reads each request head, writes `reply` (raw bytes: nothing, or a response
/// head and part of its body) and then resets the connection (SO_LINGER 0, so an RST, not a
/// FIN).
pub struct ResettingUpstream(Listening);

impl ResettingUpstream {
    /// Binds 127.0.0.1:0 and answers every connection with `reply`, then an RST.
    pub async fn start(reply: Vec<u8>) -> ResettingUpstream {
        let reply = Arc::new(reply);
        ResettingUpstream(
            Listening::each_connection("the resetting upstream", move |mut stream| {
                let reply = Arc::clone(&reply);
                async move {
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
                }
            })
            .await,
        )
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.0.url()
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
