//! A request's head between the HTTP types of a tower stack and the policy's [`Request`]: read
//! as bytes, nothing decoded; and the sanitizer's rewrite written back.

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, HeaderName, HeaderValue};
use http::request::Parts;
use http::{HeaderMap, Uri};
use utf8gate_policy::Request;
use utf8gate_policy::answer::DECISION_HEADER;

/// The request `parts` and `body` describe, as the policy reads it: the target as received
/// (path and query), every header's bytes in order.
pub(crate) fn to_policy(parts: &Parts, body: Bytes) -> Request {
    let target = parts.uri.path_and_query().map_or("/", |pq| pq.as_str());
    let mut request = Request::new(parts.method.as_str(), target.as_bytes());
    request.headers = (parts.headers.iter())
        .map(|(name, value)| (name.as_str().into(), value.as_bytes().to_vec()))
        .collect();
    request.body = body;
    request
}

/// Why a rewrite cannot be sent.
#[derive(Debug)]
pub(crate) struct Unsendable(pub(crate) &'static str);

/// Writes `sanitized` into `parts`: the target when it changed, each header name whose values
/// changed, `Content-Length` when the body changed and one was sent, and
/// `utf8gate-decision: sanitize`. The body is returned.
pub(crate) fn rewrite(
    parts: &mut Parts,
    received: &Request,
    sanitized: Request,
) -> Result<Bytes, Unsendable> {
    if (sanitized.path.as_slice(), &sanitized.query) != (received.path.as_slice(), &received.query)
    {
        let mut target = sanitized.path.clone();
        if let Some(query) = &sanitized.query {
            target.push(b'?');
            target.extend_from_slice(query);
        }
        let mut uri = parts.uri.clone().into_parts();
        uri.path_and_query = Some(
            target
                .try_into()
                .map_err(|_| Unsendable("the sanitized target is not a valid URI"))?,
        );
        parts.uri = Uri::from_parts(uri).map_err(|_| Unsendable("the sanitized URI"))?;
    }
    if sanitized.headers != received.headers {
        let mut headers = HeaderMap::with_capacity(sanitized.headers.len());
        for (name, value) in &sanitized.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| Unsendable("a sanitized header name"))?;
            let value = HeaderValue::from_bytes(value)
                .map_err(|_| Unsendable("a sanitized header value cannot be sent"))?;
            headers.append(name, value);
        }
        parts.headers = headers;
    }
    if sanitized.body != received.body && parts.headers.contains_key(CONTENT_LENGTH) {
        parts
            .headers
            .insert(CONTENT_LENGTH, HeaderValue::from(sanitized.body.len()));
    }
    let decision = HeaderValue::from_static("sanitize");
    parts
        .headers
        .insert(HeaderName::from_static(DECISION_HEADER), decision);
    Ok(sanitized.body)
}
