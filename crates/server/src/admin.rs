//! The admin listener: `/metrics`, `/healthz`, `/readyz`.

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::state::AppState;

/// The admin router.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .with_state(state)
}

async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.metrics.render(),
    )
        .into_response()
}

/// Ready when the upstream (if any) accepts a TCP connection within a second.
async fn readyz(State(state): State<AppState>) -> Response {
    let Some(upstream) = state.config.upstream.as_deref() else {
        return (StatusCode::OK, "ready\n").into_response();
    };
    let authority = upstream.trim_start_matches("http://").to_string();
    let authority = if authority.contains(':') {
        authority
    } else {
        format!("{authority}:80")
    };
    match tokio::time::timeout(
        Duration::from_secs(1),
        tokio::net::TcpStream::connect(authority),
    )
    .await
    {
        Ok(Ok(_)) => (StatusCode::OK, "ready\n").into_response(),
        _ => (StatusCode::SERVICE_UNAVAILABLE, "upstream unreachable\n").into_response(),
    }
}
