//! A media type (`Content-Type`) read as strictly as RFC 9110 §8.3.1 writes it, against the
//! looser ways backends read it. One reading passes: `type/subtype` of tokens, then
//! `; name=value` parameters of tokens or quoted strings. What a backend reads otherwise is a
//! second reading, and refused (`ambiguous_media_type`):
//!
//! * a list (`application/x-www-form-urlencoded, text/plain`): PHP and Rack cut at the comma
//!   and read a form, others take the whole value or the last type; Envoy joins two
//!   `Content-Type` lines into such a list before `ext_authz` sees them;
//! * junk after the type, a parameter without `=`, white space around `=`, a name that is not
//!   a token: parsers skip, join or refuse;
//! * `charset=` anywhere but as the value of a `charset` parameter (inside another quoted
//!   parameter, after a comma): ASP.NET and others search the whole value for it;
//! * a type that starts as a form, multipart or JSON type but is longer
//!   (`application/x-www-form-urlencoded-v2`, `multipart/form-data-x`): prefix-matching
//!   backends (ASP.NET, some PHP frameworks) read it as that type, utf8gate would not.
//!
//! Parameter-level ambiguities (repeats, escapes, continuations) are [`crate::layers::head`]'s.

use crate::request::split_params;

/// The types whose longer spellings a prefix-matching backend reads as them.
const PREFIX_READ: [&str; 3] = [
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "application/json",
];

/// Where and why `value` has a second reading, or `None` when RFC 9110's is the only one. An
/// empty value is no type (every parser agrees).
pub(crate) fn second_reading(value: &[u8]) -> Option<(usize, String)> {
    if value.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    if let Some(at) = outside_quotes(value)
        .find(|&(_, b)| b == b',')
        .map(|(i, _)| i)
    {
        return Some((
            at,
            "a list of media types: backends take the first, the last or the whole".to_string(),
        ));
    }
    let mut pieces = split_params(value);
    let essence = pieces.next().unwrap_or_default();
    let lead = essence.iter().take_while(|&&b| is_ows(b)).count();
    let essence = trim_ows(essence);
    let well_formed = match essence.iter().position(|&b| b == b'/') {
        Some(slash) => is_token(&essence[..slash]) && is_token(&essence[slash + 1..]),
        None => false,
    };
    if !well_formed {
        return Some((
            lead,
            "not a type/subtype of tokens: backends read it as another type or none".to_string(),
        ));
    }
    let starts =
        |t: &str| essence.len() > t.len() && essence[..t.len()].eq_ignore_ascii_case(t.as_bytes());
    let json_suffix =
        essence.len() >= 5 && essence[essence.len() - 5..].eq_ignore_ascii_case(b"+json");
    if let Some(read) = PREFIX_READ
        .iter()
        .find(|t| starts(t))
        .filter(|t| !(**t == "application/json" && json_suffix))
    {
        return Some((
            lead,
            format!("a type that prefix-matching backends read as {read}"),
        ));
    }
    let mut offset = essence.len() + lead;
    for piece in pieces {
        offset += 1;
        if let Some(why) = loose_parameter(piece) {
            return Some((offset, why));
        }
        offset += piece.len();
    }
    hidden_charset(value).map(|at| {
        (
            at,
            "charset= where no charset parameter is: backends that search for it read this charset"
                .to_string(),
        )
    })
}

/// Why one `;`-separated piece is not `name=value` as RFC 9110 §5.6.6 writes it. An empty
/// piece (`text/plain;`) is allowed: `*( OWS ";" OWS [ parameter ] )`.
fn loose_parameter(piece: &[u8]) -> Option<String> {
    let piece = trim_ows(piece);
    if piece.is_empty() {
        return None;
    }
    let Some(eq) = piece.iter().position(|&b| b == b'=') else {
        return Some("a parameter without '=': parsers skip it or read it as a name".to_string());
    };
    let (name, value) = (&piece[..eq], &piece[eq + 1..]);
    if name.last().is_some_and(|&b| is_ows(b)) || value.first().is_some_and(|&b| is_ows(b)) {
        return Some("white space around '=': parsers trim it or keep it".to_string());
    }
    if !is_token(name) {
        return Some("a parameter name that is not a token".to_string());
    }
    if value.is_empty() {
        return Some("a parameter with an empty value".to_string());
    }
    let one_value = match value.first() {
        Some(b'"') => is_quoted_string(value),
        _ => is_token(value),
    };
    if !one_value {
        // A form feed, a CR or a control is white space to some parsers, part of the value
        // to others, and an end to others again.
        return Some("a parameter value that is neither a token nor a quoted string".to_string());
    }
    None
}

/// RFC 9110 §5.6.4 `quoted-string`, the whole of `value`: no control but HTAB inside, nothing
/// after the closing quote.
fn is_quoted_string(value: &[u8]) -> bool {
    let control = |&b: &u8| (b < 0x20 && b != b'\t') || b == 0x7F;
    quoted_string_end(value) == Some(value.len()) && !value.iter().any(control)
}

/// Where the quoted-string at the start of `raw` ends (after its closing quote), if it does.
pub(crate) fn quoted_string_end(raw: &[u8]) -> Option<usize> {
    let mut escaped = false;
    for (i, &b) in raw.iter().enumerate().skip(1) {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// The offset of a `charset=` that is not the name of a parameter: inside a quoted value, or
/// a second one a charset-searching backend could find.
fn hidden_charset(value: &[u8]) -> Option<usize> {
    let named = split_params(value)
        .filter(|piece| {
            let name = piece.split(|&b| b == b'=').next().unwrap_or_default();
            piece.contains(&b'=') && name.trim_ascii().eq_ignore_ascii_case(b"charset")
        })
        .count();
    // Every `charset` (any case) followed by `=`: how many, and the last.
    let (mut found, mut last) = (0, None);
    for at in memchr::memchr2_iter(b'c', b'C', value) {
        let word = value
            .get(at..at + 7)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"charset"));
        if word && value[at + 7..].trim_ascii_start().first() == Some(&b'=') {
            found += 1;
            last = Some(at);
        }
    }
    (found > named).then_some(last).flatten()
}

/// The bytes of `value` outside quoted strings, with their offsets.
fn outside_quotes(value: &[u8]) -> impl Iterator<Item = (usize, u8)> + '_ {
    let (mut quoted, mut escaped) = (false, false);
    value.iter().enumerate().filter_map(move |(i, &b)| {
        let inside = quoted;
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            _ => {}
        }
        (!inside && b != b'"').then_some((i, b))
    })
}

/// RFC 9110 §5.6.3 `OWS`: spaces and horizontal tabs, nothing else (a form feed or a vertical
/// tab is white space to some parsers only).
fn is_ows(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn trim_ows(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().take_while(|&&b| is_ows(b)).count();
    let end = bytes.len()
        - bytes[start..]
            .iter()
            .rev()
            .take_while(|&&b| is_ows(b))
            .count();
    &bytes[start..end]
}

/// RFC 9110 §5.6.2 `token`: one or more `tchar`.
pub(crate) fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().all(|&b| is_tchar(b))
}

/// RFC 9110 §5.6.2 `tchar`.
pub(crate) fn is_tchar(b: u8) -> bool {
    TCHAR[usize::from(b)]
}

/// [`is_tchar`] by byte: a table, because every byte of every header name is read through it.
const TCHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        table[i] = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'!' | b'#'..=b'\'' | b'*' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`' | b'|' | b'~'
            );
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests;
