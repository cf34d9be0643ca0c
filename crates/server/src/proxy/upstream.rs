//! The upstream: the idle HTTP/1.1 connections of a serving thread ([`Pool`]) or, with
//! `upstream.http2`, hyper-util's h2c client, or for an `https://` upstream hyper-util's client
//! over hyper-rustls (ALPN `h2` and `http/1.1`, the upstream's choice spoken), and the forwarding of an evaluated request (its
//! head cleaned of hop-by-hop headers and given the forwarding headers, its response streamed
//! back).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::uri::{Authority, PathAndQuery, Scheme};
use axum::http::{HeaderValue, Uri, header, request::Parts};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use utf8gate_policy::Decision;

use crate::convert;
use crate::gate::{Outcome, Passed};
use crate::listen::layers::request_id::RequestId;
use crate::listen::peer::Peer;
use crate::names::{DECISION, REQUEST_ID_IN};
use crate::ops::config::{Config, upstream_is_https};
use crate::ops::metrics::UpstreamError;
use crate::problem::{Problem, ProblemKind};
use crate::state::AppState;

use super::clients::{self, H2cClient, HttpsClient, Secured};
use super::forwarded;
use super::pool::Pool;

/// What goes upstream.
pub(super) enum Outgoing {
    /// The request as received (allowed, or rejected in monitor mode): its head and its body,
    /// byte for byte, without a copy.
    Received(Bytes),
    /// The sanitized request.
    Rewritten(utf8gate_policy::Request),
}

impl Outgoing {
    /// What the gate's outcome sends upstream (the received body moved out of the evaluated
    /// request, not copied), or the problem it refuses the request with.
    pub(super) fn of(passed: &mut Passed) -> Result<Outgoing, Problem> {
        match std::mem::replace(&mut passed.outcome, Outcome::Forward) {
            Outcome::Refuse(problem) => Err(problem),
            Outcome::Rewritten(rewritten) => Ok(Outgoing::Rewritten(rewritten)),
            Outcome::Forward | Outcome::Report(_) => {
                Ok(Outgoing::Received(std::mem::take(&mut passed.request.body)))
            }
        }
    }
}

/// Who sent the request and what the gate decided: (peer, trusted, decision, request id).
pub(super) type Sent<'a> = (Option<&'a Peer>, bool, Decision, Option<&'a RequestId>);

/// How requests reach the upstream.
enum Transport {
    /// HTTP/1.1 keep-alive connections of this thread.
    Http1(Arc<Pool>),
    /// h2c with prior knowledge: one connection carries many requests at once.
    Http2(Box<H2cClient>),
    /// TLS, with HTTP/2 or HTTP/1.1 as ALPN chooses.
    Https(Box<HttpsClient>),
    /// An `https://` upstream whose TLS settings do not load (why); `serve` checks them at
    /// start-up, so only a state built otherwise meets it.
    Unusable(String),
}

/// The upstream of one serving thread.
pub(super) struct Upstream {
    transport: Transport,
    /// `upstream.url`'s host and port, parsed once.
    authority: Option<Authority>,
    /// An `https://` upstream's TLS for connections of their own.
    secured: Option<Secured>,
}

impl Upstream {
    /// A client with `config`'s connect timeout and idle-connection limits, to `config`'s
    /// upstream.
    pub(super) fn new(config: &Config) -> Upstream {
        let authority =
            (config.upstream.as_deref()).and_then(crate::ops::config::upstream_authority);
        let https = config.upstream.as_deref().is_some_and(upstream_is_https);
        let mut secured = None;
        let transport = match &authority {
            None => Transport::Unusable("no upstream is configured".into()),
            Some(authority) if https => match clients::https(config, authority) {
                Ok((client, tunnels)) => {
                    secured = Some(tunnels);
                    Transport::Https(Box::new(client))
                }
                Err(why) => {
                    tracing::error!(error = %why, "the https upstream's TLS does not load");
                    Transport::Unusable(why)
                }
            },
            Some(authority) if config.upstream_http2 => {
                Transport::Http2(Box::new(clients::h2c(config, authority)))
            }
            Some(authority) => Transport::Http1(Pool::new(
                authority.host(),
                authority.port_u16().unwrap_or(80),
                config.connect_timeout,
                config.upstream_idle_timeout,
                config.upstream_max_idle,
            )),
        };
        Upstream {
            transport,
            authority,
            secured,
        }
    }

