//! `multipart/form-data` (RFC 7578): parts with byte spans, so that one part's content or
//! filename can be rewritten and every other byte kept.
//!
//! Written here rather than taken from a streaming parser because the policy needs the exact
//! byte range of every part, header and parameter value in the body, which such parsers do not
//! expose. It is bounded: at most `max_parts` parts, linear in the body.
//!
//! It also records every way a part can be read twice (RFC 7578 leaves room for parsers to
//! differ, and they do): a repeated `Content-Disposition` or `Content-Type`, a repeated or
//! continued parameter, escapes in quoted strings, `filename` and `filename*` that disagree, a
//! folded header line, a boundary that also appears inside a part. The policy refuses those.

use core::ops::Range;

use crate::finding::FindingKind;
use crate::layers::head::parameter_ambiguity;
use crate::layers::media_type::is_tchar;
use crate::layers::percent;
use crate::request::{ContentType, split_params, trim};

/// One part: spans in the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// Header lines: lowercase name and the value's span.
    pub(crate) headers: Vec<(String, Range<usize>)>,
    /// Span of the `name` parameter's value (inside quotes, if quoted).
    pub(crate) name: Option<Range<usize>>,
    /// Span of the `filename` parameter's value (inside quotes, if quoted).
    pub(crate) filename: Option<Range<usize>>,
    /// Span of the percent-encoded tail of `filename*=charset'lang'...`.
    pub(crate) filename_ext: Option<Range<usize>>,
    /// Span of the percent-encoded tail of `name*=charset'lang'...`.
    pub(crate) name_ext: Option<Range<usize>>,
    /// The part's `Content-Type` essence, lowercase.
    pub(crate) content_type: Option<String>,
    /// The part's `charset` parameter, lowercase.
    pub(crate) charset: Option<String>,
    /// The part's `Content-Transfer-Encoding`, lowercase.
    pub(crate) transfer_encoding: Option<String>,
    /// Span of the content.
    pub(crate) content: Range<usize>,
    /// Ways the part is read twice: body offset, kind, explanation.
    pub(crate) ambiguities: Vec<(usize, FindingKind, String)>,
    /// Where a `Content-Disposition` of a type other than `form-data` (`attachment`, `file`)
    /// is: one more way to read a form-data part (parsers read it or skip it), the usual one
    /// in other multipart bodies.
    pub(crate) other_disposition: Option<usize>,
}

