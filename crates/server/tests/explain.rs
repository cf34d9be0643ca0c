//! The explain page and `/v1/scan?explain=true`, in process (`tower::ServiceExt::oneshot`).
//! The page in a real browser is an e2e test (`tests/tests/e2e/explain.rs`).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;
use utf8gate_server::{AppState, Config, routers};

fn api(explain: bool) -> axum::Router {
    let mut config = Config::default_config();
    config.explain = explain;
    config.explain_max_text_bytes = 1024;
    routers(&AppState::new(config)).1
}

async fn call(
    router: axum::Router,
    request: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let response = router.oneshot(request).await.expect("infallible");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("body").to_bytes().to_vec();
    (parts.status, parts.headers, body)
}

fn get(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).expect("request")
}

/// `text` posted to `uri` as the explain page posts it (`application/octet-stream`), or as
/// `text/plain` for a plain `/v1/scan` (an octet stream is not text there).
async fn explain(uri: &str, text: &[u8]) -> (StatusCode, Value) {
    let content_type = match uri.contains("explain=") {
        true => "application/octet-stream",
        false => "text/plain",
    };
    let request = Request::post(uri)
        .header("content-type", content_type)
        .body(Body::from(text.to_vec()))
        .expect("request");
    let (status, _, body) = call(api(false), request).await;
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn base64(bytes: &[u8]) -> String {
    utf8gate_server::api::explain::wrap::base64(bytes)
}

#[tokio::test]
async fn the_page_is_not_served_when_off() {
    for path in ["/explain", "/explain/page.js", "/explain/page.css"] {
        let (status, _, _) = call(api(false), get(path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn the_page_its_script_and_style_are_served_with_a_strict_policy() {
    for (path, media_type) in [
        ("/explain", "text/html; charset=utf-8"),
        ("/explain/page.js", "text/javascript; charset=utf-8"),
        ("/explain/page.css", "text/css; charset=utf-8"),
    ] {
        let (status, headers, body) = call(api(true), get(path)).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers["content-type"], media_type, "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(
            csp.starts_with("default-src 'none'; script-src 'self';"),
            "{csp}"
        );
        assert!(!csp.contains("unsafe"), "{csp}");
        let text = String::from_utf8(body).unwrap();
        // No inline script or style for the policy to allow; no markup from strings.
        assert!(
            !text.contains("innerHTML") && !text.contains("<style"),
            "{path}"
        );
        if path == "/explain" {
            assert_eq!(text.matches("<script").count(), 1);
            assert!(text.contains("<script src=\"/explain/page.js\" defer></script>"));
            for id in ["text", "file", "profile", "location"] {
                assert!(
                    text.contains(&format!("<label for=\"{id}\">")),
                    "label {id}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_default_scan_answer_is_unchanged_and_explain_adds_one_key() {
    let text = b"..\xC0\xAE\xC0\xAE/etc/passwd";
    let (status, plain) = explain("/v1/scan?profile=lossy", text).await;
    assert_eq!(status, StatusCode::OK);
    assert!(plain.get("explain").is_none(), "{plain}");
    let (status, v) = explain("/v1/scan?profile=lossy&explain=true", text).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let mut without = v.clone();
    without.as_object_mut().unwrap().remove("explain");
    assert_eq!(without, plain, "explain changes nothing else");

    let e = &v["explain"];
    assert_eq!(e["location"], "body");
    assert_eq!(e["text_base64"], base64(text));
    let marks = e["marks"].as_array().unwrap();
    // The two adjacent overlong dots are one finding, a run of two: one mark over both.
    assert_eq!(marks.len(), 1, "{e}");
    assert_eq!(
        (marks[0]["start"].as_u64(), marks[0]["end"].as_u64()),
        (Some(2), Some(6))
    );
    assert_eq!(marks[0]["window_start"], 0);
    assert_eq!(
        marks[0]["window_hex"],
        "2E 2E C0 AE C0 AE 2F 65 74 63 2F 70 61 73"
    );
    let first = &v["findings"][marks[0]["finding"].as_u64().unwrap() as usize];
    assert_eq!(
        (first["kind"].as_str(), first["lax_scalar"].as_str()),
        (Some("overlong"), Some("U+002E"))
    );
    assert_eq!(first["run"], 2);
    let sanitized = "..\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}/etc/passwd";
    assert_eq!(e["sanitized_base64"], base64(sanitized.as_bytes()));
}

#[tokio::test]
async fn each_location_class_marks_the_text_and_a_rejection_has_no_sanitized_text() {
    let text = b"a\xED\xA0\xBD\xED\xB8\x80b \"q\"";
    for class in ["body", "form", "json"] {
        let uri = format!("/v1/scan?explain=true&location={class}");
        let (status, v) = explain(&uri, text).await;
        assert_eq!(status, StatusCode::OK, "{class}: {v}");
        assert_eq!(v["decision"], "reject", "{class}");
        assert_eq!(v["explain"]["location"], class);
        let marks = v["explain"]["marks"].as_array().unwrap();
        assert_eq!(marks.len(), 1, "{class}: {v}");
        assert_eq!(
            (marks[0]["start"].as_u64(), marks[0]["end"].as_u64()),
            (Some(1), Some(7))
        );
        let finding = &v["findings"][marks[0]["finding"].as_u64().unwrap() as usize];
        assert_eq!(finding["kind"], "cesu8_pair", "{class}");
        assert_eq!(finding["bytes"], "ED A0 BD ED B8 80");
        assert_eq!(finding["lax_scalar"], "U+1F600");
        assert_eq!(v["explain"]["sanitized_base64"], Value::Null, "{class}");
    }
}

#[tokio::test]
async fn a_clean_text_is_its_own_sanitized_text_and_bad_input_is_a_problem() {
    let text = "Grüße, 東京".as_bytes();
    let (status, v) = explain("/v1/scan?explain=true&location=form", text).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(v["decision"], "allow");
    assert_eq!(v["explain"]["marks"], serde_json::json!([]));
    assert_eq!(v["explain"]["sanitized_base64"], base64(text));

    let (status, v) = explain("/v1/scan?explain=true", &[b'a'; 1025]).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    for query in ["explain=yes", "explain=true&location=path"] {
        let (status, v) = explain(&format!("/v1/scan?{query}"), b"a").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {v}");
    }
}
