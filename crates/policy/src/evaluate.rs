//! The pipeline: decompose, check every field, choose actions, rewrite, re-check, decide.

use std::collections::BTreeMap;

use crate::checks::{self, CheckOptions};
use crate::field::Field;
use crate::finding::{Action, Finding, Fix, RawFinding, hex_bytes};
use crate::layers;
use crate::location::Location;
use crate::profile::Profile;
use crate::request::Request;
use crate::rewrite;
use crate::verdict::{Decision, Verdict};

/// A verdict and, when the decision is to sanitize (and the profile enforces), the rewritten
/// request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// The verdict.
    pub verdict: Verdict,
    /// The sanitized request, for `Decision::Sanitize` outside monitor mode.
    pub sanitized: Option<Request>,
}

/// How many times a rewritten field is re-checked and rewritten again at most.
const MAX_REWRITE_ROUNDS: usize = 3;

/// Evaluates `request` under `profile`. Never fails and never panics: every problem of the
/// input is a finding.
pub fn evaluate(profile: &Profile, request: &Request) -> Evaluation {
    let options = CheckOptions {
        lookalikes: profile.lookalikes,
        max_nonstarters: profile.limits.max_nonstarters,
    };
    // A coded body is read as the backend reads it: decoded.
    let (decoded, coding_finding) = layers::decoded(request, profile);
    let request = decoded.as_ref().unwrap_or(request);
    let decomposed = layers::decompose(request, profile);
    let mut verdict = Collector::new(profile);
    for (location, raw) in coding_finding.into_iter().chain(decomposed.structural) {
        verdict.add(&location, raw, "");
    }
    let mut edits = Vec::new();
    for field in &decomposed.fields {
        verdict.bytes_inspected += field.bytes.len() as u64;
        let class = field.location.part.class().as_str();
        let len = field.bytes.len() as u64;
        // The key is allocated once per class, not once per field.
        match verdict.bytes_by_location.get_mut(class) {
            Some(total) => *total += len,
            None => {
                verdict.bytes_by_location.insert(class.to_string(), len);
            }
        }
        if let Some(new_bytes) = check_and_rewrite(profile, &options, field, &mut verdict) {
            let encoded = rewrite::encode(field.encoding, &new_bytes);
            edits.push((field.container, field.span.clone(), encoded));
        }
    }
    // Only a request with rewritten fields is copied.
    let sanitized = (!edits.is_empty())
        .then(|| rewrite::write_back(request, edits))
        .filter(|s| s != request);
    let decision = if verdict.reject {
        Decision::Reject
    } else if sanitized.is_some() {
        Decision::Sanitize
    } else {
        Decision::Allow
    };
    let enforced = !profile.monitor;
    Evaluation {
        sanitized: sanitized.filter(|_| decision == Decision::Sanitize && enforced),
        verdict: verdict.finish(decision, enforced),
    }
}

/// Checks one field and records its findings; returns the rewritten bytes if any action
/// rewrote it.
fn check_and_rewrite(
    profile: &Profile,
    options: &CheckOptions,
    field: &Field,
    verdict: &mut Collector,
) -> Option<Vec<u8>> {
    let part = field.location.part;
    let mut raws = field.layer_findings.clone();
    raws.extend(checks::check_field(
        part,
        &field.bytes,
        field.at_body_start,
        options,
    ));
    raws.sort_by_key(|r| r.offset);
    let with_actions: Vec<_> = raws
        .into_iter()
        .map(|r| {
            let action = match profile.action(r.kind, part) {
                // A second reading is checked, never rewritten: the first one rewrites.
                a if a.rewrites() && field.check_only => Action::Log,
                a => a,
            };
            (r, action)
        })
        .collect();
    let mut rewrites = false;
    for (raw, action) in &with_actions {
        rewrites |= action.rewrites() && raw.fix != Fix::None;
        verdict.add_with(&field.location, raw.clone(), *action, "");
    }
    if !rewrites {
        return None;
    }
    let (mut bytes, mut normalized) = rewrite::apply(&field.bytes, &with_actions);
    // Every check runs again on the rewritten bytes: normalization must not create what the
    // checks forbid (NFC maps U+037E to ';'), and a second pass must find nothing to rewrite.
    for round in 0..MAX_REWRITE_ROUNDS {
        let again: Vec<_> = checks::check_field(part, &bytes, field.at_body_start, options)
            .into_iter()
            .map(|r| {
                let action = profile.action(r.kind, part);
                (r, action)
            })
            .collect();
        for (raw, action) in &again {
            let known = with_actions
                .iter()
                .any(|(r, a)| r.kind == raw.kind && *a == Action::Reject);
            if *action == Action::Reject && !known {
                verdict.add_with(&field.location, raw.clone(), *action, "after rewriting: ");
            }
        }
        let more = again
            .iter()
            .any(|(r, a)| a.rewrites() && r.fix != Fix::None);
        if !more || round + 1 == MAX_REWRITE_ROUNDS {
            break;
        }
        let (next, n) = rewrite::apply(&bytes, &again);
        if next == bytes {
            break;
        }
        bytes = next;
        normalized |= n;
    }
    verdict.normalized |= normalized;
    Some(bytes)
}

/// Accumulates findings up to the cap, counts and the reject flag.
pub(crate) struct Collector<'p> {
    pub(crate) profile: &'p Profile,
    findings: Vec<Finding>,
    truncated: bool,
    counts: BTreeMap<String, u64>,
    pub(crate) reject: bool,
    /// Some finding's action rewrites (used by scans, which never rewrite).
    pub(crate) would_rewrite: bool,
    normalized: bool,
    pub(crate) bytes_inspected: u64,
    pub(crate) bytes_by_location: BTreeMap<String, u64>,
}

impl<'p> Collector<'p> {
    pub(crate) fn new(profile: &'p Profile) -> Collector<'p> {
        Collector {
            profile,
            findings: Vec::new(),
            truncated: false,
            counts: BTreeMap::new(),
            reject: false,
            would_rewrite: false,
            normalized: false,
            bytes_inspected: 0,
            bytes_by_location: BTreeMap::new(),
        }
    }

    pub(crate) fn add(&mut self, location: &Location, raw: RawFinding, prefix: &str) {
        let action = self.profile.action(raw.kind, location.part);
        self.add_with(location, raw, action, prefix);
    }

    fn add_with(&mut self, location: &Location, raw: RawFinding, action: Action, prefix: &str) {
        self.reject |= action == Action::Reject;
        self.would_rewrite |= action.rewrites() && raw.fix != Fix::None;
        *self
            .counts
            .entry(raw.kind.as_str().to_string())
            .or_default() += 1;
        if self.findings.len() >= self.profile.limits.max_findings {
            self.truncated = true;
            return;
        }
        self.findings.push(Finding {
            kind: raw.kind,
            severity: raw.kind.severity(),
            action,
            location: location.clone(),
            offset: raw.offset,
            length: raw.length,
            bytes: hex_bytes(&raw.bytes),
            lax_scalar: raw.lax_scalar,
            message: format!("{prefix}{}", raw.message),
        });
    }

    pub(crate) fn finish(self, decision: Decision, enforced: bool) -> Verdict {
        Verdict {
            decision,
            enforced,
            profile: self.profile.name.clone(),
            findings: self.findings,
            findings_truncated: self.truncated,
            counts: self.counts,
            normalized: self.normalized,
            bytes_inspected: self.bytes_inspected,
            bytes_by_location: self.bytes_by_location,
        }
    }
}
