//! The memory budget of buffered bodies (`limits.max_buffered_bytes`) at the proxy: bodies
//! the budget cannot hold are refused 503 `busy` with `Retry-After`, counted, while the rest
//! are answered and the gateway keeps answering `/healthz` and requests without a body. (The
//! API routes: `crates/server/tests/budget.rs`; the gRPC check: `grpc_authz.rs`; peak memory
//! and the sidecar's limit: `memory.rs`.)

use std::time::Duration;

use utf8gate_e2e::{DELAY_HEADER, Gateway, Upstream, exchange, get, poll_until, request};

use crate::support::*;

// =============================================================================================
// Memory budget
// =============================================================================================

const MIB: f64 = 1024.0 * 1024.0;

/// The value of the gauge of charged bytes, read until `check` holds or 5 s have passed.
async fn charged_until(gw: &Gateway, check: impl Fn(f64) -> bool) -> f64 {
    let mut value = -1.0;
    for _ in 0..250 {
        value = gw.metrics().await.value("utf8gate_budget_charged_bytes");
        if check(value) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    value
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_budget_answers_some_concurrent_bodies_and_refuses_the_rest_with_retry_after() {
    let upstream = Upstream::start().await;
    // Two 8 MiB bodies at once (3 × 8 MiB each); a third waits 50 ms, then is refused.
    let config = "[limits]\nmax_buffered_bytes = \"48MiB\"\nbuffer_wait_seconds = 0.05\n";
    let gw = Gateway::start(config, Some(&upstream.url())).await;
    let body = vec![b'a'; 8 << 20];
    // The upstream answers each forwarded request after a second: the two charged hold the
    // budget that long.
    let headers: &[(&str, &[u8])] = &[("content-type", b"text/plain"), (DELAY_HEADER, b"1000")];
    let mut sent = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let bytes = request("POST", "/big", headers, &body);
        let proxy = gw.proxy;
        sent.spawn(async move {
            utf8gate_e2e::try_exchange(proxy, bytes, Duration::from_secs(20)).await
        });
    }

    // While the budget is full, /healthz and a request without a body are answered.
    let full = charged_until(&gw, |v| v >= 48.0 * MIB).await;
    assert_eq!(full, 48.0 * MIB, "the budget never filled");
    let health = exchange(gw.admin, &get("/healthz")).await;
    assert_eq!(health.status, 200, "{}", health.text());
    let clean = exchange(gw.proxy, &get("/clean?q=ok")).await;
    assert_eq!(clean.status, 200, "{}", clean.text());

    let (mut answered, mut refused) = (0_u32, 0_u32);
    while let Some(done) = sent.join_next().await {
        let response = done.expect("task").expect("an answer");
        match response.status {
            200 => {
                assert_eq!(response.body.len(), body.len(), "the echo of the body");
                answered += 1;
            }
            _ => {
                assert_problem(&response, 503, "busy");
                assert_eq!(response.header_str("retry-after"), "1");
                refused += 1;
            }
        }
    }
    assert!(
        answered >= 1 && refused >= 1,
        "{answered} answered, {refused} refused"
    );
    assert_eq!(answered + refused, 8);
    // Refused bodies never reached the upstream.
    assert_eq!(upstream.count(), answered as usize + 1);
    let metrics = gw.metrics().await;
    let refusals = metrics.value("utf8gate_budget_refusals_total");
    assert_eq!(refusals, f64::from(refused));
    assert_eq!(metrics.value("utf8gate_budget_bytes"), 48.0 * MIB);
    assert_eq!(charged_until(&gw, |v| v == 0.0).await, 0.0, "released");
    // Each refusal is also a request refused before a verdict.
    let busy = r#"utf8gate_requests_total{decision="refused",mode="proxy",route="default"}"#;
    assert_eq!(metrics.value(busy), f64::from(refused));
    // Once the budget is free again, the same body is answered.
    let again = exchange(gw.proxy, &request("POST", "/big", headers, &body)).await;
    assert_eq!(again.status, 200, "{}", again.text());
    assert!(
        poll_until(Duration::from_secs(5), || upstream.count()
            == answered as usize + 2)
        .await
    );
}

// New memory budget tests go here (peak memory and the sidecar's limit: memory.rs).
