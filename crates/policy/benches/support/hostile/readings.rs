//! The cases of `hostile.rs` for readings frameworks apply: JSON keys compared in NFC (each
//! non-ASCII key normalized and checked for a character Go folds into ASCII), and form fields
//! that are `multipart/mixed` bodies of their own (each read as parts again); each next to a
//! clean body of the same size and shape.

use super::{BOUNDARY, Input, JSON_STRINGS, PARTS, framed, twins};

/// A reading case and its twin.
pub(super) fn reading(name: &str, size: usize) -> (Input, Input) {
    match name {
        // 45 000 members, every key accented (`é0`, `é1`, ...); twin: `k0`, `k1`, ...
        "json-accented-keys" => twins(members("\u{e9}", size), members("k", size)),
        // 99 form fields typed `multipart/mixed`, each one inner part; twin: `text/plain`.
        _ => twins(nested(true, size), nested(false, size)),
    }
}

/// One object of `JSON_STRINGS / 2` members whose keys are `stem` and a number, exactly `size`
/// bytes.
fn members(stem: &str, size: usize) -> Vec<u8> {
    let count = JSON_STRINGS / 2;
    let each = size.saturating_sub(2) / count;
    let mut out = Vec::with_capacity(size);
    out.push(b'{');
    for i in 0..count {
        let head = format!("{}\"{stem}{i}\":\"", if i > 0 { "," } else { "" });
        out.extend_from_slice(head.as_bytes());
        out.extend(std::iter::repeat_n(
            b'a',
            each.saturating_sub(head.len() + 1),
        ));
        out.push(b'"');
    }
    out.push(b'}');
    out.resize(size.max(out.len()), b' ');
    out
}

/// `PARTS` form fields, each a `multipart/mixed` of one text part (`mixed`) or text, exactly
/// `size` bytes.
fn nested(mixed: bool, size: usize) -> Vec<u8> {
    let close = [b"--", BOUNDARY, b"--\r\n"].concat();
    let each = size.saturating_sub(close.len()) / PARTS;
    let mut out = Vec::with_capacity(size);
    for i in 0..PARTS {
        let mut head = [b"--", BOUNDARY, b"\r\n"].concat();
        let (content_type, inner_head, inner_tail): (&[u8], &[u8], &[u8]) = match mixed {
            true => (
                b"multipart/mixed; boundary=in",
                b"--in\r\nContent-Disposition: attachment; filename=\"a.txt\"\r\n\r\n",
                b"\r\n--in--",
            ),
            false => (b"text/plain", b"", b""),
        };
        let disposition = format!("Content-Disposition: form-data; name=\"f{i:02}\"\r\n");
        head.extend_from_slice(disposition.as_bytes());
        head.extend_from_slice(b"Content-Type: ");
        head.extend_from_slice(content_type);
        head.extend_from_slice(b"\r\n\r\n");
        let content = each.saturating_sub(head.len() + 2);
        out.extend_from_slice(&head);
        out.extend_from_slice(&framed(inner_head, b"b", b"b", inner_tail, content));
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(&close);
    out.resize(size.max(out.len()), b' ');
    out
}
