//! WebSocket through the proxy (RFC 6455): the handshake checked on both sides, then a tunnel
//! that reads every frame ([`tunnel`]).
//!
//! A request with `Upgrade` is refused here unless it is a well-formed WebSocket opening
//! handshake (§4.1: HTTP/1.1 GET, `Connection: Upgrade`, `Upgrade: websocket`, a 16-byte
//! `Sec-WebSocket-Key`, `Sec-WebSocket-Version: 13`, no body); other tokens (`h2c`, custom
//! protocols) are never tunnelled. A handshake is then evaluated as any request (the proxy's
//! handler does that), and sent upstream on a connection of its own with its handshake fields
//! (`Sec-WebSocket-Extensions` removed: no extension, so no compressed message, is ever
//! negotiated). Only a `101` with the `Sec-WebSocket-Accept` of the key sent opens a tunnel;
//! any other answer is relayed as an ordinary response and the client's connection goes on as
//! HTTP (a `200` or `426` followed by tunnelled bytes is a smuggling trick).

use std::sync::Arc;

use axum::http::header::{
    CONNECTION, CONTENT_LENGTH, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_EXTENSIONS, SEC_WEBSOCKET_KEY,
    SEC_WEBSOCKET_PROTOCOL, SEC_WEBSOCKET_VERSION, TRANSFER_ENCODING, UPGRADE,
};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, Version, request::Parts};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;

use crate::listen::carried::Carried;
use crate::listen::layers::request_id::RequestId;
use crate::listen::serve::Draining;
use crate::ops::config::Config;
use crate::ops::metrics::UpstreamError;
use crate::problem::{Problem, ProblemKind};
use crate::routes::Route;
use crate::state::AppState;

use super::clients::Secured;

mod frame;
mod judge;
mod message;
mod tunnel;

/// The GUID of §1.3 that the accept key hashes with the client's key.
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// A client's opening handshake, checked: what the upstream's answer is checked against, and
/// the client's side of the tunnel.
pub(super) struct Handshake {
    /// The `Sec-WebSocket-Accept` the upstream must answer.
    accept: String,
    /// The subprotocols offered (`Sec-WebSocket-Protocol`), one of which the upstream may pick.
    protocols: Vec<String>,
    /// The client's connection, once the 101 has been sent.
    client: OnUpgrade,
    /// The tunnel's place under `websocket.max_tunnels`.
    permit: OwnedSemaphorePermit,
    /// The listener's stop signal and a hold on its drain.
    draining: Option<Draining>,
}

/// The tokens of every line of a comma-separated header.
fn tokens<'a>(headers: &'a HeaderMap, name: &axum::http::HeaderName) -> Vec<&'a str> {
    (headers.get_all(name).iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect()
}

/// The one value of a header sent once.
fn single<'a>(headers: &'a HeaderMap, name: &axum::http::HeaderName) -> Option<&'a [u8]> {
    let mut all = headers.get_all(name).iter();
    match (all.next(), all.next()) {
        (Some(v), None) => Some(v.as_bytes()),
        _ => None,
    }
}

fn bad(detail: &str) -> Problem {
    Problem::new(ProblemKind::BadHandshake, detail.to_string())
}

