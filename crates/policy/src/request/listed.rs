//! A request head described as an HTTP/2-style header list, as Envoy and every proxy-wasm
//! host give it: pseudo-headers first (`:method`, `:path`, `:authority`, `:scheme`), then the
//! fields with lowercase names.

use std::borrow::Cow;

use compact_str::CompactString;

use super::Request;

/// A header list read: `:method` and `:path` apart, `:authority` as `Host` when there is no
/// `Host` (HTTP/2 requests carry none), every other header a field; other pseudo-headers
/// (`:scheme`, `:protocol`) are dropped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListedHead {
    /// `:method`.
    pub method: Option<Vec<u8>>,
    /// `:path`: the raw target.
    pub target: Option<Vec<u8>>,
    /// The other headers, names lowercase, in order.
    pub fields: Vec<(CompactString, Vec<u8>)>,
}

impl ListedHead {
    /// Reads `list` (names in any case, values as bytes).
    pub fn read<K: AsRef<str>>(list: impl IntoIterator<Item = (K, Vec<u8>)>) -> ListedHead {
        let mut head = ListedHead::default();
        let mut authority = None;
        for (key, value) in list {
            // Names come lowercase from Envoy and HTTP/2; only others are copied to lower them.
            let key = key.as_ref();
            let lower = match key.bytes().any(|b| b.is_ascii_uppercase()) {
                true => Cow::Owned(key.to_ascii_lowercase()),
                false => Cow::Borrowed(key),
            };
            match &*lower {
                ":method" => head.method = Some(value),
                ":path" => head.target = Some(value),
                ":authority" => authority = Some(value),
                k if k.starts_with(':') => {}
                k => head.fields.push((k.into(), value)),
            }
        }
        let has_host = head.fields.iter().any(|(k, _)| k == "host");
        if let Some(authority) = authority.filter(|_| !has_host) {
            head.fields.push(("host".into(), authority));
        }
        head
    }

    /// The request it describes, without a body: `GET` and `/` when the list has no
    /// `:method` or `:path`.
    pub fn into_request(self) -> Request {
        let method = String::from_utf8_lossy(self.method.as_deref().unwrap_or(b"GET"));
        let target = self.target.as_deref().unwrap_or(b"/");
        let mut request = Request::new(&method, target);
        request.headers = self.fields;
        request
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_headers_become_the_request_line_and_the_authority_its_host() {
        let list = [
            (":method", b"POST".to_vec()),
            (":scheme", b"http".to_vec()),
            (":path", b"/a?q=%C3%A9".to_vec()),
            (":authority", b"example.com".to_vec()),
            ("Content-Type", b"text/plain".to_vec()),
        ];
        let request = ListedHead::read(list).into_request();
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, b"/a");
        assert_eq!(request.query.as_deref(), Some(&b"q=%C3%A9"[..]));
        let names: Vec<_> = request.headers.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["content-type", "host"]);
        let with_host = [(":authority", b"a".to_vec()), ("host", b"b".to_vec())];
        let request = ListedHead::read(with_host).into_request();
        assert_eq!(request.headers, [("host".into(), b"b".to_vec())]);
        assert_eq!(
            (request.method.as_str(), &request.path[..]),
            ("GET", &b"/"[..])
        );
    }
}
