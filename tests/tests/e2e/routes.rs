//! Routes and exclusions: per-route profile, mode and body limit, exemptions reported as
//! `excluded`, and requests whose readings choose two routes refused.

use utf8gate_e2e::{Gateway, Upstream, exchange, get, request};

/// Four routes over the strict default.
const ROUTES: &str = r#"
[[route]]
name = "wiki"
paths = ["/wiki/"]
mode = "monitor"

[[route]]
name = "comments"
paths = ["/api/comments"]
methods = ["POST"]
[[route.exclusion]]
kinds = ["nul"]
json = "/comments/*/body"

[[route]]
name = "search"
hosts = ["search.example"]
[[route.exclusion]]
kinds = ["*"]
query = "q"

[[route]]
name = "uploads"
paths = ["/upload/"]
max_body_bytes = 16
[route.errors]
detail = "minimal"
"#;

fn with_id<'a>(id: &'a str, more: &[(&'a str, &'a [u8])]) -> Vec<(&'a str, &'a [u8])> {
    let mut headers = vec![("X-Request-Id", id.as_bytes())];
    headers.extend_from_slice(more);
    headers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_monitor_route_forwards_what_the_default_route_refuses() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(ROUTES, Some(&upstream.url())).await;
    let attack = "%C0%AE%C0%AE/etc/passwd";
    let wiki = exchange(
        gw.proxy,
        &request(
            "GET",
            &format!("/wiki/{attack}"),
            &with_id("r-wiki", &[]),
            b"",
        ),
    )
    .await;
    assert_eq!(wiki.status, 200, "{}", wiki.text());
    let line = gw.audit_line("r-wiki").await;
    assert_eq!(line["route"], "wiki");
    assert_eq!(line["decision"], "reject");
    assert_eq!(line["enforced"], false);
    let files = exchange(gw.proxy, &get(&format!("/files/{attack}"))).await;
    assert_eq!(files.status, 400, "{}", files.text());
    assert_eq!(
        upstream.count(),
        1,
        "only the monitored request reached the upstream"
    );
    let metrics = gw.metrics().await;
    let reject = |route: &str| {
        metrics.value(&format!(
            r#"utf8gate_requests_total{{decision="reject",mode="proxy",route="{route}"}}"#
        ))
    };
    assert_eq!((reject("wiki"), reject("default")), (1.0, 1.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exclusion_exempts_one_json_place_and_reports_it() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(ROUTES, Some(&upstream.url())).await;
    let json = &[("Content-Type", b"application/json".as_slice())];
    let exempt = br#"{"comments":[{"body":"a\u0000b"},{"body":"c\u0000d"}]}"#;
    let sent = request("POST", "/api/comments", &with_id("r-ex", json), exempt);
    let response = exchange(gw.proxy, &sent).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(upstream.records()[0].body, exempt, "forwarded unchanged");
    let line = gw.audit_line("r-ex").await;
    assert_eq!(
        (&line["route"], &line["excluded"]),
        (&"comments".into(), &"nul".into())
    );
    assert_eq!(line["decision"], "allow");
    let metrics = gw.metrics().await;
    let excluded = r#"utf8gate_findings_excluded_total{kind="nul",route="comments"}"#;
    assert_eq!(metrics.value(excluded), 2.0);

    // The same byte elsewhere in the body, or by another method, is still refused.
    let title = br#"{"title":"a\u0000b","comments":[]}"#;
    let elsewhere = exchange(gw.proxy, &request("POST", "/api/comments", json, title)).await;
    assert_eq!(elsewhere.status, 400, "{}", elsewhere.text());
    let put = exchange(gw.proxy, &request("PUT", "/api/comments", json, exempt)).await;
    assert_eq!(
        put.status,
        400,
        "PUT takes the default route: {}",
        put.text()
    );
    assert_eq!(upstream.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routes_match_hosts_and_set_body_limits() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(ROUTES, Some(&upstream.url())).await;
    let on_host = |host: &str| {
        format!("GET /find?q=%C0%AE%C0%AE%2F HTTP/1.1\r\nHost: {host}\r\n\r\n").into_bytes()
    };
    let search = exchange(gw.proxy, &on_host("Search.Example:8080")).await;
    assert_eq!(search.status, 200, "{}", search.text());
    let other = exchange(gw.proxy, &on_host("other.example")).await;
    assert_eq!(other.status, 400, "{}", other.text());

    let text = &[("Content-Type", b"text/plain".as_slice())];
    let small = exchange(gw.proxy, &request("POST", "/upload/a", text, &[b'a'; 16])).await;
    assert_eq!(small.status, 200, "{}", small.text());
    let large = exchange(gw.proxy, &request("POST", "/upload/a", text, &[b'a'; 17])).await;
    assert_eq!(large.status, 413, "{}", large.text());
    let minimal = large.json();
    let keys: Vec<_> = minimal
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        ["request_id", "status", "title", "type"],
        "the route's minimal detail"
    );
    let other = exchange(gw.proxy, &get("/files/%C0%AE")).await;
    assert!(
        other.json()["detail"].is_string(),
        "the default route's full detail"
    );
    let elsewhere = exchange(gw.proxy, &request("POST", "/notes", text, &[b'a'; 17])).await;
    assert_eq!(elsewhere.status, 200, "{}", elsewhere.text());
}

/// A path spelled to look like one route but read by its backend as another takes the route
/// its backend reads; one whose readings disagree is refused before the upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routes_follow_the_backends_reading_and_refuse_two() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(ROUTES, Some(&upstream.url())).await;
    // Under /upload/ by its spelling, under /wiki/ (monitor) as read: allowed through.
    let read = exchange(
        gw.proxy,
        &request(
            "GET",
            "/upload/..%2Fwiki/%C0%AE",
            &with_id("r-read", &[]),
            b"",
        ),
    )
    .await;
    assert_eq!(
        gw.audit_line("r-read").await["route"],
        "wiki",
        "{}",
        read.text()
    );
    // /WIKI/ is the default route to a case-sensitive backend and the wiki to IIS.
    let ambiguous = exchange(gw.proxy, &get("/WIKI/%C0%AE")).await;
    assert_eq!(ambiguous.status, 400, "{}", ambiguous.text());
    assert!(
        ambiguous.text().contains("ambiguous-route"),
        "{}",
        ambiguous.text()
    );
    let windows = exchange(gw.proxy, &get("/upload\\..\\wiki/x")).await;
    assert_eq!(windows.status, 400, "{}", windows.text());
    assert!(
        windows.text().contains("ambiguous-route"),
        "{}",
        windows.text()
    );
    assert_eq!(upstream.count(), 1, "only the first reached the upstream");
}

/// The authorization checks take the route of the original request they describe.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_checks_use_the_routes() {
    let gw = Gateway::start(ROUTES, None).await;
    let check = |uri: &'static str| {
        request(
            "GET",
            "/authz/forward",
            &[
                ("X-Original-URI", uri.as_bytes()),
                ("X-Original-Method", b"GET"),
            ],
            b"",
        )
    };
    let wiki = exchange(gw.api, &check("/wiki/%C0%AE%C0%AE/x")).await;
    assert_eq!(wiki.status, 200, "monitor route: {}", wiki.text());
    assert_eq!(wiki.header_str("utf8gate-decision"), "reject");
    let files = exchange(gw.api, &check("/files/%C0%AE%C0%AE/x")).await;
    assert_eq!(files.status, 403, "{}", files.text());
    let ambiguous = exchange(gw.api, &check("/WIKI/x")).await;
    assert_eq!(ambiguous.status, 403, "{}", ambiguous.text());
}
