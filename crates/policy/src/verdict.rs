//! The verdict: what was found, what the profile does about it, and the decision.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::finding::Finding;
use crate::identity::IdentityReport;

/// What happens to the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Nothing to reject, nothing rewritten: forward as it is.
    Allow,
    /// Some fields were rewritten: forward the sanitized request.
    Sanitize,
    /// At least one finding's action is `reject`.
    Reject,
}

impl Decision {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Sanitize => "sanitize",
            Decision::Reject => "reject",
        }
    }
}

/// The structured result of evaluating one request; documented field by field in
/// `docs/verdict.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// allow, sanitize or reject.
    pub decision: Decision,
    /// `false` in monitor mode: the decision is reported, not enforced.
    pub enforced: bool,
    /// The profile that decided.
    pub profile: String,
    /// Findings in request order, at most the profile's `max_findings`.
    pub findings: Vec<Finding>,
    /// `true` if more findings existed than are listed.
    pub findings_truncated: bool,
    /// Number of findings of each kind, listed or not.
    pub counts: BTreeMap<String, u64>,
    /// `true` if some field was rewritten to NFC.
    pub normalized: bool,
    /// Bytes of field content inspected (after decoding layers).
    pub bytes_inspected: u64,
    /// The same, by location class (`path`, `query`, `header`, `form`, `json`, `multipart`,
    /// `body`).
    pub bytes_by_location: BTreeMap<String, u64>,
    /// `true` when checking stopped before the end of the request: a finding rejected it (in
    /// enforce mode) and `max_findings` findings were listed, so nothing later could change the
    /// decision or the list. `counts` and `bytes_inspected` then cover what was read until then.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub stopped_early: bool,
    /// Every identity field (`[[identity]]`) with its comparison form and skeleton, at most
    /// `max_findings`; absent when the profile names none (old clients see no change).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identities: Vec<IdentityReport>,
    /// Why the body was not read as text, when it was not: a binary media type no reading
    /// claims (`image/png`), or no type and a NUL in its first 8 KiB. The decision is then
    /// about the rest of the request alone (an upload: `allow`). Absent when the body was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_text: Option<String>,
}

impl Verdict {
    /// The kinds found, each once, in name order.
    pub fn kinds(&self) -> Vec<&str> {
        self.counts.keys().map(String::as_str).collect()
    }
}
