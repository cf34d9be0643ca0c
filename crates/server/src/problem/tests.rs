use utf8gate_policy::{Decision, Profile, Request, evaluate};

use axum::http::HeaderMap;
use axum::response::IntoResponse;

use super::*;

fn verdict(target: &[u8], headers: &[(&str, &[u8])], body: &[u8]) -> Verdict {
    let mut request = Request::new("POST", target);
    request.headers = headers
        .iter()
        .map(|(n, v)| ((*n).into(), v.to_vec()))
        .collect();
    request.body = bytes::Bytes::copy_from_slice(body);
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

/// The body of `problem` rendered in `style` for a request preferring `format`, with the
/// response's headers.
async fn rendered(problem: Problem, style: ErrorStyle, format: Format) -> (HeaderMap, String) {
    let mut response = problem.clone().into_response();
    render_into(&mut response, problem, "id-1", style, format);
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20).await;
    (
        headers,
        String::from_utf8(body.unwrap_or_default().to_vec()).unwrap_or_default(),
    )
}

const FULL: ErrorStyle = ErrorStyle {
    detail: Detail::Full,
    html: true,
};
const MINIMAL: ErrorStyle = ErrorStyle {
    detail: Detail::Minimal,
    html: true,
};
const NO_HTML: ErrorStyle = ErrorStyle {
    detail: Detail::Full,
    html: false,
};

#[tokio::test]
async fn a_problem_renders_as_problem_json_with_the_request_id() {
    let problem = Problem::new(ProblemKind::BadTarget, "no");
    let carried = problem.clone().into_response();
    assert_eq!(carried.status(), StatusCode::BAD_REQUEST);
    assert!(carried.extensions().get::<Problem>().is_some());
    let (headers, body) = rendered(problem, FULL, Format::Json).await;
    assert_eq!(headers[header::CONTENT_TYPE], PROBLEM_JSON);
    assert_eq!(headers[header::VARY], "accept");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    assert_eq!(json["request_id"], "id-1");
    assert_eq!(json["detail"], "no");
    let rejected = Problem::rejected(
        StatusCode::from_u16(422).unwrap(),
        verdict(b"/%c0%ae", &[], b""),
    );
    let mut response = StatusCode::OK.into_response();
    render_into(&mut response, rejected, "id-2", FULL, Format::Json);
    assert_eq!(response.status().as_u16(), 422);
}

/// The memory budget's refusal is 503 `busy` with `Retry-After` in every representation; no
/// other kind asks the client to come back.
#[tokio::test]
async fn a_busy_refusal_says_when_to_retry() {
    for (style, format) in [
        (FULL, Format::Json),
        (MINIMAL, Format::Html),
        (NO_HTML, Format::Html),
    ] {
        let (headers, body) = rendered(Problem::busy(), style, format).await;
        assert_eq!(headers[header::RETRY_AFTER], "1", "{body}");
    }
    let mut response = Problem::busy().into_response();
    render_into(&mut response, Problem::busy(), "id", FULL, Format::Json);
    assert_eq!(response.status().as_u16(), 503);
    let (_, body) = rendered(Problem::busy(), FULL, Format::Json).await;
    let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    assert_eq!(json["type"], "urn:utf8gate:problem:busy");
    for &kind in ProblemKind::ALL {
        assert_eq!(
            kind.retry_after().is_some(),
            kind == ProblemKind::Busy,
            "{kind:?}"
        );
    }
}

#[tokio::test]
async fn minimal_problem_json_has_type_title_status_and_request_id_only() {
    let rejected = Problem::rejected(StatusCode::BAD_REQUEST, verdict(b"/%c0%ae", &[], b""));
    let (_, body) = rendered(rejected.clone(), MINIMAL, Format::Json).await;
    let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let keys: Vec<&String> = json
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["request_id", "status", "title", "type"], "{body}");
    assert_eq!(json["type"], "urn:utf8gate:problem:rejected");
    assert_eq!(json["status"], 400);
    let (_, full) = rendered(rejected, FULL, Format::Json).await;
    let json: serde_json::Value = serde_json::from_str(&full).unwrap_or_default();
    assert!(
        json["verdict"]["findings"].is_array() && json["detail"].is_string(),
        "{full}"
    );
}

#[tokio::test]
async fn html_only_when_preferred_and_allowed() {
    let rejected = Problem::rejected(StatusCode::BAD_REQUEST, verdict(b"/%c0%ae", &[], b""));
    let (headers, page) = rendered(rejected.clone(), FULL, Format::Html).await;
    assert_eq!(headers[header::CONTENT_TYPE], TEXT_HTML);
    assert_eq!(
        headers[header::CONTENT_SECURITY_POLICY],
        CONTENT_SECURITY_POLICY
    );
    assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(headers[header::VARY], "accept");
    assert!(
        page.contains("overlong UTF-8 sequence (bytes C0 AE)"),
        "{page}"
    );
    assert!(
        page.contains("<code id=\"request-id\">id-1</code>"),
        "{page}"
    );
    let (_, minimal) = rendered(rejected.clone(), MINIMAL, Format::Html).await;
    assert!(
        !minimal.contains("C0 AE") && minimal.contains("id-1"),
        "{minimal}"
    );
    // HTML not allowed: problem+json, and the answer does not depend on Accept.
    let (headers, body) = rendered(rejected, NO_HTML, Format::Html).await;
    assert_eq!(headers[header::CONTENT_TYPE], PROBLEM_JSON);
    assert!(headers.get(header::VARY).is_none() && body.starts_with('{'));
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
