//! The transport-neutral request the policy evaluates.

use bytes::Bytes;
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

pub(crate) mod listed;

/// How the request reached utf8gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// In front of an application, to be forwarded or rejected.
    Proxy,
    /// Submitted for scanning (an upload, a file): evaluated with
    /// [`evaluate_upload`](crate::evaluate_upload).
    Scan,
    /// Described by an authorization request from another proxy.
    Authz,
    /// Streamed by Envoy's `ext_proc` filter, to be forwarded (rewritten) or rejected by it.
    ExtProc,
}

impl Mode {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Proxy => "proxy",
            Mode::Scan => "scan",
            Mode::Authz => "authz",
            Mode::ExtProc => "ext_proc",
        }
    }
}

/// A request as bytes: nothing decoded, nothing trusted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request {
    /// How it arrived, for the caller's records: the evaluation does not read it (an upload is
    /// evaluated with [`evaluate_upload`](crate::evaluate_upload)).
    pub mode: Option<Mode>,
    /// The method (`GET`, `POST`, ...; inline up to 24 bytes).
    pub method: CompactString,
    /// The raw path, without the query, exactly as on the request line.
    pub path: Vec<u8>,
    /// The raw query after `?`, if the target had one.
    pub query: Option<Vec<u8>>,
    /// Header names (inline up to 24 bytes) and raw values, in order.
    pub headers: Vec<(CompactString, Vec<u8>)>,
    /// The body: a shared buffer, so that the one a transport received is evaluated and
    /// forwarded without a copy (`Bytes::from(vec)` takes a `Vec` without one).
    pub body: Bytes,
    /// `true` when the proxy that described the request sent its bytes only as strings it may
    /// have rewritten (Envoy's gRPC `ext_authz` without raw fields): the evaluation reports
    /// `string_fields_only` at the headers, whose action the profile chooses.
    pub string_fields_only: bool,
    /// `true` when the request arrived as HTTP/1.1, whose requests must carry `Host` (RFC 9112
    /// §3.2): one without is `malformed_host`. HTTP/2 and HTTP/3 carry the authority in the
    /// request line; a proxy's description of a request has already been held to it.
    pub host_required: bool,
    /// Whether `body` is all of the request's body: an authorization check may describe a
    /// request whose body it did not send, or sent cut.
    pub body_state: BodyState,
}

/// How much of a request's body an authorization check brought.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BodyState {
    /// All of it (or there is none): the proxy listener, an upload, a check with its body.
    #[default]
    Whole,
    /// Its first bytes: the front cut it at its buffer size (Envoy's
    /// `x-envoy-auth-partial-body: true`). Plain text is checked as far as it goes and
    /// reported; a body of a type read as fields (JSON, a form, multipart, XML) is refused.
    Cut,
    /// None of it (nginx `auth_request`, Traefik ForwardAuth without `forwardBody`, Envoy
    /// without `with_request_body`): reported when the head says there is a body.
    Withheld,
    /// None of it here: the body is checked apart as it streams, by a
    /// [`BodyScan`](crate::BodyScan) (Envoy `ext_proc`'s streamed modes, for a body that is
    /// [`streamable`](crate::streamable)). The head is evaluated alone.
    Streamed,
}

