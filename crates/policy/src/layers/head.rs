//! The request head as backends read it: headers that must appear once, media types whose
//! parameters must appear once, and `Host`. Where two readings are possible (the first or the
//! last of two `Host` lines, of two `boundary` parameters), the request is refused: the
//! gateway cannot know which one the backend takes.

use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::layers::media_type::{is_tchar, quoted_string_end};
use crate::location::Part;
use crate::request::{Request, split_params, trim};

/// Headers a request carries at most once (RFC 9110 §5.3: only list-valued fields may repeat).
const SINGLETONS: [&str; 3] = ["host", "content-type", "authorization"];

/// Checks the head of `request`. `with_host` is false for scanned uploads, whose head is the
/// scan call's, not the application's.
pub(crate) fn check(request: &Request, with_host: bool, out: &mut Decomposed) {
    // One pass over the headers: most requests carry a handful, none of them twice.
    let mut counts = [0usize; SINGLETONS.len()];
    let (mut lengths, mut transfer) = (false, false);
    for (name, value) in &request.headers {
        // Read once: an inline name is decoded on each use.
        let name = name.as_str();
        let Some(i) = SINGLETONS.iter().position(|s| name.eq_ignore_ascii_case(s)) else {
            lengths |= name.eq_ignore_ascii_case("content-length");
            transfer |= name.eq_ignore_ascii_case("transfer-encoding");
            continue;
        };
        counts[i] += 1;
        match SINGLETONS[i] {
            "content-type" => media_type_parameters(value, Part::Header, name, out),
            "host" if with_host => {
                if let Err((offset, why)) = host(value) {
                    out.structural_named(
                        Part::Header,
                        name,
                        FindingKind::MalformedHost,
                        offset,
                        why,
                    );
                }
            }
            _ => {}
        }
    }
    if with_host && request.host_required && counts[0] == 0 {
        let why = "an HTTP/1.1 request without Host (RFC 9112 §3.2 answers 400)".to_string();
        out.structural_named(Part::Header, "host", FindingKind::MalformedHost, 0, why);
    }
    for (name, count) in SINGLETONS.iter().zip(counts) {
        if count > 1 && (with_host || *name != "host") {
            out.structural_named(
                Part::Header,
                name,
                FindingKind::RepeatedHeader,
                0,
                format!("{name} appears {count} times: backends take the first or the last"),
            );
        }
    }
    let framing = |out: &mut Decomposed, why: &str| {
        let kind = FindingKind::AmbiguousFraming;
        out.structural_named(Part::Header, "transfer-encoding", kind, 0, why.to_string());
    };
    if lengths && transfer {
        framing(
            out,
            "Content-Length and Transfer-Encoding: proxies frame by one or the other",
        );
    } else if lengths {
        content_lengths(request, out);
    }
    if transfer && chunked_count(request) > 1 {
        framing(
            out,
            "chunked named twice: parsers unchunk once, twice or refuse",
        );
    }
    if with_host {
        crate::layers::header_names::check(request, out);
    }
}

/// How many times the `Transfer-Encoding` lines name `chunked`.
fn chunked_count(request: &Request) -> usize {
    request
        .headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("transfer-encoding"))
        .flat_map(|(_, value)| value.split(|&b| b == b','))
        .filter(|element| trim(element).eq_ignore_ascii_case(b"chunked"))
        .count()
}

/// `Content-Length` lines (and list elements) that disagree (RFC 9112 §6.3).
fn content_lengths(request: &Request, out: &mut Decomposed) {
    let mut seen: Option<&[u8]> = None;
    for (name, value) in &request.headers {
        if !name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        for element in value.split(|&b| b == b',') {
            let element = trim(element);
            // `010` is 10 to RFC 9110 and 8 to a parser that reads octal: one digit or no
            // leading zero.
            let numeric = !element.is_empty()
                && element.iter().all(u8::is_ascii_digit)
                && (element.len() == 1 || element[0] != b'0');
            match seen {
                _ if !numeric => {}
                None => seen = Some(element),
                Some(first) if first == element => {}
                Some(_) => {
                    out.structural_named(
                        Part::Header,
                        "content-length",
                        FindingKind::RepeatedHeader,
                        0,
                        "Content-Length values disagree".to_string(),
                    );
                    return;
                }
            }
            if !numeric {
                out.structural_named(
                    Part::Header,
                    "content-length",
                    FindingKind::RepeatedHeader,
                    0,
                    "Content-Length is not a decimal number without leading zeros".to_string(),
                );
                return;
            }
        }
    }
}

