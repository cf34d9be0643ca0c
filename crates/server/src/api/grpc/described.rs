//! The request a `CheckRequest` describes, as a policy [`Request`]: method, raw target
//! (`:path` of `header_map`, else `path`), headers (`header_map` raw values, else the
//! `headers` string map), body (`raw_body`, else `body`). A check whose headers or body came
//! only as strings is marked `string_fields_only`: Envoy may have replaced invalid UTF-8 in
//! them before utf8gate saw them.

use axum::http::{HeaderMap, HeaderValue};
use compact_str::CompactString;
use envoy_types::ext_authz::v3::pb::CheckRequest;
use envoy_types::pb::envoy::config::core::v3::HeaderValue as EnvoyHeader;
use utf8gate_policy::{ListedHead, Mode, Request};

use crate::api::authz::body_state;
use crate::problem::{Problem, ProblemKind};

/// A described request and the headers its request id is taken from.
pub(super) struct Described {
    /// The request as the policy reads it.
    pub(super) request: Request,
    /// `x-request-id` of the described request, when it has one.
    pub(super) id_headers: HeaderMap,
}

/// Envoy's header list read as bytes ([`ListedHead`]: `:method` and `:path` apart, `:authority`
/// as `Host` when there is no `Host`), and whether a header came as a string only.
pub(super) struct RawHeaders {
    /// The head.
    pub(super) head: ListedHead,
    /// A header came as a string only (`value` without `raw_value`): Envoy may have replaced
    /// invalid UTF-8 in it.
    pub(super) blind: bool,
}

/// Reads `list` as [`RawHeaders`].
pub(super) fn raw_headers(list: Vec<EnvoyHeader>) -> RawHeaders {
    let mut blind = false;
    let pairs = list.into_iter().map(|h| {
        let value = match h.raw_value.is_empty() && !h.value.is_empty() {
            true => {
                blind = true;
                h.value.into_bytes()
            }
            false => h.raw_value,
        };
        (h.key, value)
    });
    let head = ListedHead::read(pairs);
    RawHeaders { head, blind }
}

/// The request id header of `fields`, when it has a valid one.
pub(super) fn id_headers(fields: &[(CompactString, Vec<u8>)]) -> HeaderMap {
    let mut id_headers = HeaderMap::new();
    if let Some((_, v)) = fields.iter().find(|(k, _)| k == "x-request-id")
        && let Ok(v) = HeaderValue::from_bytes(v)
    {
        id_headers.insert("x-request-id", v);
    }
    id_headers
}

/// Reads `check`; a check without `attributes.request.http` is refused (`bad-check`).
pub(super) fn request(check: CheckRequest) -> Result<Described, Problem> {
    let http = (check.attributes)
        .and_then(|a| a.request)
        .and_then(|r| r.http)
        .ok_or_else(|| Problem::new(ProblemKind::BadCheck, "no attributes.request.http"))?;
    let from_strings = http.header_map.is_none();
    let list = match http.header_map {
        Some(map) => map.headers,
        None => {
            // The string map: every value a string, so the check is blind.
            let mut pairs: Vec<_> = http.headers.into_iter().collect();
            pairs.sort();
            let value = |(key, value)| EnvoyHeader {
                key,
                value,
                ..Default::default()
            };
            pairs.into_iter().map(value).collect()
        }
    };
    let RawHeaders {
        head: ListedHead { target, fields, .. },
        mut blind,
    } = raw_headers(list);
    blind |= from_strings;
    let target = target.unwrap_or_else(|| match http.path.is_empty() {
        true => b"/".to_vec(),
        false => http.path.into_bytes(),
    });
    let mut request = Request::new(&http.method, &target).mode(Mode::Authz);
    let id_headers = id_headers(&fields);
    request.headers = fields;
    request.body = match http.raw_body.is_empty() && !http.body.is_empty() {
        true => {
            blind = true;
            http.body.into_bytes().into()
        }
        false => http.raw_body.into(),
    };
    request.string_fields_only = blind;
    let partial = request.header_value("x-envoy-auth-partial-body");
    request.body_state = body_state(&request.body, partial);
    Ok(Described {
        request,
        id_headers,
    })
}

#[cfg(test)]
mod tests {
    use envoy_types::pb::envoy::config::core::v3::{HeaderMap, HeaderValue};
    use envoy_types::pb::envoy::service::auth::v3::AttributeContext;
    use envoy_types::pb::envoy::service::auth::v3::attribute_context::{HttpRequest, Request};

    use super::*;

    fn check(http: HttpRequest) -> CheckRequest {
        let request = Request {
            http: Some(http),
            ..Default::default()
        };
        CheckRequest {
            attributes: Some(AttributeContext {
                request: Some(request),
                ..Default::default()
            }),
        }
    }

    fn raw(key: &str, value: &[u8]) -> HeaderValue {
        HeaderValue {
            key: key.into(),
            raw_value: value.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn raw_fields_are_read_as_bytes() {
        let http = HttpRequest {
            method: "POST".into(),
            path: "/a/!!".into(),
            header_map: Some(HeaderMap {
                headers: vec![
                    raw(":path", b"/a/\xC0\xAE?q=1"),
                    raw(":authority", b"app.example"),
                    raw("x-id", b"\xFF"),
                    raw("x-request-id", b"abc"),
                ],
            }),
            raw_body: b"\xED\xA0\x80".to_vec(),
            ..Default::default()
        };
        let described = request(check(http)).expect("a request");
        let r = &described.request;
        assert_eq!(r.path, b"/a/\xC0\xAE");
        assert_eq!(r.query.as_deref(), Some(&b"q=1"[..]));
        assert_eq!(r.header_value("x-id"), Some(&b"\xFF"[..]));
        assert_eq!(r.header_value("host"), Some(&b"app.example"[..]));
        assert_eq!(r.body, &b"\xED\xA0\x80"[..]);
        assert!(!r.string_fields_only);
        assert_eq!(described.id_headers["x-request-id"], "abc");
    }

    #[test]
    fn string_fields_are_marked_blind() {
        let http = HttpRequest {
            method: "GET".into(),
            path: "/x?y=1".into(),
            headers: [("x-a".to_string(), "b".to_string())].into(),
            ..Default::default()
        };
        let described = request(check(http)).expect("a request");
        assert!(described.request.string_fields_only);
        assert_eq!(described.request.path, b"/x");
        assert_eq!(described.request.header_value("x-a"), Some(&b"b"[..]));
        // Raw headers with a body sent as a string only: blind too.
        let http = HttpRequest {
            header_map: Some(HeaderMap {
                headers: vec![raw(":path", b"/")],
            }),
            body: "text".into(),
            ..Default::default()
        };
        assert!(
            request(check(http))
                .expect("a request")
                .request
                .string_fields_only
        );
    }

    #[test]
    fn a_check_without_an_http_request_is_a_bad_check() {
        let problem = request(CheckRequest::default()).err().expect("refused");
        assert_eq!(problem.kind, ProblemKind::BadCheck);
        assert_eq!(problem.status, 400);
    }
}
