//! The `utf8gate_in_flight_requests` gauge: a request counts from its arrival until its
//! response is ready or it is dropped (the client went away).

use std::task::{Context, Poll};

use axum::response::Response;
use prometheus::IntGauge;

use crate::listen::layers::on_response::{Hook, OnResponse};

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
    S: tower::Service<R, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = OnResponse<S::Future, Guard>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        self.gauge.inc();
        OnResponse::new(self.inner.call(request), Guard(self.gauge.clone()))
    }
}

/// Decrements the gauge when dropped: with the response, or with the request's future.
pub struct Guard(IntGauge);

impl Hook for Guard {
    fn on_response(self, _: &mut Response) {}
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.dec();
    }
}
