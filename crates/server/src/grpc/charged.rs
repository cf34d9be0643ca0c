//! The gRPC check's request body read whole (tonic would buffer it whole too) within the
//! largest message, charged to the memory budget before it is allocated. The [`Charge`] goes
//! with the request (its extensions) to the gate; a body refused (the budget cannot hold it,
//! it is over the limit or cut short) reaches the service as an empty message marked
//! [`Refused`], which the service answers as a denial with the problem's status (503 with
//! `Retry-After` for the budget), so that Envoy passes that answer on to the client.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::http::Request;
use bytes::Bytes;
use http_body_util::Full;
use tonic::body::Body;

use crate::budget::{Budget, Charge};
use crate::layers::body_limit::read_whole;
use crate::problem::Problem;

/// A gRPC message of length 0 (an uncompressed frame): the default `CheckRequest`.
const EMPTY_MESSAGE: &[u8] = &[0, 0, 0, 0, 0];

/// The length prefix of a gRPC message: a compression flag and a 32-bit length.
const PREFIX: usize = 5;

/// Why a check's body was not read: its problem, for the service to answer.
#[derive(Clone, Debug)]
pub(super) struct Refused(pub(super) Problem);

/// Reads request bodies charged to a budget, up to one message of `max_message` bytes.
#[derive(Clone)]
pub(super) struct ChargeLayer {
    pub(super) budget: Budget,
    pub(super) max_message: usize,
}

impl<S> tower::Layer<S> for ChargeLayer {
    type Service = Charging<S>;
    fn layer(&self, inner: S) -> Charging<S> {
        Charging {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service of [`ChargeLayer`].
#[derive(Clone)]
pub(super) struct Charging<S> {
    inner: S,
    layer: ChargeLayer,
}

impl<S> tower::Service<Request<Body>> for Charging<S>
where
    S: tower::Service<Request<Body>> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        // The ready service is the one called; its clone waits for the next request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let budget = self.layer.budget.clone();
        let limit = self.layer.max_message.saturating_add(PREFIX);
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let body = match read_whole(body, limit, &budget).await {
                Ok((bytes, charge)) => {
                    parts.extensions.insert::<Charge>(charge);
                    Body::new(Full::new(Bytes::from(bytes)))
                }
                Err(problem) => {
                    parts.extensions.insert(Refused(problem));
                    Body::new(Full::new(Bytes::from_static(EMPTY_MESSAGE)))
                }
            };
            inner.call(Request::from_parts(parts, body)).await
        })
    }
}
