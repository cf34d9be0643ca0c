//! The admin listener: health, readiness, metrics; the log.

use std::time::{Duration, Instant};

use utf8gate_e2e::{DELAY_HEADER, Gateway, RawConn, Upstream, dead_addr, exchange, get, request};

use crate::support::*;

// =============================================================================================
// Admin
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_health_and_readiness_follow_the_upstream() {
    let upstream = Upstream::start().await;
    let live = Gateway::start("", Some(&upstream.url())).await;
    let dead = Gateway::start("", Some(&format!("http://{}", dead_addr().await))).await;

    let health = exchange(live.admin, &get("/healthz")).await;
    assert_eq!((health.status, health.text().as_str()), (200, "ok\n"));
    let health = exchange(dead.admin, &get("/healthz")).await;
    assert_eq!(health.status, 200, "health does not depend on the upstream");
    let ready = exchange(live.admin, &get("/readyz")).await;
    assert_eq!((ready.status, ready.text().as_str()), (200, "ready\n"));
    let ready = exchange(dead.admin, &get("/readyz")).await;
    assert_eq!(ready.status, 503, "{}", ready.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_metrics_count_rejects_and_use_only_utf8gate_names() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    const N: usize = 3;
    for i in 0..N {
        let response = exchange(gw.proxy, &get(&format!("/r{i}/%c0%ae%c0%ae/x"))).await;
        assert_eq!(response.status, 400);
    }
    let response = exchange(gw.proxy, &get("/fine")).await;
    assert_eq!(response.status, 200);

    let metrics = gw.metrics().await;

    assert_eq!(
        metrics.value(r#"utf8gate_requests_total{decision="reject",mode="proxy",route="default"}"#),
        N as f64,
        "{}",
        metrics.text
    );
    assert_eq!(
        metrics.value(r#"utf8gate_requests_total{decision="allow",mode="proxy",route="default"}"#),
        1.0
    );
    assert!(
        metrics.text.contains("utf8gate_build_info{"),
        "{}",
        metrics.text
    );
    assert!(!metrics.samples.is_empty());
    for name in metrics.names() {
        assert!(
            name.starts_with("utf8gate_") || name.starts_with("process_"),
            "metric {name:?}"
        );
    }
    for line in metrics.text.lines().filter(|l| l.starts_with('#')) {
        let name = line.split(' ').nth(2).unwrap_or_default();
        assert!(
            name.starts_with("utf8gate_") || name.starts_with("process_"),
            "{line:?}"
        );
    }
    assert_eq!(upstream.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_flight_gauge_returns_to_zero_when_an_upload_is_cut() {
    // The upload's client goes away while its body is being read: the handler ends (400).
    let gw = Gateway::start("", None).await;
    let stalled = stalled_scan(gw.api).await;
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);
    drop(stalled);
    assert_eq!(wait_in_flight(&gw, 0.0, Duration::from_secs(3)).await, 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn the_in_flight_gauge_returns_to_zero_when_a_proxy_client_disconnects() {
    // The proxy's client goes away while the upstream is still answering (1.5 s); hyper
    // drops the request's future, and the gauge must still come back down.
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    conn.write(&request("GET", "/slow", &[(DELAY_HEADER, b"1500")], b""))
        .await
        .expect("write");
    assert!(upstream.wait_for(1, Duration::from_secs(5)).await);
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);
    drop(conn);
    assert_eq!(wait_in_flight(&gw, 0.0, Duration::from_secs(4)).await, 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_log_reader_never_stalls_requests_and_dropped_lines_are_counted() {
    let upstream = Upstream::start().await;
    let gw =
        Gateway::start_with_stalled_log("[log]\nbuffer_lines = 4\n", Some(&upstream.url())).await;
    // Each request writes an audit line of about 300 bytes: 1000 of them fill the unread
    // 64 KiB pipe several times over.
    let started = Instant::now();
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    for i in 0..1000 {
        conn.write(&get(&format!("/item/{i}")))
            .await
            .expect("write");
        let response = conn
            .read_response(Duration::from_secs(5))
            .await
            .unwrap_or_else(|e| panic!("request {i} did not complete: {e}"));
        assert_eq!(response.status, 200, "request {i}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "1000 requests took {:?}",
        started.elapsed()
    );
    let dropped = gw.metrics().await.value("utf8gate_log_lines_dropped_total");
    assert!(
        dropped > 0.0,
        "no log line was counted as dropped, yet nothing read the pipe"
    );
}

// New admin tests go here.
