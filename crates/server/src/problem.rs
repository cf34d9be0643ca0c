//! Errors become responses in one place: RFC 9457 `application/problem+json`, classified by who
//! is at fault (client 4xx, upstream 502/504, internal 500 with details only in logs).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utf8gate_policy::Verdict;

/// The media type of problem details.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// A problem to report to the client.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// A URN naming the problem type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Short summary of the type.
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// What happened to this request.
    pub detail: String,
    /// The request id, as in logs and the `utf8gate-request-id` header.
    pub request_id: String,
    /// The verdict, for rejections.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
}

impl Problem {
    /// A problem of type `urn:utf8gate:problem:{slug}`.
    pub fn new(
        status: StatusCode,
        slug: &str,
        title: &str,
        detail: impl Into<String>,
        request_id: &str,
    ) -> Problem {
        Problem {
            kind: format!("urn:utf8gate:problem:{slug}"),
            title: title.to_string(),
            status: status.as_u16(),
            detail: detail.into(),
            request_id: request_id.to_string(),
            verdict: None,
        }
    }

    /// A rejection carrying its verdict.
    pub fn rejected(status: StatusCode, verdict: Verdict, request_id: &str) -> Problem {
        let kinds = verdict.kinds().join(", ");
        let mut p = Problem::new(
            status,
            "rejected",
            "Request rejected by utf8gate",
            format!("rejected: {kinds}"),
            request_id,
        );
        p.verdict = Some(verdict);
        p
    }

    /// 413: a body over the limit.
    pub fn too_large(limit: u64, request_id: &str) -> Problem {
        Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body-too-large",
            "Body too large",
            format!("the body exceeds {limit} bytes"),
            request_id,
        )
    }

    /// 400: the body could not be read.
    pub fn bad_body(request_id: &str) -> Problem {
        Problem::new(
            StatusCode::BAD_REQUEST,
            "bad-body",
            "Body could not be read",
            "the request body ended early or was malformed",
            request_id,
        )
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_vec(&self).unwrap_or_else(|_| b"{}".to_vec());
        let mut response = (status, body).into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if let Ok(id) = HeaderValue::from_str(&self.request_id) {
            response.headers_mut().insert(crate::REQUEST_ID, id);
        }
        response
    }
}
