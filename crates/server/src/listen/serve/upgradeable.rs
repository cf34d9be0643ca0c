//! An HTTP/1.1 connection that may be upgraded (a WebSocket handshake), under graceful
//! shutdown.
//!
//! hyper-util's `GracefulShutdown::watch` takes hyper's plain HTTP/1 connection but not the
//! upgradeable one (`with_upgrades`), so this does what it does: on the stop signal, the
//! connection is told to finish its request in flight and close, and the shutdown waits for it
//! through the `Watcher` held until the connection ends. An upgraded connection has left
//! hyper (its tunnel is a task of its own) and ends at once; the tunnel holds a [`Draining`] of
//! its own, so that the drain waits for it too and it hears the stop signal.

use std::error::Error as StdError;
use std::pin::pin;
use std::sync::Arc;

use hyper::body::{Body, Incoming};
use hyper::rt::{Read, Write};
use hyper::server::conn::http1::UpgradeableConnection;
use hyper::service::HttpService;
use hyper_util::server::graceful::Watcher;
use tokio::sync::watch;

/// What a request that may be upgraded carries of its listener (in its extensions): the stop
/// signal, and a hold on the listener's drain, which waits until every clone is dropped (or its
/// grace time ends).
#[derive(Clone)]
pub struct Draining {
    stop: watch::Receiver<bool>,
    _held: Arc<Watcher>,
}

impl Draining {
    /// A hold on the drain of the listener that `stop` stops.
    pub(super) fn new(stop: watch::Receiver<bool>, watcher: Watcher) -> Draining {
        Draining {
            stop,
            _held: Arc::new(watcher),
        }
    }

    /// Completes once the listener is stopping.
    pub async fn stopped(&mut self) {
        stopped(&mut self.stop).await;
    }
}

/// Completes once `stop` is true, or its sender gone (the server is going away: a stop too).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        if stop.changed().await.is_err() {
            break;
        }
    }
}

/// Serves `conn` until it ends; on `stop`, shuts it down gracefully. `watcher` is held until
/// then, so the listener's drain waits for this connection.
pub(super) async fn watch<I, S, B>(
    conn: UpgradeableConnection<I, S>,
    mut stop: watch::Receiver<bool>,
    watcher: Watcher,
) -> Result<(), hyper::Error>
where
    S: HttpService<Incoming, ResBody = B>,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    I: Read + Write + Unpin + Send + 'static,
    B: Body + 'static,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let mut conn = pin!(conn);
    let stopping = stopped(&mut stop);
    let ended = tokio::select! {
        ended = conn.as_mut() => Some(ended),
        () = stopping => None,
    };
    let ended = match ended {
        Some(ended) => ended,
        None => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    drop(watcher);
    ended
}
