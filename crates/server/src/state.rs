//! What the listeners share: the live configuration (one [`Snapshot`] of the configuration
//! and what derives from it, swapped whole by a reload: `crate::ops::reload`), the metrics, the
//! memory budget, the blocking evaluations' places and the WebSocket tunnels' cap.
//!
//! A request loads the snapshot once, at its start (the first layer of its listener's stack
//! puts it in the request's extensions: `crate::listen::carried::Current`), and uses that one to its end: a request
//! in flight during a reload finishes under the configuration it started with.

use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwap;
use axum::http::HeaderName;

use crate::budget::Budget;
use crate::gate::{Evaluations, Gate};
use crate::ops::config::{Config, Source};
use crate::ops::metrics::Metrics;
use crate::tls::LiveTls;

/// One configuration and everything built from it, immutable: what a request reads of the
/// configuration, all of it from the same file.
pub struct Snapshot {
    /// The validated configuration.
    pub config: Arc<Config>,
    /// The gate every front end evaluates through.
    pub gate: Gate,
    /// The default profile's path-override headers (`readings.path_override_headers`), as
    /// header names parsed once: the proxy removes (or refuses) them from untrusted peers.
    pub path_overrides: Vec<HeaderName>,
    /// The API's OpenAPI document for this configuration's profiles, built on first use.
    pub openapi: OnceLock<bytes::Bytes>,
}

impl Snapshot {
    /// The snapshot of `config`, its gate recording into `metrics` and evaluating large and
    /// coded bodies in the places of `evaluations`.
    pub fn new(config: Config, metrics: &Metrics, evaluations: &Evaluations) -> Snapshot {
        let config = Arc::new(config);
        let gate = Gate::new(config.clone(), metrics.clone(), evaluations.clone());
        let names = gate
            .profile(None)
            .map_or(&[][..], |p| &p.readings.path_override_headers[..]);
        let path_overrides = names
            .iter()
            .filter_map(|n| HeaderName::from_bytes(n.as_bytes()).ok())
            .collect();
        Snapshot {
            config,
            gate,
            path_overrides,
            openapi: OnceLock::new(),
        }
    }
}

/// The live snapshot, replaced whole and atomically by a reload. Cheap to clone (one shared
/// allocation); loading it is a few atomic operations, no lock.
#[derive(Clone)]
pub struct Live(Arc<ArcSwap<Snapshot>>);

impl Live {
    /// The snapshot in force now. Load it once per request and keep it to the request's end.
    pub fn load(&self) -> Arc<Snapshot> {
        self.0.load_full()
    }

    /// Puts `snapshot` in force for the requests that start from now on; the ones in flight
    /// keep theirs.
    pub fn store(&self, snapshot: Arc<Snapshot>) {
        self.0.store(snapshot);
    }
}

/// What every listener shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The configuration in force (swapped by a reload).
    pub live: Live,
    /// The metrics (one registry for the process's life: a reload keeps every series).
    pub metrics: Metrics,
    /// The memory budget of buffered bodies, one for every listener.
    pub budget: Budget,
    /// The places of the evaluations run off the async threads
    /// (`limits.max_concurrent_evaluations`), one set for the process.
    pub evaluations: Evaluations,
    /// The WebSocket tunnels that may still open (`websocket.max_tunnels`), one permit each.
    pub tunnels: Arc<tokio::sync::Semaphore>,
    /// What a reload reads again, and the lock that makes reloads one at a time.
    pub reloading: Arc<Reloading>,
    /// The TLS listeners' certificates in force (`None`: every listener is cleartext).
    pub tls: Option<Arc<LiveTls>>,
}

/// What a reload (`crate::ops::reload`) needs besides the live snapshot.
#[derive(Default)]
pub struct Reloading {
    /// Where the configuration came from; `None` (a state built from a configuration in
    /// memory, as tests do): nothing to read again, every reload is refused.
    pub source: Option<Source>,
    /// Held for the whole of a reload, so that two reloads never interleave (the later file
    /// read is the one left in force).
    pub lock: tokio::sync::Mutex<()>,
}

impl AppState {
    /// State for `config`.
    pub fn new(config: Config) -> AppState {
        let metrics = Metrics::new();
        metrics.routes(config.routes.list().iter().map(|r| r.name.as_str()));
        let (charged, refusals) = metrics.budget(config.max_buffered_bytes);
        let budget = Budget::new(
            config.max_buffered_bytes,
            config.buffer_wait,
            charged,
            refusals,
        );
        let tunnels = Arc::new(tokio::sync::Semaphore::new(config.websocket.max_tunnels));
        let evaluations = Evaluations::new(
            config.max_concurrent_evaluations,
            metrics.evaluations().clone(),
        );
        let snapshot = Snapshot::new(config, &metrics, &evaluations);
        AppState {
            live: Live(Arc::new(ArcSwap::from_pointee(snapshot))),
            reloading: Arc::default(),
            tls: None,
            tunnels,
            evaluations,
            budget,
            metrics,
        }
    }

    /// The state with the configuration `source` that a reload reads again.
    pub fn reloadable(mut self, source: Source) -> AppState {
        self.reloading = Arc::new(Reloading {
            source: Some(source),
            lock: tokio::sync::Mutex::new(()),
        });
        self
    }

    /// The state with the TLS listeners' certificates `tls` (`crate::tls::LiveTls::start`).
    pub fn with_tls(mut self, tls: Option<Arc<LiveTls>>) -> AppState {
        self.tls = tls;
        self
    }

    /// The snapshot in force now (see [`Live::load`]).
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.live.load()
    }
}