/// Why a body is not multipart as announced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MultipartError {
    /// Framing is broken at this offset.
    Malformed {
        offset: usize,
        message: &'static str,
    },
    /// More parts than allowed.
    TooManyParts { limit: usize },
    /// More part header lines (all parts together) than allowed.
    TooManyHeaders { limit: usize },
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from > haystack.len() {
        return None;
    }
    haystack[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Splits a multipart body with the given boundary: at most `max_parts` parts and
/// `max_headers` header lines in all (each line is a field to check: a body of `a:` lines would
/// otherwise cost a field per four bytes).
pub(crate) fn parts(
    body: &[u8],
    boundary: &[u8],
    max_parts: usize,
    max_headers: usize,
) -> Result<Vec<Part>, MultipartError> {
    let malformed = |offset, message| MultipartError::Malformed { offset, message };
    if boundary.is_empty() || boundary.len() > 70 {
        return Err(malformed(0, "missing or overlong boundary"));
    }
    let mut delimiter = b"--".to_vec();
    delimiter.extend_from_slice(boundary);
    // The first delimiter: at the start, or after a preamble ending in CRLF.
    let first = if body.starts_with(&delimiter) {
        0
    } else {
        let mut crlf = b"\r\n".to_vec();
        crlf.extend_from_slice(&delimiter);
        find(body, &crlf, 0).ok_or(malformed(0, "no boundary delimiter"))? + 2
    };
    let mut close = b"\r\n".to_vec();
    close.extend_from_slice(&delimiter);
    let mut parts = Vec::new();
    let mut header_lines = 0;
    let mut at = first + delimiter.len();
    if body[at..].starts_with(b"--") {
        return Ok(parts);
    }
    loop {
        // Transport padding, then CRLF.
        while matches!(body.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        if !body[at..].starts_with(b"\r\n") {
            return Err(malformed(at, "expected CRLF after the boundary"));
        }
        at += 2;
        if parts.len() == max_parts {
            return Err(MultipartError::TooManyParts { limit: max_parts });
        }
        let headers_end = if body[at..].starts_with(b"\r\n") {
            at
        } else {
            find(body, b"\r\n\r\n", at).ok_or(malformed(at, "part headers do not end"))? + 2
        };
        let mut part = Part {
            headers: Vec::new(),
            name: None,
            filename: None,
            filename_ext: None,
            name_ext: None,
            content_type: None,
            charset: None,
            transfer_encoding: None,
            content: 0..0,
            ambiguities: Vec::new(),
            other_disposition: None,
        };
        let mut line_start = at;
        while line_start < headers_end {
            let line_end = find(body, b"\r\n", line_start)
                .unwrap_or(headers_end)
                .min(headers_end);
            let line = &body[line_start..line_end];
            if matches!(line.first(), Some(b' ' | b'\t')) {
                return Err(malformed(line_start, "folded part header line"));
            }
            let colon = line
                .iter()
                .position(|&b| b == b':')
                .ok_or(malformed(line_start, "part header without ':'"))?;
            if line[..colon].iter().any(|b| b.is_ascii_whitespace()) {
                return Err(malformed(line_start, "white space in a part header name"));
            }
            if colon == 0 {
                let why = "a part header line without a name".to_string();
                part.ambiguities
                    .push((line_start, FindingKind::AmbiguousHeaderName, why));
            } else if let Some(bad) = line[..colon].iter().position(|&b| !is_tchar(b)) {
                part.ambiguities.push((
                    line_start + bad,
                    FindingKind::AmbiguousHeaderName,
                    format!(
                        "byte 0x{:02X} in a part header name, which is not a token",
                        line[bad]
                    ),
                ));
            }
            header_lines += 1;
            if header_lines > max_headers {
                return Err(MultipartError::TooManyHeaders { limit: max_headers });
            }
            let name = String::from_utf8_lossy(&line[..colon]).to_ascii_lowercase();
            let value = line_start + colon + 1..line_end;
            header(body, &name, value.clone(), &mut part);
            part.headers.push((name, value));
            line_start = line_end + 2;
        }
        let content_start = headers_end + 2;
        let content_end = find(body, &close, content_start).ok_or(malformed(
            content_start,
            "part does not end with a boundary",
        ))?;
        part.content = content_start..content_end;
        parts.push(part);
        at = content_end + close.len();
        if body[at..].starts_with(b"--") {
            // Every delimiter was found where it was expected; one anywhere else (after a bare
            // LF, in the preamble or the epilogue) is a part boundary to some parser.
            let seen = memchr::memmem::find_iter(body, &delimiter).count();
            if seen != parts.len() + 1 {
                return Err(malformed(
                    at,
                    "the boundary delimiter also appears inside a part, the preamble or the epilogue",
                ));
            }
            return Ok(parts);
        }
    }
}

/// Records one part header: its parameters, and the ways it can be read twice.
fn header(body: &[u8], name: &str, value: Range<usize>, part: &mut Part) {
    let singleton = matches!(
        name,
        "content-disposition" | "content-type" | "content-transfer-encoding"
    );
    if singleton && part.headers.iter().any(|(n, _)| n == name) {
        part.ambiguities.push((
            value.start,
            FindingKind::RepeatedHeader,
            format!("a part with two {name} lines: parsers take the first or the last"),
        ));
        return;
    }
    let media_type = (name == "content-type")
        .then(|| crate::layers::media_type::second_reading(&body[value.clone()]))
        .flatten();
    if let Some((offset, why)) = media_type {
        let kind = FindingKind::AmbiguousMediaType;
        part.ambiguities.push((value.start + offset, kind, why));
    } else if matches!(name, "content-disposition" | "content-type")
        && let Some((offset, kind, why)) = parameter_ambiguity(&body[value.clone()])
    {
        part.ambiguities.push((value.start + offset, kind, why));
    }
    match name {
        "content-disposition" => {
            let kind = split_params(&body[value.clone()])
                .next()
                .unwrap_or_default();
            if !kind.trim_ascii().eq_ignore_ascii_case(b"form-data") {
                part.other_disposition = Some(value.start);
            }
            disposition_params(body, value.clone(), part);
            // Bytes that are not UTF-8 outside the parameters checked as fields: parsers read
            // such a line as UTF-8 with replacement, as Latin-1, or refuse it.
            let mut rest = body[value.clone()].to_vec();
            for r in [
                &part.name,
                &part.filename,
                &part.name_ext,
                &part.filename_ext,
            ]
            .into_iter()
            .flatten()
            {
                rest[r.start - value.start..r.end - value.start].fill(b'x');
            }
            if utf8gate_codec::validate(&rest).is_err() {
                part.ambiguities.push((
                    value.start,
                    FindingKind::AmbiguousParameter,
                    "Content-Disposition is not UTF-8: parsers replace, fall back to Latin-1 or refuse"
                        .to_string(),
                ));
            }
        }
        "content-type" => {
            let ct = ContentType::parse(&body[value]);
            part.charset = ct.charset();
            part.content_type = Some(ct.essence.into_string());
        }
        "content-transfer-encoding" => {
            part.transfer_encoding =
                Some(String::from_utf8_lossy(trim(&body[value])).to_ascii_lowercase());
        }
        _ => {}
    }
}

/// The value every parser reads for `filename` (or `name`): the plain parameter, which must
/// equal the RFC 8187 form when both are given. `None` when there is no single reading: only
/// the extended form (some parsers ignore it), or the two disagree (parsers pick either).
pub(crate) fn agreed_value(
    body: &[u8],
    plain: Option<Range<usize>>,
    ext: Option<Range<usize>>,
) -> Option<Option<Vec<u8>>> {
    match (plain, ext) {
        (Some(p), Some(e)) => {
            let plain = unquote_inner(&body[p]);
            let (ext, _) = percent::decode(&body[e], false, &mut 0);
            (plain[..] == ext[..]).then_some(Some(plain))
        }
        (Some(p), None) => Some(Some(unquote_inner(&body[p]))),
        (None, Some(_)) => None,
        (None, None) => Some(None),
    }
}

/// Records the spans of `name`, `filename` and `filename*` in a Content-Disposition value.
fn disposition_params(body: &[u8], value: Range<usize>, part: &mut Part) {
    let mut offset = value.start;
    for piece in split_params(&body[value.clone()]) {
        let piece_start = offset;
        offset += piece.len() + 1;
        let Some(eq) = piece.iter().position(|&b| b == b'=') else {
            continue;
        };
        let key = String::from_utf8_lossy(trim(&piece[..eq])).to_ascii_lowercase();
        let raw = &piece[eq + 1..];
        let lead = raw.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let trail = raw
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let mut start = piece_start + eq + 1 + lead;
        let mut end = (piece_start + eq + 1 + raw.len() - trail).max(start);
        if end - start >= 2 && body[start] == b'"' && body[end - 1] == b'"' {
            start += 1;
            end -= 1;
        }
        // HTML form submission writes '"', CR and LF of names as %22, %0D and %0A, and some
        // parsers (Werkzeug, multipart) turn them back; others keep them.
        if matches!(key.as_str(), "name" | "filename") && has_html_escape(&body[start..end]) {
            part.ambiguities.push((
                start,
                FindingKind::AmbiguousParameter,
                format!("%22, %0D or %0A in {key}: some parsers decode them, others do not"),
            ));
        }
        if key == "name" && start == end {
            part.ambiguities.push((
                start,
                FindingKind::AmbiguousParameter,
                "an empty name: parsers read it as no name, \"\" or refuse".to_string(),
            ));
        }
        match key.as_str() {
            "name" => part.name = Some(start..end),
            "filename" => part.filename = Some(start..end),
            "filename*" => part.filename_ext = Some(ext_value_tail(body, start..end, part)),
            "name*" => part.name_ext = Some(ext_value_tail(body, start..end, part)),
            _ => {}
        }
    }
}

fn has_html_escape(value: &[u8]) -> bool {
    value.windows(3).any(|w| {
        w[0] == b'%'
            && (w[1..].eq_ignore_ascii_case(b"22")
                || w[1..].eq_ignore_ascii_case(b"0d")
                || w[1..].eq_ignore_ascii_case(b"0a"))
    })
}

/// The percent-encoded tail of an RFC 8187 `ext-value` (`charset'language'tail`); a charset
/// other than UTF-8 is a reading utf8gate does not take.
fn ext_value_tail(body: &[u8], value: Range<usize>, part: &mut Part) -> Range<usize> {
    let Some((charset, tail)) = percent::split_ext_value(&body[value.clone()]) else {
        part.ambiguities.push((
            value.start,
            FindingKind::AmbiguousParameter,
            "an extended parameter without charset'language' prefix".to_string(),
        ));
        return value;
    };
    if !charset.eq_ignore_ascii_case(b"utf-8") {
        part.ambiguities.push((
            value.start,
            FindingKind::ForeignCharset,
            format!(
                "extended parameter in charset {:?}",
                String::from_utf8_lossy(charset)
            ),
        ));
    }
    value.start + tail..value.end
}

/// Quoted-string content for a rewritten parameter value: `"` and `\` escaped.
pub(crate) fn quote(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len());
    for &b in value {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out
}

/// Unescapes quoted-string content (`\x` → `x`).
pub(crate) fn unquote_inner(value: &[u8]) -> Vec<u8> {
    crate::request::unescape_quoted(value)
}

#[cfg(test)]
mod tests;