impl Request {
    /// A request for `target` (path and optional `?query`) with no headers and no body.
    pub fn new(method: &str, target: &[u8]) -> Request {
        let (path, query) = match target.iter().position(|&b| b == b'?') {
            Some(q) => (target[..q].to_vec(), Some(target[q + 1..].to_vec())),
            None => (target.to_vec(), None),
        };
        Request {
            mode: None,
            method: CompactString::new(method),
            path,
            query,
            headers: Vec::new(),
            body: Bytes::new(),
            string_fields_only: false,
            host_required: false,
            body_state: BodyState::Whole,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &[u8]) -> Request {
        self.headers
            .push((CompactString::new(name), value.to_vec()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: &[u8]) -> Request {
        self.body = Bytes::copy_from_slice(body);
        self
    }

    /// Sets the mode.
    pub fn mode(mut self, mode: Mode) -> Request {
        self.mode = Some(mode);
        self
    }

    /// The first value of a header, by case-insensitive name.
    pub fn header_value(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// The path and query as one request target.
    pub fn target(&self) -> Vec<u8> {
        let mut t = self.path.clone();
        if let Some(q) = &self.query {
            t.push(b'?');
            t.extend_from_slice(q);
        }
        t
    }

    /// The parsed `Content-Type`, if present.
    pub fn content_type(&self) -> Option<ContentType> {
        self.header_value("content-type").map(ContentType::parse)
    }
}

/// A parsed media type: `type/subtype` in lowercase and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentType {
    /// `type/subtype`, lowercase (`"application/json"`; inline up to 24 bytes).
    pub essence: CompactString,
    /// Parameters, names lowercase, values unquoted.
    pub params: Vec<(CompactString, Vec<u8>)>,
}

impl ContentType {
    /// Parses a `Content-Type` value (RFC 9110 §8.3.1); lenient, never fails.
    pub fn parse(value: &[u8]) -> ContentType {
        let mut pieces = split_params(value);
        let lower = |bytes: &[u8]| {
            let mut s = CompactString::new(String::from_utf8_lossy(trim(bytes)));
            s.make_ascii_lowercase();
            s
        };
        let essence = pieces.next().map(lower).unwrap_or_default();
        let params = pieces
            .filter_map(|p| {
                let eq = p.iter().position(|&b| b == b'=')?;
                Some((lower(&p[..eq]), unquote(trim(&p[eq + 1..]))))
            })
            .collect();
        ContentType { essence, params }
    }

    /// A parameter's value by name.
    pub fn param(&self, name: &str) -> Option<&[u8]> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// The charset parameter, lowercase.
    pub fn charset(&self) -> Option<String> {
        self.param("charset")
            .map(|c| String::from_utf8_lossy(c).to_ascii_lowercase())
    }

    /// `true` for `application/json` and `+json` types.
    pub fn is_json(&self) -> bool {
        self.essence == "application/json" || self.essence.ends_with("+json")
    }

    /// `true` for `application/x-www-form-urlencoded`.
    pub fn is_form(&self) -> bool {
        self.essence == "application/x-www-form-urlencoded"
    }

    /// `true` for every `multipart/*` type (RFC 2046 §5.1: one syntax for `form-data`,
    /// `related`, `mixed`, `alternative`, `signed`, ...).
    pub fn is_multipart(&self) -> bool {
        self.essence.starts_with("multipart/")
    }

    /// `true` for `multipart/form-data`, whose parts are named form fields (RFC 7578).
    pub fn is_form_data(&self) -> bool {
        self.essence == "multipart/form-data"
    }

    /// `true` for the gRPC and gRPC-Web types whose bodies are length-prefixed messages
    /// (`application/grpc`, `+proto`, `+json`; not `application/grpc-web-text`, base64 text).
    pub fn is_grpc(&self) -> bool {
        let e = self.essence.as_str();
        let framed = |base: &str| {
            e.strip_prefix(base)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('+'))
        };
        framed("application/grpc") || framed("application/grpc-web")
    }

    /// `true` for `application/xml`, `text/xml` and `+xml` types.
    pub fn is_xml(&self) -> bool {
        matches!(self.essence.as_str(), "application/xml" | "text/xml")
            || self.essence.ends_with("+xml")
    }

    /// `true` for types whose content is text (`text/*`, JSON, XML, YAML, forms, multipart,
    /// scripts, the `+json`/`+xml`/`+yaml` suffixes): every other type is judged by its bytes.
    pub fn is_textual(&self) -> bool {
        crate::textual::is_text_type(&self.essence)
    }
}

/// Splits on `;` outside quoted strings (lazily: nothing is allocated).
pub(crate) fn split_params(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    split_outside_quotes(value, b';')
}

/// The pieces of `bytes` between `separator`s outside RFC 9110 quoted strings (backslash
/// escapes inside them honoured), lazily: nothing is allocated. A header value's list elements
/// (`,`) and parameters (`;`).
pub fn split_outside_quotes(bytes: &[u8], separator: u8) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(bytes);
    core::iter::from_fn(move || {
        let bytes = rest?;
        // A separator outside quotes ends a piece, so no quote is open where the next starts.
        let (mut quoted, mut escaped) = (false, false);
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                _ if escaped => escaped = false,
                b'\\' if quoted => escaped = true,
                b'"' => quoted = !quoted,
                _ if b == separator && !quoted => {
                    rest = Some(&bytes[i + 1..]);
                    return Some(&bytes[..i]);
                }
                _ => {}
            }
        }
        rest = None;
        Some(bytes)
    })
}

