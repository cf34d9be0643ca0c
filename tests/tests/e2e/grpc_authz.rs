//! Envoy ext_authz over gRPC: a tonic client sends `CheckRequest`s to the real binary's
//! `grpc_authz` listener, with raw bytes (`header_map` raw values, `raw_body`) and with string
//! fields only.

use std::time::Duration;

use envoy_types::ext_authz::v3::pb::{CheckRequest, CheckResponse, HttpResponse};
use envoy_types::pb::envoy::config::core::v3::{HeaderMap, HeaderValue};
use envoy_types::pb::envoy::service::auth::v3::AttributeContext;
use envoy_types::pb::envoy::service::auth::v3::attribute_context::{HttpRequest, Request};
use envoy_types::pb::envoy::service::auth::v3::authorization_client::AuthorizationClient;
use utf8gate_e2e::{DELAY_HEADER, Gateway, Upstream, request, try_exchange};

use crate::support::*;

// =============================================================================================
// gRPC ext_authz
// =============================================================================================

const GRPC: &str = "[listen]\ngrpc_authz_addr = \"127.0.0.1:0\"\n";

/// A check of `path` with raw headers `headers` and raw body `body`.
fn raw_check(path: &[u8], headers: &[(&str, &[u8])], body: &[u8]) -> CheckRequest {
    let mut map = vec![
        raw(":method", b"POST"),
        raw(":path", path),
        raw(":authority", b"app.example"),
    ];
    map.extend(headers.iter().map(|(k, v)| raw(k, v)));
    check(HttpRequest {
        method: "POST".into(),
        path: String::from_utf8_lossy(path).replace('\u{FFFD}', "!"),
        header_map: Some(HeaderMap { headers: map }),
        raw_body: body.to_vec(),
        ..Default::default()
    })
}

