//! Shared state of the listeners, request ids, body reading and the audit line.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::http::HeaderMap;
use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::Full;
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
    upstream: Arc<UpstreamClients>,
    /// `config.upstream`'s host and port, parsed once.
    upstream_authority: Option<axum::http::uri::Authority>,
    ids: Arc<RequestIds>,
}

/// The pooled upstream clients: one per thread, made on first use, so that a request, its
/// pooled upstream connection and the connection's task stay on the thread that serves the
/// request (no wake-ups across threads on the proxy's hot path).
struct UpstreamClients {
    /// Tells this state's clients from those of another state on the same thread.
    key: u64,
    connect_timeout: std::time::Duration,
}

/// The pooled HTTP/1 client the proxy forwards with (its bodies are buffered whole).
pub type UpstreamClient = Client<HttpConnector, Full<Bytes>>;

/// Source of [`UpstreamClients::key`].
static CLIENT_KEYS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's upstream clients, by [`UpstreamClients::key`] (a few at most: one per
    /// state that forwarded on this thread, the newest last).
    static CLIENTS: std::cell::RefCell<Vec<(u64, UpstreamClient)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl UpstreamClients {
    fn new(connect_timeout: std::time::Duration) -> UpstreamClients {
        UpstreamClients {
            key: CLIENT_KEYS.fetch_add(1, Ordering::Relaxed),
            connect_timeout,
        }
    }

    fn client(&self) -> UpstreamClient {
        CLIENTS.with(|clients| {
            let mut clients = clients.borrow_mut();
            if let Some((_, c)) = clients.iter().rev().find(|(k, _)| *k == self.key) {
                return c.clone();
            }
            let mut connector = HttpConnector::new();
            connector.set_connect_timeout(Some(self.connect_timeout));
            connector.set_nodelay(true);
            let client = Client::builder(TokioExecutor::new()).build(connector);
            // States come and go in tests; a thread keeps the clients of the last few.
            if clients.len() >= 4 {
                clients.remove(0);
            }
            clients.push((self.key, client.clone()));
            client
        })
    }
}

struct RequestIds {
    seed: u64,
    next: AtomicU64,
}

impl AppState {
    /// State for `config`.
    pub fn new(config: Config) -> AppState {
        let upstream = Arc::new(UpstreamClients::new(config.connect_timeout));
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
        let upstream_authority = config
            .upstream
            .as_deref()
            .and_then(crate::config::upstream_authority);
        AppState {
            config: Arc::new(config),
            metrics: Metrics::new(),
            upstream,
            upstream_authority,
            ids: Arc::new(RequestIds {
                seed,
                next: AtomicU64::new(0),
            }),
        }
    }

    /// The upstream's host and port (the configuration allows `http://host:port` only).
    pub fn upstream_authority(&self) -> Option<&axum::http::uri::Authority> {
        self.upstream_authority.as_ref()
    }

    /// This thread's pooled client to the upstream.
    pub fn client(&self) -> UpstreamClient {
        self.upstream.client()
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
        // 16 hex digits of the seed and 8 of the counter, which wraps: always 24.
        let mut id = String::with_capacity(24);
        push_hex(&mut id, self.ids.seed, 16);
        push_hex(&mut id, u64::from(n as u32), 8);
        id
    }

    /// A profile by name, or the default one.
    pub fn profile(&self, name: Option<&str>) -> Option<&Profile> {
        self.config
            .profiles
            .get(name.unwrap_or(&self.config.profile))
    }

    /// Evaluates off the async threads when the body is large.
    pub async fn evaluate(&self, profile: &Profile, request: Request) -> Evaluation {
        self.evaluate_and_return(profile, request).await.0
    }

    /// [`evaluate`](Self::evaluate), handing the request back (so that its body can be
    /// forwarded without a copy).
    pub async fn evaluate_and_return(
        &self,
        profile: &Profile,
        request: Request,
    ) -> (Evaluation, Request) {
        // A coded body may decode to far more than it is: it is decoded off the async threads.
        if request.body.len() < 64 * 1024 && !coded(&request) {
            return (utf8gate_policy::evaluate(profile, &request), request);
        }
        let profile = profile.clone();
        let evaluated = tokio::task::spawn_blocking(move || {
            (utf8gate_policy::evaluate(&profile, &request), request)
        });
        match evaluated.await {
            Ok(e) => e,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }

    /// [`evaluate`](Self::evaluate) for an upload ([`utf8gate_policy::evaluate_upload`]): its
    /// body only.
    pub async fn evaluate_upload(&self, profile: &Profile, upload: Request) -> Evaluation {
        if upload.body.len() < 64 * 1024 && !coded(&upload) {
            return utf8gate_policy::evaluate_upload(profile, &upload);
        }
        let profile = profile.clone();
        let evaluated = tokio::task::spawn_blocking(move || {
            utf8gate_policy::evaluate_upload(&profile, &upload)
        });
        match evaluated.await {
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
        crate::logging::audit(&crate::logging::AuditLine {
            request_id,
            mode: mode.as_str(),
            decision: verdict.decision.as_str(),
            enforced: verdict.enforced,
            profile: verdict.profile.as_str(),
            kinds: &verdict.kinds().join(","),
            findings: verdict.counts.values().sum::<u64>(),
            status,
            duration_ms: seconds * 1000.0,
        });
    }
}

/// `true` if `request`'s body is declared coded (a content coding, a transfer coding other
/// than `chunked`), so that evaluating it decodes it.
fn coded(request: &Request) -> bool {
    request.headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-encoding")
            || (name.eq_ignore_ascii_case("transfer-encoding")
                && !value.eq_ignore_ascii_case(b"chunked"))
    })
}

/// Appends the `digits` low hex digits of `value`, lowercase, with leading zeros.
fn push_hex(out: &mut String, value: u64, digits: u32) {
    for k in (0..digits).rev() {
        out.push(char::from(
            b"0123456789abcdef"[((value >> (4 * k)) & 0xF) as usize],
        ));
    }
}

/// Reads a whole body up to `limit` bytes into one buffer (the only copy: frames are appended
/// as they arrive); a larger body, or a declared length over the limit, is a 413 problem.
pub async fn read_body<B>(
    state: &AppState,
    mut body: B,
    limit: usize,
    request_id: &str,
) -> Result<Vec<u8>, Problem>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
{
    let too_large = || {
        state.metrics.body_limit_exceeded();
        Problem::too_large(limit as u64, request_id)
    };
    let declared = body.size_hint().lower();
    if declared > limit as u64 {
        return Err(too_large());
    }
    let mut out = Vec::with_capacity(declared as usize);
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Err(Problem::bad_body(request_id));
        };
        if let Ok(data) = frame.into_data() {
            if data.len() > limit - out.len() {
                return Err(too_large());
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
}
