//! Listeners: accept loops with the HTTP/1 limits (head size, head read timeout), one
//! middleware stack (load shedding, concurrency limit, request timeout), and graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use tokio::net::TcpListener;

use tokio::sync::Semaphore;
use tower::util::ServiceExt;

use crate::problem::Problem;
use crate::state::AppState;

/// Wraps a router in the limits every listener shares (see [`Limits`]). One service around
/// the whole router (not `Router::layer`, which wraps each route with its own limit), so the
/// concurrency limit is per listener.
pub fn with_limits(router: Router, state: &AppState) -> Router {
    Router::new().fallback_service(Limited {
        inner: router,
        limits: Limits::new(state),
    })
}

/// The limits every listener applies to each request: count it in flight, shed load beyond
/// `max_concurrent_requests` (503 at once, not memory growth), and bound its handling time
/// (408).
#[derive(Clone)]
pub struct Limits {
    permits: Arc<Semaphore>,
    timeout: Duration,
    in_flight: prometheus::IntGauge,
}

impl Limits {
    /// The limits of `state`'s configuration; each `Limits` has its own concurrency budget.
    pub fn new(state: &AppState) -> Limits {
        Limits {
            permits: Arc::new(Semaphore::new(state.config.max_concurrent_requests)),
            timeout: state.config.request_timeout,
            in_flight: state.metrics.in_flight().clone(),
        }
    }

    /// Runs `handled` (a request's handling, not started yet) under the limits.
    pub async fn run(
        &self,
        handled: impl Future<Output = axum::response::Response>,
    ) -> axum::response::Response {
        // Both held until the response is ready (or the request is dropped).
        let _in_flight = InFlight::new(self.in_flight.clone());
        let Ok(_permit) = self.permits.clone().try_acquire_owned() else {
            return Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "overloaded",
                "Overloaded",
                "too many requests in flight",
                "-",
            )
            .into_response();
        };
        match tokio::time::timeout(self.timeout, handled).await {
            Ok(response) => response,
            Err(_) => Problem::new(
                StatusCode::REQUEST_TIMEOUT,
                "request-timeout",
                "Request timeout",
                "the request took too long",
                "-",
            )
            .into_response(),
        }
    }
}

/// The service [`with_limits`] puts around a router: one layer, one allocation per request.
#[derive(Clone)]
struct Limited {
    inner: Router,
    limits: Limits,
}

impl tower::Service<axum::extract::Request> for Limited {
    type Response = axum::response::Response;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: axum::extract::Request) -> Self::Future {
        let handled = self.inner.call(request);
        let limits = self.limits.clone();
        Box::pin(async move {
            let handled = async move { handled.await.unwrap_or_else(|never| match never {}) };
            Ok(limits.run(handled).await)
        })
    }
}

/// Counts a request in flight for as long as it lives, including when the client goes away
/// and the request's future is dropped.
struct InFlight(prometheus::IntGauge);

