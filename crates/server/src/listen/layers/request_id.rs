//! The request id: the request's own `x-request-id` when it is short and printable, else a new
//! one; put in the request's extensions as [`RequestId`] and sent back as
//! `utf8gate-request-id` on every response.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use axum::http::{HeaderMap, HeaderValue, Request};
use axum::response::Response;

use crate::listen::carried::Carried;
use crate::listen::layers::on_response::{Hook, OnResponse};
use crate::names::{REQUEST_ID, REQUEST_ID_IN};

mod id;
pub use id::RequestId;

/// The source of new ids: a random seed and a counter.
#[derive(Debug)]
pub struct RequestIds {
    seed: u64,
    next: AtomicU64,
}

impl RequestIds {
    /// A source with a seed of its own.
    pub fn new() -> RequestIds {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        RequestIds {
            seed: h.finish(),
            next: AtomicU64::new(0),
        }
    }

    /// The id of a request with `headers`.
    pub fn of(&self, headers: &HeaderMap) -> RequestId {
        if let Some(id) = headers.get(REQUEST_ID_IN) {
            let bytes = id.as_bytes();
            if !bytes.is_empty() && bytes.len() <= 64 && bytes.iter().all(u8::is_ascii_graphic) {
                return RequestId(id.clone());
            }
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        // 16 hex digits of the seed and 8 of the counter, which wraps: always 24.
        let mut text = [0u8; 24];
        hex(&mut text[..16], self.seed);
        hex(&mut text[16..], u64::from(n as u32));
        RequestId(HeaderValue::from_bytes(&text).unwrap_or(HeaderValue::from_static("-")))
    }
}

/// Writes the low hex digits of `value` into `out`, lowercase, with leading zeros.
fn hex(out: &mut [u8], value: u64) {
    let digits = out.len();
    for (k, d) in out.iter_mut().enumerate() {
        *d = b"0123456789abcdef"[((value >> (4 * (digits - 1 - k))) & 0xF) as usize];
    }
}

impl Default for RequestIds {
    fn default() -> RequestIds {
        RequestIds::new()
    }
}

/// Gives each request an id (one source per listener stack).
#[derive(Clone, Debug, Default)]
pub struct RequestIdLayer(Arc<RequestIds>);

impl<S> tower::Layer<S> for RequestIdLayer {
    type Service = SetRequestId<S>;
    fn layer(&self, inner: S) -> SetRequestId<S> {
        SetRequestId {
            inner,
            ids: self.0.clone(),
        }
    }
}

/// The service of [`RequestIdLayer`].
#[derive(Clone, Debug)]
pub struct SetRequestId<S> {
    inner: S,
    ids: Arc<RequestIds>,
}

impl<S, B> tower::Service<Request<B>> for SetRequestId<S>
where
    S: tower::Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = OnResponse<S::Future, SetHeader>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let id = self.ids.of(request.headers());
        let value = id.0.clone();
        Carried::of_mut(request.extensions_mut()).id = Some(id);
        OnResponse::new(self.inner.call(request), SetHeader(value))
    }
}

/// Sets `utf8gate-request-id` on the response.
pub struct SetHeader(HeaderValue);

impl Hook for SetHeader {
    fn on_response(self, response: &mut Response) {
        response.headers_mut().insert(REQUEST_ID, self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_printable_client_id_is_kept_and_others_replaced() {
        let ids = RequestIds::new();
        let with = |v: &[u8]| {
            let mut h = HeaderMap::new();
            h.insert(REQUEST_ID_IN, HeaderValue::from_bytes(v).unwrap());
            ids.of(&h).as_str().to_string()
        };
        assert_eq!(with(b"abc-123"), "abc-123");
        for bad in [&b"a b"[..], &[b'x'; 65][..], b"caf\xc3\xa9"] {
            let id = with(bad);
            assert_eq!(id.len(), 24, "{id}");
            assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        }
        let (a, b) = (ids.of(&HeaderMap::new()), ids.of(&HeaderMap::new()));
        assert_ne!(a.as_str(), b.as_str());
        assert_eq!(a.as_str()[..16], b.as_str()[..16]);
    }
}
