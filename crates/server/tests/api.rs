//! The routers in process, without sockets (`tower::ServiceExt::oneshot`).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;
use utf8gate_server::{AppState, Config, routers};

fn state() -> AppState {
    AppState::new(Config::default_config())
}

async fn call(
    router: axum::Router,
    request: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let response = router.oneshot(request).await.expect("infallible");
    let (parts, body) = response.into_parts();
    (
        parts.status,
        parts.headers,
        body.collect().await.expect("body").to_bytes().to_vec(),
    )
}

fn post(uri: &str, content_type: &str, body: &[u8]) -> Request<Body> {
    Request::post(uri)
        .header("content-type", content_type)
        .body(Body::from(body.to_vec()))
        .expect("request")
}

#[tokio::test]
async fn scan_returns_the_verdict() {
    let (_, api, _) = routers(&state());
    let (status, headers, body) = call(
        api,
        post(
            "/v1/scan",
            "application/json",
            b"{\"k\":\"\xED\xA0\xBD\xED\xB8\x80\"}",
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["utf8gate-decision"], "reject");
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["findings"][0]["kind"], "cesu8_pair");
    assert_eq!(v["findings"][0]["lax_scalar"], "U+1F600");
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// `/v1/scan` reads a coded upload as its decoded bytes, buffered or (past `max_body_bytes`)
/// streamed, and reports codings it cannot read as findings.
#[tokio::test]
async fn scan_undoes_content_codings_buffered_and_streamed() {
    let mut text = vec![b'a'; 4096];
    text.extend_from_slice(b" ..\xC0\xAF..");
    for max_body_bytes in [1 << 20, 1024] {
        let mut config = Config::default_config();
        config.max_body_bytes = max_body_bytes;
        let (_, api, _) = routers(&AppState::new(config));
        for (coding, body, kind) in [
            ("gzip", gzip(&text), "overlong"),
            ("gzip", gzip(&text)[..40].to_vec(), "corrupt_coding"),
            ("compress", gzip(&text), "unsupported_coding"),
        ] {
            let mut request = post("/v1/scan", "text/plain", &body);
            request
                .headers_mut()
                .insert("content-encoding", coding.parse().unwrap());
            let (status, headers, out) = call(api.clone(), request).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(
                headers["utf8gate-decision"], "reject",
                "{max_body_bytes} {kind}"
            );
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            let kinds: Vec<&str> = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["kind"].as_str().unwrap())
                .collect();
            assert!(kinds.contains(&kind), "{max_body_bytes}: {kinds:?}");
        }
    }
}

