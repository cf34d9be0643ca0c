//! The API listener: `/v1/scan`, `/v1/sanitize`, and the authorization routes.

use std::time::Instant;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use http_body_util::BodyExt;
use serde::Deserialize;
use utf8gate_policy::{BodyScan, ContentType, Decision, Mode, Profile, Verdict};

use crate::problem::Problem;
use crate::state::{AppState, read_body};

/// `?profile=NAME`.
#[derive(Debug, Deserialize)]
pub struct ProfileParam {
    profile: Option<String>,
}

/// The API router.
pub fn router(state: AppState) -> Router {
    // The document depends only on the configuration: built once, served as is.
    let names: Vec<&str> = state.config.profiles.keys().map(String::as_str).collect();
    let document = bytes::Bytes::from(openapi_document(&names));
    Router::new()
        .route("/v1/scan", post(scan))
        .route("/v1/sanitize", post(sanitize))
        .route("/authz/envoy", any(crate::authz::envoy))
        .route("/authz/envoy/{*path}", any(crate::authz::envoy))
        .route("/authz/forward", any(crate::authz::forward))
        .route(
            "/openapi.json",
            axum::routing::get(move || async move {
                ([(header::CONTENT_TYPE, "application/json")], document).into_response()
            }),
        )
        .with_state(state)
}

/// `docs/openapi.json` with the `profile` query parameter's enum set to `profiles` (this
/// instance's profiles, configured ones included), so that every value the document allows is
/// one this instance accepts.
pub fn openapi_document(profiles: &[&str]) -> String {
    let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(crate::OPENAPI) else {
        return crate::OPENAPI.to_string();
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

/// A query string the `profile` parameter cannot be read from (given twice, bad encoding).
fn bad_query(rejection: &QueryRejection, id: &str) -> Response {
    Problem::new(
        StatusCode::BAD_REQUEST,
        "bad-query",
        "Bad query string",
        rejection.body_text(),
        id,
    )
    .into_response()
}

fn unknown_profile(name: Option<&str>, id: &str) -> Response {
    Problem::new(
        StatusCode::BAD_REQUEST,
        "unknown-profile",
        "Unknown profile",
        format!("no profile named {:?}", name.unwrap_or_default()),
        id,
    )
    .into_response()
}

/// The upload as a policy request: only its body and content type are evaluated, never the
/// API call's own path and headers.
fn upload(headers: &HeaderMap, body: &[u8]) -> utf8gate_policy::Request {
    let mut r = utf8gate_policy::Request::new("POST", b"/").mode(Mode::Scan);
    // The media type says how the upload is read, its codings how it is decoded.
    for name in [
        header::CONTENT_TYPE,
        header::CONTENT_ENCODING,
        header::TRANSFER_ENCODING,
    ] {
        for value in headers.get_all(&name) {
            r.headers
                .push((name.as_str().to_string(), value.as_bytes().to_vec()));
        }
    }
    r.body = body.to_vec();
    r
}

fn streamable(content_type: Option<&HeaderValue>) -> bool {
    content_type.is_none_or(|v| {
        let ct = ContentType::parse(v.as_bytes());
        let plain = ct.essence.starts_with("text/") || ct.essence == "application/octet-stream";
        plain
            && ct
                .charset()
                .is_none_or(|c| matches!(c.as_str(), "utf-8" | "utf8" | "us-ascii"))
    })
}

fn verdict_response(verdict: &Verdict, id: &str) -> Response {
    let mut response = (StatusCode::OK, axum::Json(verdict)).into_response();
    decision_headers(&mut response, verdict.decision, id);
    response
}

/// Sets `utf8gate-decision` and `utf8gate-request-id`.
pub fn decision_headers(response: &mut Response, decision: Decision, id: &str) {
    let headers = response.headers_mut();
    headers.insert(crate::DECISION, HeaderValue::from_static(decision.as_str()));
    if let Ok(v) = HeaderValue::from_str(id) {
        headers.insert(crate::REQUEST_ID, v);
    }
}

/// `POST /v1/scan`: the verdict for the body. Text and octet-stream bodies are validated as
/// they stream in: up to `max_body_bytes` they get every check; beyond that, the streaming
/// checks (codec, signature, NUL) run in bounded memory up to `max_scan_bytes`.
async fn scan(
    State(state): State<AppState>,
    params: Result<Query<ProfileParam>, QueryRejection>,
    request: Request,
) -> Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let id = state.request_id(&parts.headers);
    let params = match params {
        Ok(Query(p)) => p,
        Err(e) => return bad_query(&e, &id),
    };
    let Some(profile) = state.profile(params.profile.as_deref()) else {
        return unknown_profile(params.profile.as_deref(), &id);
    };
    let content_type = parts.headers.get(header::CONTENT_TYPE);
    let verdict = if streamable(content_type) {
        match stream_scan(&state, profile, &parts.headers, body, &id).await {
            Ok(v) => v,
            Err(p) => return refused(&state, p, started),
        }
    } else {
        let bytes = match read_body(&state, body, state.config.max_body_bytes, &id).await {
            Ok(b) => b,
            Err(p) => return refused(&state, p, started),
        };
        state
            .evaluate_upload(profile, upload(&parts.headers, &bytes))
            .await
            .verdict
    };
    state.audit(Mode::Scan, &id, &verdict, 200, started);
    verdict_response(&verdict, &id)
}

fn refused(state: &AppState, problem: Problem, started: Instant) -> Response {
    state
        .metrics
        .record_refused(Mode::Scan, started.elapsed().as_secs_f64());
    problem.into_response()
}

/// Streams the body through the codec checks (its codings undone on the way); bodies that
/// decode to at most `max_body_bytes` are also evaluated whole.
async fn stream_scan(
    state: &AppState,
    profile: &Profile,
    headers: &HeaderMap,
    mut body: axum::body::Body,
    id: &str,
) -> Result<Verdict, Problem> {
    let max_scan = state.config.max_scan_bytes;
    let max_buffer = state.config.max_body_bytes;
    let head = upload(headers, b"");
    let mut scan = BodyScan::for_body_of(profile, &head, max_scan);
    let mut buffer = Some(Vec::new());
    let mut total: u64 = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| Problem::bad_body(id))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total += data.len() as u64;
        if total > max_scan {
            state.metrics.body_limit_exceeded();
            return Err(Problem::too_large(max_scan, id));
        }
        scan.feed(&data);
        if let Some(b) = buffer.as_mut() {
            if b.len() + data.len() <= max_buffer {
                b.extend_from_slice(&data);
            } else {
                buffer = None;
            }
        }
    }
    Ok(match buffer {
        Some(bytes) if scan.decoded_len() <= max_buffer as u64 => {
            state
                .evaluate_upload(profile, upload(headers, &bytes))
                .await
                .verdict
        }
        _ => scan.finish(),
    })
}

