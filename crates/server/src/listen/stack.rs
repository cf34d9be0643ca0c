//! The tower stack of each listener, outermost first:
//!
//! ```text
//! proxy:  request id → snapshot and route → problems → audit → in flight → errors
//!         → load shed → concurrency limit → timeout → body limit (the route's max_body_bytes)
//!         → Proxy
//! api:    request id → snapshot → problems → audit → in flight → errors → load shed
//!         → concurrency limit → timeout → body limit (max_scan_bytes) → router (scan,
//!         sanitize, authz, openapi)
//! admin:  request id → router (metrics, healthz, readyz, admin/reload)
//! ```
//!
//! The concurrency budget (`limits.max_concurrent_requests`) is one per listener, shared by
//! its serving threads; a request beyond it is shed at once (503), not queued.

use axum::Router;
use axum::http::Uri;
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use utf8gate_policy::Mode;

use crate::listen::layers::audit::AuditLayer;
use crate::listen::layers::body_limit::BodyLimitLayer;
use crate::listen::layers::errors::ErrorsLayer;
use crate::listen::layers::in_flight::InFlightLayer;
use crate::listen::layers::problems::ProblemLayer;
use crate::listen::layers::request_id::RequestIdLayer;
use crate::listen::layers::snapshot::SnapshotLayer;
use crate::listen::serve::Serves;
use crate::proxy::Proxy;
use crate::state::AppState;

/// The proxy listener's stack, made once per serving thread (each with a [`Proxy`] of its
/// own, the budget shared). What it builds from the configuration is restart-only
/// (`crate::ops::reload`): the concurrency budget, the timeout, the listener's body limit (every
/// request carries its route's, from its snapshot, which replaces it).
pub fn proxy(state: &AppState) -> Serves {
    let state = state.clone();
    let c = state.snapshot().config.clone();
    let ids = RequestIdLayer::default();
    let budget = GlobalConcurrencyLimitLayer::new(c.max_concurrent_requests);
    Serves::new(move || {
        ServiceBuilder::new()
            .layer(ids.clone())
            .layer(SnapshotLayer::routing(state.live.clone()))
            .layer(ProblemLayer::new(c.errors))
            .layer(AuditLayer::new(state.metrics.clone(), |_| {
                Some(Mode::Proxy)
            }))
            .layer(InFlightLayer(state.metrics.in_flight().clone()))
            .layer(ErrorsLayer)
            .load_shed()
            .layer(budget.clone())
            .timeout(c.request_timeout)
            .layer(BodyLimitLayer(c.max_body_bytes as u64))
            .service(Proxy::new(state.clone()))
    })
}

/// The API listener's stack around `crate::api::router`, as a router (so that it takes any
/// body, as tests send them).
pub fn api(state: &AppState) -> Router {
    let c = state.snapshot().config.clone();
    let service = ServiceBuilder::new()
        .layer(RequestIdLayer::default())
        .layer(SnapshotLayer::new(state.live.clone()))
        .layer(ProblemLayer::new(c.errors))
        .layer(AuditLayer::new(state.metrics.clone(), api_mode))
        .layer(InFlightLayer(state.metrics.in_flight().clone()))
        .layer(ErrorsLayer)
        .load_shed()
        .concurrency_limit(c.max_concurrent_requests)
        .timeout(c.request_timeout)
        .layer(BodyLimitLayer(c.max_scan_bytes))
        .map_request(|r: axum::extract::Request<_>| r.map(axum::body::Body::new))
        .service(crate::api::router(state.clone()));
    Router::new().fallback_service(service)
}

/// The admin listener's stack around `crate::listen::admin::router`.
pub fn admin(state: &AppState) -> Router {
    let service = ServiceBuilder::new()
        .layer(RequestIdLayer::default())
        .service(crate::listen::admin::router(state.clone()));
    Router::new().fallback_service(service)
}

/// A router as a listener's service (the API, the admin, the demo's upstream).
pub fn serving(router: Router) -> Serves {
    Serves::new(move || router.clone())
}

/// The mode API requests are counted under: uploads `scan`, checks `authz`.
fn api_mode(uri: &Uri) -> Option<Mode> {
    let path = uri.path();
    if path.starts_with("/v1/") {
        Some(Mode::Scan)
    } else if path.starts_with("/authz/") {
        Some(Mode::Authz)
    } else {
        None
    }
}
