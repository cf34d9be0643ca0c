//! The API listener's routes: `/v1/scan`, `/v1/sanitize`, the authorization checks
//! ([`authz`]), `/openapi.json` and, when enabled, the explain page ([`explain`]). Each handler is an adaptor: what it takes from the request
//! ([`upload`]), the gate's outcome, and how that outcome is answered.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};

use crate::gate::{Outcome, Use};
use crate::listen::carried::Current;
use crate::listen::layers::body_limit::read_whole;
use crate::problem::{Problem, ProblemKind};
use crate::state::AppState;
use upload::{ProfileParam, Streamed, Whole};

pub mod authz;
pub mod explain;
pub mod grpc;
pub mod upload;

/// The OpenAPI 3.1 document of the API listener (`docs/openapi.json`).
pub const OPENAPI: &str = include_str!("../../../docs/openapi.json");

/// The API router. Whether the explain page is routed is the start-up configuration's
/// (`explain.enabled` is restart-only); everything else is read from each request's snapshot.
pub fn router(state: AppState) -> Router {
    let router = match state.snapshot().config.explain {
        true => explain::routes(Router::new()),
        false => Router::new(),
    };
    router
        .route("/v1/scan", post(scan))
        .route("/v1/sanitize", post(sanitize))
        .route("/authz/envoy", any(authz::envoy))
        // Envoy asks about `/` as `/authz/envoy/`, which `{*path}` does not match.
        .route("/authz/envoy/", any(authz::envoy))
        .route("/authz/envoy/{*path}", any(authz::envoy))
        .route("/authz/forward", any(authz::forward))
        // Everything else is a problem too (with its audit line and `refused` count under
        // `/authz/` and `/v1/`), never a bare status.
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .route("/openapi.json", axum::routing::get(openapi))
        .with_state(state)
}

/// A path no route serves.
async fn not_found() -> Problem {
    let routes = "/v1/scan, /v1/sanitize, /authz/envoy/{path}, /authz/forward, /openapi.json";
    Problem::new(
        ProblemKind::NotFound,
        format!("the API listener serves {routes}"),
    )
}

/// A method a route does not take (`GET /v1/scan`); axum adds `Allow`.
async fn method_not_allowed() -> Problem {
    Problem::new(
        ProblemKind::MethodNotAllowed,
        "the route does not take this method",
    )
}

/// `GET /openapi.json`: the document of the request's configuration (its profiles), built
/// once per configuration and served as is.
async fn openapi(Current(snapshot): Current) -> Response {
    let document = snapshot.openapi.get_or_init(|| {
        let names: Vec<&str> = (snapshot.config.profiles.keys())
            .map(String::as_str)
            .collect();
        bytes::Bytes::from(openapi_document(&names))
    });
    let json = [(header::CONTENT_TYPE, "application/json")];
    (json, document.clone()).into_response()
}

/// `docs/openapi.json` with the `profile` query parameter's enum set to `profiles` (this
/// instance's profiles, configured ones included), so that every value the document allows is
/// one this instance accepts.
pub fn openapi_document(profiles: &[&str]) -> String {
    let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(OPENAPI) else {
        return OPENAPI.to_string();
    };
    if let Some(paths) = doc.get_mut("paths").and_then(|p| p.as_object_mut()) {
        for operation in paths
            .values_mut()
            .filter_map(|i| i.as_object_mut())
            .flat_map(|i| i.values_mut())
        {
            let Some(parameters) = operation
                .get_mut("parameters")
                .and_then(|p| p.as_array_mut())
            else {
                continue;
            };
            for parameter in parameters.iter_mut().filter(|p| p["name"] == "profile") {
                parameter["schema"]["enum"] = serde_json::json!(profiles);
            }
        }
    }
    doc.to_string()
}

/// `POST /v1/scan`: the verdict for the body. Text and octet-stream bodies are validated as
/// they stream in: up to `max_body_bytes` they get every check; beyond that, the streaming
/// checks (codec, signature, NUL) run in bounded memory up to `max_scan_bytes`. With
/// `explain=true`, the body is a text to explain ([`explain::scan`]).
async fn scan(
    State(state): State<AppState>,
    Current(snapshot): Current,
    choice: ProfileParam,
    explained: explain::ExplainParam,
    request: Request,
) -> Result<Response, Problem> {
    let profile = choice.of(&snapshot)?;
    if let Some(class) = explained.class() {
        return explain::scan(&state, &snapshot, profile, class, request).await;
    }
    let (parts, body) = request.into_parts();
    let config = &snapshot.config;
    let body = if upload::streamable(&parts.headers) {
        upload::stream(&state, config, profile, &parts.headers, body).await?
    } else {
        let limit = config.max_body_bytes;
        let (bytes, charge) = read_whole(body, limit, &state.budget).await?;
        Streamed::Whole(bytes, charge)
    };
    let passed = match body {
        Streamed::Whole(bytes, charge) => {
            let upload = upload::upload(&parts.headers, bytes);
            (snapshot.gate)
                .pass(profile, None, Use::Scan, upload, &charge)
                .await?
        }
        Streamed::Scanned(verdict) => snapshot.gate.scanned(verdict),
    };
    let response = match &passed.outcome {
        Outcome::Report(verdict) => (StatusCode::OK, axum::Json(verdict)).into_response(),
        _ => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    Ok(passed.answered(response))
}

/// `POST /v1/sanitize`: the sanitized body with the same content type, or 422 with the verdict.
async fn sanitize(
    Current(snapshot): Current,
    choice: ProfileParam,
    whole: Whole,
) -> Result<Response, Problem> {
    let profile = choice.of(&snapshot)?;
    let headers = whole.parts.headers;
    let upload = upload::upload(&headers, whole.body);
    let charge = &whole.charge;
    let passed = (snapshot.gate).pass(profile, None, Use::Sanitize, upload, charge);
    let mut passed = passed.await?;
    // A rewritten coded body comes back decoded; an untouched one as it was sent, coding and
    // all.
    let (body, coding) = match std::mem::replace(&mut passed.outcome, Outcome::Forward) {
        Outcome::Refuse(problem) => return Ok(passed.answered(problem.into_response())),
        Outcome::Rewritten(r) => (r.body, None),
        _ => (
            std::mem::take(&mut passed.request.body),
            headers.get(header::CONTENT_ENCODING),
        ),
    };
    // The answer holds the charge until it is sent (or dropped).
    let body = crate::budget::Charged::new(body, whole.charge);
    let mut response = (StatusCode::OK, axum::body::Body::new(body)).into_response();
    // Bytes of an unknown type, as a `Vec<u8>` answer says (the sent type replaces it below).
    let octets = header::HeaderValue::from_static("application/octet-stream");
    response.headers_mut().insert(header::CONTENT_TYPE, octets);
    for (name, value) in [
        (header::CONTENT_TYPE, headers.get(header::CONTENT_TYPE)),
        (header::CONTENT_ENCODING, coding),
    ] {
        if let Some(value) = value {
            response.headers_mut().insert(name, value.clone());
        }
    }
    Ok(passed.answered(response))
}
