//! The request line and head as the proxy listener takes them, before the policy: methods it
//! never forwards, the asterisk and absolute forms of the target (RFC 9112 §3.2), and the
//! path-override headers of peers that are not trusted proxies.

use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::problem::{Problem, ProblemKind};
use crate::state::Snapshot;

/// The methods the proxy forwards, for `Allow`.
const ALLOW: &str = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

/// The answer to give here when the request must not be forwarded (`CONNECT`; `TRACE` unless
/// allowed; `OPTIONS *`; an absolute-form target whose authority is not the `Host`; a path
/// override from an untrusted peer when those are refused); otherwise removes the
/// path-override headers of an untrusted peer (those of the default profile of `snapshot`)
/// and the request goes on to the gate.
pub(super) fn answer_here(
    snapshot: &Snapshot,
    parts: &mut Parts,
    trusted: bool,
) -> Option<Response> {
    let method = &parts.method;
    if *method == Method::CONNECT || (*method == Method::TRACE && !snapshot.config.allow_trace) {
        let detail = format!("{method} is not forwarded by this proxy");
        let mut response = Problem::new(ProblemKind::MethodNotAllowed, detail).into_response();
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(ALLOW));
        return Some(response);
    }
    // RFC 9112 §3.2.4: `*` is for a server-wide OPTIONS, which this hop answers.
    if parts.uri == "*" {
        if *method != Method::OPTIONS {
            return Some(bad_target("the asterisk form is only for OPTIONS"));
        }
        let mut response = StatusCode::NO_CONTENT.into_response();
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(ALLOW));
        return Some(response);
    }
    // RFC 9112 §3.2.2: with an absolute-form target the recipient ignores `Host`; a backend may
    // read either, so they must agree. HTTP/2's `:authority` is such an authority (RFC 9113
    // §8.3.1; `crate::convert::authority` copies it to `Host` when there is none).
    if let Some(authority) = parts.uri.authority() {
        let host = parts.headers.get(header::HOST).map(HeaderValue::as_bytes);
        if host.is_none_or(|h| !h.eq_ignore_ascii_case(authority.as_str().as_bytes())) {
            return Some(bad_target(
                "the absolute-form target (or :authority) names another authority than Host",
            ));
        }
    }
    if !trusted {
        let overrides = &snapshot.path_overrides;
        // A pass over the names present (a handful) costs less than hashing each override.
        let present = parts.headers.keys().any(|k| overrides.contains(k));
        if present {
            if snapshot.config.refuse_untrusted_path_overrides {
                let detail = "X-Original-URL, X-Rewrite-URL and the like are accepted from trusted proxies only";
                return Some(
                    Problem::new(ProblemKind::UntrustedPathOverride, detail).into_response(),
                );
            }
            for name in overrides {
                parts.headers.remove(name);
            }
        }
    }
    None
}

fn bad_target(detail: &str) -> Response {
    Problem::new(ProblemKind::BadTarget, detail).into_response()
}
