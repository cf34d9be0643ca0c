//! A check's outcome as a `CheckResponse`. Allow is `OkResponse` (status OK); a sanitize
//! decision sets the headers the sanitizer rewrote (ext_authz can set, append and remove
//! headers and query parameters, never rewrite the path or the body: those go as received,
//! as with the HTTP check); deny is `DeniedResponse` with `policy.authz_deny_status` and the
//! problem+json body (the page for a browser's `Accept`), status PERMISSION_DENIED.

use axum::response::Response;
use envoy_types::ext_authz::v3::pb::{
    CheckResponse, DeniedHttpResponse, HeaderAppendAction, HeaderValue, HeaderValueOption,
    HttpResponse, HttpStatus, OkHttpResponse,
};
use envoy_types::pb::google::rpc;
use http_body_util::BodyExt;
use utf8gate_policy::{Mode, Request};

use crate::gate::Outcome;
use crate::names::{DECISION, REQUEST_ID};
use crate::ops::audit::{Refusal, write_refused};
use crate::ops::metrics::Metrics;
use crate::problem::{ErrorStyle, Format, Problem, ProblemKind, negotiate, render_into};

/// gRPC status codes (google.rpc.Code).
const OK: i32 = 0;
const INVALID_ARGUMENT: i32 = 3;
const PERMISSION_DENIED: i32 = 7;
const UNAVAILABLE: i32 = 14;

/// The response to an outcome of the gate, and the HTTP status Envoy answers with (for the
/// audit line). `received` is the request as evaluated, `decision` the verdict's (an allowed
/// request goes upstream with `utf8gate-decision`, as behind the HTTP check).
pub(super) async fn of_outcome(
    outcome: Outcome,
    received: &Request,
    decision: &str,
    id: &str,
    style: ErrorStyle,
    format: Format,
) -> (CheckResponse, u16) {
    let mut headers = match outcome {
        Outcome::Refuse(problem) => {
            let status = problem.status.as_u16();
            return (denied(problem, id, style, format).await, status);
        }
        Outcome::Rewritten(sanitized) => rewritten_headers(received, &sanitized),
        Outcome::Forward | Outcome::Report(_) => Vec::new(),
    };
    headers.push(header(DECISION.as_str(), decision));
    (allowed(headers), 200)
}

/// `OkResponse` setting `headers` on the request sent upstream.
fn allowed(headers: Vec<HeaderValueOption>) -> CheckResponse {
    CheckResponse {
        status: Some(rpc::Status {
            code: OK,
            ..Default::default()
        }),
        http_response: Some(HttpResponse::OkResponse(OkHttpResponse {
            headers,
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// The headers whose value the sanitizer changed, each overwriting the received one.
fn rewritten_headers(received: &Request, sanitized: &Request) -> Vec<HeaderValueOption> {
    let mut out = Vec::new();
    for ((name, before), (_, after)) in received.headers.iter().zip(&sanitized.headers) {
        if before == after {
            continue;
        }
        let Ok(value) = std::str::from_utf8(after) else {
            continue;
        };
        out.push(HeaderValueOption {
            header: Some(HeaderValue {
                key: name.to_string(),
                value: value.to_string(),
                ..Default::default()
            }),
            append_action: HeaderAppendAction::OverwriteIfExistsOrAdd as i32,
            ..Default::default()
        });
    }
    out
}

/// A problem as the HTTP answer Envoy sends the client: its status, its headers (with
/// `utf8gate-decision: reject` and the request id) and its body (problem+json, or the page
/// when `format` says so). Shared by the `ext_authz` denial and the `ext_proc` immediate
/// response.
pub(super) struct Rendered {
    /// The HTTP status.
    pub(super) status: u16,
    /// Header names and values.
    pub(super) headers: Vec<(String, String)>,
    /// The body.
    pub(super) body: Vec<u8>,
}

/// Renders `problem` as [`Rendered`].
pub(super) async fn render(
    problem: Problem,
    id: &str,
    style: ErrorStyle,
    format: Format,
) -> Rendered {
    let mut response = Response::default();
    render_into(&mut response, problem, id, style, format);
    let status = response.status().as_u16();
    let mut headers = Vec::new();
    for (name, value) in response.headers() {
        if let Ok(value) = value.to_str() {
            headers.push((name.as_str().to_string(), value.to_string()));
        }
    }
    headers.push((DECISION.as_str().to_string(), "reject".to_string()));
    headers.push((REQUEST_ID.as_str().to_string(), id.to_string()));
    let body = match response.into_body().collect().await {
        Ok(b) => b.to_bytes().to_vec(),
        Err(_) => Vec::new(),
    };
    Rendered {
        status,
        headers,
        body,
    }
}

/// `DeniedResponse` with the problem's status, headers and body ([`render`]); the gRPC status
/// is UNAVAILABLE for the memory budget's refusal, INVALID_ARGUMENT for a check that describes
/// no request, PERMISSION_DENIED otherwise.
pub(super) async fn denied(
    problem: Problem,
    id: &str,
    style: ErrorStyle,
    format: Format,
) -> CheckResponse {
    let message = problem.detail.clone();
    let code = match problem.kind {
        ProblemKind::Busy => UNAVAILABLE,
        ProblemKind::BadCheck => INVALID_ARGUMENT,
        _ => PERMISSION_DENIED,
    };
    let rendered = render(problem, id, style, format).await;
    let headers = (rendered.headers.iter())
        .map(|(k, v)| header(k, v))
        .collect();
    CheckResponse {
        status: Some(rpc::Status {
            code,
            message,
            ..Default::default()
        }),
        http_response: Some(HttpResponse::DeniedResponse(DeniedHttpResponse {
            status: Some(HttpStatus {
                code: i32::from(rendered.status),
            }),
            headers,
            body: String::from_utf8_lossy(&rendered.body).into_owned(),
        })),
        ..Default::default()
    }
}

fn header(key: &str, value: &str) -> HeaderValueOption {
    HeaderValueOption {
        header: Some(HeaderValue {
            key: key.to_string(),
            value: value.to_string(),
            ..Default::default()
        }),
        append_action: HeaderAppendAction::OverwriteIfExistsOrAdd as i32,
        ..Default::default()
    }
}

/// The representation of a denial: negotiated on the described request's `Accept` when the
/// style allows HTML, as the HTTP checks negotiate theirs.
pub(super) fn format_of(style: ErrorStyle, accept: &[Vec<u8>]) -> Format {
    match style.html && !accept.is_empty() {
        true => negotiate(accept.iter().map(Vec::as_slice)),
        false => Format::Json,
    }
}

/// Counts a request the gRPC listener refused before a verdict (`mode`: the check or the
/// stream; `route` when one was chosen) and writes its audit line: these answers have no HTTP
/// response for the audit layer to read.
pub(super) fn count_refused(
    metrics: &Metrics,
    mode: Mode,
    route: Option<&str>,
    problem: &Problem,
    id: &str,
    seconds: f64,
) {
    metrics.record_refused(mode, route.unwrap_or(""), seconds);
    let refusal = Refusal {
        mode,
        route: route.unwrap_or("-"),
        problem: problem.kind.slug(),
        status: problem.status.as_u16(),
        client: None,
    };
    write_refused(refusal, id, seconds);
}
