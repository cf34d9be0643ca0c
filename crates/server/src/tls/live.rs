//! The listeners' TLS in force: the configurations built from the certificate files, swapped
//! whole for new handshakes when the files are loaded again (a handshake in progress and the
//! connections already made keep what they started with). A load that fails keeps the old
//! configurations and is remembered, for the log, `utf8gate_tls_reloads_total{result="error"}`
//! and `/readyz`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arc_swap::ArcSwap;
use rustls::ServerConfig;

use super::files;
use super::server::{self, Served};
use crate::ops::config::Tls;
use crate::ops::metrics::TlsMetrics;

/// The TLS of the listeners, shared by their accept loops and the reloads.
pub struct LiveTls {
    served: ArcSwap<Served>,
    /// The section the served files came from, and their fingerprint then.
    loaded: Mutex<(Tls, Fingerprint)>,
    /// Why the last load failed, if it did (cleared by one that succeeds).
    failed: Mutex<Option<String>>,
    metrics: TlsMetrics,
}

/// The state of the files of a section (see [`files::fingerprint`]).
type Fingerprint = Vec<Option<(u64, std::time::SystemTime, u64)>>;

/// Every file `tls` names.
fn paths(tls: &Tls) -> impl Iterator<Item = &std::path::Path> {
    let pairs = tls.default.iter().chain(&tls.sni);
    pairs
        .flat_map(|p| [p.cert.as_path(), p.key.as_path()])
        .chain(tls.client_ca.as_deref())
}

impl LiveTls {
    /// Loads the files of `tls` (`None` if no listener speaks TLS), or says which is wrong.
    pub fn start(tls: &Tls, metrics: &TlsMetrics) -> Result<Option<Arc<LiveTls>>, String> {
        if !tls.listeners.any() {
            return Ok(None);
        }
        let Prepared {
            tls,
            fingerprint,
            served,
        } = LiveTls::prepare(tls)?;
        metrics.served(&served.certificates);
        Ok(Some(Arc::new(LiveTls {
            served: ArcSwap::from_pointee(served),
            loaded: Mutex::new((tls, fingerprint)),
            failed: Mutex::new(None),
            metrics: metrics.clone(),
        })))
    }

    /// The configuration for a new handshake on a listener that serves HTTP/2 (`h2`) or not.
    pub fn config(&self, h2: bool) -> Arc<ServerConfig> {
        let served = self.served.load();
        if h2 {
            served.with_h2.clone()
        } else {
            served.http1.clone()
        }
    }

    /// Builds the configurations of `tls` without putting them in force: what a reload of
    /// the whole configuration checks before it commits to anything.
    pub fn prepare(tls: &Tls) -> Result<Prepared, String> {
        let fingerprint = files::fingerprint(paths(tls));
        let served = server::build(tls)?;
        Ok(Prepared {
            tls: tls.clone(),
            fingerprint,
            served,
        })
    }

    /// Puts `prepared` in force for new handshakes.
    /// What it records is recorded before it is seen: the failure cleared, then the count,
    /// then the certificates served.
    pub fn commit(&self, prepared: Prepared) {
        *lock(&self.failed) = None;
        *lock(&self.loaded) = (prepared.tls, prepared.fingerprint);
        self.metrics.served(&prepared.served.certificates);
        self.metrics.reloaded(true);
        self.served.store(Arc::new(prepared.served));
    }

    /// Records a load that failed: the configurations in force stay. The reason is set before
    /// the count, so that whoever sees the count can read it.
    pub fn refuse(&self, why: &str) {
        *lock(&self.failed) = Some(why.to_string());
        self.metrics.reloaded(false);
        tracing::error!(
            error = why,
            "TLS certificates not reloaded: the ones in use stay"
        );
    }

    /// Loads the files again if they changed since they were loaded (blocking: file reads).
    /// Changed files that do not load are refused once, until they change again.
    pub fn check(&self) {
        let (tls, before) = lock(&self.loaded).clone();
        let now = files::fingerprint(paths(&tls));
        if now == before {
            return;
        }
        match LiveTls::prepare(&tls) {
            Ok(prepared) => {
                self.commit(prepared);
                tracing::info!("TLS certificate files changed: loaded for new handshakes");
            }
            Err(why) => {
                lock(&self.loaded).1 = now;
                self.refuse(&why);
            }
        }
    }

    /// Counts a failed handshake on `listener` for `reason`.
    pub fn handshake_failed(&self, listener: &str, reason: &str) {
        self.metrics.handshake_failed(listener, reason);
    }

    /// Why the last load of the files failed, while no later one succeeded.
    pub fn failure(&self) -> Option<String> {
        lock(&self.failed).clone()
    }

    /// How often the files are looked at (`tls.watch_seconds` of the section loaded last).
    fn every(&self) -> Duration {
        lock(&self.loaded).0.watch
    }
}

/// A load of the files, not yet in force ([`LiveTls::prepare`]).
pub struct Prepared {
    tls: Tls,
    fingerprint: Fingerprint,
    served: Served,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // What the mutexes hold is whole whatever a panicking holder did.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Looks at the files every `tls.watch_seconds` (off the async threads) for the life of the
/// process; a section with 0 is looked at again a second later, in case a reload set it.
pub async fn watch(live: Arc<LiveTls>) {
    loop {
        let every = live.every();
        if every.is_zero() {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        tokio::time::sleep(every).await;
        let live = live.clone();
        let _ = tokio::task::spawn_blocking(move || live.check()).await;
    }
}
