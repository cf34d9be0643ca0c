//! The demo: a built-in echo upstream, so the gateway can be tried with curl in a minute, and
//! the explain page turned on.

use axum::Router;
use axum::body::Bytes;
use axum::extract::Request;
use axum::http::header;
use axum::response::IntoResponse;
use http_body_util::BodyExt;

/// An upstream that answers every request with what it received, as JSON.
pub fn echo_router() -> Router {
    Router::new().fallback(echo)
}

async fn echo(request: Request) -> impl IntoResponse {
    let (parts, body) = request.into_parts();
    let body: Bytes = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let headers: serde_json::Map<String, serde_json::Value> = parts
        .headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned().into(),
            )
        })
        .collect();
    let echo = serde_json::json!({
        "upstream": "utf8gate demo echo",
        "method": parts.method.as_str(),
        "target": parts.uri.path_and_query().map_or("/", |pq| pq.as_str()),
        "headers": headers,
        "body": String::from_utf8_lossy(&body),
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        format!("{echo:#}\n"),
    )
}

/// What the demo prints once it listens.
pub fn banner(proxy: &str, api: &str, admin: &str) -> String {
    format!(
        "utf8gate demo: proxy on http://{proxy} in front of a built-in echo upstream\n\
         api on http://{api}, metrics on http://{admin}/metrics.\n\n\
         Explain page (paste text, see every finding): http://{api}/explain\n\
         An overlong traversal, explained: http://{api}/explain#text=%C0%AE%C0%AE/etc/passwd\n\n\
         Try:\n\n\
         # allow: valid UTF-8 goes through unchanged\n\
         curl -s 'http://{proxy}/hello?name=Gr%C3%BC%C3%9Fe'\n\n\
         # sanitize: a decomposed 'e + U+0301' is forwarded in NFC (see the echoed body)\n\
         curl -s -H 'Content-Type: text/plain' --data-binary $'cafe\\xcc\\x81' http://{proxy}/notes\n\n\
         # reject: the overlong '.' of RFC 3629 §10 in a traversal (400 problem+json)\n\
         curl -s 'http://{proxy}/files/%c0%ae%c0%ae/etc/passwd'\n\n\
         # scan a JSON upload without a proxy (a CESU-8 pair in a string: reject)\n\
         curl -s -H 'Content-Type: application/json' --data-binary $'{{\"a\":\"\\xed\\xa0\\xbd\\xed\\xb8\\x80\"}}' http://{api}/v1/scan\n\n\
         # scan a text file, streamed (-T: curl exits 26 on a missing file; --fail-with-body: 22 on an error status)\n\
         curl -sS --fail-with-body -X POST -H 'Content-Type: text/plain' -T upload.txt http://{api}/v1/scan\n"
    )
}
