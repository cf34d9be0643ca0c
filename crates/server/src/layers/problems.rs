//! Renders the [`Problem`] a response carries (see `crate::problem`) into its
//! `application/problem+json` body, with the request's id: the one place both are known.

use std::task::{Context, Poll};

use axum::http::Request;
use axum::response::Response;

use crate::layers::on_response::{Hook, OnResponse};
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
    type Future = OnResponse<S::Future, Render>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let id = request.extensions().get::<RequestId>().cloned();
        OnResponse::new(self.inner.call(request), Render(id))
    }
}

/// Renders the response's problem, if it carries one.
pub struct Render(Option<RequestId>);

impl Hook for Render {
    fn on_response(self, response: &mut Response) {
        // A problem's status is always an error: other responses need no look-up.
        let status = response.status();
        if !(status.is_client_error() || status.is_server_error()) {
            return;
        }
        if let Some(problem) = response.extensions_mut().remove::<Problem>() {
            let id = self.0.as_ref().map_or("-", RequestId::as_str);
            crate::problem::render_into(response, problem, id);
        }
    }
}
