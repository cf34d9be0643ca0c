//! The proxy listener: every request is evaluated, then forwarded or rejected.
//!
//! The body is buffered (up to `max_body_bytes`) before anything is sent upstream, so no byte
//! of a rejected request reaches the application. Allowed requests go upstream byte for byte;
//! sanitized ones go with their rewritten fields, a recomputed Content-Length and
//! `utf8gate-decision: sanitize`. A rejection is `policy.reject_status`, or 415 when only an
//! unsupported content coding rejects it. The forwarding headers are [`forwarded`]'s.

use std::time::Instant;

use axum::body::Body;
use axum::http::uri::{PathAndQuery, Scheme};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use utf8gate_policy::{Decision, Mode};

use crate::convert;
use crate::metrics::UpstreamError;
use crate::problem::Problem;
use crate::serve::Limits;
use crate::state::{AppState, read_body};
pub use forwarded::Peer;

pub mod forwarded;
mod target;

/// The proxy listener's service: one handler for every request (no router), under the
/// listener's [`Limits`]. Cheap to clone (one shared allocation).
#[derive(Clone)]
pub struct Proxy(std::sync::Arc<(AppState, Limits, target::Overrides)>);

impl Proxy {
    /// The proxy of `state`, with its own limits.
    pub fn new(state: AppState) -> Proxy {
        let limits = Limits::new(&state);
        let overrides = target::Overrides::of(&state);
        Proxy(std::sync::Arc::new((state, limits, overrides)))
    }

    /// Evaluates a request from `peer`, then forwards or rejects it.
    pub async fn serve(&self, peer: &Peer, request: hyper::Request<Incoming>) -> Response {
        let (state, limits, overrides) = &*self.0;
        limits.run(handle(state, overrides, peer, request)).await
    }
}

async fn handle(
    state: &AppState,
    overrides: &target::Overrides,
    peer: &Peer,
    request: hyper::Request<Incoming>,
) -> Response {
    let started = Instant::now();
    let (mut parts, body) = request.into_parts();
    let id = state.request_id(&parts.headers);
    // An empty list (the default) trusts no peer, at the cost of one length test.
    let trusted = state
        .config
        .trusted_proxies
        .iter()
        .any(|net| net.contains(peer.ip()));
    if let Some(response) = target::answer_here(state, overrides, &mut parts, trusted, &id) {
        if response.status().is_client_error() {
            state
                .metrics
                .record_refused(Mode::Proxy, started.elapsed().as_secs_f64());
        }
        return response;
    }
    let body = match read_body(state, body, state.config.max_body_bytes, &id).await {
        Ok(b) => b,
        Err(p) => {
            state
                .metrics
                .record_refused(Mode::Proxy, started.elapsed().as_secs_f64());
            return p.into_response();
        }
    };
    let Some(profile) = state.profile(None) else {
        return Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error",
            "no default profile",
            &id,
        )
        .into_response();
    };
    // The body moves into the policy's request and back out of it: a body collected into one
    // buffer is never copied.
    let request = convert::to_policy_owning(&parts, body, Mode::Proxy);
    let (evaluation, request) = state.evaluate_and_return(profile, request).await;
    let verdict = evaluation.verdict;
    if verdict.decision == Decision::Reject && verdict.enforced {
        let configured =
            StatusCode::from_u16(state.config.reject_status).unwrap_or(StatusCode::BAD_REQUEST);
        let status = crate::problem::reject_status(&verdict, configured);
        state.audit(Mode::Proxy, &id, &verdict, status.as_u16(), started);
        return Problem::rejected(status, verdict, &id).into_response();
    }
    let outgoing = match evaluation.sanitized {
        Some(rewritten) => Outgoing::Rewritten(rewritten),
        None => Outgoing::Received(Bytes::from(request.body)),
    };
    let response = forward(
        state,
        parts,
        outgoing,
        (peer, trusted),
        verdict.decision,
        &id,
    )
    .await;
    state.audit(
        Mode::Proxy,
        &id,
        &verdict,
        response.status().as_u16(),
        started,
    );
    response
}

/// What goes upstream.
enum Outgoing {
    /// The request as received (allowed, or rejected in monitor mode): its head and its body,
    /// byte for byte, without a copy.
    Received(Bytes),
    /// The sanitized request.
    Rewritten(utf8gate_policy::Request),
}

