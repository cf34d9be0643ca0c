//! The admin listener: `/metrics`, `/healthz`, `/readyz`, and `POST /admin/reload` when
//! `admin.reload` is on (`crate::ops::reload`).

use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};

use crate::ops::config::upstream_is_https;
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

/// Ready when the upstream (if any) accepts a TCP connection within a second. While changed
/// TLS certificate files do not load, still ready (the ones in use still serve), with a line
/// saying why.
async fn readyz(State(state): State<AppState>) -> Response {
    let snapshot = state.snapshot();
    let tls = state.tls.as_ref().and_then(|t| t.failure());
    let said = |status: StatusCode, text: &str| {
        let body = match &tls {
            None => format!("{text}\n"),
            Some(why) => format!(
                "{text}\ntls: the certificates in use stay; the new files do not load: {why}\n"
            ),
        };
        (status, body).into_response()
    };
    let Some(authority) =
        (snapshot.config.upstream.as_deref()).and_then(crate::ops::config::upstream_authority)
    else {
        return said(StatusCode::OK, "ready");
    };
    let https = snapshot
        .config
        .upstream
        .as_deref()
        .is_some_and(upstream_is_https);
    let port = authority.port_u16().unwrap_or(if https { 443 } else { 80 });
    let address = format!("{}:{port}", authority.host());
    match tokio::time::timeout(
        Duration::from_secs(1),
        tokio::net::TcpStream::connect(address),
    )
    .await
    {
        Ok(Ok(_)) => said(StatusCode::OK, "ready"),
        _ => said(StatusCode::SERVICE_UNAVAILABLE, "upstream unreachable"),
    }
}
