//! Codec diagnosis → findings; an overlong NUL is also reported as a NUL.

use utf8gate_codec::{Malformation, MalformedKind};

use crate::finding::{FindingKind, Fix, RawFinding};

/// One finding per malformation, plus a `nul` finding for a disguised NUL (`C0 80`).
pub(crate) fn findings(malformations: &[Malformation]) -> Vec<RawFinding> {
    let mut out = Vec::with_capacity(malformations.len());
    for m in malformations {
        findings_of(m, |f| out.push(f));
    }
    out
}

/// The findings of one malformation: its kind, and `nul` when a lax decoder reads U+0000.
pub(crate) fn findings_of(m: &Malformation, mut push: impl FnMut(RawFinding)) {
    let fix = Fix::Malformed {
        range: m.range(),
        repair_to: if m.kind() == MalformedKind::Cesu8Pair {
            m.lax_char()
        } else {
            None
        },
    };
    let lax = m.lax_scalar().map(utf8gate_codec::format_scalar);
    push(RawFinding::new(
        FindingKind::from_malformed(m.kind()),
        m.offset(),
        m.bytes(),
        fix.clone(),
        lax.clone(),
        m.message(),
    ));
    if m.lax_scalar() == Some(0) {
        push(RawFinding::new(
            FindingKind::Nul,
            m.offset(),
            m.bytes(),
            fix,
            lax,
            "NUL disguised as an overlong form".to_string(),
        ));
    }
}
