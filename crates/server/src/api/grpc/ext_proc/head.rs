//! The request head an `ext_proc` stream's `request_headers` message carries, as a policy
//! [`Request`]: `:method`, `:path` (raw target), `:authority` (as `Host` when there is none)
//! and every other header with its `raw_value` bytes, read as the gRPC check reads its
//! `header_map` (`grpc::described::raw_headers`). A header that came as a string only marks the
//! request `string_fields_only`.

use axum::http::HeaderMap;
use envoy_types::pb::envoy::service::ext_proc::v3::HttpHeaders;
use utf8gate_policy::{Mode, Request};

use crate::api::grpc::described::{RawHeaders, id_headers, raw_headers};

/// A head and what the stream says of its body.
pub(super) struct Head {
    /// The request as the policy reads it, without a body.
    pub(super) request: Request,
    /// `x-request-id` of the request, when it has one.
    pub(super) id_headers: HeaderMap,
    /// The request has no body (`end_of_stream` on its headers).
    pub(super) ends: bool,
    /// The client's `Accept` values: a browser gets the page.
    pub(super) accept: Vec<Vec<u8>>,
}

/// Reads `headers`.
pub(super) fn request(headers: HttpHeaders) -> Head {
    let RawHeaders { head, blind } =
        raw_headers(headers.headers.map(|m| m.headers).unwrap_or_default());
    let mut request = head.into_request().mode(Mode::ExtProc);
    let id_headers = id_headers(&request.headers);
    let accept = (request.headers.iter())
        .filter(|(k, _)| k == "accept")
        .map(|(_, v)| v.clone())
        .collect();
    request.string_fields_only = blind;
    Head {
        request,
        id_headers,
        ends: headers.end_of_stream,
        accept,
    }
}

/// How many of `chunk`'s bytes end on a character boundary: an incomplete UTF-8 sequence at
/// its end (a lead byte and fewer continuation bytes than it announces) is left out, to be
/// sent with the next chunk. Bytes that are no UTF-8 at all are not held: the scan has found
/// them.
pub(super) fn complete_prefix(chunk: &[u8]) -> usize {
    let n = chunk.len();
    for back in 1..=n.min(3) {
        let b = chunk[n - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let want = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return n,
        };
        return if back < want { n - back } else { n };
    }
    n
}

#[cfg(test)]
mod tests {
    use envoy_types::pb::envoy::config::core::v3::{HeaderMap as EnvoyHeaders, HeaderValue as H};

    use super::*;

    fn raw(key: &str, value: &[u8]) -> H {
        H {
            key: key.into(),
            raw_value: value.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn raw_values_are_read_as_bytes() {
        let headers = HttpHeaders {
            headers: Some(EnvoyHeaders {
                headers: vec![
                    raw(":method", b"POST"),
                    raw(":path", b"/a/\xC0\xAE?q=1"),
                    raw(":authority", b"app.example"),
                    raw(":scheme", b"http"),
                    raw("x-id", b"\xFF"),
                    raw("x-request-id", b"abc"),
                ],
            }),
            end_of_stream: true,
            ..Default::default()
        };
        let head = request(headers);
        let r = &head.request;
        assert_eq!(
            (r.method.as_str(), &r.path[..]),
            ("POST", &b"/a/\xC0\xAE"[..])
        );
        assert_eq!(r.query.as_deref(), Some(&b"q=1"[..]));
        assert_eq!(r.header_value("x-id"), Some(&b"\xFF"[..]));
        assert_eq!(r.header_value("host"), Some(&b"app.example"[..]));
        assert_eq!(r.header_value(":scheme"), None);
        assert!(!r.string_fields_only && head.ends);
        assert_eq!(head.id_headers["x-request-id"], "abc");
    }

    #[test]
    fn a_string_only_header_marks_the_request_blind() {
        let headers = HttpHeaders {
            headers: Some(EnvoyHeaders {
                headers: vec![H {
                    key: "x-a".into(),
                    value: "b".into(),
                    ..Default::default()
                }],
            }),
            ..Default::default()
        };
        assert!(request(headers).request.string_fields_only);
    }

    /// Against `core::str`: the prefix kept is the longest one whose end is not inside a
    /// character that the rest of the text completes.
    #[test]
    fn the_prefix_held_back_is_an_incomplete_character_only() {
        let text = "aé€😀z".as_bytes();
        for cut in 0..=text.len() {
            let kept = complete_prefix(&text[..cut]);
            assert!(std::str::from_utf8(&text[..kept]).is_ok(), "{cut}");
            assert!(cut - kept < 4, "{cut}");
            let boundary = (0..=cut)
                .rev()
                .find(|&i| std::str::from_utf8(&text[..i]).is_ok());
            assert_eq!(Some(kept), boundary, "{cut}");
        }
        // Malformed bytes are not held back.
        for bad in [&b"a\x80"[..], b"a\xC0", b"a\xFF", b"\xE0\x80\x80"] {
            assert_eq!(complete_prefix(bad), bad.len(), "{bad:?}");
        }
    }
}
