//! Chooses each request's route (`crate::routes`) from its head, before anything reads its
//! body, and carries the [`Choice`](crate::routes::Choice) in the request's extensions: the body limit, the proxy and
//! the audit layer read it there.

use std::task::{Context, Poll};

use axum::http::{Request, header};

use crate::routes::{Choice, Routes, Target};

/// Inserts the [`Choice`] of every request, and its route's `ErrorStyle` (which the problem
/// layer, outside this one, reads).
#[derive(Clone, Debug)]
pub struct RouteLayer(pub Routes);

impl<S> tower::Layer<S> for RouteLayer {
    type Service = RouteRequests<S>;
    fn layer(&self, inner: S) -> RouteRequests<S> {
        RouteRequests {
            inner,
            routes: self.0.clone(),
        }
    }
}

/// The service of [`RouteLayer`].
#[derive(Clone, Debug)]
pub struct RouteRequests<S> {
    inner: S,
    routes: Routes,
}

impl<S, B> tower::Service<Request<B>> for RouteRequests<S>
where
    S: tower::Service<Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let choice = self.routes.choose(target_of(&request));
        // The default route's style is the listener's own, which the problem layer falls
        // back to: only another one is worth carrying.
        if let Choice::Route(route) = &choice {
            if route.errors != self.routes.default_route().errors {
                request.extensions_mut().insert(route.errors);
            }
        }
        request.extensions_mut().insert(choice);
        self.inner.call(request)
    }
}

/// What the head of `request` says about its route.
pub fn target_of<B>(request: &Request<B>) -> Target<'_> {
    let uri = request.uri();
    Target {
        host: request.headers().get(header::HOST).map(|h| h.as_bytes()),
        authority: uri.authority().map(|a| a.as_str().as_bytes()),
        path: uri.path().as_bytes(),
        method: request.method().as_str(),
    }
}
