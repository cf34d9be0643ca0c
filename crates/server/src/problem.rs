//! Errors become responses in one place: RFC 9457 `application/problem+json`, or an HTML page
//! for a client that prefers one, classified by who is at fault (client 4xx, upstream 502/504,
//! internal 500 with details only in logs).
//!
//! Handlers and layers return a [`Problem`] (a kind from [`ProblemKind`]'s table, a detail, and
//! for rejections the verdict). Its `IntoResponse` only sets the status and carries the problem
//! in the response's extensions; [`render_into`] writes the body, with the request id, in the
//! listener's problem layer (`layers::problems`), the one place that knows both, in the
//! [`ErrorStyle`] that applies (how much it says; whether HTML may be served) and the
//! representation the request's `Accept` prefers (`accept`). `kind` holds the table, `style`
//! the style, `html` the page and `plain` the words a page uses for findings.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use utf8gate_policy::Verdict;
use utf8gate_policy::answer::{self, PROBLEM_TYPE_PREFIX, ProblemDocument};

mod accept;
mod html;
mod kind;
mod plain;
mod style;

pub use accept::{Format, MAX_ACCEPT_RANGES, negotiate};
pub use html::{CONTENT_SECURITY_POLICY, TEXT_HTML};
pub use kind::{PROBLEM_JSON, Problem, ProblemKind};
pub use style::{Detail, ErrorStyle};

/// Makes `response` the rendering of `problem` (status, body, media type), keeping its other
/// headers and extensions; the problem stays in the extensions for the layers outside.
///
/// It is an HTML page when `style` allows one and `format` (what the request's `Accept`
/// prefers, see [`negotiate`]) is [`Format::Html`], problem+json otherwise; when `style` allows
/// HTML the answer depends on `Accept`, and says so with `Vary: Accept`.
pub fn render_into(
    response: &mut Response,
    problem: Problem,
    request_id: &str,
    style: ErrorStyle,
    format: Format,
) {
    let (_, slug, title) = problem.kind.describe();
    let full = style.detail == Detail::Full;
    let headers = response.headers_mut();
    headers.remove(header::CONTENT_LENGTH);
    if style.html {
        headers.append(header::VARY, HeaderValue::from_static("accept"));
    }
    if let Some(seconds) = problem.kind.retry_after() {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static(seconds));
    }
    if problem.kind == ProblemKind::WebSocketVersion {
        headers.insert("sec-websocket-version", HeaderValue::from_static("13"));
    }
    let body = if style.html && format == Format::Html {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(TEXT_HTML));
        let csp = HeaderValue::from_static(CONTENT_SECURITY_POLICY);
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
        let nosniff = HeaderValue::from_static("nosniff");
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, nosniff);
        html::page(&problem, title, request_id, style.detail).into_bytes()
    } else {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        let document = ProblemDocument {
            kind: format!("{PROBLEM_TYPE_PREFIX}{slug}"),
            title,
            status: problem.status.as_u16(),
            detail: full.then_some(problem.detail.as_str()),
            request_id,
            verdict: problem.verdict.as_deref().filter(|_| full),
        };
        document.to_vec()
    };
    *response.status_mut() = problem.status;
    *response.body_mut() = axum::body::Body::from(body);
    response.extensions_mut().insert(problem);
}

/// The status of a rejected request: `configured` (`policy.reject_status`), or 415 for codings
/// only ([`utf8gate_policy::answer::reject_status`]).
pub fn reject_status(verdict: &Verdict, configured: StatusCode) -> StatusCode {
    let status = answer::reject_status(verdict, configured.as_u16());
    StatusCode::from_u16(status).unwrap_or(configured)
}

#[cfg(test)]
mod tests;