    /// An `https://` upstream's TLS for connections of their own.
    pub(super) fn secured(&self) -> Option<&Secured> {
        self.secured.as_ref()
    }

    /// `upstream.url`'s host and port.
    pub(super) fn authority(&self) -> Option<&Authority> {
        self.authority.as_ref()
    }

    /// Sends the request upstream and streams its response back.
    pub(super) async fn forward(
        &self,
        state: &AppState,
        config: &Config,
        parts: Parts,
        outgoing: Outgoing,
        sent: Sent<'_>,
    ) -> Response {
        let id = sent.3.cloned();
        match self.request(parts, outgoing, sent) {
            Ok(outgoing) => {
                self.exchange(state, config.response_timeout, outgoing, id)
                    .await
            }
            Err(problem) => problem.into_response(),
        }
    }

    /// The request to send upstream: the evaluated head without its hop-by-hop fields, with
    /// the forwarding headers, and the body; or the problem that stops it.
    pub(super) fn request(
        &self,
        parts: Parts,
        outgoing: Outgoing,
        (peer, trusted, decision, id): Sent<'_>,
    ) -> Result<axum::http::Request<Full<Bytes>>, Problem> {
        let Some(authority) = &self.authority else {
            return Err(Problem::new(
                ProblemKind::NoUpstream,
                "no upstream is configured",
            ));
        };
        let had_length = parts.headers.contains_key(header::CONTENT_LENGTH);
        let (method, target, headers, body) = match outgoing {
            // The received head is moved, not copied.
            Outgoing::Received(body) => (
                parts.method,
                Some(
                    parts
                        .uri
                        .into_parts()
                        .path_and_query
                        .unwrap_or_else(|| PathAndQuery::from_static("/")),
                ),
                Some(parts.headers),
                body,
            ),
            Outgoing::Rewritten(request) => (
                convert::method(&request.method),
                PathAndQuery::try_from(request.target()).ok(),
                convert::to_header_map(&request.headers),
                request.body,
            ),
        };
        let mut uri = axum::http::uri::Parts::default();
        match self.transport {
            Transport::Http2(_) => uri.scheme = Some(Scheme::HTTP),
            Transport::Https(_) => uri.scheme = Some(Scheme::HTTPS),
            Transport::Http1(_) | Transport::Unusable(_) => {}
        }
        if uri.scheme.is_some() {
            // The client's authority, as its Host says: over HTTP/2 `:authority`, which must
            // name what Host does (RFC 9113 §8.3.1); the connection goes to the upstream.
            let host = headers.as_ref().and_then(|h| h.get(header::HOST));
            let named = host.and_then(|h| Authority::try_from(h.as_bytes()).ok());
            uri.authority = Some(named.unwrap_or_else(|| authority.clone()));
        }
        // An HTTP/1.1 connection writes the URI as given: the origin form.
        uri.path_and_query = target;
        let uri = match Uri::from_parts(uri) {
            // A rewritten target that is not a valid one has no path and query here.
            Ok(uri) if uri.path_and_query().is_some() => uri,
            _ => {
                let detail = "the request target cannot be forwarded";
                return Err(Problem::new(ProblemKind::BadTarget, detail));
            }
        };
        let Some(mut headers) = headers else {
            let detail = "a rewritten header value cannot be sent";
            return Err(Problem::new(ProblemKind::BadHeader, detail));
        };
        // Transfer codings end at this hop; the codings other than chunked stay on the content.
        convert::transfer_codings_to_content(&mut headers);
        convert::strip_hop_by_hop(&mut headers);
        if !body.is_empty() || had_length {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        } else {
            headers.remove(header::CONTENT_LENGTH);
        }
        if let Some(peer) = peer {
            forwarded::set(&mut headers, peer, trusted);
        }
        if decision == Decision::Sanitize {
            headers.insert(DECISION, HeaderValue::from_static("sanitize"));
        }
        if let Some(id) = id {
            headers.insert(REQUEST_ID_IN, id.0.clone());
        }
        if !headers.contains_key(header::HOST) {
            // As hyper-util's client does: a request without `Host` gets the upstream's.
            if let Ok(host) = HeaderValue::from_str(authority.as_str()) {
                headers.insert(header::HOST, host);
            }
        }
        let mut outgoing = axum::http::Request::new(Full::new(body));
        *outgoing.method_mut() = method;
        *outgoing.uri_mut() = uri;
        *outgoing.headers_mut() = headers;
        Ok(outgoing)
    }

