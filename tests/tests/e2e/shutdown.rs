//! Graceful shutdown on SIGTERM.

use std::time::{Duration, Instant};

use utf8gate_e2e::{DELAY_HEADER, Gateway, Upstream, exchange, get, request, try_exchange};

// =============================================================================================
// Graceful shutdown
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_in_flight_requests_and_refuses_new_connections() {
    let upstream = Upstream::start().await;
    let mut gw = Gateway::start("", Some(&upstream.url())).await;
    let (proxy, admin) = (gw.proxy, gw.admin);
    let in_flight = tokio::spawn(async move {
        exchange(
            proxy,
            &request("POST", "/slow", &[(DELAY_HEADER, b"300")], b"payload"),
        )
        .await
    });
    // Shut down once the request is at the upstream (about 100 ms into its 300).
    assert!(upstream.wait_for(1, Duration::from_secs(5)).await);
    gw.shutdown();

    // A new connection is refused once the accept loops have stopped (bounded poll: an
    // attempt that races the stop may still be answered).
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut refused = false;
    while Instant::now() < deadline {
        match try_exchange(proxy, get("/new"), Duration::from_millis(500)).await {
            Err(_) => {
                refused = true;
                break;
            }
            Ok(r) => assert_eq!(r.status, 200, "{}", r.text()),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        refused,
        "new connections were still served 3 s after the shutdown"
    );

    let response = tokio::time::timeout(Duration::from_secs(5), in_flight)
        .await
        .expect("the in-flight request did not complete")
        .expect("in-flight task");
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.body, b"payload");
    assert!(
        gw.stop(Duration::from_secs(5)).await,
        "run() did not return after draining"
    );
    assert!(
        try_exchange(admin, get("/healthz"), Duration::from_millis(500))
            .await
            .is_err(),
        "the admin listener is closed too"
    );
}

// New shutdown tests go here.
