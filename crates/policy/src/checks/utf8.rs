//! Codec diagnosis → findings; an overlong NUL is also reported as a NUL.

use utf8gate_codec::{Malformation, MalformedKind};

use crate::decide::found::Report;
use crate::finding::{FindingKind, Fix, RawFinding};

/// The findings of one malformation: its kind, and `nul` when a lax decoder reads U+0000.
#[inline]
pub(crate) fn findings_of(m: &Malformation, out: &mut impl Report) {
    let fix = Fix::Malformed {
        range: m.range(),
        repair_to: if m.kind() == MalformedKind::Cesu8Pair {
            m.lax_char()
        } else {
            None
        },
    };
    let lax = || m.lax_scalar().map(utf8gate_codec::format_scalar);
    let kind = FindingKind::from_malformed(m.kind());
    out.report(kind, m.offset(), m.len(), fix.clone(), || {
        RawFinding::new(kind, m.offset(), m.bytes(), fix.clone(), lax(), m.message())
    });
    if m.lax_scalar() == Some(0) {
        out.report(FindingKind::Nul, m.offset(), m.len(), fix.clone(), || {
            RawFinding::new(
                FindingKind::Nul,
                m.offset(),
                m.bytes(),
                fix,
                lax(),
                "NUL disguised as an overlong form".to_string(),
            )
        });
    }
}
