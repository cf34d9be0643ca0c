//! tower's errors as problems: load shed by `load_shed` is 503, a request past `timeout` is 408,
//! anything else 500 (logged). The service's error type becomes `Infallible`, as hyper and axum
//! want, without boxing each request's future (axum's `HandleErrorLayer` boxes it).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::response::{IntoResponse, Response};
use tower::BoxError;

use crate::listen::layers::on_response::Answer;
use crate::problem::{Problem, ProblemKind};

/// Answers the inner service's errors with problems.
#[derive(Clone, Copy, Debug, Default)]
pub struct ErrorsLayer;

impl<S> tower::Layer<S> for ErrorsLayer {
    type Service = Errors<S>;
    fn layer(&self, inner: S) -> Errors<S> {
        Errors {
            inner,
            not_ready: None,
        }
    }
}

/// The service of [`ErrorsLayer`].
#[derive(Debug)]
pub struct Errors<S> {
    inner: S,
    /// The inner service's readiness error, answered to the next request.
    not_ready: Option<BoxError>,
}

impl<S: Clone> Clone for Errors<S> {
    fn clone(&self) -> Errors<S> {
        Errors {
            inner: self.inner.clone(),
            not_ready: None,
        }
    }
}

impl<S, R> tower::Service<R> for Errors<S>
where
    S: tower::Service<R, Response = Response>,
    S::Error: Into<BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Answer<Answered<S::Future>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        if let Err(e) = std::task::ready!(self.inner.poll_ready(cx)) {
            self.not_ready = Some(e.into());
        }
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: R) -> Self::Future {
        match self.not_ready.take() {
            Some(e) => Answer::now(problem_of(&e).into_response()),
            None => Answer::later(Answered {
                inner: self.inner.call(request),
            }),
        }
    }
}

pin_project_lite::pin_project! {
    /// The inner service's future, its error answered with a problem.
    pub struct Answered<F> {
        #[pin]
        inner: F,
    }
}

impl<F, E> Future for Answered<F>
where
    F: Future<Output = Result<Response, E>>,
    E: Into<BoxError>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let result = std::task::ready!(self.project().inner.poll(cx));
        Poll::Ready(Ok(
            result.unwrap_or_else(|e| problem_of(&e.into()).into_response())
        ))
    }
}

/// The problem of a tower error.
fn problem_of(e: &BoxError) -> Problem {
    if e.is::<tower::load_shed::error::Overloaded>() {
        Problem::new(ProblemKind::Overloaded, "too many requests in flight")
    } else if e.is::<tower::timeout::error::Elapsed>() {
        Problem::new(ProblemKind::RequestTimeout, "the request took too long")
    } else {
        tracing::error!(error = %e, "request failed");
        Problem::new(ProblemKind::Internal, "the request could not be handled")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::{Service, ServiceBuilder, ServiceExt};

    /// Shed load and timeouts become 503 and 408 problems, and a request within the limits
    /// passes.
    #[tokio::test]
    async fn shed_and_late_requests_are_problems() {
        let slow = tower::service_fn(|wait: u64| async move {
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            Ok::<_, Infallible>(Response::new(axum::body::Body::empty()))
        });
        let mut service = ServiceBuilder::new()
            .layer(ErrorsLayer)
            .load_shed()
            .concurrency_limit(1)
            .timeout(std::time::Duration::from_millis(50))
            .service(slow);
        let kind = |r: &Response| r.extensions().get::<Problem>().map(|p| p.kind);
        let ok = service.ready().await.unwrap().call(0).await.unwrap();
        assert_eq!((ok.status().as_u16(), kind(&ok)), (200, None));
        let late = service.ready().await.unwrap().call(500).await.unwrap();
        assert_eq!(kind(&late), Some(ProblemKind::RequestTimeout));
        assert_eq!(late.status().as_u16(), 408);
        // One request holds the only permit; the next is shed at once.
        let mut held = service.clone();
        let first = held.ready().await.unwrap().call(30);
        let shed = service.ready().await.unwrap().call(0).await.unwrap();
        assert_eq!(kind(&shed), Some(ProblemKind::Overloaded));
        assert_eq!(shed.status().as_u16(), 503);
        assert_eq!(first.await.unwrap().status().as_u16(), 200);
    }
}
