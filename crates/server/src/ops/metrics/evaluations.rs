//! The evaluations run off the async threads (bodies of 64 KiB and more, coded bodies): how
//! many run and wait now, and how many may run at once (`limits.max_concurrent_evaluations`).

use prometheus::{IntGauge, IntGaugeVec, Opts, Registry};

fn must<T>(r: prometheus::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("metric definition: {e}"))
}

/// The blocking evaluations' series. Cheap to clone.
#[derive(Clone)]
pub struct EvaluationMetrics {
    /// Evaluations running now.
    pub running: IntGauge,
    /// Evaluations waiting for a place now.
    pub waiting: IntGauge,
    limit: IntGauge,
}

impl EvaluationMetrics {
    /// Registers the series in `registry`, every one at 0.
    pub(super) fn register(registry: &Registry) -> EvaluationMetrics {
        let now = must(IntGaugeVec::new(
            Opts::new(
                "blocking_evaluations",
                "Evaluations of large or coded bodies off the async threads, by state: \
                 running, or waiting for one of limits.max_concurrent_evaluations places.",
            ),
            &["state"],
        ));
        let limit = must(IntGauge::new(
            "blocking_evaluations_limit",
            "Evaluations of large or coded bodies that may run at once \
             (limits.max_concurrent_evaluations).",
        ));
        must(registry.register(Box::new(now.clone())));
        must(registry.register(Box::new(limit.clone())));
        EvaluationMetrics {
            running: now.with_label_values(&["running"]),
            waiting: now.with_label_values(&["waiting"]),
            limit,
        }
    }

    /// Exports `places`, the evaluations that may run at once.
    pub fn limit(&self, places: usize) {
        self.limit.set(i64::try_from(places).unwrap_or(i64::MAX));
    }
}
