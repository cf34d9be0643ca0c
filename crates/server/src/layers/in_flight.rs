//! The `utf8gate_in_flight_requests` gauge: a request counts from its arrival until its
//! response is ready or it is dropped (the client went away).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use prometheus::IntGauge;

/// Counts requests in flight on a gauge.
#[derive(Clone, Debug)]
pub struct InFlightLayer(pub IntGauge);

impl<S> tower::Layer<S> for InFlightLayer {
    type Service = InFlight<S>;
    fn layer(&self, inner: S) -> InFlight<S> {
        InFlight {
            inner,
            gauge: self.0.clone(),
        }
    }
}

/// The service of [`InFlightLayer`].
#[derive(Clone, Debug)]
pub struct InFlight<S> {
    inner: S,
    gauge: IntGauge,
}

impl<S, R> tower::Service<R> for InFlight<S>
where
    S: tower::Service<R>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Counted<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Counted<S::Future> {
        self.gauge.inc();
        Counted {
            inner: self.inner.call(request),
            _guard: Guard(self.gauge.clone()),
        }
    }
}

/// Decrements the gauge when dropped.
struct Guard(IntGauge);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`InFlight`]: the request counts as long as it lives.
    pub struct Counted<F> {
        #[pin]
        inner: F,
        _guard: Guard,
    }
}

impl<F: Future> Future for Counted<F> {
    type Output = F::Output;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}
