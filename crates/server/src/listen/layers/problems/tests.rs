use std::convert::Infallible;

use axum::body::Body;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use tower::{Layer, ServiceExt};

use super::*;
use crate::problem::{Detail, PROBLEM_JSON, ProblemKind, TEXT_HTML};

const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const MINIMAL_JSON: ErrorStyle = ErrorStyle {
    detail: Detail::Minimal,
    html: false,
};
const FULL_HTML: ErrorStyle = ErrorStyle {
    detail: Detail::Full,
    html: true,
};

/// A problem answered through a [`ProblemLayer`] with `default`, the request carrying
/// `route` (as a route's layer would insert it) and the response `own`: its content type and
/// JSON keys (or the page).
async fn answer(
    default: ErrorStyle,
    route: Option<ErrorStyle>,
    own: Option<ErrorStyle>,
    accept: &[&str],
) -> (String, String) {
    let handler = tower::service_fn(move |_request: Request<Body>| async move {
        let mut response = Problem::new(ProblemKind::BadTarget, "the detail").into_response();
        if let Some(style) = own {
            response.extensions_mut().insert(style);
        }
        Ok::<_, Infallible>(response)
    });
    let mut request = Request::builder().uri("/");
    for line in accept {
        request = request.header("accept", *line);
    }
    let mut request = request.body(Body::empty()).unwrap_or_default();
    if let Some(style) = route {
        Carried::of_mut(request.extensions_mut()).errors = Some(style);
    }
    let response = ProblemLayer::new(default)
        .layer(handler)
        .oneshot(request)
        .await;
    let response = response.unwrap_or_else(|e| match e {});
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let kind = response.headers()[header::CONTENT_TYPE]
        .to_str()
        .unwrap_or("")
        .to_string();
    let body = axum::body::to_bytes(response.into_body(), 1 << 16).await;
    (
        kind,
        String::from_utf8_lossy(&body.unwrap_or_default()).into_owned(),
    )
}

fn has_detail(body: &str) -> bool {
    body.contains("the detail") || body.contains("The detail")
}

#[tokio::test]
async fn the_listeners_style_applies_without_another() {
    let (kind, body) = answer(FULL_HTML, None, None, &[BROWSER]).await;
    assert_eq!(kind, TEXT_HTML);
    assert!(has_detail(&body), "{body}");
    let (kind, body) = answer(FULL_HTML, None, None, &["*/*"]).await;
    assert_eq!(kind, PROBLEM_JSON);
    assert!(has_detail(&body), "{body}");
    let (kind, body) = answer(MINIMAL_JSON, None, None, &[BROWSER]).await;
    assert_eq!(kind, PROBLEM_JSON);
    assert!(!has_detail(&body), "{body}");
}

#[tokio::test]
async fn a_routes_style_in_the_request_overrides_the_listeners() {
    let (kind, body) = answer(FULL_HTML, Some(MINIMAL_JSON), None, &[BROWSER]).await;
    assert_eq!(kind, PROBLEM_JSON);
    assert!(!has_detail(&body), "{body}");
    let (kind, body) = answer(MINIMAL_JSON, Some(FULL_HTML), None, &[BROWSER]).await;
    assert_eq!(kind, TEXT_HTML);
    assert!(has_detail(&body), "{body}");
}

#[tokio::test]
async fn a_style_in_the_response_overrides_the_requests() {
    let (kind, body) = answer(
        MINIMAL_JSON,
        Some(MINIMAL_JSON),
        Some(FULL_HTML),
        &[BROWSER],
    )
    .await;
    assert_eq!(kind, TEXT_HTML);
    assert!(has_detail(&body), "{body}");
    let (kind, _) = answer(FULL_HTML, Some(FULL_HTML), Some(MINIMAL_JSON), &[BROWSER]).await;
    assert_eq!(kind, PROBLEM_JSON);
}

#[tokio::test]
async fn accept_lines_are_read_as_one_list() {
    let (kind, _) = answer(
        FULL_HTML,
        None,
        None,
        &["application/json;q=0.5", "text/html"],
    )
    .await;
    assert_eq!(kind, TEXT_HTML);
    let (kind, _) = answer(FULL_HTML, None, None, &["application/json", "text/html"]).await;
    assert_eq!(kind, PROBLEM_JSON);
}