/// `Sec-WebSocket-Accept` for `key` (§4.2.2): base64 of the SHA-1 of the key and the GUID.
pub(super) fn accept_key(key: &[u8]) -> String {
    let mut sha1 = sha1_smol::Sha1::new();
    sha1.update(key);
    sha1.update(GUID.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(sha1.digest().bytes())
}

/// The WebSocket handshake of a request with `Upgrade`, or the problem that refuses it;
/// `Ok(None)` for a request without `Upgrade` (an ordinary request).
pub(super) fn handshake(
    state: &AppState,
    config: &Config,
    parts: &mut Parts,
) -> Result<Option<Handshake>, Problem> {
    let headers = &parts.headers;
    if !headers.contains_key(UPGRADE) {
        return Ok(None);
    }
    let upgrade = tokens(headers, &UPGRADE);
    if !matches!(upgrade[..], [one] if one.eq_ignore_ascii_case("websocket")) {
        let detail = "the proxy lets only WebSocket upgrades through (Upgrade: websocket); \
                      h2c and other protocols are refused";
        return Err(Problem::new(ProblemKind::UpgradeRefused, detail));
    }
    if !config.websocket.enabled {
        let detail = "WebSocket upgrades are turned off here (websocket.enabled = false)";
        return Err(Problem::new(ProblemKind::UpgradeRefused, detail));
    }
    if parts.version != Version::HTTP_11 || parts.method != Method::GET {
        return Err(bad("a WebSocket handshake is an HTTP/1.1 GET"));
    }
    if !tokens(headers, &CONNECTION)
        .iter()
        .any(|t| t.eq_ignore_ascii_case("upgrade"))
    {
        return Err(bad("a WebSocket handshake says Connection: Upgrade"));
    }
    if single(headers, &SEC_WEBSOCKET_VERSION) != Some(b"13") {
        let detail =
            "this proxy speaks WebSocket version 13 only (Sec-WebSocket-Version: 13, once)";
        return Err(Problem::new(ProblemKind::WebSocketVersion, detail));
    }
    let key = single(headers, &SEC_WEBSOCKET_KEY).filter(|key| {
        let decoded = base64::engine::general_purpose::STANDARD.decode(key);
        decoded.is_ok_and(|k| k.len() == 16)
    });
    let Some(key) = key else {
        return Err(bad("Sec-WebSocket-Key must be 16 bytes in base64, once"));
    };
    let length = headers.get(CONTENT_LENGTH).map(HeaderValue::as_bytes);
    if headers.contains_key(TRANSFER_ENCODING) || length.is_some_and(|l| l != b"0") {
        return Err(bad("a WebSocket handshake has no body"));
    }
    let accept = accept_key(key);
    let protocols = tokens(headers, &SEC_WEBSOCKET_PROTOCOL)
        .into_iter()
        .map(str::to_string)
        .collect();
    let Some(client) = parts.extensions.remove::<OnUpgrade>() else {
        return Err(bad("this connection cannot be upgraded"));
    };
    let Ok(permit) = state.tunnels.clone().try_acquire_owned() else {
        let detail = "too many WebSocket tunnels are open (websocket.max_tunnels)";
        return Err(Problem::new(ProblemKind::Overloaded, detail));
    };
    Ok(Some(Handshake {
        accept,
        protocols,
        client,
        permit,
        draining: Carried::of_mut(&mut parts.extensions).draining.take(),
    }))
}

/// Where a handshake goes: the upstream's host and port, the request, its handshake fields, and
/// the upstream's TLS if it is `https://`.
pub(super) type To<'a> = (
    &'a Authority,
    axum::http::Request<Full<Bytes>>,
    Handshake,
    Option<&'a Secured>,
);

/// An HTTP/1.1 client connection on `stream`, driven by a task of its own that lets it be
/// upgraded.
async fn opened<I>(stream: I) -> Result<SendRequest<Full<Bytes>>, String>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = connection.with_upgrades().await;
    });
    Ok(sender)
}

/// Sends the evaluated handshake `request` to the upstream at `authority` on a connection of
/// its own; opens the tunnel on a `101` with the right accept key (answered `101` to the client),
/// relays any other answer, refuses a wrong `101` (502).
pub(super) async fn exchange(
    state: &AppState,
    config: &Config,
    (authority, mut request, handshake, secured): To<'_>,
    route: Arc<Route>,
    id: Option<RequestId>,
) -> Response {
    // The handshake goes over HTTP/1.1 even to an h2c upstream: the origin form, never the
    // absolute one an HTTP/2 request carries.
    if let Some(target) = request.uri().path_and_query().cloned() {
        *request.uri_mut() = Uri::from(target);
    }
    *request.version_mut() = Version::HTTP_11;
    let headers = request.headers_mut();
    headers.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.remove(SEC_WEBSOCKET_EXTENSIONS);
    let request_id = id.as_ref().map_or("-", RequestId::as_str).to_string();
    let answered = tokio::time::timeout(config.response_timeout, async {
        let address = format!(
            "{}:{}",
            authority.host(),
            authority.port_u16().unwrap_or(80)
        );
        let stream = tokio::time::timeout(config.connect_timeout, TcpStream::connect(address))
            .await
            .map_err(|_| "connect: timed out".to_string())?
            .map_err(|e| format!("connect: {e}"))?;
        let _ = stream.set_nodelay(true);
        let mut sender = match secured {
            None => opened(stream).await?,
            Some(tls) => {
                let connector = tokio_rustls::TlsConnector::from(tls.config.clone());
                let stream = (connector.connect(tls.name.clone(), stream).await)
                    .map_err(|e| format!("TLS: {e}"))?;
                opened(stream).await?
            }
        };
        sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())
    })
    .await;
    let mut response = match answered {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => {
            state.metrics.upstream_failed(UpstreamError::Connect);
            tracing::warn!(request_id, error = %e, "upstream WebSocket handshake failed");
            let detail = "the upstream refused or reset the connection";
            return Problem::new(ProblemKind::UpstreamUnavailable, detail).into_response();
        }
        Err(_) => {
            state.metrics.upstream_failed(UpstreamError::Timeout);
            let detail = "the upstream did not answer in time";
            return Problem::new(ProblemKind::UpstreamTimeout, detail).into_response();
        }
    };
    if response.status() != StatusCode::SWITCHING_PROTOCOLS {
        // Not a tunnel: an ordinary answer, and the client's connection stays HTTP.
        return super::upstream::streamed(state, response, id);
    }
    let upstream = hyper::upgrade::on(&mut response);
    if let Err(why) = check_answer(response.headers(), &handshake.accept, &handshake.protocols) {
        tracing::warn!(
            request_id,
            why,
            "upstream answered the WebSocket handshake wrongly"
        );
        let detail = format!("the upstream's WebSocket handshake is wrong: {why}");
        return Problem::new(ProblemKind::UpstreamHandshake, detail).into_response();
    }
    let (mut parts, _) = response.into_parts();
    crate::convert::strip_hop_by_hop(&mut parts.headers);
    parts
        .headers
        .insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    parts
        .headers
        .insert(UPGRADE, HeaderValue::from_static("websocket"));
    let Handshake {
        client,
        permit,
        draining,
        ..
    } = handshake;
    let tunnel = tunnel::Tunnel::new(state, &config.websocket, route, request_id, draining);
    tokio::spawn(async move {
        let (client, upstream) = tokio::join!(client, upstream);
        match (client, upstream) {
            (Ok(client), Ok(upstream)) => tunnel.run(client, upstream).await,
            _ => tunnel.not_opened(),
        }
        drop(permit);
    });
    Response::from_parts(parts, axum::body::Body::empty())
}

