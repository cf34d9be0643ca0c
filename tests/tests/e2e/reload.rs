//! Reload without restart: SIGHUP and `POST /admin/reload` on the running binary.

use std::net::SocketAddr;
use std::time::Duration;

use utf8gate_e2e::{Gateway, Metrics, RawConn, RawResponse, Upstream, exchange, get, request};

use crate::support::{assert_problem, assert_rejected};

/// A text body with an overlong `.` (`C0 AE`): `strict` rejects it (400), `monitor` forwards it.
const BODY: &[u8] = b"caf\xC0\xAE";
const STRICT: &str = "[policy]\nprofile = \"strict\"\n";
/// `monitor` by default; a new route `/wiki/` keeps `strict`.
const MONITOR: &str = "[policy]\nprofile = \"monitor\"\n\n[[route]]\nname = \"wiki\"\n\
                       paths = [\"/wiki/\"]\nprofile = \"strict\"\n";
const OK: &str = "utf8gate_config_reloads_total{result=\"ok\"}";
const ERROR: &str = "utf8gate_config_reloads_total{result=\"error\"}";
const LAST: &str = "utf8gate_config_last_reload_success_timestamp_seconds";

/// One exchange, its future boxed: a test of many awaits would otherwise take more than a
/// test thread's stack in a debug build.
async fn send(addr: SocketAddr, bytes: Vec<u8>) -> RawResponse {
    Box::pin(exchange(addr, &bytes)).await
}

/// `/metrics`, its future boxed (see [`send`]).
async fn metrics_of(gw: &Gateway) -> Metrics {
    Box::pin(gw.metrics()).await
}

fn post_body(target: &str, id: &str) -> Vec<u8> {
    let headers: &[(&str, &[u8])] = &[
        ("Content-Type", b"text/plain"),
        ("X-Request-Id", id.as_bytes()),
    ];
    request("POST", target, headers, BODY)
}

/// Polls `/metrics` (bounded) until `key` is `value`; returns the last scrape.
async fn wait_metric(gw: &Gateway, key: &str, value: f64) -> Metrics {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let metrics = metrics_of(gw).await;
        if metrics.value(key) == value || tokio::time::Instant::now() >= deadline {
            assert_eq!(metrics.value(key), value, "{key}");
            return metrics;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `n`th log line of a refused reload, waited for (bounded: the log has a writer thread of
/// its own); panics if there are not exactly `n`.
async fn refused(gw: &Gateway, n: usize) -> serde_json::Value {
    let message = "configuration reload refused: the old configuration stays in force";
    let lines = || -> Vec<serde_json::Value> {
        let records = gw.log_records().into_iter();
        records.filter(|r| r["message"] == message).collect()
    };
    utf8gate_e2e::poll_until(Duration::from_secs(5), || lines().len() >= n).await;
    let lines = lines();
    assert_eq!(lines.len(), n, "one log line per refused reload");
    lines[n - 1].clone()
}

/// Under the old configuration (`strict`): 400, nothing forwarded. Under the new (`monitor`):
/// forwarded, the upstream's echo. Anything else is a failure.
fn old_or_new(response: &RawResponse) -> bool {
    match response.status {
        400 => {
            assert_rejected(response, 400);
            false
        }
        200 => {
            assert_eq!(response.header_str("x-upstream"), "echo", "{response:?}");
            assert_eq!(response.body, BODY);
            true
        }
        _ => panic!("neither the old nor the new answer: {response:?}"),
    }
}

// =============================================================================================
// SIGHUP
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sighup_swaps_the_profile_while_200_requests_in_flight_finish() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(STRICT, Some(&upstream.url())).await;
    let proxy = gw.proxy;
    assert_rejected(&send(proxy, post_body("/notes", "r-before")).await, 400);
    let loaded = metrics_of(&gw).await.value(LAST);
    assert!(loaded > 0.0, "the start-up load has a time");

    // 100 requests whose heads (and part of their bodies) arrive before the reload.
    // Each sends its head and "caf"; the overlong follows after the reload.
    let all = post_body("/notes", "r-slow");
    let cut = all.len() - (BODY.len() - 3);
    let (head, rest) = (all[..cut].to_vec(), all[cut..].to_vec());
    let mut slow = Vec::new();
    for _ in 0..100 {
        let mut conn = RawConn::connect(proxy).await.expect("connect");
        conn.write(&head).await.expect("write the head");
        slow.push(conn);
    }
    let in_flight = crate::support::wait_in_flight(&gw, 100.0, Duration::from_secs(10)).await;
    assert_eq!(in_flight, 100.0, "the slow requests are in flight");

    // 100 more on their own connections, sent while the reload happens.
    let mut racing = Vec::new();
    for n in 0..100u64 {
        racing.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(2 * n)).await;
            send(proxy, post_body("/notes", &format!("r-race-{n}"))).await
        }));
    }
    gw.rewrite_config(MONITOR);
    gw.hangup();
    let metrics = wait_metric(&gw, OK, 1.0).await;
    assert_eq!(metrics.value(ERROR), 0.0);
    assert!(
        metrics.value(LAST) >= loaded,
        "the last load's time moves on"
    );
    // The new route's series exist from the reload on.
    let wiki = "utf8gate_requests_total{decision=\"reject\",mode=\"proxy\",route=\"wiki\"}";
    assert!(metrics.samples.contains_key(wiki), "{}", metrics.text);

    // The slow requests end their bodies after the reload: answered under the old profile.
    let finish = slow.into_iter().map(|mut conn| {
        let rest = rest.clone();
        tokio::spawn(async move {
            conn.write(&rest).await.expect("write the rest");
            conn.read_response(Duration::from_secs(10)).await
        })
    });
    let finish: Vec<_> = finish.collect();
    for task in finish {
        let response = task.await.expect("task").expect("a response");
        assert!(
            !old_or_new(&response),
            "an in-flight request changed its configuration"
        );
    }
    let mut new = 0;
    for task in racing {
        new += usize::from(old_or_new(&task.await.expect("task")));
    }
    // After the reload, every new request is answered by the new profile, and the new route
    // keeps strict.
    for n in 0..20 {
        let response = send(proxy, post_body("/notes", &format!("r-after-{n}"))).await;
        assert!(
            old_or_new(&response),
            "a request after the reload: {response:?}"
        );
    }
    assert_rejected(&send(proxy, post_body("/wiki/a", "r-wiki")).await, 400);
    assert_eq!(gw.audit_line("r-wiki").await["route"], "wiki");
    // Exactly the requests answered by the new profile reached the upstream.
    assert!(upstream.wait_for(new + 20, Duration::from_secs(5)).await);
    assert_eq!(
        upstream.count(),
        new + 20,
        "a rejected request reached the upstream"
    );
    let reloaded = || {
        let mut records = gw.log_records().into_iter();
        records.any(|r| r["message"] == "configuration reloaded")
    };
    assert!(
        utf8gate_e2e::poll_until(Duration::from_secs(5), reloaded).await,
        "no log line says the configuration was reloaded"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_or_restart_only_change_keeps_the_old_profile_and_is_counted() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(STRICT, Some(&upstream.url())).await;
    // An unknown key on line 5.
    gw.rewrite_config("[policy]\nprofile = \"monitor\"\n\n[limits]\nmax_bodee_bytes = 1\n");
    gw.hangup();
    wait_metric(&gw, ERROR, 1.0).await;
    assert_rejected(&send(gw.proxy, post_body("/notes", "r-kept")).await, 400);
    let line = refused(&gw, 1).await;
    assert_eq!(line["line"], 5, "{line}");
    assert!(
        line["source"]
            .as_str()
            .is_some_and(|s| s.ends_with(".toml")),
        "{line}"
    );
    assert!(
        line["error"].as_str().is_some_and(|e| e.contains(":5:")),
        "{line}"
    );

    // A valid file that changes a restart-only key is refused as a whole, naming it.
    let restart = "[policy]\nprofile = \"monitor\"\n[limits]\nmax_concurrent_requests = 5\n";
    gw.rewrite_config(restart);
    gw.hangup();
    wait_metric(&gw, ERROR, 2.0).await;
    let line = refused(&gw, 2).await;
    let error = line["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("need a restart: limits.max_concurrent_requests"),
        "{line}"
    );
    assert_rejected(&send(gw.proxy, post_body("/notes", "r-kept-2")).await, 400);
    assert_eq!(upstream.count(), 0);

    // Set right, the same process reloads.
    gw.rewrite_config(MONITOR);
    gw.hangup();
    let metrics = wait_metric(&gw, OK, 1.0).await;
    assert_eq!(metrics.value(ERROR), 2.0);
    assert!(old_or_new(
        &send(gw.proxy, post_body("/notes", "r-new")).await
    ));
}

