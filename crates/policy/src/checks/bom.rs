//! U+FEFF: a signature at the start of a body, ZERO WIDTH NO-BREAK SPACE anywhere else
//! (RFC 3629 §6).

use super::{Fix, RawFinding};
use crate::finding::FindingKind;

/// Reports every U+FEFF in a valid run starting at field offset `offset`.
#[inline(always)]
pub(crate) fn scan(offset: usize, text: &str, at_body_start: bool, out: &mut Vec<RawFinding>) {
    let bytes = text.as_bytes();
    let mut positions = Vec::new();
    super::for_each_flagged(
        bytes,
        |b| b == 0xEF,
        |at| {
            if bytes[at..].starts_with(&utf8gate_codec::UTF8_BOM) {
                positions.push(at);
            }
        },
    );
    for at in positions {
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
        out.push(RawFinding::new(
            kind,
            field_offset,
            &utf8gate_codec::UTF8_BOM,
            Fix::Char(field_offset..field_offset + 3),
            Some("U+FEFF".to_string()),
            message.to_string(),
        ));
    }
}
