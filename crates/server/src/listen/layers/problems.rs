//! Renders the [`Problem`] a response carries (see `crate::problem`) into its body, with the
//! request's id: the one place both are known. The [`ErrorStyle`] is the response's (in its
//! extensions), else the request's (a route's, inserted before this layer's `call`), else the
//! `[errors]` of the configuration the request started with (its snapshot), else the
//! listener's; the representation is negotiated from the request's `Accept`.

use std::task::{Context, Poll};

use axum::http::{HeaderValue, Request, header};
use axum::response::Response;

use crate::listen::carried::Carried;
use crate::listen::layers::on_response::{Hook, OnResponse};
use crate::listen::layers::request_id::RequestId;
use crate::problem::{ErrorStyle, Format, Problem, negotiate, render_into};

/// Renders problems (inside [`RequestIdLayer`](super::request_id::RequestIdLayer)) in the
/// listener's default [`ErrorStyle`] unless the request or the response carries one.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProblemLayer {
    style: ErrorStyle,
}

impl ProblemLayer {
    /// A layer whose default style is `style` (the configuration's `[errors]`).
    pub fn new(style: ErrorStyle) -> ProblemLayer {
        ProblemLayer { style }
    }
}

impl<S> tower::Layer<S> for ProblemLayer {
    type Service = RenderProblems<S>;
    fn layer(&self, inner: S) -> RenderProblems<S> {
        RenderProblems {
            inner,
            style: self.style,
        }
    }
}

/// The service of [`ProblemLayer`].
#[derive(Clone, Debug)]
pub struct RenderProblems<S> {
    inner: S,
    style: ErrorStyle,
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
        let carried = Carried::of(request.extensions());
        // The request's own style (its route's), else its configuration's `[errors]`.
        let style = (carried.and_then(|c| c.errors))
            .or_else(|| (carried?.snapshot.as_ref()).map(|s| s.config.errors))
            .unwrap_or(self.style);
        let render = Render {
            id: carried.and_then(|c| c.id.clone()),
            style,
            // Kept whatever the request's style: the response may carry one that allows HTML.
            accept: accept_of(&request),
        };
        OnResponse::new(self.inner.call(request), render)
    }
}

/// The request's `Accept` field, its lines joined into one list (a shared copy of the bytes
/// when there is one line, as there nearly always is).
fn accept_of<B>(request: &Request<B>) -> Option<HeaderValue> {
    let mut lines = request.headers().get_all(header::ACCEPT).iter();
    let first = lines.next()?;
    let Some(second) = lines.next() else {
        return Some(first.clone());
    };
    let mut joined = first.as_bytes().to_vec();
    for line in std::iter::once(second).chain(lines) {
        joined.extend_from_slice(b", ");
        joined.extend_from_slice(line.as_bytes());
    }
    HeaderValue::from_bytes(&joined).ok()
}

/// Renders the response's problem, if it carries one.
pub struct Render {
    id: Option<RequestId>,
    style: ErrorStyle,
    accept: Option<HeaderValue>,
}

impl Hook for Render {
    fn on_response(self, response: &mut Response) {
        // A problem's status is always an error: other responses need no look-up.
        let status = response.status();
        if !(status.is_client_error() || status.is_server_error()) {
            return;
        }
        if let Some(problem) = response.extensions_mut().remove::<Problem>() {
            let style = response.extensions().get::<ErrorStyle>().copied();
            let style = style.unwrap_or(self.style);
            let format = match &self.accept {
                Some(accept) if style.html => negotiate([accept.as_bytes()]),
                _ => Format::Json,
            };
            let id = self.id.as_ref().map_or("-", RequestId::as_str);
            render_into(response, problem, id, style, format);
        }
    }
}

#[cfg(test)]
mod tests;
