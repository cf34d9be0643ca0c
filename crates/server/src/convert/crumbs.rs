//! HTTP/2's cookie crumbs joined into one `Cookie` (RFC 9113 §8.2.3).
//!
//! An HTTP/2 client may split its `cookie` field into several fields ("crumbs") for better
//! header compression. Before such a request goes to an HTTP/1.1 upstream (or any non-HTTP/2
//! context), the crumbs MUST be joined with `"; "`. Sent as several `Cookie` lines instead, a
//! WSGI server joins them with `,` (one corrupted cookie), and a payload split across crumbs
//! would be checked as pieces. So the crumbs are joined on arrival, before the request is
//! evaluated: the policy reads, and the upstream receives, one `Cookie` line.

use axum::http::{HeaderValue, Request, Version, header};

/// Joins the `cookie` fields of an HTTP/2 request into one, in their order, with `"; "`.
/// HTTP/1 requests and requests with at most one `cookie` field are untouched.
pub fn join_cookie_crumbs<B>(request: &mut Request<B>) {
    if request.version() != Version::HTTP_2 {
        return;
    }
    let headers = request.headers_mut();
    let mut crumbs = headers.get_all(header::COOKIE).iter();
    let (Some(first), Some(_)) = (crumbs.next(), crumbs.next()) else {
        return;
    };
    let mut joined = first.as_bytes().to_vec();
    for crumb in headers.get_all(header::COOKIE).iter().skip(1) {
        joined.extend_from_slice(b"; ");
        joined.extend_from_slice(crumb.as_bytes());
    }
    // Crumbs are valid field values, and so is "; " between them.
    if let Ok(value) = HeaderValue::from_bytes(&joined) {
        headers.insert(header::COOKIE, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_cookies(version: Version, cookies: &[&str]) -> Request<()> {
        let mut b = Request::builder().version(version).uri("/");
        for c in cookies {
            b = b.header(header::COOKIE, *c);
        }
        b.body(()).unwrap()
    }

    fn cookies(r: &Request<()>) -> Vec<&[u8]> {
        let all = r.headers().get_all(header::COOKIE);
        all.iter().map(HeaderValue::as_bytes).collect()
    }

    #[test]
    fn crumbs_are_joined_in_order() {
        let mut r = with_cookies(Version::HTTP_2, &["a=1", "b=2", "c=3"]);
        join_cookie_crumbs(&mut r);
        assert_eq!(cookies(&r), [&b"a=1; b=2; c=3"[..]]);
    }

    #[test]
    fn one_cookie_and_http1_are_untouched() {
        let mut r = with_cookies(Version::HTTP_2, &["a=1"]);
        join_cookie_crumbs(&mut r);
        assert_eq!(cookies(&r), [&b"a=1"[..]]);
        let mut r = with_cookies(Version::HTTP_11, &["a=1", "b=2"]);
        join_cookie_crumbs(&mut r);
        assert_eq!(cookies(&r), [&b"a=1"[..], &b"b=2"[..]]);
    }
}
