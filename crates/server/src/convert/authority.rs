//! HTTP/2's `:authority` as the `Host` the rest of the gateway reads.
//!
//! An HTTP/2 request names its host in the `:authority` pseudo-header (hyper puts it in the
//! URI), usually with no `Host` header. The policy's `Host` checks (`malformed_host`), the routes
//! and the `Host` forwarded upstream over HTTP/1.1 all read `Host`, so a request with
//! `:authority` and no `Host` gets one with the same bytes. A request with both is left as it
//! is: when they differ, it has two readings and the proxy refuses it as it refuses an HTTP/1
//! absolute-form target that names another authority than `Host` (`proxy::target`, 400).

use axum::http::{HeaderValue, Request, Version, header};

/// Gives an HTTP/2 request that has `:authority` and no `Host` a `Host` header with its bytes.
pub fn host_from_authority<B>(request: &mut Request<B>) {
    if request.version() != Version::HTTP_2 || request.headers().contains_key(header::HOST) {
        return;
    }
    let Some(authority) = request.uri().authority() else {
        return;
    };
    if let Ok(value) = HeaderValue::from_str(authority.as_str()) {
        request.headers_mut().insert(header::HOST, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h2(uri: &str, host: Option<&str>) -> Request<()> {
        let mut b = Request::builder().version(Version::HTTP_2).uri(uri);
        if let Some(h) = host {
            b = b.header(header::HOST, h);
        }
        b.body(()).unwrap()
    }

    #[test]
    fn the_authority_becomes_the_host() {
        let mut r = h2("http://app.example:8080/a", None);
        host_from_authority(&mut r);
        assert_eq!(r.headers()[header::HOST], "app.example:8080");
    }

    #[test]
    fn a_host_header_is_kept_as_sent() {
        let mut r = h2("http://app.example/a", Some("other.example"));
        host_from_authority(&mut r);
        assert_eq!(r.headers().get_all(header::HOST).iter().count(), 1);
        assert_eq!(r.headers()[header::HOST], "other.example");
    }

    #[test]
    fn http1_and_authority_less_requests_are_untouched() {
        let mut r = h2("/a", None);
        host_from_authority(&mut r);
        assert!(!r.headers().contains_key(header::HOST));
        let mut r = Request::builder()
            .uri("http://app.example/a")
            .body(())
            .unwrap();
        host_from_authority(&mut r);
        assert!(!r.headers().contains_key(header::HOST));
    }
}