#[tokio::test]
async fn sanitize_with_lossy_equals_std() {
    let input = b"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
    let (_, api, _) = routers(&state());
    let (status, headers, body) = call(
        api.clone(),
        post("/v1/sanitize?profile=lossy", "text/plain", input),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/plain");
    assert_eq!(body, String::from_utf8_lossy(input).as_bytes());
    let (status, headers, body) =
        call(api.clone(), post("/v1/sanitize", "text/plain", input)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(headers["content-type"], "application/problem+json");
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["verdict"]["decision"], "reject");
    let (status, ..) = call(api, post("/v1/sanitize?profile=nope", "text/plain", b"x")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn envoy_check_allows_and_denies_without_5xx() {
    let (_, api, _) = routers(&state());
    let (status, headers, _) = call(
        api.clone(),
        Request::get("/authz/envoy/shop?q=Gr%C3%BC%C3%9Fe")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, &headers["utf8gate-decision"]),
        (StatusCode::OK, &"allow".parse().unwrap())
    );
    assert!(headers.contains_key("utf8gate-request-id"));
    let (status, headers, body) = call(
        api.clone(),
        Request::get("/authz/envoy/a/%c0%ae%c0%ae/b")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(headers["content-type"], "application/problem+json");
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["status"], 403);
    // A body cut by Envoy at max_request_bytes: text is checked up to the cut (its split tail
    // dropped); a JSON body cannot be read in part and is refused.
    let partial = |ct: &'static str| {
        Request::post("/authz/envoy/upload")
            .header("content-type", ct)
            .header("x-envoy-auth-partial-body", "true")
            .body(Body::from(&b"{\"a\":\"\xE2\x82"[..]))
            .unwrap()
    };
    let (status, ..) = call(api.clone(), partial("text/plain")).await;
    assert_eq!(status, StatusCode::OK);
    let (status, ..) = call(api, partial("application/json")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn admin_serves_metrics_health_and_readiness() {
    let state = state();
    let (_, api, admin) = routers(&state);
    call(api, post("/v1/scan", "text/plain", b"\xFF")).await;
    let (status, headers, body) = call(
        admin.clone(),
        Request::get("/metrics").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = String::from_utf8(body).unwrap();
    assert!(
        text.contains("utf8gate_requests_total{decision=\"reject\",mode=\"scan\",route=\"\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("utf8gate_findings_total{kind=\"invalid_byte\",location=\"body\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("utf8gate_build_info{unicode_version=\"18.0.0\""),
        "{text}"
    );
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        assert!(
            line.starts_with("utf8gate_") || line.starts_with("process_"),
            "{line}"
        );
    }
    let (status, _, body) = call(
        admin.clone(),
        Request::get("/healthz").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!((status, body.as_slice()), (StatusCode::OK, &b"ok\n"[..]));
    let (status, ..) = call(admin, Request::get("/readyz").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn openapi_document_is_served_and_names_every_route() {
    let (_, api, _) = routers(&state());
    let (status, _, body) = call(
        api,
        Request::get("/openapi.json").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let doc: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/v1/scan",
        "/v1/sanitize",
        "/authz/envoy/{path}",
        "/authz/forward",
        "/openapi.json",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path}");
    }
    let kinds: Vec<_> = doc["components"]["schemas"]["Finding"]["properties"]["kind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    let expected: Vec<_> = utf8gate_policy::FindingKind::ALL
        .iter()
        .map(|k| k.as_str().to_string())
        .collect();
    assert_eq!(kinds, expected, "docs/openapi.json is out of date");
}

#[tokio::test]
async fn the_served_document_lists_exactly_the_profiles_this_instance_accepts() {
    let config = Config::load(
        "[policy]\nprofile_files = [\"uploads.toml\"]\n",
        "test.toml",
        &[],
        &utf8gate_server::ops::config::Overrides::default(),
        &|_| Some("name = \"uploads\"\nbase = \"lossy\"\n".to_string()),
    )
    .expect("a configuration with one extra profile");
    let (_, api, _) = routers(&AppState::new(config));
    let (status, _, body) = call(
        api.clone(),
        Request::get("/openapi.json").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let doc: serde_json::Value = serde_json::from_slice(&body).unwrap();
    for path in ["/v1/scan", "/v1/sanitize"] {
        let parameter = &doc["paths"][path]["post"]["parameters"][0];
        assert_eq!(parameter["name"], "profile");
        assert_eq!(
            parameter["schema"]["enum"],
            serde_json::json!(["lossy", "monitor", "strict", "uploads", "windows-backend"]),
            "{path}"
        );
    }
    // Every listed profile is accepted, and a name outside the list is refused.
    for (profile, expected) in [
        ("uploads", StatusCode::OK),
        ("nope", StatusCode::BAD_REQUEST),
    ] {
        let (status, ..) = call(
            api.clone(),
            Request::post(format!("/v1/scan?profile={profile}"))
                .header("content-type", "text/plain")
                .body(Body::from("abc"))
                .unwrap(),
        )
        .await;
        assert_eq!(status, expected, "{profile}");
    }
    // The file in docs/ lists the built-in profiles.
    let file: serde_json::Value = serde_json::from_str(utf8gate_server::OPENAPI).unwrap();
    let mut built_in = utf8gate_policy::Profile::BUILT_IN.to_vec();
    built_in.sort_unstable();
    assert_eq!(
        file["paths"]["/v1/scan"]["post"]["parameters"][0]["schema"]["enum"],
        serde_json::json!(built_in)
    );
}

/// A path or method no API route serves is a problem like every other error, never a bare
/// status: `not-found` (404) and `method-not-allowed` (405, with axum's `Allow`).
#[tokio::test]
async fn unknown_api_paths_and_methods_are_problems() {
    let (_, api, _) = routers(&state());
    let request = Request::get("/authz/nope")
        .body(Body::empty())
        .expect("request");
    let (status, headers, body) = call(api.clone(), request).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(headers["content-type"], "application/problem+json");
    let v: serde_json::Value = serde_json::from_slice(&body).expect("problem+json");
    assert_eq!(v["type"], "urn:utf8gate:problem:not-found");

    let request = Request::get("/v1/scan")
        .body(Body::empty())
        .expect("request");
    let (status, headers, body) = call(api, request).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(headers["allow"], "POST");
    let v: serde_json::Value = serde_json::from_slice(&body).expect("problem+json");
    assert_eq!(v["type"], "urn:utf8gate:problem:method-not-allowed");
}
