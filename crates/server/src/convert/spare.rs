//! The policy request of a serving thread's last proxied request, kept with its buffers (path,
//! query, the header list and each value) for the thread's next one: a head copied into the
//! policy's request allocates nothing once the thread has seen one as large. A fresh request
//! costs six or more allocations and frees (about 900 instructions a GET,
//! docs/BENCHMARKS.md).
//!
//! Every field is written anew ([`to_policy_reusing`] equals
//! [`to_policy_owning`](super::to_policy_owning), a test holds it after any earlier request),
//! and a request whose buffers grew past [`KEPT_BYTES`] is not kept.

use std::cell::RefCell;

use axum::http::request::Parts;
use bytes::Bytes;
use compact_str::CompactString;
use utf8gate_policy::{BodyState, Mode, Request};

/// The most buffer bytes a kept request may hold (a larger one is freed).
const KEPT_BYTES: usize = 16 * 1024;

thread_local! {
    static SPARE: RefCell<Option<Request>> = const { RefCell::new(None) };
}

/// [`to_policy_owning`](super::to_policy_owning), in the buffers of this thread's spare request
/// when there is one.
pub fn to_policy_reusing(parts: &Parts, body: Bytes, mode: Mode) -> Request {
    let Some(mut request) = SPARE.with_borrow_mut(Option::take) else {
        return super::to_policy_owning(parts, body, mode);
    };
    let target = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    // Every field, by name: a field added to the request must be written here too.
    let Request {
        mode: kept_mode,
        method,
        path: kept_path,
        query: kept_query,
        headers,
        body: kept_body,
        string_fields_only,
        host_required,
        body_state,
    } = &mut request;
    *kept_mode = Some(mode);
    *method = CompactString::new(parts.method.as_str());
    refill(kept_path, path.as_bytes());
    match (kept_query, query) {
        (Some(kept), Some(query)) => refill(kept, query.as_bytes()),
        (kept, query) => *kept = query.map(|q| q.as_bytes().to_vec()),
    }
    headers.truncate(parts.headers.len());
    for (k, (name, value)) in parts.headers.iter().enumerate() {
        match headers.get_mut(k) {
            Some((kept_name, kept_value)) => {
                if kept_name.as_str() != name.as_str() {
                    *kept_name = CompactString::new(name.as_str());
                }
                refill(kept_value, value.as_bytes());
            }
            None => headers.push((CompactString::new(name.as_str()), value.as_bytes().to_vec())),
        }
    }
    *kept_body = body;
    *string_fields_only = false;
    *host_required = mode == Mode::Proxy && parts.version == axum::http::Version::HTTP_11;
    *body_state = BodyState::Whole;
    request
}

/// Keeps `request`'s buffers for this thread's next [`to_policy_reusing`] (its body is
/// released now), unless they hold more than [`KEPT_BYTES`].
pub fn recycle(mut request: Request) {
    let held = request.path.capacity()
        + request.query.as_ref().map_or(0, Vec::capacity)
        + (request.headers.iter())
            .map(|(_, v)| v.capacity() + 32)
            .sum::<usize>();
    if held > KEPT_BYTES {
        return;
    }
    request.body = Bytes::new();
    SPARE.with_borrow_mut(|spare| *spare = Some(request));
}

/// `buffer` holding `bytes`, in its own allocation when it is large enough.
fn refill(buffer: &mut Vec<u8>, bytes: &[u8]) {
    buffer.clear();
    buffer.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use axum::http::{Request as Http, Version};
    use proptest::prelude::*;

    use super::*;

    /// A request's head from generated parts: a method, a target (with or without a query),
    /// header lines (names repeated, values of any bytes a header value may hold), a version.
    fn parts(
        method: &str,
        target: &str,
        headers: &[(String, Vec<u8>)],
        v11: bool,
    ) -> Option<Parts> {
        let mut http = Http::builder().method(method).uri(target);
        http = http.version(if v11 {
            Version::HTTP_11
        } else {
            Version::HTTP_2
        });
        for (name, value) in headers {
            http = http.header(name.as_str(), value.as_slice());
        }
        Some(http.body(()).ok()?.into_parts().0)
    }

    fn header() -> impl Strategy<Value = (String, Vec<u8>)> {
        let value =
            proptest::collection::vec(prop_oneof![0x20u8..0x7F, 0x80u8..=0xFF, Just(b'\t')], 0..40);
        (
            prop_oneof![
                Just("host".to_string()),
                Just("x-a".to_string()),
                "[a-z][a-z0-9-]{0,30}"
            ],
            value,
        )
    }

    proptest! {
        /// A request made in the spare's buffers equals one made afresh, whatever request the
        /// buffers held before.
        #[test]
        fn a_reused_request_equals_a_fresh_one(
            heads in proptest::collection::vec(
                (
                    prop_oneof![Just("GET"), Just("POST"), Just("PROPFIND")],
                    "/[a-z%./]{0,30}(\\?[a-z=&%]{0,20})?",
                    proptest::collection::vec(header(), 0..8),
                    any::<bool>(),
                    proptest::option::of(any::<bool>()),
                ),
                1..6,
            ),
        ) {
            for (method, target, headers, v11, mode) in heads {
                let Some(parts) = parts(method, &target, &headers, v11) else { continue };
                let mode = match mode {
                    None => Mode::Proxy,
                    Some(true) => Mode::Authz,
                    Some(false) => Mode::Scan,
                };
                let body = Bytes::from(target.clone().into_bytes());
                let fresh = super::super::to_policy_owning(&parts, body.clone(), mode);
                let mut reused = to_policy_reusing(&parts, body, mode);
                prop_assert_eq!(&reused, &fresh);
                // Dirty it as an evaluation's caller might before it is kept.
                reused.string_fields_only = true;
                reused.body_state = BodyState::Cut;
                recycle(reused);
            }
        }
    }

    #[test]
    fn a_large_request_is_not_kept() {
        let mut large = Request::new("GET", b"/");
        large.headers.push(("x".into(), vec![b'a'; KEPT_BYTES + 1]));
        SPARE.with_borrow_mut(|s| *s = None);
        recycle(large);
        assert!(SPARE.with_borrow(Option::is_none));
        recycle(Request::new("GET", b"/"));
        assert!(SPARE.with_borrow(Option::is_some));
    }
}
