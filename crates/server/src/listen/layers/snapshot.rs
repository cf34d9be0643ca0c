//! The first layer after the request id: loads the live configuration's [`Snapshot`] once and
//! carries it in the request's extensions, so that every layer, the handler and the gate read
//! the same configuration to the request's end, whatever a reload does meanwhile. On the proxy
//! listener it also chooses the request's route (`crate::routes`) from its head, before anything
//! reads its body, and carries the [`Choice`](crate::routes::Choice): the body limit, the proxy
//! and the audit layer read it there.

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{Request, header};

use crate::listen::carried::Carried;
use crate::routes::{Choice, Target};
use crate::state::{Live, Snapshot};

/// Inserts the request's [`Snapshot`]; with [`SnapshotLayer::routing`], its [`Choice`] and
/// the route's `ErrorStyle` too (which the problem layer, outside this one, reads).
#[derive(Clone)]
pub struct SnapshotLayer {
    live: Live,
    routing: bool,
}

impl SnapshotLayer {
    /// Loads the snapshot for every request.
    pub fn new(live: Live) -> SnapshotLayer {
        SnapshotLayer {
            live,
            routing: false,
        }
    }

    /// Loads the snapshot and chooses the route of every request (the proxy listener).
    pub fn routing(live: Live) -> SnapshotLayer {
        SnapshotLayer {
            live,
            routing: true,
        }
    }
}

impl<S> tower::Layer<S> for SnapshotLayer {
    type Service = WithSnapshot<S>;
    fn layer(&self, inner: S) -> WithSnapshot<S> {
        WithSnapshot {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service of [`SnapshotLayer`].
#[derive(Clone)]
pub struct WithSnapshot<S> {
    inner: S,
    layer: SnapshotLayer,
}

impl<S, B> tower::Service<Request<B>> for WithSnapshot<S>
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
        let snapshot: Arc<Snapshot> = self.layer.live.load();
        let (mut choice, mut errors) = (None, None);
        if self.layer.routing {
            let routes = &snapshot.config.routes;
            let chosen = routes.choose(target_of(&request));
            // The default route's style is the listener's own, which the problem layer falls
            // back to: only another one is worth carrying.
            if let Choice::Route(route) = &chosen
                && route.errors != snapshot.config.errors
            {
                errors = Some(route.errors);
            }
            choice = Some(chosen);
        }
        let carried = Carried::of_mut(request.extensions_mut());
        (carried.snapshot, carried.choice, carried.errors) = (Some(snapshot), choice, errors);
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
