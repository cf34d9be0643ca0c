//! Metrics and the audit line, once per request: the duration from arrival to response, the
//! gate's [`AuditRecord`] (if the request reached the gate) written as the audit line, and a
//! `refused` request counted, with its own audit line, when an audited route answered with an
//! error before any verdict (a limit, an unreadable body, an unknown profile or API route,
//! shed load).

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::http::{Request, StatusCode, Uri};
use axum::response::Response;
use utf8gate_policy::Mode;

use crate::listen::carried::Carried;
use crate::listen::layers::on_response::{Hook, OnResponse};
use crate::listen::layers::request_id::RequestId;
use crate::ops::audit::{AuditRecord, Refusal};
use crate::ops::metrics::Metrics;
use crate::problem::{Problem, ProblemKind};
use crate::routes::{Choice, Route};

/// Which mode a request to a listener is counted under, from its target; `None`: not counted
/// (the OpenAPI document, the admin routes).
pub type ModeOf = fn(&Uri) -> Option<Mode>;

/// Records metrics and writes audit lines.
#[derive(Clone)]
pub struct AuditLayer {
    metrics: Metrics,
    mode_of: ModeOf,
}

impl AuditLayer {
    /// Records into `metrics`, counting requests under `mode_of`'s mode.
    pub fn new(metrics: Metrics, mode_of: ModeOf) -> AuditLayer {
        AuditLayer { metrics, mode_of }
    }
}

impl<S> tower::Layer<S> for AuditLayer {
    type Service = Audit<S>;
    fn layer(&self, inner: S) -> Audit<S> {
        Audit {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service of [`AuditLayer`].
#[derive(Clone)]
pub struct Audit<S> {
    inner: S,
    layer: AuditLayer,
}

impl<S, B> tower::Service<Request<B>> for Audit<S>
where
    S: tower::Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = OnResponse<S::Future, Record>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        self.layer.metrics.received(request.version());
        // One look-up of what the layers before this one carried.
        let carried = Carried::of(request.extensions());
        let record = Record {
            started: Instant::now(),
            mode: (self.layer.mode_of)(request.uri()),
            id: carried.and_then(|c| c.id.clone()),
            route: match carried.and_then(|c| c.choice.as_ref()) {
                Some(Choice::Route(route)) => Some(route.clone()),
                _ => None,
            },
            client: carried.and_then(|c| c.peer.as_ref()?.client().cloned()),
            metrics: self.layer.metrics.clone(),
        };
        OnResponse::new(self.inner.call(request), record)
    }
}

/// Records the response of a request that arrived at `started`.
pub struct Record {
    started: Instant,
    mode: Option<Mode>,
    id: Option<RequestId>,
    route: Option<Arc<Route>>,
    /// The identity of the connection's client certificate (mutual TLS).
    client: Option<Arc<str>>,
    metrics: Metrics,
}

impl Hook for Record {
    fn on_response(self, response: &mut Response) {
        let seconds = self.started.elapsed().as_secs_f64();
        let status = response.status();
        if let Some(mut record) = response.extensions_mut().remove::<AuditRecord>() {
            record.client = self.client;
            self.metrics.observe(record.mode, seconds);
            let id = self.id.as_ref().map_or("-", RequestId::as_str);
            crate::ops::audit::write(&record, id, status.as_u16(), seconds);
        } else if let Some(mode) = self.mode
            && (status.is_client_error() || status.is_server_error())
        {
            let route = self.route.as_ref().map_or("", |r| r.name.as_str());
            self.metrics.record_refused(mode, route, seconds);
            let problem = response.extensions().get::<Problem>();
            let refusal = Refusal {
                mode,
                route: self.route.as_ref().map_or("-", |r| r.name.as_str()),
                problem: problem.map_or("-", |p| p.kind.slug()),
                status: status.as_u16(),
                client: self.client.as_deref(),
            };
            let id = self.id.as_ref().map_or("-", RequestId::as_str);
            crate::ops::audit::write_refused(refusal, id, seconds);
        }
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            let problem = response.extensions().get::<Problem>().map(|p| p.kind);
            if problem == Some(ProblemKind::BodyTooLarge) {
                self.metrics.body_limit_exceeded();
            }
        }
    }
}