/// The media types most requests carry, byte for byte. Each has one reading (a test runs both
/// readings' checks on every one), so a value equal to one is not taken apart again: the
/// checks cost a few hundred instructions a value, the comparison a few dozen.
const ONE_READING: [&[u8]; 10] = [
    b"application/json",
    b"application/json; charset=utf-8",
    b"application/json; charset=UTF-8",
    b"application/json;charset=utf-8",
    b"text/plain",
    b"text/plain; charset=utf-8",
    b"text/plain; charset=UTF-8",
    b"application/x-www-form-urlencoded",
    b"application/x-www-form-urlencoded; charset=utf-8",
    b"application/x-www-form-urlencoded; charset=UTF-8",
];

/// A media type (`Content-Type` of the request or of a part) whose parameters are read two
/// ways: a parameter given twice, an unterminated quoted string, a backslash escape.
pub(crate) fn media_type_parameters(value: &[u8], part: Part, name: &str, out: &mut Decomposed) {
    if ONE_READING.contains(&value) {
        return;
    }
    if let Some((offset, why)) = crate::layers::media_type::second_reading(value) {
        out.structural_named(part, name, FindingKind::AmbiguousMediaType, offset, why);
    } else if let Some((offset, kind, why)) = parameter_ambiguity(value) {
        out.structural_named(part, name, kind, offset, why);
    }
}

/// The first way the parameters of a header value (`type; a=1; b="2"`) can be read twice.
pub(crate) fn parameter_ambiguity(value: &[u8]) -> Option<(usize, FindingKind, String)> {
    if value.iter().filter(|&&b| b == b'"').count() % 2 == 1 {
        let at = value.iter().position(|&b| b == b'"').unwrap_or(0);
        return Some((
            at,
            FindingKind::AmbiguousParameter,
            "an unterminated quoted string".to_string(),
        ));
    }
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut offset = 0;
    for piece in split_params(value).skip(1) {
        offset += piece.len() + 1;
        let Some(eq) = piece.iter().position(|&b| b == b'=') else {
            continue;
        };
        let key = trim(&piece[..eq]).to_ascii_lowercase();
        let raw = trim(&piece[eq + 1..]);
        if raw.first() == Some(&b'"') && quoted_string_end(raw) != Some(raw.len()) {
            // `name="a"b`: parsers stop at the closing quote, keep the rest, or take it all.
            return Some((
                offset,
                FindingKind::AmbiguousParameter,
                format!(
                    "text after the quoted {} parameter",
                    String::from_utf8_lossy(&key)
                ),
            ));
        }
        if raw.first() != Some(&b'"') && !raw.iter().all(|&b| is_tchar(b)) {
            // Parsers stop an unquoted value at the first byte that is not a token byte, or
            // take the rest of the parameter: two readings.
            return Some((
                offset,
                FindingKind::AmbiguousParameter,
                format!(
                    "unquoted {} parameter with bytes outside an RFC 9110 token",
                    String::from_utf8_lossy(&key)
                ),
            ));
        }
        if raw.first() == Some(&b'"') && raw.contains(&b'\\') {
            return Some((
                offset,
                FindingKind::AmbiguousParameter,
                format!(
                    "backslash in the quoted {} parameter: parsers differ on escapes",
                    String::from_utf8_lossy(&key)
                ),
            ));
        }
        // RFC 2231 continuations (`name*0`, `name*1*`) are joined by some parsers only.
        let base = match key.iter().position(|&b| b == b'*') {
            Some(star) if key[star + 1..].first().is_some_and(u8::is_ascii_digit) => {
                return Some((
                    offset,
                    FindingKind::AmbiguousParameter,
                    format!(
                        "RFC 2231 continuation {}: parsers differ on joining it",
                        String::from_utf8_lossy(&key)
                    ),
                ));
            }
            _ => key,
        };
        if names.contains(&base) {
            return Some((
                offset,
                FindingKind::RepeatedParameter,
                format!(
                    "parameter {} given twice: parsers take the first or the last",
                    String::from_utf8_lossy(&base)
                ),
            ));
        }
        names.push(base);
    }
    None
}

