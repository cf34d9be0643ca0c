//! Series of a closed label set looked up by index, not by their labels: `with_label_values`
//! hashes the labels and takes a lock (about 300 instructions), and a request records about
//! six series. A series is made on first use, as `with_label_values` makes it, so what is
//! exported does not change.

use std::borrow::Cow;
use std::sync::OnceLock;

use prometheus::core::{MetricVec, MetricVecBuilder};
use prometheus::{Histogram, IntCounter, IntCounterVec};
use utf8gate_policy::{Decision, LocationClass, Mode};

/// Every value of the `decision` label.
pub(super) const DECISIONS: [&str; 4] = [
    Decision::Allow.as_str(),
    Decision::Sanitize.as_str(),
    Decision::Reject.as_str(),
    REFUSED,
];

/// Every value of the `protocol` label.
pub(super) const PROTOCOLS: [&str; 2] = ["http1", "http2"];

/// How many values the `mode` label has (`Mode` as an index).
const MODES: usize = 4;

/// The `decision` label of a request that ended before a verdict (a body over a limit, an
/// unreadable body).
const REFUSED: &str = "refused";

/// The series a request records, by index.
pub(super) struct ByIndex {
    /// `requests` of each mode's default route, by mode and decision.
    requests: Indexed<IntCounter, { MODES * DECISIONS.len() }>,
    /// `inspected_bytes`, by location class.
    pub(super) inspected_bytes: Indexed<IntCounter, { LocationClass::ALL.len() }>,
    /// `duration`, by mode.
    pub(super) duration: Indexed<Histogram, MODES>,
    /// `protocols`, by protocol.
    pub(super) protocols: Indexed<IntCounter, { PROTOCOLS.len() }>,
}

impl ByIndex {
    /// None looked up yet.
    pub(super) fn new() -> ByIndex {
        ByIndex {
            requests: Indexed::new(),
            inspected_bytes: Indexed::new(),
            duration: Indexed::new(),
            protocols: Indexed::new(),
        }
    }

    /// The series of `requests` (the vector) of `mode`, the decision `DECISIONS[decision]` and
    /// `route`: by index for the mode's default route (`default`, uploads `""`).
    pub(super) fn requests<'a>(
        &'a self,
        requests: &IntCounterVec,
        mode: Mode,
        decision: usize,
        route: &str,
    ) -> Cow<'a, IntCounter> {
        let labels = [mode.as_str(), DECISIONS[decision], route];
        let default = if mode == Mode::Scan { "" } else { "default" };
        match route == default {
            true => {
                let index = mode as usize * DECISIONS.len() + decision;
                self.requests.at(requests, index, &labels)
            }
            false => Cow::Owned(requests.with_label_values(&labels)),
        }
    }
}

/// `N` series of one metric vector, each made on its first use.
pub(super) struct Indexed<M, const N: usize> {
    cells: [OnceLock<M>; N],
}

impl<M, const N: usize> Indexed<M, N> {
    /// None looked up yet.
    pub(super) fn new() -> Indexed<M, N> {
        Indexed {
            cells: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// The series of `vec` at `index`, whose labels are `labels`: the same vector and labels
    /// for an index every time. An index past the cells (a label set grown without them) is
    /// looked up by its labels.
    pub(super) fn at<T>(&self, vec: &MetricVec<T>, index: usize, labels: &[&str]) -> Cow<'_, M>
    where
        T: MetricVecBuilder<M = M>,
        M: Clone,
    {
        match self.cells.get(index) {
            Some(cell) => Cow::Borrowed(cell.get_or_init(|| vec.with_label_values(labels))),
            None => Cow::Owned(vec.with_label_values(labels)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ByIndex, DECISIONS, Indexed};
    use prometheus::core::Collector;
    use prometheus::{IntCounterVec, Opts};
    use utf8gate_policy::{Decision, Mode};

    /// Every mode and decision of every route counts under its own labels: no two share an
    /// index, and a decision's index is its label's.
    #[test]
    fn requests_count_under_their_labels() {
        let vec = IntCounterVec::new(Opts::new("r", "r"), &["m", "d", "r"]).unwrap();
        let by_index = ByIndex::new();
        let decisions = [Decision::Allow, Decision::Sanitize, Decision::Reject];
        for (i, d) in decisions.into_iter().enumerate() {
            assert_eq!((d as usize, DECISIONS[d as usize]), (i, d.as_str()));
        }
        let mut n = 0;
        for mode in [Mode::Proxy, Mode::Scan, Mode::Authz, Mode::ExtProc] {
            for (decision, label) in DECISIONS.into_iter().enumerate() {
                for route in ["default", "", "api"] {
                    n += 1;
                    by_index.requests(&vec, mode, decision, route).inc_by(n);
                    by_index.requests(&vec, mode, decision, route).inc_by(n);
                    let labels = [mode.as_str(), label, route];
                    assert_eq!(vec.with_label_values(&labels).get(), 2 * n, "{labels:?}");
                }
            }
        }
    }

    /// An indexed series is the vector's series of those labels, made only once used.
    #[test]
    fn an_index_is_its_labels_series() {
        let vec = IntCounterVec::new(Opts::new("t", "t"), &["l"]).unwrap();
        let indexed: Indexed<_, 2> = Indexed::new();
        assert!(vec.collect()[0].get_metric().is_empty());
        indexed.at(&vec, 1, &["b"]).inc_by(3);
        indexed.at(&vec, 1, &["b"]).inc();
        assert_eq!(vec.with_label_values(&["b"]).get(), 4);
        assert_eq!(vec.collect()[0].get_metric().len(), 1);
        vec.with_label_values(&["a"]).inc();
        assert_eq!(indexed.at(&vec, 0, &["a"]).get(), 1);
        // Past the cells: by its labels, every time.
        indexed.at(&vec, 2, &["c"]).inc();
        indexed.at(&vec, 2, &["c"]).inc();
        assert_eq!(vec.with_label_values(&["c"]).get(), 2);
    }
}
