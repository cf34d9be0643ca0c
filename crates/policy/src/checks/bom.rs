//! U+FEFF: a signature at the start of a body, ZERO WIDTH NO-BREAK SPACE anywhere else
//! (RFC 3629 §6).

use crate::decide::found::Report;
use crate::finding::{FindingKind, Fix, RawFinding};

/// Whether [`visit`] looks at a byte: the lead byte of U+FEFF.
#[inline(always)]
pub(crate) fn flags(b: u8) -> bool {
    b == 0xEF
}

/// Reports the U+FEFF that byte `at` of a valid run (at field offset `offset`) starts, if it
/// starts one.
#[inline(always)]
pub(crate) fn visit(
    offset: usize,
    text: &str,
    at: usize,
    at_body_start: bool,
    out: &mut impl Report,
) {
    if !text.as_bytes()[at..].starts_with(&utf8gate_codec::UTF8_BOM) {
        return;
    }
    let field_offset = offset + at;
    let signature = at_body_start && field_offset == 0;
    let (kind, message) = if signature {
        (
            FindingKind::Bom,
            "byte order mark (signature) at the start of a body",
        )
    } else {
        (
            FindingKind::MisplacedBom,
            "U+FEFF where a signature cannot be: ZERO WIDTH NO-BREAK SPACE",
        )
    };
    let fix = Fix::Char(field_offset..field_offset + 3);
    out.report(kind, field_offset, 3, fix.clone(), || {
        RawFinding::new(
            kind,
            field_offset,
            &utf8gate_codec::UTF8_BOM,
            fix,
            Some("U+FEFF".to_string()),
            message.to_string(),
        )
    });
}
