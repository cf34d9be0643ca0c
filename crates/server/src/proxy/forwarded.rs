//! The forwarding headers the proxy listener sends upstream: `X-Forwarded-For`,
//! `X-Forwarded-Proto`, `X-Forwarded-Host` and RFC 7239 `Forwarded`.
//!
//! From a peer in `listen.trusted_proxies` (a TLS front such as HAProxy, nginx or Traefik) the
//! received values are kept: every `X-Forwarded-For` line, joined, with the peer appended; the
//! received `X-Forwarded-Proto` and `X-Forwarded-Host` (this hop's scheme, `http` or `https`,
//! and the `Host` when absent); the received `Forwarded` elements with a `for=<peer>` element
//! appended. From any other peer they are replaced, so a client cannot claim another address,
//! scheme or host.

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};

pub use crate::listen::peer::Peer;
use crate::ops::config::Config;

/// `X-Forwarded-For`.
pub const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
/// `X-Forwarded-Proto`.
pub const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");
/// `X-Forwarded-Host`.
pub const X_FORWARDED_HOST: HeaderName = HeaderName::from_static("x-forwarded-host");

/// Whether `peer` is one of `listen.trusted_proxies` (an empty list, the default, trusts no
/// peer at the cost of one length test).
pub fn trusted(config: &Config, peer: Option<&Peer>) -> bool {
    let proxies = &config.trusted_proxies;
    peer.is_some_and(|p| proxies.iter().any(|net| net.contains(p.ip())))
}

/// Sets the forwarding headers of a request about to go upstream from `peer`, in place:
/// `headers` holds the request's headers as received (or as sanitized). `trusted`: the peer
/// is in `listen.trusted_proxies`.
pub fn set(headers: &mut HeaderMap, peer: &Peer, trusted: bool) {
    let peer = peer.rendered();
    let host = headers.get(header::HOST).cloned();
    if !trusted {
        // `insert` replaces every received line of the name.
        headers.insert(X_FORWARDED_FOR, peer.forwarded_for.clone());
        headers.insert(X_FORWARDED_PROTO, peer.proto.clone());
        match host {
            Some(host) => {
                let (first_host, first_value) = peer
                    .with_host
                    .get_or_init(|| (host.clone(), forwarded_with_host(&peer.forwarded, &host)));
                let value = if *first_host == host {
                    first_value.clone()
                } else {
                    forwarded_with_host(&peer.forwarded, &host)
                };
                headers.insert(header::FORWARDED, value);
                headers.insert(X_FORWARDED_HOST, host);
            }
            None => {
                headers.insert(header::FORWARDED, peer.forwarded.clone());
                headers.remove(X_FORWARDED_HOST);
            }
        }
        return;
    }
    let for_value = match joined(headers, &X_FORWARDED_FOR) {
        None => peer.forwarded_for.as_bytes().to_vec(),
        Some(mut prior) => {
            prior.extend_from_slice(b", ");
            prior.extend_from_slice(peer.forwarded_for.as_bytes());
            prior
        }
    };
    insert_bytes(headers, X_FORWARDED_FOR, for_value);
    if !headers.contains_key(X_FORWARDED_PROTO) {
        headers.insert(X_FORWARDED_PROTO, peer.proto.clone());
    }
    if let Some(host) = host.filter(|_| !headers.contains_key(X_FORWARDED_HOST)) {
        headers.insert(X_FORWARDED_HOST, host);
    }
    // Without a received `Forwarded`, none is added: applications that prefer `Forwarded`
    // (Spring, for one) would read this hop's `proto=http` instead of the front's
    // `X-Forwarded-Proto`.
    if let Some(mut prior) = joined(headers, &header::FORWARDED) {
        prior.extend_from_slice(b", ");
        prior.extend_from_slice(peer.node.as_bytes());
        insert_bytes(headers, header::FORWARDED, prior);
    }
}

/// Every line of `name` whose value is not blank, joined with `", "`; `None` if there is none.
fn joined(headers: &HeaderMap, name: &HeaderName) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    for value in headers.get_all(name) {
        let value = value.as_bytes().trim_ascii();
        if value.is_empty() {
            continue;
        }
        match out.as_mut() {
            Some(out) => {
                out.extend_from_slice(b", ");
                out.extend_from_slice(value);
            }
            None => out = Some(value.to_vec()),
        }
    }
    out
}

/// Replaces `name` with `value`, made of valid header values and ASCII, so it is one too (else
/// the name is removed: nothing unchecked goes upstream).
/// `for=...;proto=http;host=...`; this hop's element alone when the host cannot be written.
fn forwarded_with_host(bare: &HeaderValue, host: &HeaderValue) -> HeaderValue {
    let mut forwarded = Vec::with_capacity(bare.len() + host.len() + 8);
    forwarded.extend_from_slice(bare.as_bytes());
    forwarded.extend_from_slice(b";host=");
    push_value(&mut forwarded, host.as_bytes());
    HeaderValue::from_maybe_shared(bytes::Bytes::from(forwarded)).unwrap_or_else(|_| bare.clone())
}

