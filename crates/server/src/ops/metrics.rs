//! Prometheus metrics: `utf8gate_` prefix, base units, `_total` counters, histograms, and labels
//! only from closed sets (modes, decisions, finding kinds, location classes, error reasons,
//! HTTP versions).

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};
use std::borrow::Cow;
use utf8gate_policy::{Action, Mode, Verdict};

use indexed::{ByIndex, DECISIONS, PROTOCOLS};

mod evaluations;
mod indexed;
mod reload;
mod text;
mod tls;
mod upstream;
mod websocket;

pub use evaluations::EvaluationMetrics;
pub use reload::ReloadMetrics;
pub use tls::{HANDSHAKE_FAILURES, TlsMetrics};
pub use upstream::UpstreamError;
pub use websocket::{Closed, WebSocketMetrics};

/// Every metric utf8gate exports, registered in its own registry. Cheap to clone (one shared
/// allocation).
#[derive(Clone)]
pub struct Metrics {
    inner: std::sync::Arc<Inner>,
}

/// The metrics behind [`Metrics`].
struct Inner {
    registry: Registry,
    requests: IntCounterVec,
    findings: IntCounterVec,
    excluded: IntCounterVec,
    not_text: IntCounterVec,
    inspected_bytes: IntCounterVec,
    duration: HistogramVec,
    protocols: IntCounterVec,
    upstream_duration: Histogram,
    upstream_errors: IntCounterVec,
    body_limit_exceeded: IntCounter,
    log_lines_dropped: IntCounter,
    in_flight: IntGauge,
    budget_bytes: IntGauge,
    budget_charged: IntGauge,
    budget_refusals: IntCounter,
    websocket: WebSocketMetrics,
    reloads: ReloadMetrics,
    evaluations: EvaluationMetrics,
    tls: TlsMetrics,
    /// Series of `requests` (each mode's default route, by mode and decision),
    /// `inspected_bytes` (by class), `duration` (by mode), `protocols`, by index.
    by_index: ByIndex,
}

const LATENCY_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