// =============================================================================================
// POST /admin/reload
// =============================================================================================

fn post(target: &str) -> Vec<u8> {
    request("POST", target, &[], b"")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_admin_reload_works_when_enabled_and_is_404_when_off() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(STRICT, Some(&upstream.url())).await;
    let admin = gw.admin;
    // Off by default: not there, whatever the method; nothing reloaded.
    assert_eq!(send(admin, post("/admin/reload")).await.status, 404);
    assert_eq!(send(admin, get("/admin/reload")).await.status, 404);
    assert_eq!(metrics_of(&gw).await.value(OK), 0.0);

    // Turned on by a reload (SIGHUP).
    let on = format!("{MONITOR}\n[admin]\nreload = true\n");
    gw.rewrite_config(&on);
    gw.hangup();
    wait_metric(&gw, OK, 1.0).await;
    let response = send(admin, get("/admin/reload")).await;
    assert_eq!(
        (response.status, response.header_str("allow")),
        (405, "POST".into())
    );
    // Back to strict through the endpoint.
    gw.rewrite_config(&format!("{STRICT}\n[admin]\nreload = true\n"));
    let response = send(admin, post("/admin/reload")).await;
    assert_eq!(
        (response.status, response.text()),
        (200, "reloaded\n".into())
    );
    assert_eq!(metrics_of(&gw).await.value(OK), 2.0);
    assert_rejected(&send(gw.proxy, post_body("/notes", "r-strict")).await, 400);

    // An invalid file: 422 with the file and line, the old configuration kept.
    gw.rewrite_config("[admin]\nreload = true\n[policy]\nprofile = \"nope\"\n");
    let response = send(admin, post("/admin/reload")).await;
    assert_eq!(response.status, 422, "{}", response.text());
    assert!(response.text().contains(".toml:4:"), "{}", response.text());
    assert!(
        response.text().contains("unknown profile \"nope\""),
        "{}",
        response.text()
    );
    assert_eq!(metrics_of(&gw).await.value(ERROR), 1.0);
    assert_rejected(&send(gw.proxy, post_body("/notes", "r-kept")).await, 400);

    // Turned off by a reload through it: then it is not there.
    gw.rewrite_config(STRICT);
    assert_eq!(send(admin, post("/admin/reload")).await.status, 200);
    let response = send(admin, post("/admin/reload")).await;
    assert_eq!(response.status, 404);
    assert_eq!(metrics_of(&gw).await.value(OK), 3.0);
    let problem = send(gw.proxy, post_body("/notes", "r-end")).await;
    assert_problem(&problem, 400, "rejected");
}

// New reload tests go here.
