//! `utf8gate_not_text_total`: bodies not read as text (the verdict's `not_text`), by mode.

use prometheus::{IntCounterVec, Opts, Registry};
use utf8gate_policy::{Mode, Verdict};

/// The counter, registered in `registry`, every mode's series at 0.
pub(super) fn counter(registry: &Registry) -> IntCounterVec {
    let help = "Bodies not read as text (binary), by mode.";
    let counter = must(IntCounterVec::new(
        Opts::new("not_text_total", help),
        &["mode"],
    ));
    for mode in [Mode::Proxy, Mode::Scan, Mode::Authz, Mode::ExtProc] {
        counter.with_label_values(&[mode.as_str()]);
    }
    must(registry.register(Box::new(counter.clone())));
    counter
}

/// Counts `verdict` in `counter` when its body was not read as text.
pub(super) fn record(counter: &IntCounterVec, mode: Mode, verdict: &Verdict) {
    if verdict.not_text.is_some() {
        counter.with_label_values(&[mode.as_str()]).inc();
    }
}

fn must<T>(r: prometheus::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("metric definition: {e}"))
}
