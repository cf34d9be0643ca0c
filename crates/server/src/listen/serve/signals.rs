//! The process's signals: SIGHUP reloads, SIGTERM and SIGINT stop.

/// The process's SIGHUP signals, which reload the configuration (`crate::ops::reload`), listened to
/// from this call on (so the signal's default action, ending the process, no longer applies).
/// `None` if the handler cannot be installed.
#[cfg(unix)]
pub fn hangups() -> Option<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok()
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
