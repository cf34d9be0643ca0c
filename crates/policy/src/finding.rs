//! Findings: the closed set of kinds, their severities, the actions a profile can take, and
//! raw findings (what a check or a layer found, before the profile chose an action: kind,
//! offset and bytes in the field, and how the offending bytes can be fixed if the action
//! rewrites).

use core::fmt;
use core::ops::Range;

use serde::{Deserialize, Serialize};
use utf8gate_codec::MalformedKind;

use crate::location::Location;

mod kinds;

pub use kinds::{FindingKind, KindClass, Severity};

impl FindingKind {
    /// The finding kind of a codec malformation.
    pub fn from_malformed(kind: MalformedKind) -> FindingKind {
        match kind {
            MalformedKind::Overlong => FindingKind::Overlong,
            MalformedKind::Surrogate => FindingKind::Surrogate,
            MalformedKind::Cesu8Pair => FindingKind::Cesu8Pair,
            MalformedKind::AboveMax => FindingKind::AboveMax,
            MalformedKind::LegacyForm => FindingKind::LegacyForm,
            MalformedKind::InvalidByte => FindingKind::InvalidByte,
            MalformedKind::UnexpectedContinuation => FindingKind::UnexpectedContinuation,
            _ => FindingKind::Truncated,
        }
    }

    /// `true` for the kinds that mean "these bytes are not UTF-8".
    pub fn is_malformed_utf8(self) -> bool {
        MalformedKind::ALL
            .iter()
            .any(|&k| FindingKind::from_malformed(k) == self)
    }

    /// `true` for the kinds that mean "this request has more than one reading, or a layer
    /// utf8gate does not read": no rewrite can fix them, every profile rejects them.
    pub fn is_reading(self) -> bool {
        self.class() == KindClass::Reading
    }

    /// `true` for the kinds of identity fields (`[[identity]]`): their action is the identity
    /// table's, never a profile rule's.
    pub fn is_identity(self) -> bool {
        self.class() == KindClass::Identity
    }

    /// Whether a report shows a finding's bytes (malformed sequences and characters, not
    /// structure).
    pub fn shows_bytes(self) -> bool {
        matches!(
            self.class(),
            KindClass::Malformed | KindClass::Disguise | KindClass::Character
        )
    }

    /// Whether a lax reader makes something else of a finding's bytes (a malformed sequence's
    /// value, a lookalike's ASCII): what it reads is worth saying.
    pub fn reads_otherwise(self) -> bool {
        matches!(self.class(), KindClass::Malformed | KindClass::Disguise)
    }

    /// Parses a name produced by [`FindingKind::as_str`].
    pub fn from_name(name: &str) -> Option<FindingKind> {
        FindingKind::ALL
            .iter()
            .copied()
            .find(|k| k.as_str() == name)
    }

    /// The actions that mean something for this kind; a profile may choose only these.
    pub fn allowed_actions(self) -> &'static [Action] {
        use Action::*;
        use FindingKind::*;
        match self {
            Cesu8Pair => &[Reject, Replace, Strip, Repair, Log],
            k if k.is_malformed_utf8() => &[Reject, Replace, Strip, Log],
            NotNfc => &[Reject, Normalize, Log],
            IdentityNotEnforced => &[Reject, Rewrite, Log],
            Bom | MisplacedBom | Nul | Control | BidiControl | Noncharacter => {
                &[Reject, Replace, Strip, Log]
            }
            _ => &[Reject, Log],
        }
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the policy does about a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Refuse the whole request.
    Reject,
    /// Replace the offending bytes: U+FFFD per maximal subpart for malformed UTF-8, one
    /// U+FFFD per character otherwise.
    Replace,
    /// Remove the offending bytes.
    Strip,
    /// Rewrite a CESU-8 pair as the 4-byte UTF-8 of the same character (opt-in).
    Repair,
    /// Rewrite the field in NFC.
    Normalize,
    /// Rewrite an identity field to its PRECIS profile's enforced form (opt-in per
    /// `[[identity]]`).
    Rewrite,
    /// Report only.
    Log,
    /// Exempted by an exclusion at its location: reported only, and counted apart. Never a
    /// profile's choice (see [`Exclusion`](crate::Exclusion)).
    Excluded,
}

