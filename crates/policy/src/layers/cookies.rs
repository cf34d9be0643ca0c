//! `Cookie` headers as frameworks read them (RFC 6265 §4.2, §5.4), each reading checked or the
//! pair refused:
//!
//! * Every pair's name and value, percent-decoded, as PHP's `$_COOKIE` and Node's `cookie`
//!   read them (query rules; `+` kept: Express does not read it as a space, PHP does, and a
//!   space changes no check). A value wrapped in DQUOTEs is read inside them.
//! * A quoted value with backslash escapes, as Werkzeug, Python's `http.cookies` and Django
//!   unquote it (`\ooo` an octal byte, `\X` is `X`) and as Tomcat's RFC 2109 mode does (every
//!   backslash dropped): each reading a field of its own, so `"\056\056\057"` is checked as
//!   `../` and `"\300\256"` as the overlong bytes it is (`unquoted_readings`).
//! * What frameworks split or name differently is `ambiguous_cookie`: a quoted value that does
//!   not end where its pair does (Werkzeug reads `a="x; b=y"` as one value across the `;`,
//!   Django as two cookies: the "cookie sandwich"), a name or value
//!   with white space at an end that Python's `str.strip` removes and RFC 6265 parsers keep
//!   (Django reads `\u2000__Host-x` as `__Host-x`: a second `__Host-` cookie no browser
//!   would have sent), a name with a DQUOTE or a backslash, and a `$` name (an RFC 2109
//!   attribute such as `$Version`, which switches Tomcat and Jetty to another reading of the
//!   whole header, and a cookie to everyone else).

use crate::field::FieldBytes;
use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::layers::percent;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::trim;

/// The pairs of one `Cookie` line. `read` counts the pairs of every `Cookie` line of the
/// request, which are one list (RFC 6265 §5.4, RFC 9113 §8.2.3): past `max_parameters` of
/// them, one `limit_exceeded` and no more fields.
pub(crate) fn cookies<'a>(
    value: &'a [u8],
    header: usize,
    profile: &Profile,
    read: &mut usize,
    out: &mut Decomposed<'a>,
) {
    let max = profile.limits.max_parameters;
    let mut offset = 0;
    for (index, pair) in value.split(|&b| b == b';').enumerate() {
        let at = offset;
        offset += pair.len() + 1;
        if *read >= max {
            if *read == max {
                let message = format!("more than {max} cookies");
                out.structural_named(
                    Part::Header,
                    "cookie",
                    FindingKind::LimitExceeded,
                    0,
                    message,
                );
            }
            *read = max.saturating_add(1);
            return;
        }
        *read += 1;
        let pair = trim(pair);
        if pair.is_empty() {
            continue;
        }
        let (raw_name, raw_value) = match pair.iter().position(|&b| b == b'=') {
            Some(eq) => (trim(&pair[..eq]), Some(trim(&pair[eq + 1..]))),
            None => (pair, None),
        };
        if let Some(why) = ambiguous_name(raw_name).or_else(|| raw_value.and_then(ambiguous_value))
        {
            let message = format!("cookie {index}: {why}");
            out.structural_named(
                Part::Header,
                "cookie",
                FindingKind::AmbiguousCookie,
                at,
                message,
            );
        }
        let (name, name_findings) = percent::decode(raw_name, false, &mut out.layer_room);
        let location = |part| Location::part(part).with_name(&name).with_index(index);
        out.header_reading(
            location(Part::CookieName),
            name.clone(),
            header,
            name_findings,
        );
        let Some(raw_value) = raw_value else {
            continue;
        };
        // RFC 6265 §4.1.1: a cookie-value may be wrapped in DQUOTEs.
        let (inner, quoted) = match raw_value {
            [b'"', inner @ .., b'"'] => (inner, true),
            v => (v, false),
        };
        let (bytes, findings) = percent::decode(inner, false, &mut out.layer_room);
        out.header_reading(location(Part::CookieValue), bytes, header, findings);
        if quoted && inner.contains(&b'\\') {
            for reading in unquoted_readings(inner) {
                let findings = crate::decide::found::Found::new(0, Default::default());
                out.header_reading(location(Part::CookieValue), reading, header, findings);
            }
        }
    }
}

/// Why frameworks name the cookie `name` differently, if they do.
fn ambiguous_name(name: &[u8]) -> Option<&'static str> {
    if name.first() == Some(&b'$') {
        return Some("a name starting with '$', an RFC 2109 attribute to Tomcat and Jetty");
    }
    if name.iter().any(|&b| matches!(b, b'"' | b'\\')) {
        return Some("a DQUOTE or a backslash in a name, which parsers split differently");
    }
    python_strips(name).then_some(
        "white space at an end of a name, which Python's str.strip (Django) removes and others keep",
    )
}

