//! The memory budget at every API route that buffers a body, in process: while the budget is
//! full each is refused with 503 `busy` and `Retry-After`, counted; once it is free each is
//! answered; and every request gives back all it charged, whatever its answer. A streamed
//! scan that only streams is never refused for it. (The proxy and the gRPC check: the
//! end-to-end tests, `tests/tests/e2e/budget.rs`.)

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use tower::ServiceExt;
use utf8gate_server::{AppState, Config, routers};

const BODY: usize = 16 * 1024;

/// A state whose budget holds three bodies of `BODY` bytes (one request's charge), without
/// waiting (validated: the profiles decode at most `BODY` bytes).
fn state() -> AppState {
    let toml = format!(
        "[limits]\nmax_body_bytes = {BODY}\nmax_buffered_bytes = {}\nbuffer_wait_seconds = 0.0\n\
         [explain]\nmax_text_bytes = 4096\n",
        3 * BODY
    );
    let overrides = utf8gate_server::ops::config::Overrides::default();
    let config = Config::load(&toml, "test.toml", &[], &overrides, &|_| None);
    AppState::new(config.expect("a valid configuration"))
}

/// Status, `Retry-After` and body of the API's answer to `request`.
async fn call(state: &AppState, request: Request<Body>) -> (u16, Option<String>, String) {
    let (_, api, _) = routers(state);
    let response = api.oneshot(request).await.expect("infallible");
    let status = response.status().as_u16();
    let retry = (response.headers().get("retry-after")).map(|v| v.to_str().unwrap().to_string());
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (status, retry, String::from_utf8_lossy(&body).into_owned())
}

fn post(uri: &str, content_type: &str, body: &[u8]) -> Request<Body> {
    Request::post(uri)
        .header("content-type", content_type)
        .body(Body::from(body.to_vec()))
        .expect("request")
}

/// Every buffering route, with a body of `BODY` bytes, and its status when answered.
fn routes() -> Vec<(&'static str, Request<Body>, u16)> {
    let text = vec![b'a'; BODY];
    let json = format!("{{\"a\":\"{}\"}}", "b".repeat(BODY - 8));
    vec![
        ("sanitize", post("/v1/sanitize", "text/plain", &text), 200),
        (
            "scan json",
            post("/v1/scan", "application/json", json.as_bytes()),
            200,
        ),
        ("scan text", post("/v1/scan", "text/plain", &text), 200),
        (
            "explain",
            post("/v1/scan?explain=true", "text/plain", &text[..1024]),
            200,
        ),
        (
            "authz forward",
            post("/authz/forward", "text/plain", &text),
            200,
        ),
        (
            "authz envoy",
            post("/authz/envoy/x", "text/plain", &text),
            200,
        ),
    ]
}

#[tokio::test]
async fn a_full_budget_refuses_every_buffering_route_with_retry_after() {
    let state = state();
    let held = state
        .budget
        .charge(state.budget.capacity())
        .await
        .expect("charge");
    let mut refused = 0;
    for (name, request, _) in routes() {
        let (status, retry, body) = call(&state, request).await;
        assert_eq!(status, 503, "{name}: {body}");
        assert_eq!(retry.as_deref(), Some("1"), "{name}");
        let json: serde_json::Value = serde_json::from_str(&body).expect("problem+json");
        assert_eq!(json["type"], "urn:utf8gate:problem:busy", "{name}");
        refused += 1;
        assert_eq!(state.budget.charged(), state.budget.capacity(), "{name}");
    }
    let metrics = state.metrics.render();
    let line = format!("utf8gate_budget_refusals_total {refused}");
    assert!(metrics.contains(&line), "{metrics}");
    drop(held);
    assert_eq!(state.budget.charged(), 0);
}

#[tokio::test]
async fn a_free_budget_answers_every_route_and_gets_everything_back() {
    let state = state();
    for (name, request, expected) in routes() {
        let (status, retry, body) = call(&state, request).await;
        assert_eq!(status, expected, "{name}: {body}");
        assert_eq!(retry, None, "{name}");
        assert_eq!(state.budget.charged(), 0, "{name}");
    }
    // Refusals of other kinds give everything back too: a rejected sanitize (422) and a body
    // over the limit (413).
    let (status, ..) = call(&state, post("/v1/sanitize", "text/plain", b"\xc0\xae")).await;
    assert_eq!(status, 422);
    let over = vec![b'a'; BODY + 1];
    let (status, ..) = call(&state, post("/v1/sanitize", "text/plain", &over)).await;
    assert_eq!(status, 413);
    assert_eq!(state.budget.charged(), 0);
    let metrics = state.metrics.render();
    assert!(
        metrics.contains("utf8gate_budget_refusals_total 0"),
        "{metrics}"
    );
    assert!(
        metrics.contains("utf8gate_budget_charged_bytes 0"),
        "{metrics}"
    );
    assert!(metrics.contains("utf8gate_budget_bytes 49152"), "{metrics}");
}

#[tokio::test]
async fn a_scan_that_only_streams_is_not_charged() {
    let state = state();
    let _held = state
        .budget
        .charge(state.budget.capacity())
        .await
        .expect("charge");
    // Declared over max_body_bytes: streamed, never kept whole.
    let big = vec![b'a'; 4 * BODY];
    let (status, _, body) = call(&state, post("/v1/scan", "text/plain", &big)).await;
    assert_eq!(status, 200, "{body}");
    let verdict: serde_json::Value = serde_json::from_str(&body).expect("verdict");
    assert_eq!(verdict["decision"], "allow", "{body}");
}

/// A gzip body, `bytes` decoded.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

#[tokio::test]
async fn a_coded_body_is_charged_as_the_most_it_may_decode_to() {
    let state = state();
    let coded = gzip(&vec![b'a'; BODY]);
    assert!(coded.len() < 1024, "{} bytes", coded.len());
    let request = || {
        Request::post("/v1/sanitize")
            .header("content-type", "text/plain")
            .header("content-encoding", "gzip")
            .body(Body::from(coded.clone()))
            .expect("request")
    };
    // A few KiB charged for the gzip body itself fit; its decoded 16 KiB, 3 times, do not.
    let held = state.budget.charge(8 * 1024).await.expect("charge");
    let (status, retry, body) = call(&state, request()).await;
    assert_eq!((status, retry.as_deref()), (503, Some("1")), "{body}");
    assert_eq!(state.budget.charged(), 8 * 1024);
    drop(held);
    let (status, _, body) = call(&state, request()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(state.budget.charged(), 0);
}

#[tokio::test]
async fn a_coding_without_a_body_is_not_charged() {
    let state = state();
    let _held = state
        .budget
        .charge(state.budget.capacity())
        .await
        .expect("charge");
    let request = Request::post("/authz/forward")
        .header("content-encoding", "gzip")
        .body(Body::empty())
        .expect("request");
    let (status, _, body) = call(&state, request).await;
    assert_eq!(status, 200, "{body}");
}
