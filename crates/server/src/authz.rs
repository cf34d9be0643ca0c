//! Authorization checks for the proxies users already run: Envoy `ext_authz` (HTTP service),
//! nginx `auth_request` and Traefik ForwardAuth. A verdict is never a 5xx: allow is 200,
//! deny is `authz_deny_status` (403) with problem+json.

use std::net::SocketAddr;
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode, request::Parts};
use axum::response::{IntoResponse, Response};
use utf8gate_policy::{Decision, Mode};

use crate::convert;
use crate::problem::Problem;
use crate::state::{AppState, read_body};

const ENVOY_PREFIX: &str = "/authz/envoy";

/// `ANY /authz/envoy/{*path}`: Envoy sends the original method, the original path after the
/// configured prefix, the headers and optionally the buffered body.
pub async fn envoy(State(state): State<AppState>, request: Request) -> Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let id = state.request_id(&parts.headers);
    let body = match read_body(&state, body, state.config.max_body_bytes, &id).await {
        Ok(b) => b,
        Err(p) => return p.into_response(),
    };
    // The raw target, never axum's decoded path parameter.
    let raw = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    let original = raw.strip_prefix(ENVOY_PREFIX).unwrap_or(raw);
    let original = if original.starts_with('/') {
        original.to_string()
    } else {
        format!("/{original}")
    };
    let mut request =
        utf8gate_policy::Request::new(parts.method.as_str(), original.as_bytes()).mode(Mode::Authz);
    request.headers = convert::headers(&parts.headers);
    request.body = body.to_vec();
    if parts
        .headers
        .get("x-envoy-auth-partial-body")
        .is_some_and(|v| v == "true")
    {
        partial_body(&mut request);
    }
    decide(&state, request, &id, started).await
}

/// A body Envoy cut at `max_request_bytes`: the cut may split a character and a structure, so
/// the incomplete tail is dropped and the rest is checked as text.
fn partial_body(request: &mut utf8gate_policy::Request) {
    if let Err(e) = utf8gate_codec::validate(&request.body) {
        if e.error_len().is_none() {
            request.body.truncate(e.valid_up_to());
        }
    }
    for (name, value) in &mut request.headers {
        if name.eq_ignore_ascii_case("content-type") {
            *value = b"text/plain".to_vec();
        }
    }
}

/// `ANY /authz/forward`: nginx `auth_request` (X-Original-URI, X-Original-Method) and Traefik
/// ForwardAuth (X-Forwarded-Uri, X-Forwarded-Method), trusted only from `trusted_peers`.
pub async fn forward(State(state): State<AppState>, request: Request) -> Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let id = state.request_id(&parts.headers);
    let body = match read_body(&state, body, state.config.max_body_bytes, &id).await {
        Ok(b) => b,
        Err(p) => return p.into_response(),
    };
    let trusted = peer.is_some_and(|addr| {
        state
            .config
            .trusted_peers
            .iter()
            .any(|c| c.contains(addr.ip()))
    });
    let request = if trusted {
        described(&parts, &body)
    } else {
        convert::to_policy(&parts, &body, Mode::Authz)
    };
    decide(&state, request, &id, started).await
}

fn first<'a>(headers: &'a HeaderMap, names: &[&str]) -> Option<&'a [u8]> {
    names
        .iter()
        .find_map(|n| headers.get(*n))
        .map(|v| v.as_bytes())
}

/// The original request as the trusted proxy describes it.
fn described(parts: &Parts, body: &[u8]) -> utf8gate_policy::Request {
    let uri = first(&parts.headers, &["x-original-uri", "x-forwarded-uri"]).unwrap_or(b"/");
    let method = first(&parts.headers, &["x-original-method", "x-forwarded-method"])
        .map(|m| String::from_utf8_lossy(m).into_owned())
        .unwrap_or_else(|| parts.method.as_str().to_string());
    let mut request = utf8gate_policy::Request::new(&method, uri).mode(Mode::Authz);
    request.headers = convert::headers(&parts.headers)
        .into_iter()
        .filter(|(n, _)| !n.starts_with("x-original-") && !n.starts_with("x-forwarded-"))
        .collect();
    request.body = body.to_vec();
    request
}

async fn decide(
    state: &AppState,
    request: utf8gate_policy::Request,
    id: &str,
    started: Instant,
) -> Response {
    let Some(profile) = state.profile(None) else {
        return Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error",
            "no default profile",
            id,
        )
        .into_response();
    };
    let verdict = state.evaluate(profile, request).await.verdict;
    if verdict.decision == Decision::Reject && verdict.enforced {
        let status =
            StatusCode::from_u16(state.config.authz_deny_status).unwrap_or(StatusCode::FORBIDDEN);
        state.audit(Mode::Authz, id, &verdict, status.as_u16(), started);
        return Problem::rejected(status, verdict, id).into_response();
    }
    state.audit(Mode::Authz, id, &verdict, 200, started);
    let mut response = StatusCode::OK.into_response();
    crate::api::decision_headers(&mut response, verdict.decision, id);
    response
}