/// Why frameworks read the cookie value `value` (trimmed of spaces and tabs) differently.
fn ambiguous_value(value: &[u8]) -> Option<&'static str> {
    if python_strips(value) {
        return Some(
            "white space at an end of a value, which Python's str.strip (Django) removes and others keep",
        );
    }
    let rest = value.strip_prefix(b"\"")?;
    // A quoted value's closing DQUOTE, past escapes, must be in its pair: else Werkzeug reads
    // on across the `;` (a `\;` too), where everyone else ends the value. A DQUOTE anywhere
    // else is read as it is, or the pair dropped (Werkzeug, `http.cookies`): one reading.
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'\\' => i += 2,
            b'"' => return None,
            _ => i += 1,
        }
    }
    Some(
        "a quoted value that does not end in its pair: Werkzeug reads it across ';', Django splits it",
    )
}

/// Whether `bytes` (UTF-8 or not) start or end with a character Python's `str.strip`
/// removes beyond the space and tab every parser trims: the other ASCII white space and
/// `\x1c`-`\x1f`, U+0085, U+00A0 and the rest of Unicode's White_Space.
fn python_strips(bytes: &[u8]) -> bool {
    let ascii = |b: u8| matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | 0x1c..=0x1f);
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) if first.is_ascii() && last.is_ascii() => {
            ascii(first) || ascii(last)
        }
        (None, _) | (_, None) => false,
        _ => {
            let strips = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
            let text = String::from_utf8_lossy(bytes);
            text.starts_with(strips) || text.ends_with(strips)
        }
    }
}

/// The readings of a quoted value's `inner` text with backslash escapes that differ from
/// its bytes: Werkzeug's (`\ooo` a byte, `\X` is `X`) and Tomcat's (backslashes dropped).
///
/// Python's `http.cookies` (and Django) read `\ooo` as the character U+0000-U+00FF of that
/// number: for escapes up to `\177` that is Werkzeug's reading; above, each byte of Werkzeug's
/// reading as a Latin-1 character: the same ASCII, and Latin-1 letters and C1 controls for the
/// rest. A value whose bytes are not UTF-8 is refused in Werkzeug's reading; checked as well,
/// the Latin-1 one would refuse every cookie Flask writes with a character whose UTF-8 holds
/// a byte 80-9F (`…`, `€`, `ő`): mojibake of checked text, as any body read in the wrong
/// charset, so it is not a field.
fn unquoted_readings(inner: &[u8]) -> Vec<FieldBytes<'static>> {
    let (mut bytes, mut dropped) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < inner.len() {
        match inner[i..] {
            [b'\\', a @ b'0'..=b'3', b @ b'0'..=b'7', c @ b'0'..=b'7', ..] => {
                bytes.push((a - b'0') << 6 | (b - b'0') << 3 | (c - b'0'));
                dropped.extend_from_slice(&[a, b, c]);
                i += 4;
            }
            [b'\\', x, ..] => {
                bytes.push(x);
                dropped.push(x);
                i += 2;
            }
            [x, ..] => {
                bytes.push(x);
                dropped.push(x);
                i += 1;
            }
            [] => break,
        }
    }
    match dropped == bytes {
        true => vec![FieldBytes::from(bytes)],
        false => vec![FieldBytes::from(bytes), FieldBytes::from(dropped)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readings(inner: &str) -> Vec<Vec<u8>> {
        unquoted_readings(inner.as_bytes())
            .into_iter()
            .map(|r| r.to_vec())
            .collect()
    }

    #[test]
    fn escapes_read_as_each_framework_reads_them() {
        assert_eq!(
            readings(r#"\056\056\057x\"y\\"#),
            [b"../x\"y\\".to_vec(), b"056056057x\"y\\".to_vec()]
        );
        assert_eq!(
            readings(r"\303\251"),
            [b"\xC3\xA9".to_vec(), b"303251".to_vec()]
        );
        assert_eq!(readings(r#"\400\1\"\\"#), [b"4001\"\\".to_vec()]);
    }

    #[test]
    fn names_and_values_frameworks_read_differently() {
        assert!(ambiguous_name(b"$Version").is_some());
        assert!(ambiguous_name("\u{2000}__Host-x".as_bytes()).is_some());
        assert!(ambiguous_name("x\u{a0}".as_bytes()).is_some());
        assert!(ambiguous_name(b"a\\b").is_some());
        assert!(ambiguous_name(b"__Host-x").is_none());
        assert!(ambiguous_name(b"_ga_ABC.12").is_none());
        assert!(ambiguous_value(b"\"x").is_some());
        assert!(ambiguous_value(b"\"x\\;").is_some());
        assert!(ambiguous_value(b"\"x\"y\"").is_none());
        assert!(ambiguous_value(b"x\"y").is_none());
        assert!(ambiguous_value(b"{\"theme\":\"dark\"}").is_none());
        assert!(ambiguous_value(b"\"x\\\"").is_some());
        assert!(ambiguous_value(b"\"x\\\"y\"").is_none());
        assert!(ambiguous_value(b"\"a b\"").is_none());
        assert!(ambiguous_value(b"GA1.2.3.4").is_none());
        assert!(ambiguous_value("x\u{3000}".as_bytes()).is_some());
        assert!(ambiguous_value("é€".as_bytes()).is_none());
    }
}
