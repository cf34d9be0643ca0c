//! The upstream's HTTP/1.1 connections of one serving thread: a stack of idle keep-alive
//! connections, each a hyper client connection driven by a task of that thread.
//!
//! hyper-util's pooled client does the same for any number of hosts: per request it hashes the
//! pool key, locks a shared map, races a checkout against a connect, and spawns a task that
//! waits for the connection to be idle again. A proxy has one upstream, and each serving thread
//! its own connections, so this is a `Vec` behind an uncontended lock: the most recently idle
//! connection is taken (LIFO keeps few connections warm), and a connection goes back when its
//! response body has been read to the end (a response cut short closes it, as hyper does).
//! `docs/BENCHMARKS.md` has the instructions per request it saves.
//!
//! An idle connection may have been closed by the upstream. One that hyper saw close is
//! skipped; a request that hyper gives back unsent (the close seen only on sending) is sent
//! again on the next connection, as hyper-util does with unsent requests. Idle connections are
//! dropped after `idle_timeout` and beyond `max_idle`.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::http::{Request, Response};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// A connection's request handle.
type Sender = SendRequest<Full<Bytes>>;

/// The idle HTTP/1.1 connections to one upstream, of one serving thread.
pub struct Pool {
    /// `host:port` to connect to.
    address: String,
    connect_timeout: Duration,
    idle_timeout: Duration,
    max_idle: usize,
    /// Idle connections, the most recently idle last, with the time they became idle.
    idle: Mutex<Vec<(Sender, Instant)>>,
}

/// Why a request could not be exchanged with the upstream.
#[derive(Debug)]
pub enum PoolError {
    /// The TCP connection could not be made.
    Connect(std::io::Error),
    /// The TCP connection was not made within the connect timeout.
    ConnectTimeout,
    /// HTTP failed on the connection (handshake, sending, or the response head).
    Http(hyper::Error),
}

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PoolError::Connect(e) => write!(f, "connect: {e}"),
            PoolError::ConnectTimeout => f.write_str("connect: timed out"),
            PoolError::Http(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PoolError {}

impl Pool {
    /// An empty pool of connections to `host:port`.
    pub fn new(
        host: &str,
        port: u16,
        connect_timeout: Duration,
        idle_timeout: Duration,
        max_idle: usize,
    ) -> Arc<Pool> {
        Arc::new(Pool {
            address: format!("{host}:{port}"),
            connect_timeout,
            idle_timeout,
            max_idle,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// Sends `request` (whose URI the connection writes as it is: give it in origin form) on
    /// an idle connection, or on a new one, and returns the response head with a body that
    /// gives the connection back when read to the end.
    pub async fn send(
        self: &Arc<Pool>,
        mut request: Request<Full<Bytes>>,
    ) -> Result<Response<Returning>, PoolError> {
        while let Some(mut sender) = self.take_idle() {
            if sender.ready().await.is_err() {
                continue;
            }
            match sender.try_send_request(request).await {
                Ok(response) => return Ok(self.returning(response, sender)),
                Err(mut unsent) => match unsent.take_message() {
                    // Closed before the request was written: the next connection takes it.
                    Some(again) => request = again,
                    None => return Err(PoolError::Http(unsent.into_error())),
                },
            }
        }
        let mut sender = self.connect().await?;
        let response = sender.send_request(request).await;
        Ok(self.returning(response.map_err(PoolError::Http)?, sender))
    }

    /// The most recently idle connection that is neither closed nor idle too long.
    fn take_idle(&self) -> Option<Sender> {
        let mut idle = self.lock();
        while let Some((sender, since)) = idle.pop() {
            if !sender.is_closed() && since.elapsed() < self.idle_timeout {
                return Some(sender);
            }
        }
        None
    }

    /// A new connection, its task spawned on this thread's runtime.
    async fn connect(&self) -> Result<Sender, PoolError> {
        let stream = tokio::time::timeout(self.connect_timeout, TcpStream::connect(&self.address))
            .await
            .map_err(|_| PoolError::ConnectTimeout)?
            .map_err(PoolError::Connect)?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(PoolError::Http)?;
        tokio::spawn(async move {
            // Its errors reach the request that was on it, through `send_request`.
            let _ = connection.await;
        });
        Ok(sender)
    }

    fn returning(
        self: &Arc<Pool>,
        response: Response<Incoming>,
        sender: Sender,
    ) -> Response<Returning> {
        response.map(|body| {
            let mut body = Returning {
                body,
                back: Some((sender, self.clone())),
            };
            body.give_back_if_done();
            body
        })
    }

    fn put_back(&self, sender: Sender) {
        let mut idle = self.lock();
        if idle.len() < self.max_idle {
            idle.push((sender, Instant::now()));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Sender, Instant)>> {
        // The vector is valid whatever a panicking holder did to it.
        self.idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// An upstream response body that gives its connection back to the pool once it has been
/// read to the end (a body dropped before that closes the connection).
pub struct Returning {
    body: Incoming,
    back: Option<(Sender, Arc<Pool>)>,
}

impl Returning {
    fn give_back(&mut self) {
        if let Some((sender, pool)) = self.back.take() {
            pool.put_back(sender);
        }
    }

    fn give_back_if_done(&mut self) {
        if self.body.is_end_stream() {
            self.give_back();
        }
    }
}

impl Body for Returning {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        match &polled {
            Poll::Ready(None) => this.give_back(),
            Poll::Ready(Some(Ok(_))) => this.give_back_if_done(),
            Poll::Ready(Some(Err(_))) => this.back = None,
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Returning {
    fn drop(&mut self) {
        self.give_back_if_done();
    }
}
