//! Shared state of the listeners, request ids, body reading and the audit line.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::body::Body;
use axum::http::HeaderMap;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use utf8gate_policy::{Evaluation, Mode, Profile, Request, Verdict};

use crate::config::Config;
use crate::metrics::Metrics;
use crate::problem::Problem;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// The validated configuration.
    pub config: Arc<Config>,
    /// The metrics.
    pub metrics: Metrics,
    /// The pooled upstream client.
    pub client: Client<HttpConnector, Body>,
    ids: Arc<RequestIds>,
}

struct RequestIds {
    seed: u64,
    next: AtomicU64,
}

impl AppState {
    /// State for `config`.
    pub fn new(config: Config) -> AppState {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(config.connect_timeout));
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new()).build(connector);
        let seed = {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            h.finish()
        };
        AppState {
            config: Arc::new(config),
            metrics: Metrics::new(),
            client,
            ids: Arc::new(RequestIds {
                seed,
                next: AtomicU64::new(0),
            }),
        }
    }

    /// The request's own `x-request-id` if it is short and printable, else a new one.
    pub fn request_id(&self, headers: &HeaderMap) -> String {
        if let Some(id) = headers
            .get(crate::REQUEST_ID_IN)
            .and_then(|v| v.to_str().ok())
        {
            if !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_graphic()) {
                return id.to_string();
            }
        }
        let n = self.ids.next.fetch_add(1, Ordering::Relaxed);
        format!("{:016x}{:08x}", self.ids.seed, n)
    }

    /// A profile by name, or the default one.
    pub fn profile(&self, name: Option<&str>) -> Option<&Profile> {
        self.config
            .profiles
            .get(name.unwrap_or(&self.config.profile))
    }

    /// Evaluates off the async threads when the body is large.
    pub async fn evaluate(&self, profile: &Profile, request: Request) -> Evaluation {
        if request.body.len() < 64 * 1024 {
            return utf8gate_policy::evaluate(profile, &request);
        }
        let profile = profile.clone();
        match tokio::task::spawn_blocking(move || utf8gate_policy::evaluate(&profile, &request))
            .await
        {
            Ok(e) => e,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }

    /// Records metrics and writes the audit line for one evaluated request.
    pub fn audit(
        &self,
        mode: Mode,
        request_id: &str,
        verdict: &Verdict,
        status: u16,
        started: Instant,
    ) {
        let seconds = started.elapsed().as_secs_f64();
        self.metrics.record(mode, verdict, seconds);
        tracing::info!(
            target: "utf8gate::audit",
            request_id,
            mode = mode.as_str(),
            decision = verdict.decision.as_str(),
            enforced = verdict.enforced,
            profile = verdict.profile.as_str(),
            kinds = %verdict.kinds().join(","),
            findings = verdict.counts.values().sum::<u64>(),
            status,
            duration_ms = seconds * 1000.0,
            "request"
        );
    }
}

/// Reads a whole body up to `limit` bytes; a larger body is a 413 problem.
pub async fn read_body(
    state: &AppState,
    body: Body,
    limit: usize,
    request_id: &str,
) -> Result<Bytes, Problem> {
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            state.metrics.body_limit_exceeded();
            Err(Problem::too_large(limit as u64, request_id))
        }
        Err(_) => Err(Problem::bad_body(request_id)),
    }
}
