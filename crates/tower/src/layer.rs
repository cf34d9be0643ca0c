//! The layer and its service: a request's body collected up to the limit, the request evaluated,
//! then passed on (as received or sanitized, the verdict in its extensions) or refused.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderValue};
use http::{Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tower_layer::Layer;
use tower_service::Service;
use utf8gate_policy::Profile;
use utf8gate_policy::answer::{Answer, Answering, DECISION_HEADER, PROBLEM_JSON, REJECTED};

use crate::convert::{self, Unsendable};

/// The server's `limits.max_body_bytes` default: 8 MiB.
const DEFAULT_MAX_BODY_BYTES: usize = 8 << 20;

/// What every request of a layer is evaluated under.
#[derive(Debug, Clone)]
struct Settings {
    profile: Profile,
    answering: Answering,
    max_body_bytes: usize,
}

/// Checks every request of the service it wraps with a utf8gate profile: allowed requests go
/// on as received, sanitized ones rewritten, rejected ones are answered with the proxy's
/// problem+json (status `reject_status`, 400 by default; 413 for a body over the limit).
#[derive(Debug, Clone)]
pub struct Utf8GateLayer {
    settings: Arc<Settings>,
}

impl Utf8GateLayer {
    /// A layer evaluating under `profile`, with the server's defaults: bodies up to 8 MiB,
    /// rejections 400 with full detail.
    pub fn new(profile: Profile) -> Utf8GateLayer {
        Utf8GateLayer {
            settings: Arc::new(Settings {
                profile,
                answering: Answering::default(),
                max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            }),
        }
    }

    /// The most body bytes collected and read; a longer body is refused (413).
    pub fn max_body_bytes(self, bytes: usize) -> Utf8GateLayer {
        self.with(|s| s.max_body_bytes = bytes)
    }

    /// How refusals are answered (status, detail).
    pub fn answering(self, answering: Answering) -> Utf8GateLayer {
        self.with(|s| s.answering = answering)
    }

    fn with(self, change: impl FnOnce(&mut Settings)) -> Utf8GateLayer {
        let mut settings = Arc::unwrap_or_clone(self.settings);
        change(&mut settings);
        Utf8GateLayer {
            settings: Arc::new(settings),
        }
    }
}

impl<S> Layer<S> for Utf8GateLayer {
    type Service = Utf8Gate<S>;

    fn layer(&self, inner: S) -> Utf8Gate<S> {
        Utf8Gate {
            inner,
            settings: Arc::clone(&self.settings),
        }
    }
}

/// The service of [`Utf8GateLayer`].
#[derive(Debug, Clone)]
pub struct Utf8Gate<S> {
    inner: S,
    settings: Arc<Settings>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B, ResBody> Service<Request<B>> for Utf8Gate<S>
where
    S: Service<Request<B>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send,
    B: Body + From<Bytes> + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    ResBody: From<Bytes>,
{
    type Response = Response<ResBody>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<ResBody>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The service that was polled ready serves this request; its clone the next one.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let settings = Arc::clone(&self.settings);
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let id = parts.headers.get("x-request-id");
            let id = String::from_utf8_lossy(id.map_or(&b""[..], HeaderValue::as_bytes));
            let id = id.into_owned();
            let answering = &settings.answering;
            let body = match Limited::new(body, settings.max_body_bytes).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(error) if error.is::<LengthLimitError>() => {
                    let limit = settings.max_body_bytes as u64;
                    return Ok(problem(413, answering.too_large(limit, &id), "reject"));
                }
                Err(_) => {
                    let why = "the request body ended early or could not be read";
                    let document = answering.document(REJECTED, 400, why, &id, None);
                    return Ok(problem(400, document, "reject"));
                }
            };
            let received = convert::to_policy(&parts, body.clone());
            let body = match answering.answer(&settings.profile, &received, &id) {
                Answer::Refuse {
                    status, document, ..
                } => return Ok(problem(status, document, "reject")),
                Answer::Forward { verdict, sanitized } => {
                    let body = match sanitized {
                        None => body,
                        Some(s) => match convert::rewrite(&mut parts, &received, s) {
                            Ok(rewritten) => rewritten,
                            Err(Unsendable(why)) => {
                                let status = answering.reject_status;
                                let document =
                                    answering.document(REJECTED, status, why, &id, Some(&verdict));
                                return Ok(problem(status, document, "reject"));
                            }
                        },
                    };
                    parts.extensions.insert(verdict);
                    body
                }
            };
            inner.call(Request::from_parts(parts, B::from(body))).await
        })
    }
}

/// A problem+json response.
fn problem<ResBody: From<Bytes>>(
    status: u16,
    document: Vec<u8>,
    decision: &str,
) -> Response<ResBody> {
    let mut response = Response::new(ResBody::from(Bytes::from(document)));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
    if let Ok(decision) = HeaderValue::from_str(decision) {
        headers.insert(DECISION_HEADER, decision);
    }
    response
}
