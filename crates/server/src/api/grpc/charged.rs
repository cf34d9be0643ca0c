//! The gRPC check's request body read whole (an `ext_proc` stream passes unread) (tonic would buffer it whole too) within the
//! largest message, charged to the memory budget before it is allocated. The [`Charge`] goes
//! with the request (its extensions) to the gate; a body refused (the budget cannot hold it,
//! it is over the limit or cut short) reaches the service as an empty message marked
//! [`Refused`], which the service answers as a denial with the problem's status (503 with
//! `Retry-After` for the budget), so that Envoy passes that answer on to the client.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::http::Request;
use bytes::Bytes;
use http_body_util::Full;
use tonic::body::Body;

use crate::budget::{Budget, Charge};
use crate::listen::layers::body_limit::read_whole;
use crate::problem::Problem;

/// A gRPC message of length 0 (an uncompressed frame): the default `CheckRequest`.
const EMPTY_MESSAGE: &[u8] = &[0, 0, 0, 0, 0];

/// The path prefix of Envoy's `ext_proc` service.
const EXT_PROC: &str = "/envoy.service.ext_proc.";

/// The length prefix of a gRPC message: a compression flag and a 32-bit length.
const PREFIX: usize = 5;

/// Why a check's body was not read: its problem, for the service to answer, and when the
/// check arrived.
#[derive(Clone, Debug)]
pub(super) struct Refused(pub(super) Problem, pub(super) Instant);

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
        // An `ext_proc` stream is a conversation, never read whole: its service charges the
        // bodies it holds itself.
        let conversation = request.uri().path().starts_with(EXT_PROC);
        Box::pin(async move {
            if conversation {
                return inner.call(request).await;
            }
            let arrived = Instant::now();
            let (mut parts, body) = request.into_parts();
            let body = match read_whole(body, limit, &budget).await {
                Ok((bytes, charge)) => {
                    parts.extensions.insert::<Charge>(charge);
                    Body::new(Full::new(bytes))
                }
                Err(problem) => {
                    parts.extensions.insert(Refused(problem, arrived));
                    Body::new(Full::new(Bytes::from_static(EMPTY_MESSAGE)))
                }
            };
            inner.call(Request::from_parts(parts, body)).await
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use http_body_util::BodyExt;
    use tower::{Service, ServiceExt};

    use super::*;
    use crate::problem::ProblemKind;

    /// What the service behind the layer saw: the refusal's kind, the charge and the body.
    type Seen = (Option<ProblemKind>, Option<u64>, Bytes);

    async fn through(budget: &Budget, max_message: usize, body: Vec<u8>) -> Seen {
        let layer = ChargeLayer {
            budget: budget.clone(),
            max_message,
        };
        let inner = tower::service_fn(|request: Request<Body>| async move {
            let refused = request.extensions().get::<Refused>().map(|r| r.0.kind);
            let charged = request.extensions().get::<Charge>().map(Charge::bytes);
            let body = request
                .into_body()
                .collect()
                .await
                .expect("body")
                .to_bytes();
            Ok::<Seen, std::convert::Infallible>((refused, charged, body))
        });
        let mut service = tower::Layer::layer(&layer, inner);
        let request = Request::new(Body::new(Full::new(Bytes::from(body))));
        let ready = service.ready().await.expect("ready");
        ready.call(request).await.expect("infallible")
    }

    fn budget(bytes: u64) -> Budget {
        let gauge = prometheus::IntGauge::new("g", "g").expect("gauge");
        let counter = prometheus::IntCounter::new("c", "c").expect("counter");
        Budget::new(bytes, Duration::ZERO, gauge, counter)
    }

    #[tokio::test]
    async fn a_check_is_read_whole_and_charged_before_tonic_sees_it() {
        let budget = budget(1 << 20);
        let message = [&[0, 0, 0, 0, 3][..], b"abc"].concat();
        let (refused, charged, body) = through(&budget, 1024, message.clone()).await;
        assert_eq!(
            (refused, charged),
            (None, Some(1024)),
            "3 × 8 bytes, in KiB"
        );
        assert_eq!(body.as_ref(), message.as_slice());
        assert_eq!(budget.charged(), 0, "released with the request");
    }

    #[tokio::test]
    async fn a_refused_check_reaches_the_service_as_an_empty_message() {
        let budget = budget(64 << 10);
        let _held = budget.charge(64 << 10).await.expect("charge");
        let (refused, charged, body) = through(&budget, 1024, vec![0; 100]).await;
        assert_eq!((refused, charged), (Some(ProblemKind::Busy), None));
        assert_eq!(body.as_ref(), EMPTY_MESSAGE);
        let free = self::budget(1 << 20);
        let (refused, ..) = through(&free, 10, vec![0; 100]).await;
        assert_eq!(refused, Some(ProblemKind::BodyTooLarge));
        assert_eq!(free.charged(), 0);
    }
}
