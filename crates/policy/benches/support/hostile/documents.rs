//! The XML cases of `hostile.rs`: a finding in every reference, an attribute list as long as
//! the body, elements as many as fit, nesting to the depth limit; each next to a clean
//! document of the same size and shape.

use super::{Input, JSON_STRINGS, clean_framed, framed, twins};

/// An XML case and its twin.
pub(super) fn xml(name: &str, size: usize) -> (Input, Input) {
    match name {
        // `<r>` then `&#0;` to the end: 1 NUL per 4 bytes, one text field.
        "xml-nul-references" => twins(
            framed(b"<r>", b"&#0;", b" ", b"</r>", size),
            clean_framed(b"<r>", b"</r>", size),
        ),
        // One element whose attributes fill the body, each value a NUL reference: attribute
        // names are compared by hashing, and every value is a field.
        "xml-many-attributes" => twins(attributes(b"&#0;", size), attributes(b"abcd", size)),
        // `<a/>` as often as fits, past the default field limit (max_json_strings).
        "xml-many-elements" => twins(
            framed(b"<r>", b"<a/>", b" ", b"</r>", size),
            clean_framed(b"<r>", b"</r>", size),
        ),
        // Nesting to just under the depth limit, then elements of 48 references each (under
        // the field limit: about 200 bytes a field).
        _ => {
            let depth = 60;
            let open = "<d>".repeat(depth);
            let close = "</d>".repeat(depth);
            let item = |unit: &str| format!("<t>{}</t>", unit.repeat(48)).into_bytes();
            twins(
                framed(open.as_bytes(), &item("&#1;"), b" ", close.as_bytes(), size),
                framed(open.as_bytes(), &item("abcd"), b" ", close.as_bytes(), size),
            )
        }
    }
}

/// `<r a0="v" a1="v" ...>` up to `size` bytes, under the field limit.
fn attributes(value: &[u8], size: usize) -> Vec<u8> {
    let mut out = b"<r".to_vec();
    let mut i = 0;
    while out.len() + 24 < size && i < JSON_STRINGS / 2 {
        out.extend_from_slice(format!(" a{i}=\"").as_bytes());
        out.extend_from_slice(value);
        out.push(b'"');
        i += 1;
    }
    out.extend_from_slice(b"/>");
    out.resize(size.max(out.len()), b' ');
    out
}
