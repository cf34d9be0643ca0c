//! The configuration reloads' series: reloads by result (`ok`, `error`) and the time of the
//! last one that succeeded (start-up counts as one).

use prometheus::{Gauge, IntCounterVec, Opts, Registry};

fn must<T>(r: prometheus::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("metric definition: {e}"))
}

/// The reloads' series. Cheap to clone.
#[derive(Clone)]
pub struct ReloadMetrics {
    reloads: IntCounterVec,
    last_success: Gauge,
}

impl ReloadMetrics {
    /// Registers the series in `registry`, both results at 0 and the last success now.
    pub(super) fn register(registry: &Registry) -> ReloadMetrics {
        let reloads = must(IntCounterVec::new(
            Opts::new(
                "config_reloads_total",
                "Configuration reloads (SIGHUP, POST /admin/reload), by result: ok, or error \
                 (invalid, unreadable, or changing restart-only keys; the old one kept).",
            ),
            &["result"],
        ));
        for result in ["ok", "error"] {
            reloads.with_label_values(&[result]);
        }
        let last_success = must(Gauge::new(
            "config_last_reload_success_timestamp_seconds",
            "When the configuration in force was loaded (start-up or the last successful \
             reload), in seconds since the Unix epoch.",
        ));
        must(registry.register(Box::new(reloads.clone())));
        must(registry.register(Box::new(last_success.clone())));
        let metrics = ReloadMetrics {
            reloads,
            last_success,
        };
        metrics.loaded();
        metrics
    }

    /// Counts a reload that put a new configuration in force, now.
    pub fn succeeded(&self) {
        self.reloads.with_label_values(&["ok"]).inc();
        self.loaded();
    }

    /// Counts a reload that was refused (the old configuration kept).
    pub fn failed(&self) {
        self.reloads.with_label_values(&["error"]).inc();
    }

    fn loaded(&self) {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        self.last_success.set(now.map_or(0.0, |d| d.as_secs_f64()));
    }
}
