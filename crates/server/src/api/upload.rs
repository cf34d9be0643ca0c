//! What the API's upload routes take from a request: the profile (`?profile=NAME`), the body
//! read within `max_body_bytes`, and the upload as a policy request (only its body and the
//! headers that say how to read it, never the API call's own path and headers).

use axum::extract::{FromRequest, FromRequestParts, Query};
use axum::http::{HeaderMap, HeaderValue, header, request::Parts};
use http_body_util::BodyExt;
use serde::Deserialize;
use utf8gate_policy::{BodyScan, Mode, Profile, Verdict};

use crate::budget::{Buffer, Charge};
use crate::listen::carried::Carried;
use crate::listen::layers::body_limit::read_whole;
use crate::ops::config::Config;
use crate::problem::{Problem, ProblemKind};
use crate::state::{AppState, Snapshot};

/// `?profile=NAME`: the profile the upload is checked with (the instance's default without it).
#[derive(Debug, Deserialize)]
pub struct ProfileParam {
    profile: Option<String>,
}

impl ProfileParam {
    /// The profile named, from the request's configuration `snapshot`.
    pub fn of<'a>(&self, snapshot: &'a Snapshot) -> Result<&'a Profile, Problem> {
        snapshot.gate.profile(self.profile.as_deref())
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ProfileParam {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        match Query::<ProfileParam>::from_request_parts(parts, state).await {
            Ok(Query(p)) => Ok(p),
            // Given twice, badly encoded, an unknown parameter's value.
            Err(e) => Err(Problem::new(ProblemKind::BadQuery, e.body_text())),
        }
    }
}

/// The request's head and its whole body, read within `limits.max_body_bytes` and charged to
/// the memory budget.
pub struct Whole {
    /// The request's head.
    pub parts: Parts,
    /// The body.
    pub body: bytes::Bytes,
    /// What the body holds of the memory budget: keep it as long as the body.
    pub charge: Charge,
}

impl FromRequest<AppState> for Whole {
    type Rejection = Problem;

    async fn from_request(
        request: axum::extract::Request,
        state: &AppState,
    ) -> Result<Self, Problem> {
        let (parts, body) = request.into_parts();
        let limit = Carried::snapshot(&parts.extensions, state)
            .config
            .max_body_bytes;
        let (body, charge) = read_whole(body, limit, &state.budget).await?;
        Ok(Whole {
            parts,
            body,
            charge,
        })
    }
}

/// The upload as a policy request.
pub fn upload(headers: &HeaderMap, body: bytes::Bytes) -> utf8gate_policy::Request {
    let mut r = utf8gate_policy::Request::new("POST", b"/").mode(Mode::Scan);
    // The media type says how the upload is read, its codings how it is decoded.
    for name in [
        header::CONTENT_TYPE,
        header::CONTENT_ENCODING,
        header::TRANSFER_ENCODING,
    ] {
        for value in headers.get_all(&name) {
            r.headers
                .push((name.as_str().into(), value.as_bytes().to_vec()));
        }
    }
    r.body = body;
    r
}

/// Whether a body of this content type is validated as it streams in (plain text in UTF-8 or
/// ASCII, octet streams, no content type).
pub fn streamable(headers: &HeaderMap) -> bool {
    utf8gate_policy::streamable(headers.get(header::CONTENT_TYPE).map(HeaderValue::as_bytes))
}

/// A streamed scan: the codec checks over the whole body (its codings undone on the way), up
/// to `max_scan_bytes`, and the body itself when it decodes to at most `max_body_bytes`.
pub enum Streamed {
    /// Small enough to be evaluated whole by the gate, with its charge.
    Whole(bytes::Bytes, Charge),
    /// The streaming checks' verdict.
    Scanned(Verdict),
}

/// Streams `body` through the codec checks of `profile`. The body is also kept whole, charged
/// to the memory budget, while it may still be evaluated whole (up to `max_body_bytes`); past
/// that, or with a declared length over it, only the streaming checks run, and nothing is
/// charged (one frame at a time is the connection's).
pub async fn stream(
    state: &AppState,
    config: &Config,
    profile: &Profile,
    headers: &HeaderMap,
    mut body: axum::body::Body,
) -> Result<Streamed, Problem> {
    let max_scan = config.max_scan_bytes;
    let max_buffer = config.max_body_bytes;
    let head = upload(headers, bytes::Bytes::new());
    let mut scan = BodyScan::for_body_of(profile, &head, max_scan);
    let hint = hyper::body::Body::size_hint(&body);
    if let Some(exact) = hint.exact() {
        scan.expect_len(exact);
    }
    let declared = hint.lower();
    let mut buffer = match declared <= max_buffer as u64 {
        true => Some(Buffer::new(&state.budget, max_buffer)),
        false => None,
    };
    if let Some(b) = buffer.as_mut() {
        b.declare(declared).await?;
    }
    let mut total: u64 = 0;
    while let Some(frame) = body.frame().await {
        let data = match frame.map(|f| f.into_data()) {
            Ok(Ok(data)) => data,
            Ok(Err(_)) => continue,
            Err(e) if crate::listen::layers::body_limit::over_limit(&e) => {
                return Err(Problem::too_large(max_scan));
            }
            Err(_) => return Err(Problem::bad_body()),
        };
        total += data.len() as u64;
        if total > max_scan {
            return Err(Problem::too_large(max_scan));
        }
        scan.feed(&data);
        if let Some(b) = buffer.as_mut() {
            if data.len() <= b.room() {
                b.extend(&data).await?;
            } else {
                buffer = None;
            }
        }
    }
    Ok(match buffer {
        Some(b) if scan.decoded_len() <= max_buffer as u64 => {
            let (bytes, charge) = b.into_parts();
            Streamed::Whole(bytes, charge)
        }
        _ => Streamed::Scanned(scan.finish()),
    })
}
