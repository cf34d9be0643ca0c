//! Evaluations off the async threads, a bounded number at once
//! (`limits.max_concurrent_evaluations`, one per core by default).
//!
//! A body of 64 KiB or more, or a coded one, is evaluated on tokio's blocking pool so that it
//! does not hold up the heads and small bodies the serving threads have in hand. That pool
//! grows to hundreds of threads: unbounded, 32 clients sending 1 MiB bodies at once run 32
//! evaluations time-sliced over the cores, and each takes as long as all of them (measured:
//! a p99 of 68 ms against 49 ms with one place per core, at the same rate; docs/BENCHMARKS.md).
//! With a place per core, evaluations wait their turn in order, each runs at full speed, and
//! the wait is awaited where it can be cancelled (a request timeout or a client gone drops it).
//! The places are one set for the process, shared by every listener and by WebSocket text
//! messages over 64 KiB, and kept across reloads.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::ops::metrics::EvaluationMetrics;

/// The places of blocking evaluations. Cheap to clone (one shared semaphore).
#[derive(Clone)]
pub struct Evaluations {
    places: Arc<Semaphore>,
    metrics: EvaluationMetrics,
}

impl Evaluations {
    /// `set` places (`limits.max_concurrent_evaluations`; 0: one per available core),
    /// counted into `metrics`.
    pub fn new(set: usize, metrics: EvaluationMetrics) -> Evaluations {
        let places = Evaluations::places(set);
        metrics.limit(places);
        Evaluations {
            places: Arc::new(Semaphore::new(places)),
            metrics,
        }
    }

    /// The places `set` gives: itself, or one per available core for 0.
    pub fn places(set: usize) -> usize {
        match set {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n.min(Semaphore::MAX_PERMITS),
        }
    }

    /// Runs `work` on the blocking pool once a place is free, and holds the place until
    /// `work` returns (even if the caller has stopped waiting for it). A panic in `work` is
    /// resumed in the caller.
    pub async fn run<T, F>(&self, work: F) -> T
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        match self.spawn(work).await {
            Ok(done) => done,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }

    /// [`run`](Self::run), with `None` for a `work` that panicked (a WebSocket message whose
    /// evaluation failed closes its tunnel with 1011, not the task).
    pub async fn try_run<T, F>(&self, work: F) -> Option<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.spawn(work).await.ok()
    }

    async fn spawn<T, F>(&self, work: F) -> Result<T, tokio::task::JoinError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let place = {
            let _waiting = Counted::new(&self.metrics.waiting);
            // The semaphore is never closed: `acquire_owned` fails only when it is.
            self.places.clone().acquire_owned().await.ok()
        };
        let running = self.metrics.running.clone();
        let blocking = move || {
            let _running = Counted::new(&running);
            let done = work();
            drop(place);
            done
        };
        tokio::task::spawn_blocking(blocking).await
    }
}

/// One more on a gauge while it lives.
struct Counted<'a>(&'a prometheus::IntGauge);

impl<'a> Counted<'a> {
    fn new(gauge: &'a prometheus::IntGauge) -> Counted<'a> {
        gauge.inc();
        Counted(gauge)
    }
}

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::ops::metrics::Metrics;

    /// At most `places` evaluations run at once however many are handed over, and every one
    /// runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_more_run_at_once_than_there_are_places() {
        let metrics = Metrics::new();
        let evaluations = Evaluations::new(2, metrics.evaluations().clone());
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for i in 0..12 {
            let (evaluations, now, most) = (evaluations.clone(), now.clone(), most.clone());
            tasks.push(tokio::spawn(async move {
                evaluations
                    .run(move || {
                        let at = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(at, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(5));
                        now.fetch_sub(1, Ordering::SeqCst);
                        i
                    })
                    .await
            }));
        }
        let mut done = Vec::new();
        for task in tasks {
            done.push(task.await.unwrap());
        }
        assert_eq!(done, (0..12).collect::<Vec<_>>());
        assert_eq!(most.load(Ordering::SeqCst), 2);
        let text = metrics.render();
        assert!(
            text.contains("utf8gate_blocking_evaluations_limit 2"),
            "{text}"
        );
        assert!(
            text.contains("utf8gate_blocking_evaluations{state=\"running\"} 0"),
            "{text}"
        );
        assert!(
            text.contains("utf8gate_blocking_evaluations{state=\"waiting\"} 0"),
            "{text}"
        );
    }

    /// A caller that stops waiting gives up its turn, and one whose work has started leaves
    /// its place held until the work ends: the next waits for it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_caller_holds_its_place_until_its_work_ends() {
        let evaluations = Evaluations::new(1, Metrics::new().evaluations().clone());
        let (started, release) = (
            Arc::new(tokio::sync::Notify::new()),
            Arc::new(AtomicUsize::new(0)),
        );
        let first = {
            let (evaluations, started, release) =
                (evaluations.clone(), started.clone(), release.clone());
            tokio::spawn(async move {
                evaluations
                    .run(move || {
                        started.notify_one();
                        while release.load(Ordering::SeqCst) == 0 {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    })
                    .await
            })
        };
        started.notified().await;
        first.abort();
        let second = evaluations.run(|| 7);
        let waited = tokio::time::timeout(Duration::from_millis(50), second).await;
        assert!(
            waited.is_err(),
            "the second ran while the first still held the place"
        );
        release.store(1, Ordering::SeqCst);
        assert_eq!(evaluations.run(|| 8).await, 8);
    }

    /// A panicking evaluation is `None` to `try_run` and gives its place back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_evaluation_gives_its_place_back() {
        let evaluations = Evaluations::new(1, Metrics::new().evaluations().clone());
        let failed: Option<()> = evaluations.try_run(|| panic!("an evaluation bug")).await;
        assert!(failed.is_none());
        let next = tokio::time::timeout(Duration::from_secs(5), evaluations.try_run(|| 3));
        assert_eq!(next.await.expect("the place was given back"), Some(3));
    }

    #[test]
    fn zero_is_one_place_per_core() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(Evaluations::places(0), cores);
        assert_eq!(Evaluations::places(3), 3);
    }
}