/// RFC 9112 §3.2 / RFC 3986 §3.2.2: an IP literal, or a reg-name of letters, digits, `-`, `.`,
/// `_` and `~` (A-labels for IDNs), then an optional numeric port. Escapes, controls, other
/// punctuation and non-ASCII bytes are refused: nothing legitimate needs them in a host name.
pub(crate) fn host(value: &[u8]) -> Result<(), (usize, String)> {
    let (name_end, port_at) = if value.first() == Some(&b'[') {
        let close = value
            .iter()
            .position(|&b| b == b']')
            .ok_or((0, "an IP literal without ']'".to_string()))?;
        let inner = &value[1..close];
        if inner.is_empty()
            || !inner
                .iter()
                .all(|&b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
        {
            return Err((
                1,
                "an IP literal with other than hex digits, ':' and '.'".into(),
            ));
        }
        (close + 1, close + 1)
    } else {
        let end = value.iter().position(|&b| b == b':').unwrap_or(value.len());
        if let Some(bad) = value[..end]
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')))
        {
            return Err((
                bad,
                format!(
                    "byte 0x{:02X} in the host name (only ASCII letters, digits, '-', '.', '_', '~')",
                    value[bad]
                ),
            ));
        }
        (end, end)
    };
    match &value[port_at..] {
        [] => Ok(()),
        [b':', port @ ..] if port.len() <= 5 && port.iter().all(u8::is_ascii_digit) => Ok(()),
        _ => Err((name_end, "a port that is not up to five digits".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values not taken apart again have one reading: both checks find nothing in each.
    #[test]
    fn one_reading_values_have_one_reading() {
        for value in ONE_READING {
            let shown = String::from_utf8_lossy(value);
            assert_eq!(
                crate::layers::media_type::second_reading(value),
                None,
                "{shown}"
            );
            assert_eq!(parameter_ambiguity(value), None, "{shown}");
        }
    }

    #[test]
    fn hosts() {
        for ok in [
            &b"example.com"[..],
            b"localhost:8080",
            b"127.0.0.1:80",
            b"[::1]:8080",
            b"[2001:db8::1]",
            b"xn--bcher-kva.example",
            b"",
            b"a_b.internal:",
        ] {
            assert_eq!(host(ok), Ok(()), "{}", String::from_utf8_lossy(ok));
        }
        for bad in [
            &b"b\xC3\xBCcher.example"[..],
            b"ex%61mple.com",
            b"a b",
            b"a\x00b",
            b"host:80x",
            b"host:123456",
            b"[::1",
            b"[zz]",
            b"a,b",
            b"a@b",
            b"a/b",
        ] {
            assert!(host(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn parameters() {
        let kind = |v: &[u8]| parameter_ambiguity(v).map(|(_, k, _)| k);
        assert_eq!(kind(b"multipart/form-data; boundary=abc"), None);
        assert_eq!(kind(b"text/plain; charset=\"utf-8\""), None);
        assert_eq!(
            kind(b"multipart/form-data; boundary=a; Boundary=b"),
            Some(FindingKind::RepeatedParameter)
        );
        assert_eq!(
            kind(b"text/plain; charset=utf-8; charset=latin1"),
            Some(FindingKind::RepeatedParameter)
        );
        assert_eq!(
            kind(b"form-data; name=\"a\"; filename*0=\"x\"; filename*1=\"y\""),
            Some(FindingKind::AmbiguousParameter)
        );
        assert_eq!(
            kind(b"form-data; name=\"a\\\"b\""),
            Some(FindingKind::AmbiguousParameter)
        );
        assert_eq!(
            kind(b"form-data; name=\"a"),
            Some(FindingKind::AmbiguousParameter)
        );
        // Text after the closing quote is kept, dropped or refused by parsers.
        assert_eq!(
            kind("form-data; name=\"a\"e\u{301}".as_bytes()),
            Some(FindingKind::AmbiguousParameter)
        );
        assert_eq!(
            kind(b"form-data; name=\"a\"\"b\""),
            Some(FindingKind::AmbiguousParameter)
        );
        // filename and filename* are different parameters (their agreement is checked apart).
        assert_eq!(
            kind(b"form-data; name=a; filename=x; filename*=UTF-8''x"),
            None
        );
    }
}