/// Whether a `101` answers the handshake sent (§4.1, the client's checks): `Upgrade:
/// websocket`, `Connection: Upgrade`, the accept key of the key sent, no extension (none was
/// offered), a subprotocol only if it was offered.
fn check_answer(headers: &HeaderMap, accept: &str, offered: &[String]) -> Result<(), &'static str> {
    let upgrade = tokens(headers, &UPGRADE);
    if !matches!(upgrade[..], [one] if one.eq_ignore_ascii_case("websocket")) {
        return Err("Upgrade is not websocket");
    }
    if !(tokens(headers, &CONNECTION).iter()).any(|t| t.eq_ignore_ascii_case("upgrade")) {
        return Err("Connection is not Upgrade");
    }
    if single(headers, &SEC_WEBSOCKET_ACCEPT) != Some(accept.as_bytes()) {
        return Err("Sec-WebSocket-Accept does not match the key sent");
    }
    if headers.contains_key(SEC_WEBSOCKET_EXTENSIONS) {
        return Err("an extension that was not offered");
    }
    match single(headers, &SEC_WEBSOCKET_PROTOCOL) {
        None if !headers.contains_key(SEC_WEBSOCKET_PROTOCOL) => Ok(()),
        Some(p) if offered.iter().any(|o| o.as_bytes() == p) => Ok(()),
        _ => Err("a subprotocol that was not offered"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accept_key_of_rfc_6455() {
        // RFC 6455 §1.3's example.
        let accept = accept_key(b"dGhlIHNhbXBsZSBub25jZQ==");
        assert_eq!(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }

    #[test]
    fn an_answer_must_match_the_handshake_sent() {
        let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
        let offered = ["chat".to_string(), "superchat".to_string()];
        let answer = |extra: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            h.insert(UPGRADE, HeaderValue::from_static("WebSocket"));
            h.insert(CONNECTION, HeaderValue::from_static("upgrade"));
            h.insert(SEC_WEBSOCKET_ACCEPT, HeaderValue::from_static(accept));
            for (name, value) in extra {
                h.insert(*name, HeaderValue::from_static(value));
            }
            check_answer(&h, accept, &offered)
        };
        assert_eq!(answer(&[]), Ok(()));
        assert_eq!(answer(&[("sec-websocket-protocol", "chat")]), Ok(()));
        assert!(answer(&[("sec-websocket-protocol", "other")]).is_err());
        assert!(answer(&[("sec-websocket-extensions", "permessage-deflate")]).is_err());
        assert!(answer(&[("sec-websocket-accept", "AAAA")]).is_err());
        assert!(answer(&[("upgrade", "h2c")]).is_err());
        assert!(answer(&[("connection", "keep-alive")]).is_err());
    }
}