/// `POST /v1/sanitize`: the sanitized body with the same content type, or 422 with the verdict.
async fn sanitize(
    State(state): State<AppState>,
    params: Result<Query<ProfileParam>, QueryRejection>,
    request: Request,
) -> Response {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let id = state.request_id(&parts.headers);
    let params = match params {
        Ok(Query(p)) => p,
        Err(e) => return bad_query(&e, &id),
    };
    let Some(profile) = state.profile(params.profile.as_deref()) else {
        return unknown_profile(params.profile.as_deref(), &id);
    };
    let bytes = match read_body(&state, body, state.config.max_body_bytes, &id).await {
        Ok(b) => b,
        Err(p) => return refused(&state, p, started),
    };
    let content_type = parts.headers.get(header::CONTENT_TYPE).cloned();
    let evaluation = state
        .evaluate_upload(profile, upload(&parts.headers, &bytes))
        .await;
    let verdict = evaluation.verdict;
    if verdict.decision == Decision::Reject && verdict.enforced {
        state.audit(Mode::Scan, &id, &verdict, 422, started);
        return Problem::rejected(StatusCode::UNPROCESSABLE_ENTITY, verdict, &id).into_response();
    }
    state.audit(Mode::Scan, &id, &verdict, 200, started);
    // A rewritten coded body comes back decoded; an untouched one as it was sent, coding
    // and all.
    let (out, coding) = match evaluation.sanitized {
        Some(r) => (r.body, None),
        None => (bytes, parts.headers.get(header::CONTENT_ENCODING).cloned()),
    };
    let mut response = (StatusCode::OK, out).into_response();
    if let Some(ct) = content_type {
        response.headers_mut().insert(header::CONTENT_TYPE, ct);
    }
    if let Some(coding) = coding {
        response
            .headers_mut()
            .insert(header::CONTENT_ENCODING, coding);
    }
    decision_headers(&mut response, verdict.decision, &id);
    response
}
