//! The floor of the proxy benchmark: what the HTTP stack utf8gate is built on costs without
//! utf8gate. A bare forwarder on the same pieces and the same threading as the proxy listener
//! (one single-threaded tokio runtime per thread sharing the listening socket, hyper's HTTP/1
//! server, the proxy's pool of upstream connections per thread (`utf8gate_server::proxy::pool`),
//! the body buffered before it is sent on),
//! with no router, no policy, no metrics and no logs.
//!
//! `bench/proxy.sh` runs it beside utf8gate so that the figures say how much of the gap to
//! nginx is the stack's and how much is utf8gate's own work. Not part of the product.
//!
//! Usage: `floor_proxy LISTEN_ADDR UPSTREAM_URL [THREADS]`, e.g.
//! `floor_proxy 127.0.0.1:18074 http://127.0.0.1:18081 2`.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use utf8gate_server::proxy::pool::Pool;

thread_local! {
    static POOL: RefCell<Option<Arc<Pool>>> = const { RefCell::new(None) };
}

/// This thread's pool of connections to `upstream` (`http://host:port`).
fn pool(upstream: &str) -> Arc<Pool> {
    POOL.with(|p| {
        p.borrow_mut()
            .get_or_insert_with(|| {
                let uri: Uri = upstream.parse().expect("an http://host:port upstream");
                let host = uri.host().unwrap_or("127.0.0.1");
                let port = uri.port_u16().unwrap_or(80);
                let (connect, idle) = (Duration::from_secs(2), Duration::from_secs(60));
                Pool::new(host, port, connect, idle, 64)
            })
            .clone()
    })
}

async fn forward(
    upstream: &'static str,
    request: Request<Incoming>,
) -> Result<Response<http_body_util::combinators::BoxBody<Bytes, hyper::Error>>, hyper::Error> {
    let (mut parts, body) = request.into_parts();
    let body = body.collect().await?.to_bytes();
    // The connection writes the URI as given: the origin form.
    let target = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    parts.uri = match Uri::try_from(target) {
        Ok(uri) => uri,
        Err(_) => return Ok(status(StatusCode::BAD_REQUEST)),
    };
    match pool(upstream)
        .send(Request::from_parts(parts, Full::new(body)))
        .await
    {
        Ok(response) => Ok(response.map(|b| b.boxed())),
        Err(_) => Ok(status(StatusCode::BAD_GATEWAY)),
    }
}

fn status(code: StatusCode) -> Response<http_body_util::combinators::BoxBody<Bytes, hyper::Error>> {
    let mut response = Response::new(
        Full::new(Bytes::new())
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = code;
    response
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = || std::io::Error::other("usage: floor_proxy LISTEN_ADDR UPSTREAM_URL [THREADS]");
    let addr: SocketAddr = args.next().and_then(|a| a.parse().ok()).ok_or_else(usage)?;
    let upstream: &'static str = args
        .next()
        .map(|u| &*u.trim_end_matches('/').to_string().leak())
        .ok_or_else(usage)?;
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(2).max(1);
    let shared = std::net::TcpListener::bind(addr)?;
    shared.set_nonblocking(true)?;
    let mut handles = Vec::new();
    for _ in 0..threads {
        let socket = shared.try_clone()?;
        handles.push(std::thread::spawn(move || -> std::io::Result<()> {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async move {
                let socket = tokio::net::TcpListener::from_std(socket)?;
                let http = hyper::server::conn::http1::Builder::new();
                loop {
                    let (stream, _) = socket.accept().await?;
                    let _ = stream.set_nodelay(true);
                    let conn = http.serve_connection(
                        TokioIo::new(stream),
                        hyper::service::service_fn(move |r| forward(upstream, r)),
                    );
                    tokio::spawn(async move {
                        let _ = conn.await;
                    });
                }
            })
        }));
    }
    for handle in handles {
        handle
            .join()
            .map_err(|_| std::io::Error::other("a thread panicked"))??;
    }
    Ok(())
}
