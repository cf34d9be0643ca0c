//! Errors become responses in one place: RFC 9457 `application/problem+json`, classified by who
//! is at fault (client 4xx, upstream 502/504, internal 500 with details only in logs).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utf8gate_policy::{Action, FindingKind, Verdict};

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

/// The status of a rejected request: `configured` (`policy.reject_status`), except 415
/// Unsupported Media Type (RFC 9110 §15.5.16) when every finding that rejects it is
/// `unsupported_coding`: the request is refused for a coding utf8gate does not read, not for
/// what it contains. When findings were left off the verdict, every kind counted must be
/// `unsupported_coding` too (an unlisted finding could reject for another reason).
pub fn reject_status(verdict: &Verdict, configured: StatusCode) -> StatusCode {
    let mut rejecting = verdict
        .findings
        .iter()
        .filter(|f| f.action == Action::Reject)
        .peekable();
    let coding = FindingKind::UnsupportedCoding.as_str();
    let only_coding = rejecting.peek().is_some()
        && rejecting.all(|f| f.kind == FindingKind::UnsupportedCoding)
        && (!verdict.findings_truncated || verdict.counts.keys().all(|k| k == coding));
    if only_coding {
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    } else {
        configured
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

#[cfg(test)]
mod tests {
    use utf8gate_policy::{Decision, Profile, Request, evaluate};

    use super::*;

    fn verdict(target: &[u8], headers: &[(&str, &[u8])], body: &[u8]) -> Verdict {
        let mut request = Request::new("POST", target);
        request.headers = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_vec()))
            .collect();
        request.body = body.to_vec();
        let verdict = evaluate(&Profile::strict(), &request).verdict;
        assert_eq!(verdict.decision, Decision::Reject, "{verdict:?}");
        verdict
    }

    const TEXT: (&str, &[u8]) = ("content-type", b"text/plain");

    #[test]
    fn only_unsupported_codings_are_415() {
        let configured = StatusCode::from_u16(422).unwrap();
        let compress = verdict(b"/", &[TEXT, ("content-encoding", b"compress")], b"x");
        assert_eq!(compress.kinds(), ["unsupported_coding"]);
        assert_eq!(
            reject_status(&compress, configured),
            StatusCode::UNSUPPORTED_MEDIA_TYPE
        );
        // Another reason to reject: the configured status.
        let both = verdict(
            b"/%c0%ae%c0%ae/x",
            &[TEXT, ("content-encoding", b"compress")],
            b"x",
        );
        assert!(both.kinds().contains(&"unsupported_coding"), "{both:?}");
        assert_eq!(reject_status(&both, configured), configured);
        let overlong = verdict(b"/%c0%ae%c0%ae/x", &[], b"");
        assert_eq!(reject_status(&overlong, configured), configured);
        let corrupt = verdict(b"/", &[TEXT, ("content-encoding", b"gzip")], b"nope");
        assert_eq!(corrupt.kinds(), ["corrupt_coding"]);
        assert_eq!(reject_status(&corrupt, configured), configured);
    }

    #[test]
    fn findings_left_off_the_verdict_keep_the_configured_status() {
        let mut truncated = verdict(b"/", &[TEXT, ("content-encoding", b"compress")], b"x");
        truncated.findings_truncated = true;
        assert_eq!(
            reject_status(&truncated, StatusCode::BAD_REQUEST),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "every kind counted is unsupported_coding"
        );
        truncated.counts.insert("overlong".into(), 3);
        assert_eq!(
            reject_status(&truncated, StatusCode::BAD_REQUEST),
            StatusCode::BAD_REQUEST
        );
        // A verdict without a rejecting finding listed is not a coding problem.
        truncated.findings.clear();
        truncated.counts.clear();
        assert_eq!(
            reject_status(&truncated, StatusCode::BAD_REQUEST),
            StatusCode::BAD_REQUEST
        );
    }
}
