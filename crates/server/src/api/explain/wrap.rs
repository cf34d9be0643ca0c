//! The text to explain placed in a location class (`?location=`): as a whole `text/plain`
//! body, as the value of the form field `text`, or as the JSON string at `/text`. In each the
//! field's bytes after its decoding layers are the text itself, so a finding in that field
//! indexes the text, and the sanitized field is read back out of the sanitized upload. A leaf
//! of `api::explain`.

use serde::{Deserialize, Serialize};
use utf8gate_policy::{Finding, FindingKind, Part};

/// Bytes shown on each side of a finding in its hex window.
pub const WINDOW_BYTES: usize = 8;

/// The location class the text is scanned in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// A whole `text/plain; charset=utf-8` body (findings: `location.part` = `body`).
    #[default]
    Body,
    /// The value of the field `text` of an `application/x-www-form-urlencoded` body, every
    /// byte but ASCII letters and digits percent-encoded (`form_value`). Query values are
    /// decoded the same way.
    Form,
    /// The string at `/text` of `{"text": "..."}`: the text's bytes as they are, `"`, `\` and
    /// C0 controls escaped (`json_string`).
    Json,
}

/// The upload that carries `text` in `class`.
pub fn upload(class: Class, text: &[u8]) -> utf8gate_policy::Request {
    let (content_type, body) = match class {
        Class::Body => ("text/plain; charset=utf-8", text.to_vec()),
        Class::Form => ("application/x-www-form-urlencoded", form(text)),
        Class::Json => ("application/json", json(text)),
    };
    let mut r = utf8gate_policy::Request::new("POST", b"/");
    r.headers
        .push(("content-type".into(), content_type.as_bytes().to_vec()));
    r.body = body.into();
    r
}

fn form(text: &[u8]) -> Vec<u8> {
    let mut out = b"text=".to_vec();
    for &b in text {
        if b.is_ascii_alphanumeric() {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
    out
}

fn json(text: &[u8]) -> Vec<u8> {
    let mut out = b"{\"text\":\"".to_vec();
    for &b in text {
        match b {
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            0..=0x1F => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(b"\"}");
    out
}

/// The text back out of a sanitized upload's body (`None` if it no longer reads as `class`).
pub fn text_of(class: Class, body: &[u8]) -> Option<Vec<u8>> {
    match class {
        Class::Body => Some(body.to_vec()),
        Class::Form => percent_decode(body.strip_prefix(b"text=")?),
        Class::Json => {
            let value: serde_json::Value = serde_json::from_slice(body).ok()?;
            Some(value.get("text")?.as_str()?.as_bytes().to_vec())
        }
    }
}

/// A form value's bytes: `%XX` decoded, `+` a space; `None` on a malformed escape or a `&`.
fn percent_decode(encoded: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(encoded.len());
    let mut i = 0;
    while i < encoded.len() {
        match encoded[i] {
            b'%' => {
                let hex = std::str::from_utf8(encoded.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'&' => return None,
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(out)
}

/// Where a listed finding sits in the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// The finding's index in the verdict's `findings`.
    pub finding: usize,
    /// First byte of the finding in the text.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// First byte of the hex window (at most [`WINDOW_BYTES`] before `start`).
    pub window_start: usize,
    /// The window's bytes in upper-case hex, space-separated.
    pub window_hex: String,
}

/// The marks of the findings that sit in the text's field: in `class`'s part (the form field
/// and JSON pointer named `text`), with at least one byte, inside the text. Percent-escape
/// findings of a form value index its encoded bytes, not the text: they are listed only.
pub fn marks(class: Class, text: &[u8], findings: &[Finding]) -> Vec<Mark> {
    let in_text = |f: &Finding| {
        let l = &f.location;
        let escape = matches!(
            f.kind,
            FindingKind::MalformedEscape
                | FindingKind::IisUnicodeEscape
                | FindingKind::DoubleEncoding
                | FindingKind::EncodedSeparator
        );
        match class {
            Class::Body => l.part == Part::Body,
            Class::Form => {
                l.part == Part::FormValue && l.name.as_deref() == Some("text") && !escape
            }
            Class::Json => l.part == Part::JsonString && l.pointer.as_deref() == Some("/text"),
        }
    };
    findings
        .iter()
        .enumerate()
        .filter(|(_, f)| in_text(f) && f.length > 0)
        .filter_map(|(finding, f)| {
            let end = f
                .offset
                .checked_add(f.length)
                .filter(|&e| e <= text.len())?;
            let window_start = f.offset.saturating_sub(WINDOW_BYTES);
            let window_end = (end + WINDOW_BYTES).min(text.len());
            Some(Mark {
                finding,
                start: f.offset,
                end,
                window_start,
                window_hex: hex(&text[window_start..window_end]),
            })
        })
        .collect()
}

/// `bytes` as `"C0 AE"`.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("{b:02X}"));
    }
    out
}

/// Standard base64 with padding (RFC 4648 §4), by the `base64` crate tonic already brings.
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected, "{input:?}");
        }
        assert_eq!(base64(&[0xFF, 0xEE]), "/+4=");
    }

    #[test]
    fn every_class_reads_back_the_text_it_wrapped() {
        let text = b"a \"b\\c\"+&=%\t\n\xC3\xA9\xC0\xAE";
        for class in [Class::Body, Class::Form, Class::Json] {
            let body = upload(class, text).body;
            if class == Class::Json {
                // Not UTF-8, so not serde's; the valid part reads back.
                let valid = &text[..text.len() - 2];
                let body = upload(class, valid).body;
                assert_eq!(text_of(class, &body).as_deref(), Some(valid));
            } else {
                assert_eq!(
                    text_of(class, &body).as_deref(),
                    Some(&text[..]),
                    "{class:?}"
                );
            }
        }
        assert_eq!(text_of(Class::Form, b"text=%C"), None);
        assert_eq!(text_of(Class::Form, b"other=a"), None);
    }

    #[test]
    fn marks_index_the_text_in_each_class() {
        let profile = utf8gate_policy::Profile::strict();
        let text = b"0123456789\xC0\xAEabcdefghij";
        for class in [Class::Body, Class::Form, Class::Json] {
            let verdict = utf8gate_policy::evaluate_upload(&profile, &upload(class, text)).verdict;
            let marks = marks(class, text, &verdict.findings);
            assert_eq!(marks.len(), 1, "{class:?}: {verdict:?}");
            let m = &marks[0];
            assert_eq!((m.start, m.end, m.window_start), (10, 12, 2), "{class:?}");
            assert_eq!(
                m.window_hex,
                "32 33 34 35 36 37 38 39 C0 AE 61 62 63 64 65 66 67 68"
            );
            assert_eq!(verdict.findings[m.finding].kind, FindingKind::Overlong);
        }
    }
}
