//! Renders the [`Problem`] a response carries (see `crate::problem`) into its
//! `application/problem+json` body, with the request's id: the one place both are known.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::http::Request;
use axum::response::Response;

use crate::layers::request_id::RequestId;
use crate::problem::Problem;

/// Renders problems (inside [`RequestIdLayer`](super::request_id::RequestIdLayer)).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProblemLayer;

impl<S> tower::Layer<S> for ProblemLayer {
    type Service = RenderProblems<S>;
    fn layer(&self, inner: S) -> RenderProblems<S> {
        RenderProblems { inner }
    }
}

/// The service of [`ProblemLayer`].
#[derive(Clone, Debug)]
pub struct RenderProblems<S> {
    inner: S,
}

impl<S, B> tower::Service<Request<B>> for RenderProblems<S>
where
    S: tower::Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Rendered<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Rendered<S::Future> {
        let id = request.extensions().get::<RequestId>().cloned();
        Rendered {
            inner: self.inner.call(request),
            id,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`RenderProblems`].
    pub struct Rendered<F> {
        #[pin]
        inner: F,
        id: Option<RequestId>,
    }
}

impl<F, E> Future for Rendered<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = std::task::ready!(this.inner.poll(cx))?;
        if let Some(problem) = response.extensions_mut().remove::<Problem>() {
            let id = this.id.as_ref().map_or("-", RequestId::as_str);
            crate::problem::render_into(&mut response, problem, id);
        }
        Poll::Ready(Ok(response))
    }
}
