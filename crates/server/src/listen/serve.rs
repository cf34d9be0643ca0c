//! Listeners: accept loops serving HTTP/1.1 and, on the listeners that enable it, HTTP/2 over
//! cleartext with prior knowledge on the same port (told apart by the first bytes), with their limits
//! (head size and read timeout; streams, header list size, rapid-reset bounds) and graceful
//! shutdown. A listener serves what [`Serves`] makes; what that service is (a stack of layers
//! around the proxy or a router) is `crate::listen::stack`'s business, not this module's.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::util::ServiceExt;

use crate::listen::carried::Carried;
use crate::listen::peer::Peer;
use crate::ops::config::Http2;
use crate::tls::LiveTls;

mod balance;
mod handshake;
mod signals;
mod threads;
mod upgradeable;
pub use signals::{hangups, signal};
pub use upgradeable::Draining;

/// What a listener serves: an accept loop for one service type (from hyper's requests to
/// responses, with the request's [`Peer`] in its extensions), the service made once per serving
/// thread so that what it keeps (the proxy's pooled upstream connections) stays on its thread.
/// Built by `crate::listen::stack`. The loop's future is boxed once per thread, never per request.
#[derive(Clone)]
pub struct Serves(Arc<ServeSocket>);

type ServeSocket = dyn Fn(&'static str, TcpListener, Serving) -> Pin<Box<dyn Future<Output = ()> + Send>>
    + Send
    + Sync;

impl Serves {
    /// Serves the services `make` makes, one per serving thread.
    pub fn new<M, S>(make: M) -> Serves
    where
        M: Fn() -> S + Send + Sync + 'static,
        S: tower::Service<Request<Incoming>, Response = Response, Error = Infallible>
            + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
    {
        Serves(Arc::new(move |name, socket, serving| {
            Box::pin(accept_loop(name, socket, make(), serving))
        }))
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
    /// Serves h2c (prior knowledge) next to HTTP/1.1, if `[listen] http2` allows it; over
    /// TLS, h2 as ALPN chooses.
    pub http2: bool,
    /// Speaks TLS with these certificates (`[tls] listeners`); `None`: cleartext.
    pub tls: Option<Arc<LiveTls>>,
}

impl Listener {
    /// Binds `addr`, served on the shared runtime by the service `serves` makes.
    pub async fn bind(
        name: &'static str,
        addr: SocketAddr,
        serves: Serves,
    ) -> std::io::Result<Listener> {
        Ok(Listener {
            name,
            socket: TcpListener::bind(addr).await?,
            serves,
            threads: 0,
            http2: false,
            tls: None,
        })
    }

    /// Speaks TLS with `tls`'s certificates (`None`: cleartext).
    pub fn with_tls(mut self, tls: Option<Arc<LiveTls>>) -> Listener {
        self.tls = tls;
        self
    }

    /// Serves HTTP/2 (h2c, prior knowledge) too when `on` (`listen.http2`).
    pub fn with_http2(mut self, on: bool) -> Listener {
        self.http2 = on;
        self
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

/// What every accept loop needs: the HTTP settings, the stop signal and the drain time.
#[derive(Clone)]
pub struct Serving {
    http: Arc<Builders>,
    stop: tokio::sync::watch::Receiver<bool>,
    grace: Duration,
    /// The certificates of a TLS listener; `None`: cleartext.
    tls: Option<Arc<LiveTls>>,
    /// This thread's place among the listener's serving threads, when it has several.
    seat: Option<balance::Seat>,
}

/// The connection builders: HTTP/1.1 always, h2c on the listeners that serve it.
struct Builders {
    http1: hyper::server::conn::http1::Builder,
    http2: Option<hyper::server::conn::http2::Builder<TokioExecutor>>,
    header_timeout: Duration,
}

/// The limits of every listener: the request head's (both protocols) and HTTP/2's.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest request head; an HTTP/2 header list too (CONTINUATION frames included).
    pub max_header_bytes: usize,
    /// Time to receive the request head (and, on a new connection, its first bytes).
    pub header_timeout: Duration,
    /// The HTTP/2 settings.
    pub http2: Http2,
}

impl Builders {
    /// HTTP/1.1 with the head limits, and h2c with the HTTP/2 ones if `http2`.
    fn new(limits: &Limits, http2: bool) -> Builders {
        let max_header_bytes = limits.max_header_bytes;
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_header_size(max_header_bytes)
            .max_buf_size(max_header_bytes.max(8192));
        let h2 = &limits.http2;
        let http2 = (http2 && h2.enabled).then(|| {
            let mut b = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
            b.timer(TokioTimer::new())
                .max_header_list_size(u32::try_from(max_header_bytes).unwrap_or(u32::MAX))
                .max_concurrent_streams(h2.max_concurrent_streams)
                .max_pending_accept_reset_streams(h2.max_pending_accept_reset_streams)
                .max_local_error_reset_streams(h2.max_local_error_reset_streams);
            b
        });
        Builders {
            http1,
            http2,
            header_timeout: limits.header_timeout,
        }
    }
}

/// Serves every listener until `shutdown` completes, then stops accepting and drains in-flight
/// connections for at most `grace`.
pub async fn run(
    listeners: Vec<Listener>,
    limits: Limits,
    grace: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let both = Arc::new(Builders::new(&limits, true));
    let http1_only = Arc::new(Builders::new(&limits, false));
    let serving = |http2: bool| Serving {
        http: if http2 {
            both.clone()
        } else {
            http1_only.clone()
        },
        stop: stop_rx.clone(),
        grace,
        tls: None,
        seat: None,
    };
    let mut done = Vec::new();
    for listener in listeners {
        let Listener {
            name,
            socket,
            serves,
            threads,
            http2,
            tls,
        } = listener;
        let serving = Serving {
            tls,
            ..serving(http2)
        };
        if threads == 0 {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let serving = serving.clone();
            let serving = (serves.0)(name, socket, serving);
            tokio::spawn(async move {
                serving.await;
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
        let mut seats = balance::Balance::seats(threads).into_iter();
        for n in 0..threads {
            let socket = match shared.try_clone() {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(listener = name, error = %e, "cannot share the socket");
                    break;
                }
            };
            let serving = Serving {
                seat: seats.next().filter(|_| threads > 1),
                ..serving.clone()
            };
            let serves = serves.clone();
            let serve = move |socket| (serves.0)(name, socket, serving);
            done.extend(threads::start(name, n, socket, serve));
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
async fn accept_loop<S>(name: &'static str, socket: TcpListener, service: S, mut serving: Serving)
where
    S: tower::Service<Request<Incoming>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let graceful = GracefulShutdown::new();
    let seat = serving.seat.take().map(balance::Seat::join);
    loop {
        let accepted = tokio::select! {
            a = async {
                if let Some(seat) = &seat {
                    seat.turn().await;
                }
                socket.accept().await
            } => a,
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
        let draining = Draining::new(serving.stop.clone(), graceful.watcher());
        let service = service.clone();
        // The request's service on this connection, once its peer is known.
        let carrying = move |peer: Peer| {
            service.map_request(move |mut r: Request<Incoming>| {
                let upgrade = r.headers().contains_key(axum::http::header::UPGRADE);
                r.extensions_mut().insert(Carried {
                    peer: Some(peer.clone()),
                    draining: upgrade.then(|| draining.clone()),
                    ..Carried::default()
                });
                crate::convert::authority::host_from_authority(&mut r);
                crate::convert::crumbs::join_cookie_crumbs(&mut r);
                r
            })
        };
        let (http, watcher) = (serving.http.clone(), graceful.watcher());
        let (stop, tls) = (serving.stop.clone(), serving.tls.clone());
        let counted = seat.as_ref().map(balance::Accepting::opened);
        spawn_connection(name, async move {
            let _counted = counted;
            let timeout = http.header_timeout;
            let Some(tls) = tls else {
                // The first bytes tell h2c (its preface) from HTTP/1, within the head's time.
                let Some(h2) = handshake::first_bytes(&stream, timeout).await else {
                    return Ok(());
                };
                let service = carrying(Peer::new(peer));
                return serve_io(TokioIo::new(stream), h2, &http, service, stop, watcher).await;
            };
            let h2_served = http.http2.is_some();
            let Some(accepted) = handshake::accept(name, stream, &tls, h2_served, timeout).await
            else {
                return Ok(());
            };
            let service = carrying(Peer::over(peer, true, accepted.client));
            let io = TokioIo::new(accepted.stream);
            serve_io(io, accepted.h2, &http, service, stop, watcher).await
        });
    }
    drop(socket);
    tokio::select! {
        _ = graceful.shutdown() => tracing::info!(listener = name, "drained"),
        _ = tokio::time::sleep(serving.grace) => tracing::warn!(listener = name, "drain timeout: closing remaining connections"),
    }
}

/// Serves HTTP/2 (`h2`, if the listener serves it) or HTTP/1.1 on `io` until it ends or, on
/// `stop`, drains it; `watcher` holds the listener's drain until then.
async fn serve_io<I, S>(
    io: TokioIo<I>,
    h2: bool,
    http: &Builders,
    service: S,
    stop: tokio::sync::watch::Receiver<bool>,
    watcher: hyper_util::server::graceful::Watcher,
) -> Result<(), hyper::Error>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    S: tower::Service<Request<Incoming>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let service = TowerToHyperService::new(service);
    match http.http2.as_ref().filter(|_| h2) {
        Some(h2) => watcher.watch(h2.serve_connection(io, service)).await,
        None => {
            let conn = http.http1.serve_connection(io, service);
            upgradeable::watch(conn.with_upgrades(), stop, watcher).await
        }
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
