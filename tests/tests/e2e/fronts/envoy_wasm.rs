//! The proxy-wasm filter inside Envoy 1.40 (its default V8 runtime), with the shipped
//! `deploy/envoy/envoy-wasm.yaml` (but for its addresses and the filter's path): every case of
//! the proxy's table (`embedded`) comes to what it comes to through the proxy listener, and
//! Envoy's stats count the decisions and the findings by kind.
//!
//! The filter is `target/wasm32-wasip1/wasm/utf8gate_proxy_wasm.wasm` (`.ci/run` builds it:
//! `cargo build --profile wasm --target wasm32-wasip1 -p utf8gate-proxy-wasm`), or
//! `$UTF8GATE_WASM_FILTER`; without it the test is skipped with one line, unless
//! `REQUIRE_WASM_FILTER=1` (set by CI).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use utf8gate_e2e::{
    ProcessGroup, ScratchDir, Upstream, exchange, free_port, front_tool, get, request,
};

use super::envoy::{on_loopback, run_envoy, substitute};
use crate::embedded::{assert_same, cases, observe, through_the_proxy};

const SHIPPED: &str = include_str!("../../../../deploy/envoy/envoy-wasm.yaml");
const FILTER: &str = "target/wasm32-wasip1/wasm/utf8gate_proxy_wasm.wasm";

/// The built filter, or `None` (skip) when it is not there and not required.
fn filter() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), PathBuf::from);
    let built = target.join(FILTER.trim_start_matches("target/"));
    let path = std::env::var_os("UTF8GATE_WASM_FILTER").map_or(built, PathBuf::from);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("REQUIRE_WASM_FILTER").is_none(),
        "the proxy-wasm filter is required (REQUIRE_WASM_FILTER) but {path:?} is missing"
    );
    eprintln!(
        "skipped: no proxy-wasm filter at {path:?} (cargo build --profile wasm --target wasm32-wasip1 -p utf8gate-proxy-wasm)"
    );
    None
}

/// Envoy with the shipped file (the filter at `filter`, each `(from, to)` of `edits` made) in
/// front of `app`, and its admin address.
async fn envoy(
    bin: &Path,
    filter: &Path,
    app: &Upstream,
    dir: &ScratchDir,
    edits: &[(&str, &str)],
) -> (ProcessGroup, SocketAddr, SocketAddr) {
    let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
    let admin: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
    let yaml = on_loopback(SHIPPED, addr, app);
    let admin_port = format!("port_value: {}", admin.port());
    let yaml = substitute(&yaml, "port_value: 9901", &admin_port);
    let path = format!("filename: {}", filter.display());
    let mut yaml = substitute(&yaml, &format!("filename: {FILTER}"), &path);
    for (from, to) in edits {
        yaml = substitute(&yaml, from, to);
    }
    (run_envoy(bin, &yaml, dir, addr).await, addr, admin)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filter_in_envoy_decides_every_case_as_the_proxy_does() {
    let Some(bin) = front_tool("envoy", "ENVOY_BIN", &[], "REQUIRE_ENVOY") else {
        return;
    };
    let Some(filter) = filter() else {
        return;
    };
    let proxy = through_the_proxy().await;
    let app = Upstream::start().await;
    let dir = ScratchDir::new("envoy-wasm");
    let (_envoy, addr, admin) = envoy(&bin, &filter, &app, &dir, &[]).await;
    let mut through = Vec::new();
    for case in cases() {
        through.push(observe(addr, &app, &case).await);
    }
    assert_same("the proxy-wasm filter in Envoy", &proxy, &through);

    // Envoy's stats: every decision counted under its label, findings by kind.
    let stats = Box::pin(exchange(admin, &get("/stats/prometheus")))
        .await
        .text();
    let value = |series: &str| -> f64 {
        let line = stats.lines().find(|l| l.starts_with(series));
        let number = line.and_then(|l| l.rsplit(' ').next());
        number.and_then(|n| n.parse().ok()).unwrap_or(0.0)
    };
    // The probes and the two clean requests are allowed.
    assert!(
        value("utf8gate_requests_total{decision=\"allow\"}") >= 3.0,
        "{stats}"
    );
    assert_eq!(
        value("utf8gate_requests_total{decision=\"sanitize\"}"),
        3.0,
        "{stats}"
    );
    assert_eq!(
        value("utf8gate_requests_total{decision=\"reject\"}"),
        4.0,
        "{stats}"
    );
    assert_eq!(
        value("utf8gate_requests_total{decision=\"too_large\"}"),
        1.0,
        "{stats}"
    );
    assert!(
        value("utf8gate_findings_total{kind=\"overlong\"}") >= 1.0,
        "{stats}"
    );
    assert!(
        value("utf8gate_findings_total{kind=\"not_nfc\"}") >= 4.0,
        "{stats}"
    );
}

/// The filter's other settings, as Istio and Envoy Gateway ship them or an operator sets them:
/// with `body_rewrite = "refuse"` a body the sanitizer would give another length is refused
/// (its `Content-Length` went on with the head) while a head is still rewritten; with
/// `over_limit = "pass"` a longer body is checked by its first `max_body_bytes` and goes on
/// whole, unread past them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_rewrites_and_bodies_passed_past_the_limit() {
    let Some(bin) = front_tool("envoy", "ENVOY_BIN", &[], "REQUIRE_ENVOY") else {
        return;
    };
    let Some(filter) = filter() else {
        return;
    };
    let app = Upstream::start().await;
    let dir = ScratchDir::new("envoy-wasm-settings");
    let edits = [
        ("body_rewrite = \"reframe\"", "body_rewrite = \"refuse\""),
        ("max_body_bytes = 8388608", "max_body_bytes = 1024"),
        ("over_limit = \"refuse\"", "over_limit = \"pass\""),
    ];
    let (_envoy, addr, _) = envoy(&bin, &filter, &app, &dir, &edits).await;
    let send = |target: &str, kind: &'static [u8], body: Vec<u8>| {
        let bytes = request(
            "POST",
            target,
            &[("Content-Type", kind), ("Connection", b"close")],
            &body,
        );
        async move { Box::pin(exchange(addr, &bytes)).await }
    };
    let json: &[u8] = b"application/json";
    let text: &[u8] = b"text/plain; charset=utf-8";
    let before = app.count();

    // An NFD JSON body would go on shorter: refused, and the detail says why.
    let nfd = "{\"name\":\"Cafe\u{301}\"}".as_bytes().to_vec();
    let refused = send("/notes", json, nfd).await;
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert!(
        refused.text().contains("another length"),
        "{}",
        refused.text()
    );
    assert_eq!(
        app.count(),
        before,
        "a refused request reached the application"
    );

    // A head is still rewritten: the NFD query goes on in NFC.
    let response = send("/notes?q=cafe%CC%81", json, b"{\"a\":1}".to_vec()).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let records = app.records();
    assert_eq!(
        records.last().map(|r| r.target.as_str()),
        Some("/notes?q=caf%C3%A9")
    );

    // Past 1 KiB: a bad byte among the first 1 024 is found, one after them is not read.
    let mut body = vec![b'a'; 4096];
    body[100..102].copy_from_slice(b"\xC0\xAE");
    assert_eq!(send("/t", text, body.clone()).await.status, 400);
    body[100..102].copy_from_slice(b"aa");
    body[3000..3002].copy_from_slice(b"\xC0\xAE");
    assert_eq!(send("/t", text, body.clone()).await.status, 200);
    let records = app.records();
    assert_eq!(
        records.last().map(|r| &r.body),
        Some(&body),
        "the body went on whole"
    );
    assert_eq!(app.count(), before + 2);
}
