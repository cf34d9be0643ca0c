//! Limits: body, header and concurrency limits, slow request heads.

use std::time::{Duration, Instant};

use utf8gate_e2e::{DELAY_HEADER, Ending, Gateway, RawConn, Upstream, exchange, get, request};

use crate::support::*;

// =============================================================================================
// Limits
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_max_body_bytes_is_413_and_not_forwarded() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("[limits]\nmax_body_bytes = 1024\n", Some(&upstream.url())).await;

    let response = exchange(gw.proxy, &request("POST", "/up", &[], &[b'a'; 4096])).await;

    assert_problem(&response, 413, "body-too-large");
    assert_eq!(upstream.count(), 0);
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_body_limit_exceeded_total"), 1.0);
    // Exactly at the limit is fine.
    let response = exchange(gw.proxy, &request("POST", "/up", &[], &[b'a'; 1024])).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(upstream.count(), 1);
    assert_eq!(upstream.records()[0].body.len(), 1024);
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_body_limit_exceeded_total"), 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_max_concurrent_requests_is_503_at_once() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(
        "[limits]\nmax_concurrent_requests = 1\n",
        Some(&upstream.url()),
    )
    .await;
    let proxy = gw.proxy;
    let slow = tokio::spawn(async move {
        exchange(
            proxy,
            &request("GET", "/slow", &[(DELAY_HEADER, b"1500")], b""),
        )
        .await
    });
    assert!(
        upstream.wait_for(1, Duration::from_secs(5)).await,
        "the slow request never reached the upstream"
    );

    let started = Instant::now();
    let second = exchange(gw.proxy, &get("/second")).await;
    let elapsed = started.elapsed();

    assert_problem(&second, 503, "overloaded");
    assert!(
        elapsed < Duration::from_millis(700),
        "503 after {elapsed:?}"
    );
    assert!(
        !slow.is_finished(),
        "the first request should still be in flight"
    );
    let first = slow.await.expect("slow request task");
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(upstream.count(), 1, "the shed request was not forwarded");
    // The slot is free again.
    let third = exchange(gw.proxy, &get("/third")).await;
    assert_eq!(third.status, 200, "{}", third.text());
    assert_eq!(upstream.count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_over_request_timeout_is_408_and_frees_its_slot() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(
        "[limits]\nrequest_timeout_seconds = 0.4\nmax_concurrent_requests = 1\n",
        Some(&upstream.url()),
    )
    .await;

    let started = Instant::now();
    let slow = exchange(
        gw.proxy,
        &request("GET", "/slow", &[(DELAY_HEADER, b"3000")], b""),
    )
    .await;
    let elapsed = started.elapsed();

    assert_problem(&slow, 408, "request-timeout");
    assert!(
        elapsed >= Duration::from_millis(400) && elapsed < Duration::from_millis(2500),
        "408 after {elapsed:?}"
    );
    // Its concurrency slot and in-flight count are released with it.
    let next = exchange(gw.proxy, &get("/next")).await;
    assert_eq!(next.status, 200, "{}", next.text());
    let metrics = gw.metrics().await;
    assert!(metrics.names().contains(&"utf8gate_in_flight_requests"));
    assert_eq!(metrics.value("utf8gate_in_flight_requests"), 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_request_head_is_disconnected_after_header_read_timeout() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(
        "[limits]\nheader_read_timeout_seconds = 0.5\n",
        Some(&upstream.url()),
    )
    .await;

    // Half a head, then nothing.
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    conn.write(b"GET /slow HTTP/1.1\r\nHost: e2e.test\r\nX-Half: ")
        .await
        .expect("write");
    let started = Instant::now();
    let ending = conn.wait_for_end(Duration::from_secs(3)).await;
    let elapsed = started.elapsed();
    assert!(
        matches!(&ending, Ending::Closed(b) | Ending::Reset(b, _) if b.is_empty()),
        "expected a close without a response, got {ending:?} after {elapsed:?}"
    );
    assert!(
        elapsed >= Duration::from_millis(400),
        "closed after {elapsed:?}"
    );

    // A head dribbled one byte every 100 ms is cut off too: the timeout is for the whole head.
    let mut conn = RawConn::connect(gw.proxy).await.expect("connect");
    let head =
        b"GET /dribble HTTP/1.1\r\nHost: e2e.test\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let started = Instant::now();
    let mut cut = None;
    for byte in head.iter().take(30) {
        if conn.write(&[*byte]).await.is_err() {
            cut = Some(started.elapsed());
            break;
        }
        match conn.wait_for_end(Duration::from_millis(100)).await {
            Ending::StillOpen(b) if b.is_empty() => {}
            other => {
                assert!(
                    matches!(&other, Ending::Closed(b) | Ending::Reset(b, _) if b.is_empty()),
                    "{other:?}"
                );
                cut = Some(started.elapsed());
                break;
            }
        }
    }
    let cut = cut.expect("a dribbled head was not cut off within 3 s");
    assert!(cut < Duration::from_secs(3), "cut after {cut:?}");
    assert_eq!(upstream.count(), 0);
}

fn head_of(size: usize, target: &str) -> Vec<u8> {
    let start = format!("GET {target} HTTP/1.1\r\nHost: e2e.test\r\nX-Big: ");
    let filler = size - start.len() - 4;
    let mut out = start.into_bytes();
    out.extend(std::iter::repeat_n(b'a', filler));
    out.extend_from_slice(b"\r\n\r\n");
    assert_eq!(out.len(), size);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_far_over_max_header_bytes_is_431() {
    let upstream = Upstream::start().await;
    // The default: max_header_bytes = 65536.
    let gw = Gateway::start("", Some(&upstream.url())).await;

    let response = exchange(gw.proxy, &head_of(200_000, "/big")).await;

    // hyper answers a head that overflows its buffer with 431 (no body) and closes.
    assert_eq!(response.status, 431, "{}", response.text());
    assert!(response.body.is_empty());
    assert_eq!(upstream.count(), 0);
    // A head under the limit goes through.
    let response = exchange(gw.proxy, &head_of(60_000, "/fits")).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(upstream.count(), 1);
    assert_eq!(upstream.records()[0].target, "/fits");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn a_request_head_just_over_max_header_bytes_is_431() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let response = exchange(gw.proxy, &head_of(70_000, "/big")).await;
    assert_eq!(
        response.status,
        431,
        "65536 limit, 70000-byte head: {}",
        response.text()
    );

    let small = Gateway::start("[limits]\nmax_header_bytes = 2048\n", Some(&upstream.url())).await;
    let response = exchange(small.proxy, &head_of(4096, "/big")).await;
    assert_eq!(
        response.status,
        431,
        "2048 limit, 4096-byte head: {}",
        response.text()
    );
    assert_eq!(upstream.count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_concurrent_requests_sheds_a_second_upload_on_the_same_route() {
    let gw = Gateway::start("[limits]\nmax_concurrent_requests = 1\n", None).await;
    let _stalled = stalled_scan(gw.api).await;
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);

    let started = Instant::now();
    let second = exchange(gw.api, &request("POST", "/v1/scan", &[], b"abc")).await;

    assert_problem(&second, 503, "overloaded");
    assert!(started.elapsed() < Duration::from_millis(700));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]

async fn max_concurrent_requests_is_per_listener_on_the_api() {
    let gw = Gateway::start("[limits]\nmax_concurrent_requests = 1\n", None).await;
    let _stalled = stalled_scan(gw.api).await;
    assert_eq!(wait_in_flight(&gw, 1.0, Duration::from_secs(5)).await, 1.0);

    let other_route = exchange(
        gw.api,
        &request(
            "POST",
            "/v1/sanitize",
            &[("Content-Type", b"text/plain")],
            b"abc",
        ),
    )
    .await;

    assert_problem(&other_route, 503, "overloaded");
}

/// Large bodies are evaluated one at a time with `max_concurrent_evaluations = 1`: every one
/// of many sent at once is still answered as alone (the clean forwarded whole, the malformed
/// refused and not forwarded), and the places' gauges are exported and back at 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_bodies_wait_for_an_evaluation_place_and_are_each_judged() {
    let upstream = Upstream::start().await;
    let config = "[limits]\nmax_concurrent_evaluations = 1\n";
    let gw = Gateway::start(config, Some(&upstream.url())).await;
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_blocking_evaluations_limit"), 1.0);
    let headers: &[(&str, &[u8])] = &[("content-type", b"text/plain; charset=utf-8")];
    let mut sent = tokio::task::JoinSet::new();
    for i in 0..6u8 {
        // 256 KiB of Greek and ASCII (past the 64 KiB that sends a body off the async
        // threads); the fourth ends with the overlong "/../" of RFC 3629 §10.
        let mut body = "καλημέρα κόσμε, ".repeat(256 * 1024 / 28).into_bytes();
        body.push(b'0' + i);
        if i == 3 {
            body.extend_from_slice(b"/\xC0\xAE./");
        }
        let bytes = request("POST", &format!("/big/{i}"), headers, &body);
        let proxy = gw.proxy;
        sent.spawn(async move { (i, body, exchange(proxy, &bytes).await) });
    }
    let mut clean = Vec::new();
    while let Some(done) = sent.join_next().await {
        let (i, body, response) = done.unwrap();
        if i == 3 {
            assert_problem(&response, 400, "rejected");
        } else {
            assert_eq!(response.status, 200, "{i}: {}", response.text());
            clean.push(body);
        }
    }
    let mut forwarded: Vec<Vec<u8>> = upstream.records().into_iter().map(|r| r.body).collect();
    forwarded.sort();
    clean.sort();
    assert_eq!(
        forwarded, clean,
        "the clean bodies, each whole, and not the malformed one"
    );
    let metrics = gw.metrics().await;
    for state in ["running", "waiting"] {
        let key = format!("utf8gate_blocking_evaluations{{state=\"{state}\"}}");
        assert_eq!(metrics.value(&key), 0.0, "{key}");
    }
}

// New limit tests go here.
