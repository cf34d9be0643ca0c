//! Envoy `ext_authz` over gRPC: `envoy.service.auth.v3.Authorization/Check` served with tonic
//! on its own listener (`listen.grpc_authz_addr`). The request is read from the raw-bytes
//! fields (`header_map` raw values, `raw_body`) and judged exactly as the HTTP checks are
//! (`api::authz::judge`); a request Envoy sent as string fields only carries
//! `string_fields_only`, which the profile rejects or logs. The types come from `envoy-types`.

use std::time::{Duration, Instant};

use envoy_types::ext_authz::v3::pb::{
    Authorization, AuthorizationServer, CheckRequest, CheckResponse,
};
use envoy_types::pb::envoy::service::ext_proc::v3::external_processor_server::ExternalProcessorServer;
use tokio::net::TcpListener;
use tower::limit::GlobalConcurrencyLimitLayer;
use utf8gate_policy::Mode;

use crate::api::authz::{Judged, judge};
use crate::budget::Charge;
use crate::gate::Use;
use crate::listen::layers::request_id::RequestIds;
use crate::problem::Problem;
use crate::routes::Route;
use crate::state::AppState;

mod answer;

use answer::format_of;
mod charged;
mod described;
pub mod ext_proc;

/// The `Authorization` service of a state.
#[derive(Clone)]
pub struct ExtAuthz {
    state: AppState,
    ids: std::sync::Arc<RequestIds>,
}

impl ExtAuthz {
    /// The service judging checks with `state`'s gate.
    pub fn new(state: AppState) -> ExtAuthz {
        ExtAuthz {
            state,
            ids: std::sync::Arc::new(RequestIds::new()),
        }
    }

    /// The answer to one check, its metrics recorded and its audit line written; `charge` is
    /// what its body holds of the memory budget. A check that describes no HTTP request is
    /// refused (400 `bad-check`, gRPC status INVALID_ARGUMENT) like any check refused before
    /// a verdict: a denial with its problem, counted `refused`, with its audit line.
    pub async fn answer(&self, check: CheckRequest, charge: &Charge) -> CheckResponse {
        let started = Instant::now();
        let described = match described::request(check) {
            Ok(described) => described,
            Err(problem) => {
                let id = self.ids.of(&axum::http::HeaderMap::new());
                return self.refused(problem, None, id.as_str(), &[], started).await;
            }
        };
        let id = self.ids.of(&described.id_headers);
        // The client's `Accept`, when Envoy passed it on: a browser gets the page.
        let accept: Vec<Vec<u8>> = (described.request.headers.iter())
            .filter(|(name, _)| name == "accept")
            .map(|(_, value)| value.clone())
            .collect();
        // The configuration in force when the check arrived, to its end.
        let snapshot = self.state.snapshot();
        let judged = judge(&snapshot, described.request, charge, Use::Authz).await;
        match judged {
            Judged::Refused(problem, route) => {
                let route = route.as_deref();
                (self.refused(problem, route, id.as_str(), &accept, started)).await
            }
            Judged::Passed(mut passed, route) => {
                let received = std::mem::take(&mut passed.request);
                let decision = passed.decision.as_str();
                let (outcome, record) = passed.into_parts();
                let style = route.errors;
                let format = format_of(style, &accept);
                let (response, status) =
                    answer::of_outcome(outcome, &received, decision, id.as_str(), style, format)
                        .await;
                let seconds = started.elapsed().as_secs_f64();
                self.state.metrics.observe(record.mode, seconds);
                crate::ops::audit::write(&record, id.as_str(), status, seconds);
                response
            }
        }
    }

    /// The denial of a check refused before a verdict (under `route` when one was chosen),
    /// counted `refused` and written to the audit log.
    async fn refused(
        &self,
        problem: Problem,
        route: Option<&Route>,
        id: &str,
        accept: &[Vec<u8>],
        started: Instant,
    ) -> CheckResponse {
        let style = route.map_or_else(|| self.state.snapshot().config.errors, |r| r.errors);
        let seconds = started.elapsed().as_secs_f64();
        let name = route.map(|r| r.name.as_str());
        answer::count_refused(
            &self.state.metrics,
            Mode::Authz,
            name,
            &problem,
            id,
            seconds,
        );
        answer::denied(problem, id, style, format_of(style, accept)).await
    }
}

#[tonic::async_trait]
impl Authorization for ExtAuthz {
    async fn check(
        &self,
        request: tonic::Request<CheckRequest>,
    ) -> Result<tonic::Response<CheckResponse>, tonic::Status> {
        let extensions = request.extensions();
        if let Some(charged::Refused(problem, arrived)) = extensions.get::<charged::Refused>() {
            // Its body was never read: there is no request to take an id or a route from.
            let id = self.ids.of(&axum::http::HeaderMap::new());
            let denied = self.refused(problem.clone(), None, id.as_str(), &[], *arrived);
            return Ok(tonic::Response::new(denied.await));
        }
        let charge = extensions.get::<Charge>().cloned();
        let charge = charge.unwrap_or_else(|| self.state.budget.empty());
        let answer = self.answer(request.into_inner(), &charge).await;
        Ok(tonic::Response::new(answer))
    }
}

/// Serves the gRPC check on `socket` (HTTP/2 cleartext) until `stop` turns true, then drains
/// in-flight checks for at most `grace`. The concurrency budget, load shedding and timeout are
/// the API listener's.
pub async fn serve(
    state: AppState,
    socket: TcpListener,
    mut stop: tokio::sync::watch::Receiver<bool>,
    grace: Duration,
) {
    // Bound once: what this takes from the configuration is restart-only (`crate::ops::reload`).
    let c = state.snapshot().config.clone();
    // A check carries the request's head and (buffered) body.
    let max_message = c.grpc_max_message();
    let service = AuthorizationServer::new(ExtAuthz::new(state.clone()))
        .max_decoding_message_size(max_message);
    // A streamed body's chunk is what Envoy buffered while the last answer was on its way:
    // up to twice its connection buffer limit (measured: 16 MiB chunks under an 8 MiB limit).
    let processor = ExternalProcessorServer::new(ext_proc::ExtProc::new(state.clone()))
        .max_decoding_message_size(max_message.saturating_mul(2));
    let limits = tower::ServiceBuilder::new()
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(c.max_concurrent_requests))
        .layer(charged::ChargeLayer {
            budget: state.budget.clone(),
            max_message,
        })
        .into_inner();
    let incoming = tonic::transport::server::TcpIncoming::from(socket).with_nodelay(Some(true));
    let (drain_tx, drain_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tonic::transport::Server::builder()
        .timeout(c.request_timeout)
        .http2_max_header_list_size(u32::try_from(c.max_header_bytes).unwrap_or(u32::MAX))
        .layer(limits)
        .add_service(service)
        .add_service(processor)
        .serve_with_incoming_shutdown(incoming, async move {
            let _ = stop.wait_for(|s| *s).await;
            let _ = drain_tx.send(());
        });
    let mut server = std::pin::pin!(server);
    let ended = tokio::select! {
        r = &mut server => Some(r),
        _ = drain_rx => None,
    };
    let ended = match ended {
        Some(r) => r,
        None => match tokio::time::timeout(grace, server).await {
            Ok(r) => r,
            Err(_) => {
                tracing::warn!(
                    listener = "grpc_authz",
                    "drain timeout: closing remaining connections"
                );
                return;
            }
        },
    };
    match ended {
        Ok(()) => tracing::info!(listener = "grpc_authz", "drained"),
        Err(e) => tracing::error!(listener = "grpc_authz", error = %e, "the gRPC listener failed"),
    }
}
