//! From HTTP to the policy's transport-neutral request, and back.

pub mod authority;
pub mod crumbs;
pub mod spare;

use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, request::Parts};
use compact_str::CompactString;
use utf8gate_policy::{Mode, Request};

/// The policy request for a received request: raw path, query and header bytes, the body.
pub fn to_policy(parts: &Parts, body: &[u8], mode: Mode) -> Request {
    to_policy_owning(parts, bytes::Bytes::copy_from_slice(body), mode)
}

/// [`to_policy`] taking the body as it is (no copy when the caller owns it alone).
pub fn to_policy_owning(parts: &Parts, body: bytes::Bytes, mode: Mode) -> Request {
    let target = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    let mut request = Request::new(parts.method.as_str(), target.as_bytes()).mode(mode);
    request.headers = headers(&parts.headers);
    request.body = body;
    request.host_required = mode == Mode::Proxy && parts.version == axum::http::Version::HTTP_11;
    request
}

/// Header names and raw values.
pub fn headers(map: &HeaderMap) -> Vec<(CompactString, Vec<u8>)> {
    map.iter()
        .map(|(n, v)| (CompactString::new(n.as_str()), v.as_bytes().to_vec()))
        .collect()
}

/// A header map from policy headers; `None` if a (rewritten) value cannot be sent.
pub fn to_header_map(headers: &[(CompactString, Vec<u8>)]) -> Option<HeaderMap> {
    let mut map = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        map.append(
            HeaderName::from_bytes(name.as_bytes()).ok()?,
            HeaderValue::from_bytes(value).ok()?,
        );
    }
    Some(map)
}

/// The method, or GET if it does not parse.
pub fn method(text: &str) -> Method {
    Method::from_bytes(text.as_bytes()).unwrap_or(Method::GET)
}

/// Hop-by-hop headers (RFC 9110 §7.6.1) plus those the `Connection` header names. Most
/// messages carry none, or only `Connection`: the names present are compared with the list
/// once, and only those present are removed (a removal hashes the name).
pub fn strip_hop_by_hop(map: &mut HeaderMap) {
    let is_hop_by_hop = |name: &str| HOP_BY_HOP.iter().any(|h| h.eq_ignore_ascii_case(name));
    if !map.keys().any(|name| is_hop_by_hop(name.as_str())) {
        return;
    }
    let present: Vec<HeaderName> = map
        .keys()
        .filter(|name| is_hop_by_hop(name.as_str()))
        .cloned()
        .collect();
    // Names that `Connection` lists besides the fixed ones (usually none: `keep-alive`).
    let named: Vec<HeaderName> = map
        .get_all(axum::http::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty() && !is_hop_by_hop(n))
        .filter_map(|n| HeaderName::from_bytes(n.as_bytes()).ok())
        .filter(|n| map.contains_key(n))
        .collect();
    for name in present.into_iter().chain(named) {
        map.remove(name);
    }
}

/// Moves the transfer codings other than `chunked` (`Transfer-Encoding: gzip, chunked`) onto
/// `Content-Encoding`, after the content codings: the body is forwarded as received, with a
/// `Content-Length`, and the next hop must still undo those codings (RFC 9112 §6.1 makes transfer
/// codings hop-by-hop). The policy evaluated the body with both lists undone.
pub fn transfer_codings_to_content(map: &mut HeaderMap) {
    let codings: Vec<String> = map
        .get_all(axum::http::header::TRANSFER_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "chunked" && c != "identity")
        .collect();
    if codings.is_empty() {
        return;
    }
    let mut list: Vec<String> = map
        .get_all(axum::http::header::CONTENT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_string)
        .collect();
    list.extend(codings);
    if let Ok(v) = HeaderValue::from_str(&list.join(", ")) {
        map.insert(axum::http::header::CONTENT_ENCODING, v);
    }
}

/// The hop-by-hop fields of RFC 9110 §7.6.1 (and their older kin), lowercase as header names
/// are stored; compared as text, which costs a length test per name that is not one of them.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "proxy-authenticate",
    "proxy-authorization",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_hop_by_hop_name_is_stripped_alone() {
        for name in HOP_BY_HOP {
            let mut map = HeaderMap::new();
            map.insert(HeaderName::from_static(name), HeaderValue::from_static("x"));
            map.insert("x-keep", HeaderValue::from_static("1"));
            strip_hop_by_hop(&mut map);
            assert_eq!(map.len(), 1, "{name}");
            assert!(map.contains_key("x-keep"));
        }
    }

    #[test]
    fn transfer_codings_move_onto_the_content() {
        let mut map = HeaderMap::new();
        map.append(
            "transfer-encoding",
            HeaderValue::from_static("gzip, chunked"),
        );
        map.append("content-encoding", HeaderValue::from_static("br"));
        transfer_codings_to_content(&mut map);
        assert_eq!(map["content-encoding"], "br, gzip");
        let mut plain = HeaderMap::new();
        plain.append("transfer-encoding", HeaderValue::from_static("chunked"));
        transfer_codings_to_content(&mut plain);
        assert!(!plain.contains_key("content-encoding"));
    }

    #[test]
    fn keeps_raw_bytes_and_strips_hop_by_hop() {
        let (parts, _) = axum::http::Request::builder()
            .uri("/a/%C0%AE?q=%E2%82")
            .header("x-raw", HeaderValue::from_bytes(b"\xC0\xAE").unwrap())
            .body(())
            .unwrap()
            .into_parts();
        let r = to_policy(&parts, b"body", Mode::Proxy);
        assert_eq!(r.path, b"/a/%C0%AE");
        assert_eq!(r.query.as_deref(), Some(&b"q=%E2%82"[..]));
        assert_eq!(r.headers, [("x-raw".into(), b"\xC0\xAE".to_vec())]);
        let mut map = HeaderMap::new();
        map.insert("connection", HeaderValue::from_static("close, x-secret"));
        map.insert("x-secret", HeaderValue::from_static("1"));
        map.insert("te", HeaderValue::from_static("trailers"));
        map.insert("x-keep", HeaderValue::from_static("1"));
        strip_hop_by_hop(&mut map);
        assert_eq!(map.len(), 1);
        assert!(map.contains_key("x-keep"));
    }
}
