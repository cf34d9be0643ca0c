//! The `Content-Transfer-Encoding`s of multipart parts a profile may opt in to decode:
//! base64 and quoted-printable, with the RFC 2045 leniencies Python's `email` has.

/// RFC 2045 §6.8 base64; white space ignored; `None` if it is not base64.
pub(crate) fn decode_base64(content: &[u8]) -> Option<Vec<u8>> {
    let digits: Vec<u8> = content
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let body = digits
        .strip_suffix(b"==")
        .or_else(|| digits.strip_suffix(b"="))
        .unwrap_or(&digits);
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in body {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// RFC 2045 §6.7 quoted-printable: `=XX` escapes and soft line breaks; a malformed `=` is kept
/// as it is (as Python's `quopri` does).
pub(crate) fn decode_quoted_printable(content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len());
    let mut i = 0;
    while i < content.len() {
        if content[i] == b'=' {
            if content[i + 1..].starts_with(b"\r\n") {
                i += 3;
                continue;
            }
            if content[i + 1..].starts_with(b"\n") {
                i += 2;
                continue;
            }
            let hex = content
                .get(i + 1..i + 3)
                .and_then(crate::percent_lax::hex_pair);
            if let Some(v) = hex {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(content[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_quoted_printable() {
        assert_eq!(
            decode_base64(b"wK7ArlwvZXRj\r\n").as_deref(),
            Some(&b"\xC0\xAE\xC0\xAE\\/etc"[..])
        );
        assert_eq!(decode_base64(b"YQ==").as_deref(), Some(&b"a"[..]));
        assert_eq!(decode_base64(b"Y*=="), None);
        assert_eq!(
            decode_quoted_printable(b"a=C0=AE=\r\nb=zz"),
            b"a\xC0\xAEb=zz"
        );
    }
}
