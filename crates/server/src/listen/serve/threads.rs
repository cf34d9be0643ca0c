//! A serving thread of its own: a named OS thread with a single-threaded runtime, which
//! registers a share of the listening socket and runs one accept loop on it (so a request, its
//! upstream connection and their wake-ups stay on one core).

use std::future::Future;

use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// Starts the thread `utf8gate-{name}-{n}`, which runs `serve` on `socket` until it returns;
/// the receiver hears when it has (or when the thread could not serve, which is logged).
/// `None`: the thread could not be started (logged).
pub(super) fn start<F, Fut>(
    name: &'static str,
    n: usize,
    socket: std::net::TcpListener,
    serve: F,
) -> Option<oneshot::Receiver<()>>
where
    F: FnOnce(TcpListener) -> Fut + Send + 'static,
    Fut: Future<Output = ()>,
{
    let (tx, rx) = oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name(format!("utf8gate-{name}-{n}"))
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            match runtime {
                Ok(rt) => rt.block_on(async move {
                    match TcpListener::from_std(socket) {
                        Ok(socket) => serve(socket).await,
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
        Ok(_) => Some(rx),
        Err(e) => {
            tracing::error!(listener = name, error = %e, "cannot start a thread");
            None
        }
    }
}
