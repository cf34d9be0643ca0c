//! What the listeners share: the validated configuration, the metrics, the memory budget, the
//! gate and the WebSocket tunnels' cap.

use std::sync::Arc;

use crate::budget::Budget;
use crate::config::Config;
use crate::gate::Gate;
use crate::metrics::Metrics;

/// What every listener shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// The validated configuration.
    pub config: Arc<Config>,
    /// The metrics.
    pub metrics: Metrics,
    /// The gate every front end evaluates through.
    pub gate: Gate,
    /// The memory budget of buffered bodies, one for every listener.
    pub budget: Budget,
    /// The WebSocket tunnels that may still open (`websocket.max_tunnels`), one permit each.
    pub tunnels: Arc<tokio::sync::Semaphore>,
}

impl AppState {
    /// State for `config`.
    pub fn new(config: Config) -> AppState {
        let config = Arc::new(config);
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
        AppState {
            tunnels,
            budget,
            gate: Gate::new(config.clone(), metrics.clone()),
            config,
            metrics,
        }
    }
}