fn insert_bytes(headers: &mut HeaderMap, name: HeaderName, value: Vec<u8>) {
    match HeaderValue::from_maybe_shared(bytes::Bytes::from(value)) {
        Ok(v) => {
            headers.insert(name, v);
        }
        Err(_) => {
            headers.remove(name);
        }
    }
}

/// Appends a `Forwarded` parameter value (RFC 7239 §4): a token as it is, anything else as a
/// quoted string (`host="example.com:8080"`), `"` and `\` escaped.
fn push_value(out: &mut Vec<u8>, value: &[u8]) {
    let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if !value.is_empty() && value.iter().all(|&b| tchar(b)) {
        out.extend_from_slice(value);
        return;
    }
    out.push(b'"');
    for &b in value {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;

    fn peer(addr: &str) -> Peer {
        Peer::new(SocketAddr::new(addr.parse().unwrap(), 4711))
    }

    fn map(headers: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (n, v) in headers {
            map.append(
                HeaderName::from_bytes(n.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        map
    }

    fn all(map: &HeaderMap, name: &str) -> Vec<String> {
        map.get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect()
    }

    const SPOOFED: [(&str, &str); 6] = [
        ("host", "app.example:8443"),
        ("x-forwarded-for", "1.1.1.1"),
        ("x-forwarded-for", "2.2.2.2"),
        ("x-forwarded-proto", "https"),
        ("x-forwarded-host", "evil.example"),
        ("forwarded", "for=1.1.1.1;proto=https"),
    ];

    #[test]
    fn an_untrusted_peer_s_headers_are_replaced() {
        let mut headers = map(&SPOOFED);
        set(&mut headers, &peer("192.0.2.7"), false);
        assert_eq!(all(&headers, "x-forwarded-for"), ["192.0.2.7"]);
        assert_eq!(all(&headers, "x-forwarded-proto"), ["http"]);
        assert_eq!(all(&headers, "x-forwarded-host"), ["app.example:8443"]);
        assert_eq!(
            all(&headers, "forwarded"),
            ["for=192.0.2.7;proto=http;host=\"app.example:8443\""]
        );
        let mut bare = map(&[("host", "app.example"), ("x-forwarded-host", "evil")]);
        set(&mut bare, &peer("2001:db8::1"), false);
        assert_eq!(all(&bare, "x-forwarded-for"), ["2001:db8::1"]);
        assert_eq!(
            all(&bare, "forwarded"),
            ["for=\"[2001:db8::1]\";proto=http;host=app.example"]
        );
        assert_eq!(all(&bare, "x-forwarded-host"), ["app.example"]);
        let mut hostless = map(&[("x-forwarded-host", "evil")]);
        set(&mut hostless, &peer("::ffff:10.0.0.1"), false);
        assert_eq!(all(&hostless, "x-forwarded-for"), ["10.0.0.1"]);
        assert_eq!(all(&hostless, "forwarded"), ["for=10.0.0.1;proto=http"]);
        assert!(all(&hostless, "x-forwarded-host").is_empty());
    }

    #[test]
    fn a_trusted_peer_s_headers_are_kept_and_extended() {
        let mut headers = map(&SPOOFED);
        set(&mut headers, &peer("10.0.0.2"), true);
        assert_eq!(
            all(&headers, "x-forwarded-for"),
            ["1.1.1.1, 2.2.2.2, 10.0.0.2"]
        );
        assert_eq!(all(&headers, "x-forwarded-proto"), ["https"]);
        assert_eq!(all(&headers, "x-forwarded-host"), ["evil.example"]);
        assert_eq!(
            all(&headers, "forwarded"),
            ["for=1.1.1.1;proto=https, for=10.0.0.2"]
        );
        let mut v6 = map(&[
            ("forwarded", "for=a"),
            ("forwarded", " "),
            ("forwarded", "for=b"),
        ]);
        set(&mut v6, &peer("::1"), true);
        assert_eq!(all(&v6, "forwarded"), ["for=a, for=b, for=\"[::1]\""]);
    }

    #[test]
    fn a_trusted_peer_without_forwarding_headers_gets_the_defaults() {
        let mut headers = map(&[("host", "app.example"), ("x-forwarded-for", "")]);
        set(&mut headers, &peer("10.0.0.2"), true);
        assert_eq!(all(&headers, "x-forwarded-for"), ["10.0.0.2"]);
        assert_eq!(all(&headers, "x-forwarded-proto"), ["http"]);
        assert_eq!(all(&headers, "x-forwarded-host"), ["app.example"]);
        assert!(all(&headers, "forwarded").is_empty(), "none added");
    }

    #[test]
    fn forwarded_values_are_tokens_or_quoted_strings() {
        let quoted = |v: &[u8]| {
            let mut out = Vec::new();
            push_value(&mut out, v);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(quoted(b"example.com"), "example.com");
        assert_eq!(quoted(b"example.com:80"), "\"example.com:80\"");
        assert_eq!(quoted(b"[::1]:80"), "\"[::1]:80\"");
        assert_eq!(quoted(b"a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quoted(b""), "\"\"");
    }
}