    /// The upstream's response, streamed through, or the problem of its failure.
    async fn exchange(
        &self,
        state: &AppState,
        response_timeout: Duration,
        outgoing: axum::http::Request<Full<Bytes>>,
        id: Option<RequestId>,
    ) -> Response {
        let sent = Instant::now();
        let exchanged = async {
            match &self.transport {
                Transport::Http1(pool) => match pool.send(outgoing).await {
                    Ok(response) => Ok(streamed(state, response, id.clone())),
                    Err(e) => Err(e.to_string()),
                },
                Transport::Http2(client) => match client.request(outgoing).await {
                    Ok(response) => Ok(streamed(state, response, id.clone())),
                    Err(e) => Err(e.to_string()),
                },
                Transport::Https(client) => match client.request(outgoing).await {
                    Ok(response) => Ok(streamed(state, response, id.clone())),
                    Err(e) => Err(error_chain(&e)),
                },
                Transport::Unusable(why) => Err(why.clone()),
            }
        };
        let answered = tokio::time::timeout(response_timeout, exchanged).await;
        let metrics = &state.metrics;
        match answered {
            Ok(Ok(response)) => {
                metrics.upstream_answered(sent.elapsed().as_secs_f64());
                response
            }
            Ok(Err(e)) => {
                metrics.upstream_failed(UpstreamError::Connect);
                let request_id = id.as_ref().map_or("-", RequestId::as_str);
                tracing::warn!(request_id, error = %e, "upstream request failed");
                let detail = "the upstream refused or reset the connection";
                Problem::new(ProblemKind::UpstreamUnavailable, detail).into_response()
            }
            Err(_) => {
                metrics.upstream_failed(UpstreamError::Timeout);
                let detail = "the upstream did not answer in time";
                Problem::new(ProblemKind::UpstreamTimeout, detail).into_response()
            }
        }
    }
}

/// An error and its sources, one line (a TLS failure is the source of a connect error).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

/// The upstream's response with its hop-by-hop headers removed and its body streamed through:
/// an upstream that fails mid-body makes this response fail too (the client's connection is
/// cut), never a truncated body passed off as complete.
pub(super) fn streamed<B>(
    state: &AppState,
    response: axum::http::Response<B>,
    id: Option<RequestId>,
) -> Response
where
    B: hyper::body::Body<Data = Bytes> + Send + 'static,
    B::Error: std::fmt::Display + Into<axum::BoxError>,
{
    let (mut parts, body) = response.into_parts();
    convert::strip_hop_by_hop(&mut parts.headers);
    let metrics = state.metrics.clone();
    let body = body.map_err(move |e| {
        metrics.upstream_failed(UpstreamError::Body);
        let request_id = id.as_ref().map_or("-", RequestId::as_str);
        tracing::warn!(request_id, error = %e, "upstream failed mid-body; client connection cut");
        e
    });
    Response::from_parts(parts, Body::new(body))
}
