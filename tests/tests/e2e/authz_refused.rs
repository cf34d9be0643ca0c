//! Checks refused before any verdict still get what every verdict gets: a problem+json answer,
//! an audit line (decision `refused`, the problem's type) and a `refused` count. Over HTTP/1.1
//! and HTTP/2 on the api listener (an unknown path under `/authz/`, a body over the limit) and
//! on the gRPC listener (a check that describes no request, one over the largest message).

use std::time::Duration;

use envoy_types::ext_authz::v3::pb::{CheckRequest, CheckResponse, HttpResponse};
use envoy_types::pb::envoy::service::auth::v3::AttributeContext;
use envoy_types::pb::envoy::service::auth::v3::attribute_context::{HttpRequest, Request};
use envoy_types::pb::envoy::service::auth::v3::authorization_client::AuthorizationClient;
use utf8gate_e2e::{Gateway, H2Raw, exchange, request};

use crate::support::*;

const REFUSED: &str = "utf8gate_requests_total{decision=\"refused\",mode=\"authz\",route=\"\"}";

/// Asserts the audit line of request `id`: refused, with `problem` and `status`.
async fn assert_refused_line(gw: &Gateway, id: &str, problem: &str, status: u16) {
    let line = gw.audit_line(id).await;
    assert_eq!(line["mode"], "authz", "{line}");
    assert_eq!(line["decision"], "refused", "{line}");
    assert_eq!(line["problem"], problem, "{line}");
    assert_eq!(line["status"], status, "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_checks_refused_before_a_verdict_get_a_problem_an_audit_line_and_a_count() {
    let gw = Gateway::start("[limits]\nmax_body_bytes = 1024\n", None).await;

    // An unknown check path, HTTP/1.1.
    let sent = request("GET", "/authz/unknown", &[("X-Request-Id", b"r-404")], b"");
    let response = exchange(gw.api, &sent).await;
    assert_problem(&response, 404, "not-found");
    assert_eq!(response.header_str("utf8gate-request-id"), "r-404");
    assert_refused_line(&gw, "r-404", "not-found", 404).await;

    // A body over the limit.
    let sent = request(
        "POST",
        "/authz/envoy/upload",
        &[("X-Request-Id", b"r-413"), ("Content-Type", b"text/plain")],
        &[b'a'; 2048],
    );
    let response = exchange(gw.api, &sent).await;
    assert_problem(&response, 413, "body-too-large");
    assert_refused_line(&gw, "r-413", "body-too-large", 413).await;

    // The same unknown path over HTTP/2 (h2c): 404 (HPACK static index 13) and the problem.
    let mut h2 = H2Raw::connect(gw.api).await;
    let headers: [(&str, &[u8]); 5] = [
        (":method", b"GET"),
        (":scheme", b"http"),
        (":path", b"/authz/envoyx/a"),
        (":authority", b"e2e.test"),
        ("x-request-id", b"r-h2"),
    ];
    h2.request(1, &headers, b"").await;
    let over_h2 = h2.read(Duration::from_secs(10)).await;
    assert_eq!(over_h2.status_byte, Some(0x8d), "{over_h2:?}");
    let json: serde_json::Value = serde_json::from_slice(&over_h2.body).expect("problem+json");
    assert_eq!(json["type"], "urn:utf8gate:problem:not-found", "{json}");
    assert_refused_line(&gw, "r-h2", "not-found", 404).await;

    let metrics = gw.metrics().await;
    assert_eq!(metrics.value(REFUSED), 3.0, "every refusal counted");
}

async fn check(gw: &Gateway, request: CheckRequest) -> CheckResponse {
    let addr = gw.grpc_authz.expect("the grpc_authz listener");
    let mut client = tokio::time::timeout(
        Duration::from_secs(5),
        AuthorizationClient::connect(format!("http://{addr}")),
    )
    .await
    .expect("connect in time")
    .expect("connect");
    tokio::time::timeout(Duration::from_secs(10), client.check(request))
        .await
        .expect("answer in time")
        .expect("a CheckResponse, not a transport error")
        .into_inner()
}

/// The denial's gRPC code, HTTP status, problem type and request id.
fn denial(response: &CheckResponse) -> (i32, i32, String, String) {
    let Some(HttpResponse::DeniedResponse(d)) = &response.http_response else {
        panic!("not denied: {response:?}");
    };
    let json: serde_json::Value = serde_json::from_str(&d.body).expect("problem+json body");
    let header = |name: &str| {
        let mut values = d.headers.iter().filter_map(|h| h.header.as_ref());
        values.find(|h| h.key == name).map(|h| h.value.clone())
    };
    assert_eq!(
        header("content-type").as_deref(),
        Some("application/problem+json")
    );
    let id = header("utf8gate-request-id").expect("a request id");
    assert_eq!(json["request_id"], id.as_str());
    (
        response.status.as_ref().map_or(-1, |s| s.code),
        d.status.as_ref().map_or(0, |s| s.code),
        json["type"].as_str().unwrap_or_default().to_string(),
        id,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_checks_refused_before_a_verdict_get_a_problem_an_audit_line_and_a_count() {
    let toml = "[listen]\ngrpc_authz_addr = \"127.0.0.1:0\"\n[limits]\nmax_body_bytes = 1024\n";
    let gw = Gateway::start(toml, None).await;

    // No attributes.request.http: 400 bad-check, gRPC INVALID_ARGUMENT (3).
    let (code, status, kind, id) = denial(&check(&gw, CheckRequest::default()).await);
    assert_eq!((code, status), (3, 400));
    assert_eq!(kind, "urn:utf8gate:problem:bad-check");
    assert_refused_line(&gw, &id, "bad-check", 400).await;

    // A check over the largest message (1 KiB of body + twice the head + 64 KiB): 413 before
    // it is decoded.
    let http = HttpRequest {
        method: "POST".into(),
        path: "/upload".into(),
        raw_body: vec![b'a'; 1 << 20],
        ..Default::default()
    };
    let request = Request {
        http: Some(http),
        ..Default::default()
    };
    let big = CheckRequest {
        attributes: Some(AttributeContext {
            request: Some(request),
            ..Default::default()
        }),
    };
    let (code, status, kind, id) = denial(&check(&gw, big).await);
    assert_eq!((code, status), (7, 413));
    assert_eq!(kind, "urn:utf8gate:problem:body-too-large");
    assert_refused_line(&gw, &id, "body-too-large", 413).await;

    let metrics = gw.metrics().await;
    assert_eq!(metrics.value(REFUSED), 2.0, "every refusal counted");
}
