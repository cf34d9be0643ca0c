//! Authorization checks for the proxies users already run: Envoy `ext_authz` (HTTP service),
//! nginx `auth_request` and Traefik ForwardAuth. A verdict is never a 5xx: allow is 200,
//! deny is `authz_deny_status` (403) with problem+json.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, request::Parts};
use axum::response::{IntoResponse, Response};
use utf8gate_policy::{BodyState, Mode, Request};

use crate::budget::Charge;
use crate::convert;
use crate::gate::{Outcome, Passed, Use};
use crate::listen::carried::{Carried, Current};
use crate::problem::{ErrorStyle, Problem};
use crate::routes::{Choice, Route, Target};
use crate::state::Snapshot;

use super::upload::Whole;

const ENVOY_PREFIX: &str = "/authz/envoy";

/// `ANY /authz/envoy/{*path}`: Envoy sends the original method, the original path after the
/// configured prefix, the headers and optionally the buffered body.
pub async fn envoy(Current(snapshot): Current, checked: Whole) -> Result<Response, Problem> {
    let Whole {
        parts,
        body,
        charge,
    } = checked;
    // The raw target, never axum's decoded path parameter.
    let raw = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    let original = raw.strip_prefix(ENVOY_PREFIX).unwrap_or(raw);
    let original = match original.starts_with('/') {
        true => original.to_string(),
        false => format!("/{original}"),
    };
    let mut request = Request::new(parts.method.as_str(), original.as_bytes()).mode(Mode::Authz);
    request.headers = convert::headers(&parts.headers);
    request.body = body;
    let partial = parts.headers.get("x-envoy-auth-partial-body");
    request.body_state = body_state(&request.body, partial.map(HeaderValue::as_bytes));
    decide(&snapshot, request, &charge).await
}

/// How much of the body a check brought: cut when Envoy says so (`x-envoy-auth-partial-body:
/// true`, a body over `max_request_bytes`), none when it is empty (the policy reports it when
/// the head says there is one), else whole.
pub fn body_state(body: &[u8], partial: Option<&[u8]>) -> BodyState {
    match (partial == Some(b"true"), body.is_empty()) {
        (true, _) => BodyState::Cut,
        (false, true) => BodyState::Withheld,
        (false, false) => BodyState::Whole,
    }
}

/// `ANY /authz/forward`: nginx `auth_request` (X-Original-URI, X-Original-Method) and Traefik
/// ForwardAuth (X-Forwarded-Uri, X-Forwarded-Method), trusted only from `trusted_peers`.
pub async fn forward(Current(snapshot): Current, checked: Whole) -> Result<Response, Problem> {
    let Whole {
        parts,
        body,
        charge,
    } = checked;
    let peer = Carried::of(&parts.extensions).and_then(|c| Some(c.peer.as_ref()?.ip()));
    let peers = &snapshot.config.trusted_peers;
    let trusted = peer.is_some_and(|ip| peers.iter().any(|c| c.contains(ip)));
    let request = match trusted {
        true => described(&parts, body),
        false => convert::to_policy_owning(&parts, body, Mode::Authz),
    };
    decide(&snapshot, request, &charge).await
}

fn first<'a>(headers: &'a HeaderMap, names: &[&str]) -> Option<&'a [u8]> {
    names
        .iter()
        .find_map(|n| headers.get(*n))
        .map(|v| v.as_bytes())
}