/// Trims ASCII whitespace.
pub(crate) fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &bytes[start..end.max(start)]
}

/// Removes the quotes and backslash escapes of an RFC 9110 quoted-string.
pub(crate) fn unquote(bytes: &[u8]) -> Vec<u8> {
    match bytes {
        [b'"', inner @ .., b'"'] => unescape_quoted(inner),
        _ => bytes.to_vec(),
    }
}

/// Unescapes the inside of a quoted-string (`\x` → `x`).
pub(crate) fn unescape_quoted(inner: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(inner.len());
    let mut escaped = false;
    for &b in inner {
        if !escaped && b == b'\\' {
            escaped = true;
        } else {
            out.push(b);
            escaped = false;
        }
    }
    out
}

/// `true` for the charset labels that mean UTF-8 (or its ASCII subset).
pub(crate) fn is_utf8_label(charset: &str) -> bool {
    matches!(
        charset,
        "utf-8" | "utf8" | "us-ascii" | "ascii" | "unicode-1-1-utf-8"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_types() {
        let ct = ContentType::parse(b"Multipart/Form-Data; boundary=\"a;b\"; charset=UTF-8");
        assert_eq!(ct.essence, "multipart/form-data");
        assert_eq!(ct.param("boundary"), Some(&b"a;b"[..]));
        assert_eq!(ct.charset().as_deref(), Some("utf-8"));
        assert!(ct.is_multipart());
        assert!(ContentType::parse(b"application/vnd.api+json").is_json());
        assert_eq!(ContentType::parse(b"").essence, "");
    }

    #[test]
    fn splits_the_target() {
        let r = Request::new("GET", b"/a/b?x=1?y");
        assert_eq!(
            (r.path.as_slice(), r.query.as_deref()),
            (&b"/a/b"[..], Some(&b"x=1?y"[..]))
        );
        assert_eq!(r.target(), b"/a/b?x=1?y");
    }

    proptest::proptest! {
        /// The lazy split gives what splitting the whole value at once gives: a piece ends at
        /// each `;` outside a quoted string, and a backslash escapes inside one.
        #[test]
        fn splits_parameters_outside_quotes(
            value in proptest::collection::vec(proptest::sample::select(b";\"\\a=".to_vec()), 0..24),
        ) {
            // Which bytes are inside a quoted string (a quote opens and closes one, a
            // backslash inside one hides the next byte), then std's split at the others' `;`.
            let inside: Vec<bool> = value
                .iter()
                .scan((false, false), |(quoted, escaped), &b| {
                    let hidden = *quoted || b == b'"';
                    (*quoted, *escaped) = match (*quoted, *escaped, b) {
                        (true, true, _) => (true, false),
                        (true, false, b'\\') => (true, true),
                        (q, _, b'"') => (!q, false),
                        (q, _, _) => (q, false),
                    };
                    Some(hidden)
                })
                .collect();
            let mut at = 0;
            let whole: Vec<&[u8]> = value
                .split(|&b| {
                    at += 1;
                    b == b';' && !inside[at - 1]
                })
                .collect();
            proptest::prop_assert_eq!(split_params(&value).collect::<Vec<_>>(), whole);
        }
    }
}
