//! The admin listener: `/metrics`, `/healthz`, `/readyz`, and `POST /admin/reload` when
//! `admin.reload` is on (`crate::ops::reload`).

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};

use crate::state::AppState;

/// The admin router.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/admin/reload", any(reload))
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

/// `POST /admin/reload`: 200 once the configuration read again is in force, 422 with the reason
/// (file and line, or the restart-only keys) when it was refused and the old one kept. 404
/// while `admin.reload` is off in the configuration in force; 405 for another method.
async fn reload(State(state): State<AppState>, method: Method) -> Response {
    if !state.snapshot().config.admin_reload {
        return (StatusCode::NOT_FOUND, "not found\n").into_response();
    }
    if method != Method::POST {
        let allow = [(header::ALLOW, "POST")];
        return (StatusCode::METHOD_NOT_ALLOWED, allow, "POST only\n").into_response();
    }
    match crate::ops::reload::reload(&state).await {
        Ok(()) => (StatusCode::OK, "reloaded\n").into_response(),
        Err(e) => (StatusCode::UNPROCESSABLE_ENTITY, format!("{e}\n")).into_response(),
    }
}

/// Ready when the upstream (if any) accepts a TCP connection within a second.
async fn readyz(State(state): State<AppState>) -> Response {
    let snapshot = state.snapshot();
    let Some(upstream) = snapshot.config.upstream.as_deref() else {
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