fn must<T>(r: prometheus::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("metric definition: {e}"))
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Metrics {
        let registry = Registry::new_custom(Some("utf8gate".into()), None).unwrap_or_default();
        let requests = must(IntCounterVec::new(
            Opts::new(
                "requests_total",
                "Requests evaluated, by mode, decision and route (empty for uploads).",
            ),
            &["mode", "decision", "route"],
        ));
        let excluded = must(IntCounterVec::new(
            Opts::new(
                "findings_excluded_total",
                "Findings an exclusion exempted, by route and kind.",
            ),
            &["route", "kind"],
        ));
        let findings = must(IntCounterVec::new(
            Opts::new("findings_total", "Findings, by kind and location class."),
            &["kind", "location"],
        ));
        let inspected_bytes = must(IntCounterVec::new(
            Opts::new(
                "inspected_bytes_total",
                "Bytes inspected, by location class.",
            ),
            &["location"],
        ));
        let duration = must(HistogramVec::new(
            HistogramOpts::new(
                "request_duration_seconds",
                "Time from request head to response, by mode.",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["mode"],
        ));
        let protocols = must(IntCounterVec::new(
            Opts::new(
                "protocol_requests_total",
                "Requests received by the proxy and API listeners, by HTTP version (http1, http2).",
            ),
            &["protocol"],
        ));
        for label in PROTOCOLS {
            protocols.with_label_values(&[label]);
        }
        let upstream_duration = must(Histogram::with_opts(
            HistogramOpts::new(
                "upstream_request_duration_seconds",
                "Time for the upstream to answer with its head.",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
        ));
        let upstream_errors = must(IntCounterVec::new(
            Opts::new(
                "upstream_errors_total",
                "Failed upstream requests, by reason.",
            ),
            &["reason"],
        ));
        let body_limit_exceeded = must(IntCounter::new(
            "body_limit_exceeded_total",
            "Bodies refused for size.",
        ));
        let log_lines_dropped = must(IntCounter::new(
            "log_lines_dropped_total",
            "Log lines dropped because the reader of stderr fell log.buffer_lines behind.",
        ));
        let in_flight = must(IntGauge::new(
            "in_flight_requests",
            "Requests being handled.",
        ));
        let budget_bytes = must(IntGauge::new(
            "budget_bytes",
            "The memory budget of buffered bodies, limits.max_buffered_bytes.",
        ));
        let budget_charged = must(IntGauge::new(
            "budget_charged_bytes",
            "Bytes of the memory budget charged now (buffered bodies times the evaluation factor).",
        ));
        let budget_refusals = must(IntCounter::new(
            "budget_refusals_total",
            "Requests refused (503) because the memory budget could not hold their body.",
        ));
        let build_info = must(IntGaugeVec::new(
            Opts::new(
                "build_info",
                "Always 1; labels carry the version and Unicode version.",
            ),
            &["version", "unicode_version"],
        ));
        let (major, minor, patch) = utf8gate_policy::UNICODE_VERSION;
        let unicode = format!("{major}.{minor}.{patch}");
        build_info
            .with_label_values(&[env!("CARGO_PKG_VERSION"), unicode.as_str()])
            .set(1);
        // Every series of a closed label set exists from the start at 0, so the first event
        // of a kind is an increase that rate() and increase() can see, and an alert on it does
        // not wait for a second one.
        // (Routes other than the default one: `Metrics::routes`.)
        for (mode, route) in [
            (Mode::Proxy, "default"),
            (Mode::Scan, ""),
            (Mode::Authz, "default"),
            (Mode::ExtProc, "default"),
        ] {
            for decision in DECISIONS {
                requests.with_label_values(&[mode.as_str(), decision, route]);
            }
        }
        for reason in [
            UpstreamError::Connect,
            UpstreamError::Timeout,
            UpstreamError::Body,
        ] {
            upstream_errors.with_label_values(&[reason.label()]);
        }
        for c in [
            Box::new(requests.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(findings.clone()),
            Box::new(excluded.clone()),
            Box::new(inspected_bytes.clone()),
            Box::new(duration.clone()),
            Box::new(protocols.clone()),
            Box::new(upstream_duration.clone()),
            Box::new(upstream_errors.clone()),
            Box::new(body_limit_exceeded.clone()),
            Box::new(log_lines_dropped.clone()),
            Box::new(in_flight.clone()),
            Box::new(budget_bytes.clone()),
            Box::new(budget_charged.clone()),
            Box::new(budget_refusals.clone()),
            Box::new(build_info),
        ] {
            must(registry.register(c));
        }
        #[cfg(target_os = "linux")]
        must(registry.register(Box::new(
            prometheus::process_collector::ProcessCollector::for_self(),
        )));
        let websocket = WebSocketMetrics::register(&registry);
        let inner = Inner {
            reloads: ReloadMetrics::register(&registry),
            evaluations: EvaluationMetrics::register(&registry),
            tls: TlsMetrics::register(&registry),
            websocket,
            not_text: text::counter(&registry),
            registry,
            requests,
            findings,
            excluded,
            inspected_bytes,
            duration,
            protocols,
            upstream_duration,
            upstream_errors,
            body_limit_exceeded,
            log_lines_dropped,
            in_flight,
            budget_bytes,
            budget_charged,
            budget_refusals,
            by_index: ByIndex::new(),
        };
        Metrics {
            inner: std::sync::Arc::new(inner),
        }
    }

    /// Creates the request series of the routes named `names` at 0 (see `new`).
    pub fn routes<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        for route in names {
            for mode in [Mode::Proxy, Mode::Authz, Mode::ExtProc] {
                for decision in DECISIONS {
                    (self.inner.requests).with_label_values(&[mode.as_str(), decision, route]);
                }
            }
        }
    }

    /// Counts a request received over `version` (`protocol` label: http1 for HTTP/1.0 and 1.1,
    /// http2; hyper serves no other).
    pub fn received(&self, version: axum::http::Version) {
        let index = usize::from(version == axum::http::Version::HTTP_2);
        let protocols = &self.inner.by_index.protocols;
        (protocols.at(&self.inner.protocols, index, &[PROTOCOLS[index]])).inc();
    }

    /// Records one evaluated request answered after `seconds`.
    pub fn record(&self, mode: Mode, verdict: &Verdict, seconds: f64) {
        self.record_verdict(mode, verdict, "");
        self.observe(mode, seconds);
    }

    /// Records the time from a request's arrival to its response.
    pub fn observe(&self, mode: Mode, seconds: f64) {
        let duration = &self.inner.by_index.duration;
        (duration.at(&self.inner.duration, mode as usize, &[mode.as_str()])).observe(seconds);
    }

    /// The `requests` series of `mode`, the decision `DECISIONS[decision]` and `route`.
    fn requests(&self, mode: Mode, decision: usize, route: &str) -> Cow<'_, IntCounter> {
        (self.inner.by_index).requests(&self.inner.requests, mode, decision, route)
    }

    /// Records a verdict: the request's decision, its findings and the bytes inspected.
    /// `route` is the route's name ("" for uploads, which have none).
    pub fn record_verdict(&self, mode: Mode, verdict: &Verdict, route: &str) {
        self.requests(mode, verdict.decision as usize, route).inc();
        text::record(&self.inner.not_text, mode, verdict);
        for f in &verdict.findings {
            if f.action == Action::Excluded {
                self.inner
                    .excluded
                    .with_label_values(&[route, f.kind.as_str()])
                    .inc();
            }
            self.inner
                .findings
                .with_label_values(&[f.kind.as_str(), f.location.part.class().as_str()])
                .inc();
        }
        // Findings beyond the verdict's list keep their kind; their location is not known.
        if verdict.findings_truncated {
            for (kind, total) in &verdict.counts {
                let listed = verdict
                    .findings
                    .iter()
                    .filter(|f| f.kind.as_str() == kind)
                    .count() as u64;
                if *total > listed {
                    self.inner
                        .findings
                        .with_label_values(&[kind.as_str(), "unlisted"])
                        .inc_by(total - listed);
                }
            }
        }
        let inspected = &self.inner.by_index.inspected_bytes;
        for (class, bytes) in verdict.bytes_by_location.iter() {
            let labels = [class.as_str()];
            (inspected.at(&self.inner.inspected_bytes, class as usize, &labels)).inc_by(bytes);
        }
    }

    /// Records a request that ended before a verdict (limits, errors): decision "refused".
    pub fn record_refused(&self, mode: Mode, route: &str, seconds: f64) {
        self.requests(mode, DECISIONS.len() - 1, route).inc();
        self.observe(mode, seconds);
    }

    /// Records the upstream's answer time.
    pub fn upstream_answered(&self, seconds: f64) {
        self.inner.upstream_duration.observe(seconds);
    }

    /// Records an upstream failure.
    pub fn upstream_failed(&self, reason: UpstreamError) {
        self.inner
            .upstream_errors
            .with_label_values(&[reason.label()])
            .inc();
    }

    /// Records a body refused for size.
    pub fn body_limit_exceeded(&self) {
        self.inner.body_limit_exceeded.inc();
    }

    /// The WebSocket tunnels' series.
    pub fn websocket(&self) -> &WebSocketMetrics {
        &self.inner.websocket
    }

    /// The TLS series.
    pub fn tls(&self) -> &TlsMetrics {
        &self.inner.tls
    }

    /// The configuration reloads' series.
    pub fn reloads(&self) -> &ReloadMetrics {
        &self.inner.reloads
    }

    /// The blocking evaluations' series.
    pub fn evaluations(&self) -> &EvaluationMetrics {
        &self.inner.evaluations
    }

    /// The in-flight gauge.
    pub fn in_flight(&self) -> &IntGauge {
        &self.inner.in_flight
    }

    /// The memory budget's series: its size is set to `bytes`; the charged gauge and the
    /// refusal counter are returned for the budget to keep.
    pub fn budget(&self, bytes: u64) -> (IntGauge, IntCounter) {
        self.inner
            .budget_bytes
            .set(i64::try_from(bytes).unwrap_or(i64::MAX));
        let inner = &self.inner;
        (inner.budget_charged.clone(), inner.budget_refusals.clone())
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let dropped = crate::ops::logging::dropped_lines();
        let counted = self.inner.log_lines_dropped.get();
        if dropped > counted {
            self.inner.log_lines_dropped.inc_by(dropped - counted);
        }
        let mut out = Vec::new();
        if TextEncoder::new()
            .encode(&self.inner.registry.gather(), &mut out)
            .is_err()
        {
            return String::new();
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}
