//! The policy of utf8gate: takes a request apart, runs the codec and the encoding-trick checks
//! on every field after its decoding layers, and decides allow, sanitize or reject.
//!
//! ```text
//! Request ──layers──▶ fields (path, query, headers, form, JSON strings, multipart parts, body)
//!         ──checks──▶ raw findings (utf8, traversal, bom, nfc, lookalike, controls)
//!         ──profile─▶ findings with actions ──▶ rewrite + re-check ──▶ Verdict (+ sanitized request)
//! ```
//!
//! Pure functions: no I/O, no async, no transport types. [`evaluate()`] (a request) and
//! [`evaluate_upload`] (a file submitted for scanning: its body only) never fail on input; only
//! loading a profile ([`Profile::from_toml`]) can fail.
//!
//! ```
//! use utf8gate_policy::{evaluate, Decision, Profile, Request};
//!
//! let request = Request::new("GET", b"/files/%c0%ae%c0%ae/etc/passwd");
//! let verdict = evaluate(&Profile::strict(), &request).verdict;
//! assert_eq!(verdict.decision, Decision::Reject);
//! assert!(verdict.kinds().contains(&"traversal"));
//! ```
// `unsafe` is denied everywhere but in `checks::wide`, `checks::clean` and
// `readings::json::words::wide` (AVX2 dispatch and loads; ARCHITECTURE.md says why).
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod answer;
mod checks;
mod decide;
mod evaluate;
mod exclusion;
mod field;
mod finding;
mod identity;
mod layers;
mod location;
mod percent_lax;
mod profile;
mod readings;
mod request;
mod rewrite;
mod stream;
#[cfg(test)]
mod test_support;
mod textual;

pub use checks::lookalike::Table as LookalikeTable;
pub use decide::verdict::{BytesByLocation, Decision, Verdict};
pub use evaluate::{Evaluation, evaluate, evaluate_upload};
pub use exclusion::{Exclusion, ExclusionSpec, Target};
pub use finding::{Action, Finding, FindingKind, KindClass, Severity};
pub use identity::{
    Identity, IdentityAction, IdentityKind, IdentityReport, IdentitySpec, Restriction,
};
pub use layers::coding;
pub use layers::head_refused;
pub use location::{Location, LocationClass, Part};
pub use percent_lax::decode_once as percent_decode_once;
pub use profile::{
    ArchiveContentsReading, CharsetReading, CodingReading, JsonKeyReading, Limits,
    PartEncodingReading, PathBackend, Profile, ProfileError, Readings, Rule, XmlDoctypeReading,
    YamlAliasReading,
};
pub use readings::body::{archive_in, streamable};
pub use readings::parts::{FormPart, read_multipart};
pub use request::listed::ListedHead;
pub use request::{BodyState, ContentType, Mode, Request, split_outside_quotes};
pub use stream::BodyScan;
pub use textual::{SNIFF_BYTES, looks_binary};

/// Builds the lookup tables the checks build lazily on first use (the NFC and stream-safe
/// tables, some tens of milliseconds), so that a server's first request does not wait for them.
pub fn prepare() {
    checks::nfc::prepare();
}

/// The fields of `request` as `profile` reads them, in reading order: each one's location and
/// its bytes after its decoding layers (what the checks see, and what a backend's parser
/// gives the application). For differential tests against the parsers backends use.
pub fn read_fields(profile: &Profile, request: &Request) -> Vec<(Location, Vec<u8>)> {
    let decomposed = layers::decompose(request, profile);
    let mut fields = Vec::new();
    for field in &decomposed.fields {
        let room = profile.limits.max_findings;
        let _ = layers::each_field(field, profile, room, &mut |f| {
            fields.push((f.location.clone(), f.bytes.to_vec()));
            core::ops::ControlFlow::Continue(())
        });
    }
    fields
}

/// The Unicode version of the normalization data (major, minor, update).
pub const UNICODE_VERSION: (u8, u8, u8) = unicode_normalization::UNICODE_VERSION;

/// NFC checking and normalization as the policy does them, for benchmarks and callers.
pub mod nfc {
    /// `true` if `text` is in Normalization Form C.
    pub fn is_nfc(text: &str) -> bool {
        crate::checks::nfc::nfc_status(text) == crate::checks::nfc::NfcStatus::Nfc
    }

    /// `text` in NFC, borrowed when it already is.
    pub fn to_nfc(text: &str) -> std::borrow::Cow<'_, str> {
        crate::checks::nfc::to_nfc(text)
    }
}