async fn forward(
    state: &AppState,
    parts: axum::http::request::Parts,
    outgoing: Outgoing,
    (peer, trusted): (&Peer, bool),
    decision: Decision,
    id: &str,
) -> Response {
    let Some(authority) = state.upstream_authority() else {
        return Problem::new(
            StatusCode::BAD_GATEWAY,
            "no-upstream",
            "No upstream",
            "no upstream is configured",
            id,
        )
        .into_response();
    };
    let had_length = parts.headers.contains_key(header::CONTENT_LENGTH);
    let (method, target, headers, body) = match outgoing {
        // The received head is moved, not copied.
        Outgoing::Received(body) => (
            parts.method,
            Some(
                parts
                    .uri
                    .into_parts()
                    .path_and_query
                    .unwrap_or_else(|| PathAndQuery::from_static("/")),
            ),
            Some(parts.headers),
            body,
        ),
        Outgoing::Rewritten(request) => (
            convert::method(&request.method),
            PathAndQuery::try_from(request.target()).ok(),
            convert::to_header_map(&request.headers),
            Bytes::from(request.body),
        ),
    };
    let mut uri = axum::http::uri::Parts::default();
    uri.scheme = Some(Scheme::HTTP);
    uri.authority = Some(authority.clone());
    uri.path_and_query = target;
    let uri = match Uri::from_parts(uri) {
        // A rewritten target that is not a valid one has no path and query here.
        Ok(uri) if uri.path_and_query().is_some() => uri,
        _ => {
            return Problem::new(
                StatusCode::BAD_REQUEST,
                "bad-target",
                "Bad request target",
                "the request target cannot be forwarded",
                id,
            )
            .into_response();
        }
    };
    let Some(mut headers) = headers else {
        return Problem::new(
            StatusCode::BAD_REQUEST,
            "bad-header",
            "Bad header",
            "a rewritten header value cannot be sent",
            id,
        )
        .into_response();
    };
    // Transfer codings end at this hop; the codings other than chunked stay on the content.
    convert::transfer_codings_to_content(&mut headers);
    convert::strip_hop_by_hop(&mut headers);
    if !body.is_empty() || had_length {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    } else {
        headers.remove(header::CONTENT_LENGTH);
    }
    forwarded::set(&mut headers, peer, trusted);
    if decision == Decision::Sanitize {
        headers.insert(crate::DECISION, HeaderValue::from_static("sanitize"));
    }
    if let Ok(v) = HeaderValue::from_str(id) {
        headers.insert(crate::REQUEST_ID_IN, v);
    }
    let mut outgoing = axum::http::Request::new(http_body_util::Full::new(body));
    *outgoing.method_mut() = method;
    *outgoing.uri_mut() = uri;
    *outgoing.headers_mut() = headers;

    let sent = Instant::now();
    match tokio::time::timeout(
        state.config.response_timeout,
        state.client().request(outgoing),
    )
    .await
    {
        Ok(Ok(response)) => {
            state
                .metrics
                .upstream_answered(sent.elapsed().as_secs_f64());
            let (mut parts, body) = response.into_parts();
            convert::strip_hop_by_hop(&mut parts.headers);
            if let Ok(v) = HeaderValue::from_str(id) {
                parts.headers.insert(crate::REQUEST_ID, v);
            }
            // Streamed through: an upstream that fails mid-body makes this response fail
            // too (the client's connection is cut), never a truncated body passed off as
            // complete.
            let metrics = state.metrics.clone();
            let request_id = id.to_string();
            let body = body.map_err(move |e| {
                metrics.upstream_failed(UpstreamError::Body);
                tracing::warn!(request_id, error = %e, "upstream failed mid-body; client connection cut");
                e
            });
            Response::from_parts(parts, Body::new(body))
        }
        Ok(Err(e)) => {
            state.metrics.upstream_failed(UpstreamError::Connect);
            tracing::warn!(request_id = id, error = %e, "upstream request failed");
            Problem::new(
                StatusCode::BAD_GATEWAY,
                "upstream-unavailable",
                "Upstream unavailable",
                "the upstream refused or reset the connection",
                id,
            )
            .into_response()
        }
        Err(_) => {
            state.metrics.upstream_failed(UpstreamError::Timeout);
            Problem::new(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream-timeout",
                "Upstream timeout",
                "the upstream did not answer in time",
                id,
            )
            .into_response()
        }
    }
}
