//! The API listener's stack in process: every answer carries its request id, every problem is
//! problem+json naming the same id and its kind, and requests refused before a verdict are
//! counted as such.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;
use utf8gate_server::problem::{PROBLEM_JSON, ProblemKind};
use utf8gate_server::{AppState, Config, routers};

/// A state whose buffered bodies are at most 64 bytes and scanned ones at most 1024.
fn small_limits() -> AppState {
    let mut config = Config::default_config();
    config.max_body_bytes = 64;
    config.max_scan_bytes = 1024;
    AppState::new(config)
}

struct Answer {
    status: StatusCode,
    id: String,
    content_type: String,
    body: Vec<u8>,
}

async fn call(state: &AppState, request: Request<Body>) -> Answer {
    let (_, api, _) = routers(state);
    let response = api.oneshot(request).await.expect("infallible");
    let (parts, body) = response.into_parts();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .map(|v| v.to_str().expect("ascii").to_string())
            .unwrap_or_default()
    };
    Answer {
        status: parts.status,
        id: header("utf8gate-request-id"),
        content_type: header("content-type"),
        body: body.collect().await.expect("body").to_bytes().to_vec(),
    }
}

fn post(uri: &str, content_type: &str, body: Vec<u8>) -> Request<Body> {
    Request::post(uri)
        .header("content-type", content_type)
        .body(Body::from(body))
        .expect("request")
}

/// Asserts that `answer` is the problem `kind` with `status`, naming the answer's request id.
fn assert_problem(answer: &Answer, kind: ProblemKind, status: u16) {
    assert_eq!(answer.status.as_u16(), status, "{kind:?}");
    assert_eq!(answer.content_type, PROBLEM_JSON, "{kind:?}");
    let doc: serde_json::Value = serde_json::from_slice(&answer.body).expect("json");
    assert_eq!(doc["type"], format!("urn:utf8gate:problem:{}", kind.slug()));
    assert_eq!(doc["title"], kind.describe().2);
    assert_eq!(doc["status"], status);
    assert_eq!(doc["request_id"], answer.id.as_str(), "{kind:?}");
    assert_eq!(answer.id.len(), 24, "a generated id: {}", answer.id);
}

#[tokio::test]
async fn every_refusal_is_a_problem_with_the_answer_s_request_id() {
    let state = small_limits();
    let cases = [
        (
            post("/v1/scan?profile=a&profile=b", "text/plain", b"x".to_vec()),
            ProblemKind::BadQuery,
            400,
        ),
        (
            post("/v1/scan?profile=nope", "text/plain", b"x".to_vec()),
            ProblemKind::UnknownProfile,
            400,
        ),
        // Declared over the listener's limit: refused before the body is read.
        (
            post("/v1/scan", "text/plain", vec![b'a'; 2048]),
            ProblemKind::BodyTooLarge,
            413,
        ),
        // Within the listener's limit, over what the upload routes buffer.
        (
            post("/v1/sanitize", "text/plain", vec![b'a'; 100]),
            ProblemKind::BodyTooLarge,
            413,
        ),
        (
            post("/authz/forward", "text/plain", vec![b'a'; 100]),
            ProblemKind::BodyTooLarge,
            413,
        ),
        (
            post("/v1/sanitize", "text/plain", b"caf\xC0\xA9".to_vec()),
            ProblemKind::Rejected,
            422,
        ),
    ];
    let count = cases.len();
    for (request, kind, status) in cases {
        let answer = call(&state, request).await;
        assert_problem(&answer, kind, status);
    }
    let metrics = state.metrics.render();
    let sample = |name: &str| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no sample {name}"))
    };
    // Four upload requests and one check ended before a verdict; the 422 has one.
    let scan_refused =
        sample(r#"utf8gate_requests_total{decision="refused",mode="scan",route=""}"#);
    let authz_refused =
        sample(r#"utf8gate_requests_total{decision="refused",mode="authz",route=""}"#);
    assert_eq!((scan_refused, authz_refused), (4.0, 1.0));
    assert_eq!(sample("utf8gate_body_limit_exceeded_total"), 3.0);
    assert_eq!(
        sample(r#"utf8gate_requests_total{decision="reject",mode="scan",route=""}"#),
        1.0
    );
    assert_eq!(
        sample("utf8gate_in_flight_requests"),
        0.0,
        "after {count} answers"
    );
}

#[tokio::test]
async fn a_client_s_printable_request_id_is_kept_on_every_answer() {
    let state = small_limits();
    let with_id = |uri: &str, id: &[u8]| {
        Request::post(uri)
            .header("content-type", "text/plain")
            .header("x-request-id", id)
            .body(Body::from("ok"))
            .expect("request")
    };
    for uri in ["/v1/scan", "/v1/scan?profile=nope", "/no/such/route"] {
        let kept = call(&state, with_id(uri, b"trace-42")).await;
        assert_eq!(kept.id, "trace-42", "{uri}");
        let replaced = call(&state, with_id(uri, b"has space")).await;
        assert_eq!(replaced.id.len(), 24, "{uri}: {}", replaced.id);
        assert!(replaced.id.bytes().all(|b| b.is_ascii_hexdigit()));
    }
    let problem = call(&state, with_id("/v1/scan?profile=nope", b"trace-43")).await;
    let doc: serde_json::Value = serde_json::from_slice(&problem.body).expect("json");
    assert_eq!(doc["request_id"], "trace-43");
}