/// The original request as the trusted proxy describes it.
fn described(parts: &Parts, body: bytes::Bytes) -> Request {
    let uri = first(&parts.headers, &["x-original-uri", "x-forwarded-uri"]).unwrap_or(b"/");
    let method = first(&parts.headers, &["x-original-method", "x-forwarded-method"])
        .map(|m| String::from_utf8_lossy(m).into_owned())
        .unwrap_or_else(|| parts.method.as_str().to_string());
    let mut request = Request::new(&method, uri).mode(Mode::Authz);
    request.headers = convert::headers(&parts.headers)
        .into_iter()
        .filter(|(n, _)| !n.starts_with("x-original-") && !n.starts_with("x-forwarded-"))
        .collect();
    // nginx `auth_request` sends no body and blanks `Content-Length`; the shipped configuration
    // passes the original's as `X-Original-Content-Length` (and `Transfer-Encoding`).
    for (header, name) in [
        ("x-original-content-length", "content-length"),
        ("x-original-transfer-encoding", "transfer-encoding"),
    ] {
        let value = parts.headers.get(header).map(HeaderValue::as_bytes);
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            request.headers.retain(|(n, _)| n != name);
            request.headers.push((name.into(), value.to_vec()));
        }
    }
    request.body_state = body_state(&body, None);
    request.body = body;
    request
}

/// The check's answer: 200 unless the gate refuses; its errors in its route's style.
async fn decide(
    snapshot: &Snapshot,
    request: Request,
    charge: &Charge,
) -> Result<Response, Problem> {
    let (answer, style) = check(snapshot, request, charge).await;
    let mut response = answer.unwrap_or_else(IntoResponse::into_response);
    if let Some(style) = style {
        response.extensions_mut().insert(style);
    }
    Ok(response)
}

/// The check under the route of the request it describes, and that route's error style.
async fn check(
    snapshot: &Snapshot,
    request: Request,
    charge: &Charge,
) -> (Result<Response, Problem>, Option<ErrorStyle>) {
    match judge(snapshot, request, charge, Use::Authz).await {
        Judged::Refused(problem, route) => (Err(problem), route.map(|r| r.errors)),
        Judged::Passed(mut passed, route) => {
            let response = match std::mem::replace(&mut passed.outcome, Outcome::Forward) {
                Outcome::Refuse(problem) => problem.into_response(),
                _ => StatusCode::OK.into_response(),
            };
            (Ok(passed.answered(response)), Some(route.errors))
        }
    }
}

/// What a check came to, before it becomes an HTTP or a gRPC answer.
pub enum Judged {
    /// The gate's answer under the request's route.
    Passed(Box<Passed>, Arc<Route>),
    /// Refused before a verdict (an ambiguous route, a body over the route's limit, a coded
    /// body the memory budget cannot hold), with the route when one was chosen.
    Refused(Problem, Option<Arc<Route>>),
}

/// Chooses the route of the request a check describes and passes it through the gate: the one
/// decision of every authorization check (HTTP `ext_authz`, `auth_request`, ForwardAuth and
/// gRPC `ext_authz`: `usage` [`Use::Authz`]) and of Envoy's `ext_proc` ([`Use::ExtProc`]),
/// under the configuration `snapshot` the check started with. `charge` is what the check's
/// body holds of the memory budget.
pub async fn judge(snapshot: &Snapshot, request: Request, charge: &Charge, usage: Use) -> Judged {
    let target = Target {
        host: request.header_value("host"),
        authority: None,
        path: &request.path,
        method: &request.method,
    };
    let config = &snapshot.config;
    let route = match config.routes.choose(target) {
        Choice::Route(route) => route,
        Choice::Ambiguous(a, b) => {
            let mut problem = crate::proxy::ambiguous(&a, &b);
            if usage == Use::Authz {
                let status = StatusCode::from_u16(config.authz_deny_status);
                problem.status = status.unwrap_or(StatusCode::FORBIDDEN);
            }
            return Judged::Refused(problem, None);
        }
    };
    if request.body.len() as u64 > route.max_body_bytes {
        return Judged::Refused(Problem::too_large(route.max_body_bytes), Some(route));
    }
    let passed = (snapshot.gate).pass(&route.profile, Some(&route), usage, request, charge);
    match passed.await {
        Ok(passed) => Judged::Passed(Box::new(passed), route),
        Err(problem) => Judged::Refused(problem, Some(route)),
    }
}
