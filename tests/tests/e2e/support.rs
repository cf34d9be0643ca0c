//! Assertions shared by the end-to-end tests.

use std::time::{Duration, Instant};

use utf8gate_e2e::{Gateway, RawConn, RawResponse};
use utf8gate_policy::{Decision, Verdict};

/// The verdict inside a problem+json rejection or a `/v1/scan` answer.
pub(crate) fn verdict_of(value: &serde_json::Value) -> Verdict {
    let v = value.get("verdict").unwrap_or(value);
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("not a verdict ({e}): {v}"))
}

pub(crate) fn kinds(verdict: &Verdict) -> Vec<&str> {
    verdict.kinds()
}

/// Asserts a problem+json rejection with `status` and returns its verdict.
pub(crate) fn assert_rejected(response: &RawResponse, status: u16) -> Verdict {
    assert_problem(response, status, "rejected");
    let json = response.json();
    assert_eq!(
        json["request_id"].as_str().unwrap_or_default(),
        response.header_str("utf8gate-request-id"),
        "the problem's request id is the header's"
    );
    let verdict = verdict_of(&json);
    assert_eq!(verdict.decision, Decision::Reject, "{json}");
    assert!(verdict.enforced);
    verdict
}

/// Asserts a problem+json with `status` and problem type `urn:utf8gate:problem:{slug}`.
pub(crate) fn assert_problem(response: &RawResponse, status: u16, slug: &str) {
    assert_eq!(response.status, status, "{}", response.text());
    assert!(
        response.is_problem(),
        "content-type {:?}",
        response.header_str("content-type")
    );
    let json = response.json();
    assert_eq!(
        json["type"],
        format!("urn:utf8gate:problem:{slug}"),
        "{json}"
    );
    assert_eq!(json["status"], status, "{json}");
}

pub(crate) fn sorted(mut headers: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    headers.sort();
    headers
}

pub(crate) fn owned(headers: &[(&str, &[u8])]) -> Vec<(String, Vec<u8>)> {
    headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_vec()))
        .collect()
}

/// Opens a `/v1/scan` upload that sends its head and one chunk, then stalls: a request in
/// flight on the API listener for as long as the connection is held.
pub(crate) async fn stalled_scan(api: std::net::SocketAddr) -> RawConn {
    let mut conn = RawConn::connect(api).await.expect("connect");
    conn.write(
        b"POST /v1/scan HTTP/1.1\r\nHost: e2e.test\r\nContent-Type: text/plain\r\n\
          Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
    )
    .await
    .expect("write");
    conn
}

/// Waits (bounded) until the in-flight gauge shows `n`; returns the last value seen.
pub(crate) async fn wait_in_flight(gw: &Gateway, n: f64, within: Duration) -> f64 {
    let deadline = Instant::now() + within;
    loop {
        let value = gw.metrics().await.value("utf8gate_in_flight_requests");
        if value == n || Instant::now() >= deadline {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