/// The same request as Envoy sends it without raw encoding: strings, invalid UTF-8 already
/// replaced by `!`.
fn string_check(path: &str, headers: &[(&str, &str)]) -> CheckRequest {
    check(HttpRequest {
        method: "GET".into(),
        path: path.into(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([(":authority".to_string(), "app.example".to_string())])
            .collect(),
        ..Default::default()
    })
}

fn raw(key: &str, value: &[u8]) -> HeaderValue {
    HeaderValue {
        key: key.into(),
        raw_value: value.to_vec(),
        ..Default::default()
    }
}

fn check(http: HttpRequest) -> CheckRequest {
    CheckRequest {
        attributes: Some(AttributeContext {
            request: Some(Request {
                http: Some(http),
                ..Default::default()
            }),
            ..Default::default()
        }),
    }
}

async fn send(gw: &Gateway, request: CheckRequest) -> CheckResponse {
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
        .expect("a CheckResponse")
        .into_inner()
}

/// The denied response's HTTP status and its problem's finding kinds; panics on OK.
fn denied(response: &CheckResponse) -> (i32, Vec<String>) {
    assert_eq!(
        response.status.as_ref().map(|s| s.code),
        Some(7),
        "{response:?}"
    );
    let Some(HttpResponse::DeniedResponse(d)) = &response.http_response else {
        panic!("not denied: {response:?}");
    };
    let json: serde_json::Value = serde_json::from_str(&d.body).expect("problem+json body");
    assert_eq!(json["type"], "urn:utf8gate:problem:rejected", "{json}");
    let content_type = d.headers.iter().filter_map(|h| h.header.as_ref());
    let content_type = content_type
        .filter(|h| h.key == "content-type")
        .map(|h| h.value.clone());
    assert_eq!(
        content_type.collect::<Vec<_>>(),
        ["application/problem+json"]
    );
    let id = d.headers.iter().filter_map(|h| h.header.as_ref());
    let id: Vec<_> = id.filter(|h| h.key == "utf8gate-request-id").collect();
    assert_eq!(id.len(), 1, "{response:?}");
    assert_eq!(
        json["request_id"],
        id[0].value.as_str(),
        "the problem's id is the header's"
    );
    let verdict = verdict_of(&json);
    let kinds = kinds(&verdict).iter().map(|k| k.to_string()).collect();
    (d.status.as_ref().map_or(0, |s| s.code), kinds)
}

fn allowed(response: &CheckResponse) {
    assert_eq!(
        response.status.as_ref().map(|s| s.code),
        Some(0),
        "{response:?}"
    );
    assert!(
        matches!(response.http_response, Some(HttpResponse::OkResponse(_))),
        "{response:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_authz_denies_raw_invalid_bytes_in_header_path_and_body() {
    let gw = Gateway::start(GRPC, None).await;

    let header = raw_check(
        b"/files",
        &[("x-file", b"a/\xC0\xAE\xC0\xAE/etc/passwd")],
        b"",
    );
    let (status, kinds) = denied(&send(&gw, header).await);
    assert_eq!(status, 403);
    assert!(kinds.iter().any(|k| k == "overlong"), "{kinds:?}");
    assert!(
        !kinds.iter().any(|k| k == "string_fields_only"),
        "{kinds:?}"
    );

    let path = raw_check(b"/a/\xC0\xAE\xC0\xAE/b?q=1", &[], b"");
    let (status, kinds) = denied(&send(&gw, path).await);
    assert_eq!(status, 403);
    assert!(kinds.iter().any(|k| k == "overlong"), "{kinds:?}");

    let body = raw_check(
        b"/upload",
        &[("content-type", b"text/plain")],
        b"caf\xE9 \xED\xA0\x80",
    );
    let (_, kinds) = denied(&send(&gw, body).await);
    assert!(kinds.iter().any(|k| k == "surrogate"), "{kinds:?}");

    let clean = raw_check(
        "/caf\u{e9}".as_bytes(),
        &[
            ("x-name", "Zoë".as_bytes()),
            ("content-type", b"text/plain"),
        ],
        "naïve".as_bytes(),
    );
    allowed(&send(&gw, clean).await);

    // Four checks judged by the gate, counted like the HTTP ones.
    let metrics = gw.metrics().await;
    let authz = |decision: &str| {
        metrics.value(&format!(
            r#"utf8gate_requests_total{{decision="{decision}",mode="authz",route="default"}}"#
        ))
    };
    assert_eq!(authz("reject"), 3.0, "{}", metrics.text);
    assert_eq!(authz("allow"), 1.0, "{}", metrics.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_authz_denies_string_only_checks_as_blind_under_strict() {
    let gw = Gateway::start(GRPC, None).await;
    // Envoy's default: the overlong already replaced, the check cannot see it.
    let blind = string_check("/files", &[("x-file", "a/!!!!/etc/passwd")]);
    let (status, kinds) = denied(&send(&gw, blind).await);
    assert_eq!(status, 403);
    assert_eq!(kinds, ["string_fields_only"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_authz_allows_string_only_checks_with_the_finding_logged_when_configured() {
    let dir = std::env::temp_dir().join(format!("utf8gate-grpc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let profile = dir.join("sighted.toml");
    std::fs::write(
        &profile,
        "name = \"trusting\"\nbase = \"strict\"\n[actions.string_fields_only]\ndefault = \"log\"\n",
    )
    .expect("profile file");
    let toml = format!(
        "{GRPC}[policy]\nprofile = \"trusting\"\nprofile_files = [{:?}]\n",
        profile.display().to_string()
    );
    let gw = Gateway::start(&toml, None).await;
    let id = "grpc-blind-allowed-1";
    let blind = string_check("/files", &[("x-file", "plain"), ("x-request-id", id)]);
    allowed(&send(&gw, blind).await);

    let line = gw.audit_line(id).await;
    assert_eq!(line["decision"], "allow", "{line}");
    assert_eq!(line["mode"], "authz", "{line}");
    assert_eq!(line["kinds"], "string_fields_only", "{line}");
    assert_eq!(line["status"], 200, "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_authz_sanitize_sets_the_rewritten_headers() {
    let gw = Gateway::start(&format!("{GRPC}[policy]\nprofile = \"lossy\"\n"), None).await;
    let check = raw_check(b"/", &[("x-name", b"caf\xE9"), ("x-ok", b"plain")], b"");
    let response = send(&gw, check).await;
    assert_eq!(
        response.status.as_ref().map(|s| s.code),
        Some(0),
        "{response:?}"
    );
    let Some(HttpResponse::OkResponse(ok)) = &response.http_response else {
        panic!("not allowed: {response:?}");
    };
    let set: Vec<_> = (ok.headers.iter().filter_map(|h| h.header.as_ref()))
        .map(|h| (h.key.as_str(), h.value.as_str()))
        .collect();
    assert_eq!(
        set,
        [("x-name", "caf\u{FFFD}"), ("utf8gate-decision", "sanitize")]
    );
}

/// A check the memory budget cannot hold is denied 503 with `Retry-After` (Envoy passes the
/// denial on to the client) and UNAVAILABLE, before its body is buffered; once the budget is
/// free the same check is judged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_authz_refused_by_a_full_budget_is_503_with_retry_after() {
    let upstream = Upstream::start().await;
    // 3 × the largest check (1 MiB of body, twice 64 KiB of head, 64 KiB) fits in 4 MiB; a
    // proxied 1 MiB body holds 3 MiB of it for as long as the upstream takes to answer.
    let limits = "[limits]\nmax_body_bytes = \"1MiB\"\nmax_buffered_bytes = \"4MiB\"\n";
    let gw = Gateway::start(&format!("{GRPC}{limits}"), Some(&upstream.url())).await;
    let held = request(
        "POST",
        "/slow",
        &[(DELAY_HEADER, b"1500")],
        &vec![b'a'; 1 << 20],
    );
    let proxy = gw.proxy;
    let slow = tokio::spawn(try_exchange(proxy, held, Duration::from_secs(10)));
    assert!(
        upstream.wait_for(1, Duration::from_secs(5)).await,
        "not forwarded"
    );
    let check = || {
        raw_check(
            b"/upload",
            &[("content-type", b"text/plain")],
            &[b'b'; 512 << 10],
        )
    };

    let refused = send(&gw, check()).await;
    assert_eq!(
        refused.status.as_ref().map(|s| s.code),
        Some(14),
        "UNAVAILABLE"
    );
    let Some(HttpResponse::DeniedResponse(d)) = &refused.http_response else {
        panic!("not denied: {refused:?}");
    };
    assert_eq!(d.status.as_ref().map(|s| s.code), Some(503));
    let json: serde_json::Value = serde_json::from_str(&d.body).expect("problem+json");
    assert_eq!(json["type"], "urn:utf8gate:problem:busy", "{json}");
    let headers: Vec<_> = d.headers.iter().filter_map(|h| h.header.as_ref()).collect();
    assert!(
        headers
            .iter()
            .any(|h| h.key == "retry-after" && h.value == "1"),
        "{headers:?}"
    );

    let answered = slow
        .await
        .expect("task")
        .expect("the slow request's answer");
    assert_eq!(answered.status, 200);
    allowed(&send(&gw, check()).await);
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_budget_refusals_total"), 1.0);
}
