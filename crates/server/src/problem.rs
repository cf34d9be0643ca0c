//! Errors become responses in one place: RFC 9457 `application/problem+json`, classified by who
//! is at fault (client 4xx, upstream 502/504, internal 500 with details only in logs).
//!
//! Handlers and layers return a [`Problem`] (a kind from [`ProblemKind`]'s table, a detail, and
//! for rejections the verdict). Its `IntoResponse` only sets the status and carries the problem
//! in the response's extensions; [`render`] writes the body, with the request id, in the
//! listener's problem layer (`layers::problems`), the one place that knows both.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utf8gate_policy::{Action, FindingKind, Verdict};

/// The media type of problem details.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Declares [`ProblemKind`] from one table: each kind once, with its default status, the slug
/// of its type and its title.
macro_rules! problem_kinds {
    ($($(#[doc = $doc:literal])+ $kind:ident => ($status:ident, $slug:literal, $title:literal),)+) => {
        /// Every problem utf8gate reports: its status (unless the configuration sets it), the
        /// slug of its type (`urn:utf8gate:problem:{slug}`) and its title.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ProblemKind {
            $($(#[doc = $doc])+ $kind,)+
        }

        impl ProblemKind {
            /// Every kind.
            pub const ALL: &[ProblemKind] = &[$(ProblemKind::$kind),+];

            /// The table: default status, type slug, title.
            pub const fn describe(self) -> (StatusCode, &'static str, &'static str) {
                match self {
                    $(ProblemKind::$kind => (StatusCode::$status, $slug, $title),)+
                }
            }
        }
    };
}

problem_kinds! {
    /// The policy rejected the request (the status is `policy.reject_status`,
    /// `policy.authz_deny_status`, 415 or 422, by listener).
    Rejected => (BAD_REQUEST, "rejected", "Request rejected by utf8gate"),
    /// A body over the limit.
    BodyTooLarge => (PAYLOAD_TOO_LARGE, "body-too-large", "Body too large"),
    /// A body that could not be read (cut short, malformed framing).
    BadBody => (BAD_REQUEST, "bad-body", "Body could not be read"),
    /// A query string the API's parameters cannot be read from.
    BadQuery => (BAD_REQUEST, "bad-query", "Bad query string"),
    /// `?profile=` names no profile.
    UnknownProfile => (BAD_REQUEST, "unknown-profile", "Unknown profile"),
    /// A request target that cannot be forwarded.
    BadTarget => (BAD_REQUEST, "bad-target", "Bad request target"),
    /// A rewritten header value that cannot be sent.
    BadHeader => (BAD_REQUEST, "bad-header", "Bad header"),
    /// Readings of the request's path or host that choose different routes.
    AmbiguousRoute => (BAD_REQUEST, "ambiguous-route", "Request reads as two routes"),
    /// CONNECT, or TRACE when not allowed.
    MethodNotAllowed => (METHOD_NOT_ALLOWED, "method-not-allowed", "Method not allowed"),
    /// A path-override header from a peer that is not a trusted proxy.
    UntrustedPathOverride => (
        BAD_REQUEST,
        "untrusted-path-override",
        "Path override from an untrusted peer"
    ),
    /// The request took longer than `limits.request_timeout_seconds`.
    RequestTimeout => (REQUEST_TIMEOUT, "request-timeout", "Request timeout"),
    /// More than `limits.max_concurrent_requests` in flight.
    Overloaded => (SERVICE_UNAVAILABLE, "overloaded", "Overloaded"),
    /// The proxy has no upstream configured.
    NoUpstream => (BAD_GATEWAY, "no-upstream", "No upstream"),
    /// The upstream refused or reset the connection.
    UpstreamUnavailable => (BAD_GATEWAY, "upstream-unavailable", "Upstream unavailable"),
    /// The upstream did not answer in time.
    UpstreamTimeout => (GATEWAY_TIMEOUT, "upstream-timeout", "Upstream timeout"),
    /// A fault of utf8gate's own (details in the logs only).
    Internal => (INTERNAL_SERVER_ERROR, "internal", "Internal error"),
}

impl ProblemKind {
    /// The slug of the problem type.
    pub const fn slug(self) -> &'static str {
        self.describe().1
    }
}

/// A problem to report to the client.
#[derive(Debug, Clone)]
pub struct Problem {
    /// What kind of problem.
    pub kind: ProblemKind,
    /// The HTTP status (the kind's, unless set).
    pub status: StatusCode,
    /// What happened to this request.
    pub detail: String,
    /// The verdict, for rejections.
    pub verdict: Option<Box<Verdict>>,
}

impl Problem {
    /// A problem of `kind` with its table status.
    pub fn new(kind: ProblemKind, detail: impl Into<String>) -> Problem {
        Problem {
            kind,
            status: kind.describe().0,
            detail: detail.into(),
            verdict: None,
        }
    }

    /// A rejection carrying its verdict, with `status`.
    pub fn rejected(status: StatusCode, verdict: Verdict) -> Problem {
        let detail = format!("rejected: {}", verdict.kinds().join(", "));
        Problem {
            kind: ProblemKind::Rejected,
            status,
            detail,
            verdict: Some(Box::new(verdict)),
        }
    }

    /// 413: a body over `limit` bytes.
    pub fn too_large(limit: u64) -> Problem {
        Problem::new(
            ProblemKind::BodyTooLarge,
            format!("the body exceeds {limit} bytes"),
        )
    }

    /// 400: the body could not be read.
    pub fn bad_body() -> Problem {
        Problem::new(
            ProblemKind::BadBody,
            "the request body ended early or was malformed",
        )
    }
}

/// The JSON body of a problem (RFC 9457 members, then utf8gate's).
#[derive(Serialize)]
struct Document<'a> {
    #[serde(rename = "type")]
    kind: String,
    title: &'static str,
    status: u16,
    detail: &'a str,
    request_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'a Verdict>,
}

/// Makes `response` the rendering of `problem` (status, body, media type), keeping its other
/// headers and extensions; the problem stays in the extensions for the layers outside.
pub fn render_into(response: &mut Response, problem: Problem, request_id: &str) {
    let (_, slug, title) = problem.kind.describe();
    let document = Document {
        kind: format!("urn:utf8gate:problem:{slug}"),
        title,
        status: problem.status.as_u16(),
        detail: &problem.detail,
        request_id,
        verdict: problem.verdict.as_deref(),
    };
    let body = serde_json::to_vec(&document).unwrap_or_else(|_| b"{}".to_vec());
    *response.status_mut() = problem.status;
    *response.body_mut() = axum::body::Body::from(body);
    let headers = response.headers_mut();
    headers.remove(header::CONTENT_LENGTH);
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
    response.extensions_mut().insert(problem);
}

impl IntoResponse for Problem {
    /// The status, with the problem in the extensions for the problem layer to render.
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        response.extensions_mut().insert(self);
        response
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

    #[test]
    fn each_kind_has_its_own_slug_and_a_status_of_its_class() {
        let mut slugs: Vec<_> = ProblemKind::ALL.iter().map(|k| k.slug()).collect();
        slugs.sort_unstable();
        slugs.dedup();
        assert_eq!(slugs.len(), ProblemKind::ALL.len());
        for &kind in ProblemKind::ALL {
            let (status, slug, title) = kind.describe();
            assert!(
                status.is_client_error() || status.is_server_error(),
                "{kind:?}"
            );
            assert!(
                slug.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{slug}"
            );
            assert!(!title.is_empty());
        }
    }

    #[test]
    fn a_problem_renders_as_problem_json_with_the_request_id() {
        let problem = Problem::new(ProblemKind::BadTarget, "no");
        let carried = problem.clone().into_response();
        assert_eq!(carried.status(), StatusCode::BAD_REQUEST);
        assert!(carried.extensions().get::<Problem>().is_some());
        let mut response = carried;
        render_into(&mut response, problem, "id-1");
        assert_eq!(response.headers()[header::CONTENT_TYPE], PROBLEM_JSON);
        let rejected = Problem::rejected(
            StatusCode::from_u16(422).unwrap(),
            verdict(b"/%c0%ae", &[], b""),
        );
        let mut rendered = StatusCode::OK.into_response();
        render_into(&mut rendered, rejected, "id-2");
        assert_eq!(rendered.status().as_u16(), 422);
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
