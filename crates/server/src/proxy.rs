//! The proxy listener's service: every request is evaluated by the gate, then forwarded or
//! refused.
//!
//! The body is buffered (up to `max_body_bytes`) before anything is sent upstream, so no byte
//! of a refused request reaches the application. Allowed requests go upstream byte for byte;
//! sanitized ones go with their rewritten fields, a recomputed Content-Length and
//! `utf8gate-decision: sanitize` ([`upstream`]). The forwarding headers are [`forwarded`]'s.
//! A WebSocket handshake is evaluated the same way, then tunnelled by [`websocket`].

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::Request;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use utf8gate_policy::Mode;

use crate::gate::Use;
use crate::listen::carried::Carried;
use crate::listen::layers::body_limit::{Arrived, arrived, read_whole_after};
use crate::problem::{Problem, ProblemKind};
use crate::routes::Choice;
use crate::state::AppState;
use upstream::{Outgoing, Upstream};

mod clients;
pub mod forwarded;
pub mod pool;
mod target;
mod upstream;
mod websocket;

/// The proxy: one handler for every request (no router), with its own pooled upstream client.
/// Cheap to clone (one shared allocation); make one per serving thread ([`Proxy::new`]) so that
/// a request, its pooled upstream connection and their wake-ups stay on that thread.
#[derive(Clone)]
pub struct Proxy(Arc<(AppState, Upstream)>);

impl Proxy {
    /// The proxy of `state`, with a client of its own (to the upstream of the configuration
    /// in force: `upstream.*` is restart-only).
    pub fn new(state: AppState) -> Proxy {
        let upstream = Upstream::new(&state.snapshot().config);
        Proxy(Arc::new((state, upstream)))
    }

    /// Evaluates a request under the configuration it started with, then forwards or
    /// refuses it.
    async fn handle<B>(self, request: Request<B>) -> Response
    where
        B: hyper::body::Body<Data = Bytes> + Unpin,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (state, upstream) = &*self.0;
        let (mut parts, body) = request.into_parts();
        // What the layers carried, taken out (a WebSocket handshake takes its drain hold).
        let (snapshot, peer, choice, id) = {
            let c = Carried::of_mut(&mut parts.extensions);
            (
                c.snapshot.take(),
                c.peer.take(),
                c.choice.take(),
                c.id.take(),
            )
        };
        let snapshot = snapshot.unwrap_or_else(|| state.snapshot());
        let config = &snapshot.config;
        let trusted = forwarded::trusted(config, peer.as_ref());
        if let Some(response) = target::answer_here(&snapshot, &mut parts, trusted) {
            return response;
        }
        let route = match choice {
            Some(Choice::Route(route)) => route,
            Some(Choice::Ambiguous(a, b)) => return ambiguous(&a, &b).into_response(),
            None => config.routes.default_route().clone(),
        };
        // An upgrade is refused here unless it is a WebSocket handshake, evaluated below as
        // any request is.
        let handshake = match websocket::handshake(state, config, &mut parts) {
            Ok(handshake) => handshake,
            Err(problem) => return problem.into_response(),
        };
        // A head the profile refuses on its own is answered before its body is read: a body
        // framed two ways (`Content-Length: 010`, a lone chunked head) may never end. A body
        // that has all arrived with its head is read at once and evaluated with it, which
        // refuses such a head as well (`crates/policy/tests/head_refused.rs`): its head is
        // then read once, not twice.
        // The head is copied into the policy's request once; the body moves in after it.
        let mut request =
            crate::convert::spare::to_policy_reusing(&parts, Bytes::new(), Mode::Proxy);
        let limit = route.max_body_bytes as usize;
        let mut body = body;
        let arrived = match arrived(&mut body, limit) {
            Ok(arrived) => arrived,
            Err(problem) => return problem.into_response(),
        };
        let refused = !matches!(arrived, Arrived::Whole(_))
            && utf8gate_policy::head_refused(&route.profile, &request);
        // The charge is held until the upstream has answered (the end of this function).
        let (body, charge) = match refused {
            true => (Bytes::new(), state.budget.empty()),
            false => match read_whole_after(arrived, body, limit, &state.budget).await {
                Ok(read) => read,
                Err(problem) => return problem.into_response(),
            },
        };
        // The body moves into the policy's request and back out of it: never copied.
        request.body = body;
        let passed =
            (snapshot.gate).pass(&route.profile, Some(&route), Use::Proxy, request, &charge);
        let mut passed = match passed.await {
            Ok(passed) => passed,
            Err(problem) => return problem.into_response(),
        };
        let outgoing = match Outgoing::of(&mut passed) {
            Ok(outgoing) => outgoing,
            Err(problem) => return passed.audited(problem.into_response()),
        };
        // The evaluated head's buffers serve the thread's next request.
        crate::convert::spare::recycle(std::mem::take(&mut passed.request));
        let sent = (peer.as_ref(), trusted, passed.decision, id.as_ref());
        let response = match (handshake, upstream.authority()) {
            (Some(handshake), Some(authority)) => match upstream.request(parts, outgoing, sent) {
                Ok(request) => {
                    let id = id.clone();
                    let to = (authority, request, handshake, upstream.secured());
                    // Boxed: its future is the largest this one awaits (about 4.8 KB), and
                    // every request's future would be as large, and copied whole when boxed.
                    Box::pin(websocket::exchange(state, config, to, route, id)).await
                }
                Err(problem) => problem.into_response(),
            },
            _ => upstream.forward(state, config, parts, outgoing, sent).await,
        };
        drop(charge);
        passed.audited(response)
    }
}

/// The refusal of a request whose readings choose routes `a` and `b`.
pub fn ambiguous(a: &str, b: &str) -> Problem {
    let detail = format!(
        "the request's path or host reads as route {a:?} one way and {b:?} another; \
         send it as its backend reads it (decoded, resolved, in its case)"
    );
    Problem::new(ProblemKind::AmbiguousRoute, detail)
}

impl<B> tower::Service<Request<B>> for Proxy
where
    B: hyper::body::Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let proxy = self.clone();
        Box::pin(async move { Ok(proxy.handle(request).await) })
    }
}
