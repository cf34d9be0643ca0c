//! Findings: the closed set of kinds, their severities, the actions a profile can take, and
//! raw findings (what a check or a layer found, before the profile chose an action: kind,
//! offset and bytes in the field, and how the offending bytes can be fixed if the action
//! rewrites).

use core::fmt;
use core::ops::Range;

use serde::{Deserialize, Serialize};
use utf8gate_codec::MalformedKind;

use crate::location::Location;

macro_rules! kinds {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident, $reference:literal; )*) => {
        /// What a finding is about. A closed set; every kind is documented in `docs/verdict.md`
        /// with its reference.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum FindingKind {
            $( $(#[$doc])* $variant, )*
        }

        impl FindingKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [FindingKind] = &[$(FindingKind::$variant),*];

            /// The kind's position in [`FindingKind::ALL`].
            pub(crate) const fn index(self) -> usize {
                self as usize
            }

            /// The stable snake_case name (`"overlong"`, `"double_encoding"`, ...).
            pub const fn as_str(self) -> &'static str {
                match self { $(FindingKind::$variant => $name,)* }
            }

            /// How serious the kind is in itself, before any profile decides what to do.
            pub const fn severity(self) -> Severity {
                match self { $(FindingKind::$variant => Severity::$severity,)* }
            }

            /// The standard or incident this kind is about.
            pub const fn reference(self) -> &'static str {
                match self { $(FindingKind::$variant => $reference,)* }
            }
        }
    };
}