impl InFlight {
    fn new(gauge: prometheus::IntGauge) -> InFlight {
        gauge.inc();
        InFlight(gauge)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// What a listener serves.
#[derive(Clone)]
pub enum Serves {
    /// A router (API, admin, the demo's upstream).
    Router(Router),
    /// The proxy: one handler for every request, without a router.
    Proxy(crate::proxy::Proxy),
}

impl From<Router> for Serves {
    fn from(router: Router) -> Serves {
        Serves::Router(router)
    }
}

impl From<crate::proxy::Proxy> for Serves {
    fn from(proxy: crate::proxy::Proxy) -> Serves {
        Serves::Proxy(proxy)
    }
}

/// A bound listener with what it serves.
pub struct Listener {
    /// What it is (for logs): proxy, api, admin, demo-upstream.
    pub name: &'static str,
    /// The socket.
    pub socket: TcpListener,
    /// What it serves.
    pub serves: Serves,
    /// Threads that accept and serve its connections, each with its own single-threaded
    /// runtime (so a request, its upstream connection and their wake-ups stay on one core);
    /// 0 serves it on the shared runtime.
    pub threads: usize,
}

impl Listener {
    /// Binds `addr`, served on the shared runtime.
    pub async fn bind(
        name: &'static str,
        addr: SocketAddr,
        serves: impl Into<Serves>,
    ) -> std::io::Result<Listener> {
        Ok(Listener {
            name,
            socket: TcpListener::bind(addr).await?,
            serves: serves.into(),
            threads: 0,
        })
    }

    /// Serves the listener on `threads` threads of its own (0: on the shared runtime).
    pub fn on_threads(mut self, threads: usize) -> Listener {
        self.threads = threads;
        self
    }

    /// The bound address (useful with port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.socket.local_addr()
    }
}

/// What every accept loop needs: the HTTP/1 settings, the stop signal and the drain time.
#[derive(Clone)]
struct Serving {
    http: hyper::server::conn::http1::Builder,
    stop: tokio::sync::watch::Receiver<bool>,
    grace: Duration,
}

/// Serves every listener until `shutdown` completes, then stops accepting and drains in-flight
/// connections for at most `grace`.
pub async fn run(
    listeners: Vec<Listener>,
    max_header_bytes: usize,
    header_timeout: Duration,
    grace: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .max_header_size(max_header_bytes)
        .max_buf_size(max_header_bytes.max(8192));
    let serving = Serving {
        http,
        stop: stop_rx,
        grace,
    };
    let mut done = Vec::new();
    for listener in listeners {
        let Listener {
            name,
            socket,
            serves,
            threads,
        } = listener;
        if threads == 0 {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let serving = serving.clone();
            tokio::spawn(async move {
                accept_loop(name, socket, serves, serving).await;
                let _ = tx.send(());
            });
            done.push(rx);
            continue;
        }
        let shared = match socket.into_std() {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(listener = name, error = %e, "cannot hand the socket to threads");
                continue;
            }
        };
        for n in 0..threads {
            let socket = match shared.try_clone() {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(listener = name, error = %e, "cannot share the socket");
                    break;
                }
            };
            let (tx, rx) = tokio::sync::oneshot::channel();
            let (serves, serving) = (serves.clone(), serving.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("utf8gate-{name}-{n}"))
                .spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build();
                    match runtime {
                        Ok(rt) => rt.block_on(async move {
                            match TcpListener::from_std(socket) {
                                Ok(socket) => accept_loop(name, socket, serves, serving).await,
                                Err(e) => {
                                    tracing::error!(listener = name, error = %e, "cannot register the socket");
                                }
                            }
                        }),
                        Err(e) => {
                            tracing::error!(listener = name, error = %e, "cannot start a runtime");
                        }
                    }
                    let _ = tx.send(());
                });
            match spawned {
                Ok(_) => done.push(rx),
                Err(e) => tracing::error!(listener = name, error = %e, "cannot start a thread"),
            }
        }
    }
    shutdown.await;
    tracing::info!("shutting down: no new connections, draining in-flight requests");
    let _ = stop_tx.send(true);
    for rx in done {
        let _ = rx.await;
    }
}

/// Accepts connections on `socket` until the stop signal, then drains them for at most the
/// grace time.
async fn accept_loop(
    name: &'static str,
    socket: TcpListener,
    serves: Serves,
    mut serving: Serving,
) {
    let graceful = GracefulShutdown::new();
    loop {
        let accepted = tokio::select! {
            a = socket.accept() => a,
            _ = serving.stop.changed() => break,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(listener = name, error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // As nginx does on keep-alive connections: a response streamed in pieces (head,
        // then the upstream's body) must not wait for the client's delayed ACK.
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(stream);
        match &serves {
            Serves::Router(router) => {
                let service = router
                    .clone()
                    .layer(axum::Extension(ConnectInfo(peer)))
                    .into_service()
                    .map_request(|r: hyper::Request<hyper::body::Incoming>| {
                        r.map(axum::body::Body::new)
                    });
                let conn = serving
                    .http
                    .serve_connection(io, TowerToHyperService::new(service));
                spawn_connection(name, graceful.watch(conn));
            }
            Serves::Proxy(proxy) => {
                let (proxy, peer) = (proxy.clone(), crate::proxy::Peer::new(peer));
                let service = hyper::service::service_fn(move |request| {
                    let (proxy, peer) = (proxy.clone(), peer.clone());
                    async move { Ok::<_, std::convert::Infallible>(proxy.serve(&peer, request).await) }
                });
                let conn = serving.http.serve_connection(io, service);
                spawn_connection(name, graceful.watch(conn));
            }
        }
    }
    drop(socket);
    tokio::select! {
        _ = graceful.shutdown() => tracing::info!(listener = name, "drained"),
        _ = tokio::time::sleep(serving.grace) => tracing::warn!(listener = name, "drain timeout: closing remaining connections"),
    }
}

/// Serves one connection in a task of its own.
fn spawn_connection<E: std::fmt::Display>(
    name: &'static str,
    conn: impl Future<Output = Result<(), E>> + Send + 'static,
) {
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!(listener = name, error = %e, "connection ended with an error");
        }
    });
}

/// Completes on SIGTERM or SIGINT.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
