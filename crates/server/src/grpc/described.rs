//! The request a `CheckRequest` describes, as a policy [`Request`]: method, raw target
//! (`:path` of `header_map`, else `path`), headers (`header_map` raw values, else the
//! `headers` string map), body (`raw_body`, else `body`). A check whose headers or body came
//! only as strings is marked `string_fields_only`: Envoy may have replaced invalid UTF-8 in
//! them before utf8gate saw them.

use axum::http::{HeaderMap, HeaderValue};
use envoy_types::ext_authz::v3::pb::CheckRequest;
use utf8gate_policy::{Mode, Request};

use crate::api::authz::partial_body;

/// A described request and the headers its request id is taken from.
pub(super) struct Described {
    /// The request as the policy reads it.
    pub(super) request: Request,
    /// `x-request-id` of the described request, when it has one.
    pub(super) id_headers: HeaderMap,
}

/// Reads `check`; a check without `attributes.request.http` is an invalid argument.
pub(super) fn request(check: CheckRequest) -> Result<Described, tonic::Status> {
    let http = check
        .attributes
        .and_then(|a| a.request)
        .and_then(|r| r.http)
        .ok_or_else(|| tonic::Status::invalid_argument("no attributes.request.http"))?;
    let mut blind = false;
    let mut target = None;
    let mut authority = None;
    let mut headers: Vec<(String, Vec<u8>)> = Vec::new();
    match http.header_map {
        Some(map) => {
            for h in map.headers {
                let value = match h.raw_value.is_empty() && !h.value.is_empty() {
                    true => {
                        blind = true;
                        h.value.into_bytes()
                    }
                    false => h.raw_value,
                };
                match h.key.to_ascii_lowercase().as_str() {
                    ":path" => target = Some(value),
                    ":authority" => authority = Some(value),
                    k if k.starts_with(':') => {}
                    k => headers.push((k.to_string(), value)),
                }
            }
        }
        None => {
            blind = true;
            let mut pairs: Vec<_> = http.headers.into_iter().collect();
            pairs.sort();
            for (k, v) in pairs {
                match k.to_ascii_lowercase().as_str() {
                    ":path" => target = Some(v.into_bytes()),
                    ":authority" => authority = Some(v.into_bytes()),
                    k if k.starts_with(':') => {}
                    k => headers.push((k.to_string(), v.into_bytes())),
                }
            }
        }
    }
    // HTTP/2 requests carry `:authority` instead of `Host`.
    if let Some(authority) = authority.filter(|_| !headers.iter().any(|(k, _)| k == "host")) {
        headers.push(("host".to_string(), authority));
    }
    let target = target.unwrap_or_else(|| match http.path.is_empty() {
        true => b"/".to_vec(),
        false => http.path.into_bytes(),
    });
    let mut request = Request::new(&http.method, &target).mode(Mode::Authz);
    let mut id_headers = HeaderMap::new();
    if let Some((_, v)) = headers.iter().find(|(k, _)| k == "x-request-id") {
        if let Ok(v) = HeaderValue::from_bytes(v) {
            id_headers.insert("x-request-id", v);
        }
    }
    request.headers = headers;
    request.body = match http.raw_body.is_empty() && !http.body.is_empty() {
        true => {
            blind = true;
            http.body.into_bytes()
        }
        false => http.raw_body,
    };
    request.string_fields_only = blind;
    let partial = request.header_value("x-envoy-auth-partial-body");
    if partial.is_some_and(|v| v == b"true") {
        partial_body(&mut request);
    }
    Ok(Described {
        request,
        id_headers,
    })
}