kinds! {
    /// Overlong form of a shorter value (`C0 AE`). From the codec.
    Overlong = "overlong", Critical, "RFC 3629 §3, §10";
    /// Lone UTF-16 surrogate in UTF-8 (`ED A0 80`).
    Surrogate = "surrogate", High, "RFC 3629 §3";
    /// CESU-8 surrogate pair (`ED A0 BD ED B8 80`).
    Cesu8Pair = "cesu8_pair", High, "RFC 3629 §3; Unicode TR #26";
    /// 4-byte sequence above U+10FFFF.
    AboveMax = "above_max", High, "RFC 3629 §3";
    /// 5- or 6-byte RFC 2279 form.
    LegacyForm = "legacy_form", High, "RFC 3629 §3, §12";
    /// `FE` or `FF`.
    InvalidByte = "invalid_byte", High, "RFC 3629 §1";
    /// Continuation byte where a character should start.
    UnexpectedContinuation = "unexpected_continuation", Medium, "RFC 3629 §3, §4";
    /// Sequence cut short.
    Truncated = "truncated", Medium, "RFC 3629 §3, §4";
    /// `%` not followed by two hex digits.
    MalformedEscape = "malformed_escape", Medium, "RFC 3986 §2.1";
    /// IIS-style `%uXXXX` escape.
    IisUnicodeEscape = "iis_unicode_escape", High, "CVE-2000-0884 (IIS %u decoding)";
    /// An escape that is still an escape after one decoding pass (`%252e`).
    DoubleEncoding = "double_encoding", High, "CVE-2001-0333 (IIS double decoding); CWE-174";
    /// `%2F` or `%5C` in a path: a separator the router does not see.
    EncodedSeparator = "encoded_separator", Medium, "RFC 3986 §2.2, §7.3";
    /// A dot-segment or separator that only the lax reading (overlongs decoded, a second
    /// percent-decoding pass, lookalikes folded) contains.
    Traversal = "traversal", Critical, "RFC 3629 §10; CWE-22, CWE-176";
    /// A plain `.` or `..` segment after decoding.
    DotSegment = "dot_segment", Medium, "RFC 3986 §3.3, §5.2.4; CWE-22";
    /// U+FEFF at the start of a body: a signature.
    Bom = "bom", Low, "RFC 3629 §6";
    /// U+FEFF anywhere a signature cannot be: ZERO WIDTH NO-BREAK SPACE.
    MisplacedBom = "misplaced_bom", Medium, "RFC 3629 §6";
    /// Text that is not in Normalization Form C.
    NotNfc = "not_nfc", Low, "UAX #15; RFC 5198 §2";
    /// More than 30 non-starters in a row (UAX #15 stream-safe format).
    ExcessiveCombining = "excessive_combining", Medium, "UAX #15 §13 (Stream-Safe Text Format)";
    /// A character whose NFC, NFKC or best-fit image is ASCII syntax.
    Lookalike = "lookalike", Medium, "UTS #39; WorstFit (CVE-2024-4577)";
    /// NUL, raw or in any disguise.
    Nul = "nul", High, "CWE-158";
    /// A C0 or C1 control other than TAB, CR and LF.
    Control = "control", Medium, "CWE-116";
    /// Bidi embedding, override or isolate (Trojan Source).
    BidiControl = "bidi_control", High, "CVE-2021-42574; UAX #9";
    /// A noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF).
    Noncharacter = "noncharacter", Low, "Unicode §23.7; Corrigendum #9";
    /// A JSON `\uXXXX` escape that forms a lone surrogate.
    EscapedSurrogate = "escaped_surrogate", High, "RFC 8259 §8.2";
    /// A body whose declared charset is not UTF-8 or US-ASCII.
    ForeignCharset = "foreign_charset", Medium, "RFC 9110 §8.3.2";
    /// A body that does not parse as its content type says (JSON syntax, multipart framing).
    MalformedBody = "malformed_body", Medium, "RFC 8259; RFC 7578";
    /// A configured limit (size, depth, parts, findings) was reached; the rest was not inspected.
    LimitExceeded = "limit_exceeded", High, "utf8gate limits";
    /// A header that must appear once (`Host`, `Content-Type`, a part's `Content-Disposition`)
    /// appears more than once, or `Content-Length` lines disagree: two readings of one request.
    RepeatedHeader = "repeated_header", High, "RFC 9110 §5.3; RFC 9112 §3.2, §6.3; RFC 7578 §4.2";
    /// A media-type or disposition parameter (`charset`, `boundary`, `name`, `filename`) given
    /// more than once: parsers disagree on which one counts.
    RepeatedParameter = "repeated_parameter", High, "RFC 9110 §5.6.6; RFC 7578 §4.2";
    /// A parameter that parsers read differently: RFC 2231 continuations, backslash escapes in
    /// a quoted string, an unterminated quote, `filename` and `filename*` that disagree.
    AmbiguousParameter = "ambiguous_parameter", High, "RFC 2231 §3; RFC 9110 §5.6.4; RFC 7578 §4.2";
    /// A `Host` that is not an ASCII reg-name, IPv4 address or IP literal with a numeric port
    /// (escapes, controls, non-ASCII: IDNs must arrive as A-labels).
    MalformedHost = "malformed_host", High, "RFC 9112 §3.2; RFC 3986 §3.2.2; RFC 5890 §2.3.2.1";
    /// A content or transfer coding utf8gate does not decode (or the profile refuses codings),
    /// codings stacked deeper than the limit, or a malformed coding list.
    UnsupportedCoding = "unsupported_coding", Medium, "RFC 9110 §8.4, §15.5.16";
    /// A coded body that does not decode: a corrupt or truncated gzip, deflate or brotli
    /// stream, or bytes after its end.
    CorruptCoding = "corrupt_coding", High, "RFC 9110 §8.4.1; RFC 1950; RFC 1951; RFC 1952; RFC 7932";
    /// A multipart part with a `Content-Transfer-Encoding` other than 7bit, 8bit or binary.
    TransferEncodedPart = "transfer_encoded_part", High, "RFC 7578 §4.7; RFC 2045 §6";
    /// An identity field (`[[identity]]`) that its PRECIS profile would change: width, NFC,
    /// spaces (nicknames); the enforced form is in the message and the verdict's `identities`.
    IdentityNotEnforced = "identity_not_enforced", Medium, "RFC 8264 §7; RFC 8265 §3.4, §4.2; RFC 8266 §2";
    /// An identity field its PRECIS profile refuses: a disallowed code point (controls,
    /// symbols, compatibility characters such as U+017F), an empty value, the bidi rule.
    IdentityDisallowed = "identity_disallowed", High, "RFC 8264 §8, §9; RFC 5893 §2";
    /// An identity field that another string matches under case-insensitive comparison with
    /// full case mapping (`ı` and `I`, `ß` and `SS`): upper-casing it then lower-casing it
    /// gives another string.
    IdentityCaseCollision = "identity_case_collision", High, "CVE-2019-19844; Unicode §5.18; RFC 8265 §3.3.1";
    /// An identity field above its configured UTS #39 restriction level (`pаypal` with a
    /// Cyrillic `а`): the scripts are named.
    MixedScript = "mixed_script", High, "UTS #39 §5.2";
    /// The request was described by a proxy in string fields only (Envoy's gRPC `ext_authz`
    /// without `encode_raw_headers` or `pack_as_bytes`): invalid UTF-8 may already have been
    /// replaced before utf8gate saw it, so the checks ran blind. Set by the server
    /// ([`Request::string_fields_only`](crate::Request::string_fields_only)).
    StringFieldsOnly = "string_fields_only", High, "CVE-2024-23324; envoyproxy/envoy#9822, #27386";
}

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
        use FindingKind::*;
        matches!(
            self,
            RepeatedHeader
                | RepeatedParameter
                | AmbiguousParameter
                | MalformedHost
                | UnsupportedCoding
                | CorruptCoding
                | TransferEncodedPart
        )
    }

    /// `true` for the kinds of identity fields (`[[identity]]`): their action is the identity
    /// table's, never a profile rule's.
    pub fn is_identity(self) -> bool {
        use FindingKind::*;
        matches!(
            self,
            IdentityNotEnforced | IdentityDisallowed | IdentityCaseCollision | MixedScript
        )
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

/// How serious a finding is in itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Informational.
    Info,
    /// Worth a log line.
    Low,
    /// Suspicious.
    Medium,
    /// An encoding trick with no legitimate use.
    High,
    /// A known attack shape (overlong separators, traversal).
    Critical,
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
    /// Adjacent occurrences this finding stands for (1 unless merged, see `crate::found`).
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