impl Action {
    /// `true` for the actions that rewrite the field.
    pub fn rewrites(self) -> bool {
        matches!(
            self,
            Action::Replace | Action::Strip | Action::Repair | Action::Normalize | Action::Rewrite
        )
    }

    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Reject => "reject",
            Action::Replace => "replace",
            Action::Strip => "strip",
            Action::Repair => "repair",
            Action::Normalize => "normalize",
            Action::Rewrite => "rewrite",
            Action::Log => "log",
            Action::Excluded => "excluded",
        }
    }
}

/// One thing found in one field, with the action the profile chose for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// How serious it is in itself.
    pub severity: Severity,
    /// What the profile does about it.
    pub action: Action,
    /// Where: which field of the request.
    pub location: Location,
    /// Byte offset in the field's bytes (after its decoding layers; for escape findings, in
    /// the field's encoded bytes).
    pub offset: usize,
    /// Number of offending bytes.
    pub length: usize,
    /// The offending bytes in hex, at most 16 bytes (`"C0 AE"`).
    pub bytes: String,
    /// The scalar a lax decoder reads there (`"U+002E"`), or the ASCII a lookalike becomes.
    pub lax_scalar: Option<String>,
    /// A one-line explanation.
    pub message: String,
    /// How many adjacent occurrences of this kind the finding stands for, when more than one
    /// (a run: `length` covers them all, `bytes` shows the first). Absent for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u64>,
}

/// How the bytes of a finding can be rewritten when its action asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fix {
    /// Nothing in the field can be rewritten (escapes, traversal, structure).
    None,
    /// Malformed UTF-8 at this range: replace by maximal subparts, strip, or (for CESU-8 pairs)
    /// repair into the UTF-8 of `repair_to`.
    Malformed {
        /// Field byte range.
        range: Range<usize>,
        /// The character a repair writes.
        repair_to: Option<char>,
    },
    /// One valid character at this range: replace with U+FFFD or strip.
    Char(Range<usize>),
    /// The whole field: normalize to NFC.
    Normalize,
    /// The whole field: replace by an identity profile's enforced form.
    Enforce(String),
}

/// A finding before its action is chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawFinding {
    pub(crate) kind: FindingKind,
    pub(crate) offset: usize,
    pub(crate) length: usize,
    /// At most 16 bytes of the offending bytes.
    pub(crate) bytes: Vec<u8>,
    pub(crate) fix: Fix,
    pub(crate) lax_scalar: Option<String>,
    pub(crate) message: String,
    /// Adjacent occurrences this finding stands for (1 unless merged, see `crate::decide::found`).
    pub(crate) run: u64,
}

impl RawFinding {
    /// A finding at `offset` whose offending bytes are `bytes`.
    pub(crate) fn new(
        kind: FindingKind,
        offset: usize,
        bytes: &[u8],
        fix: Fix,
        lax_scalar: Option<String>,
        message: String,
    ) -> RawFinding {
        RawFinding {
            kind,
            offset,
            length: bytes.len(),
            bytes: bytes[..bytes.len().min(16)].to_vec(),
            fix,
            lax_scalar,
            message,
            run: 1,
        }
    }

    /// Extends the finding over the next adjacent occurrence of its kind, `length` bytes long.
    pub(crate) fn extend_run(&mut self, length: usize) {
        self.length += length;
        self.run += 1;
        match &mut self.fix {
            Fix::Malformed { range, .. } | Fix::Char(range) => range.end += length,
            _ => {}
        }
    }
}

/// Hex of at most 16 bytes, space separated, `…` appended when cut.
pub(crate) fn hex_bytes(bytes: &[u8]) -> String {
    let mut out: Vec<String> = bytes.iter().take(16).map(|b| format!("{b:02X}")).collect();
    if bytes.len() > 16 {
        out.push("…".to_string());
    }
    out.join(" ")
}

#[cfg(test)]
mod tests;
