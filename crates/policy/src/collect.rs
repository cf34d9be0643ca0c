//! Collecting findings into a verdict: the cap on listed findings, counts by kind, and the
//! decision rule shared by [`evaluate`](crate::evaluate()) and the streamed
//! [`BodyScan`](crate::BodyScan).

use std::collections::BTreeMap;

use crate::finding::{Action, Finding, FindingKind, Fix, RawFinding, hex_bytes};
use crate::identity::{Identity, IdentityReport};
use crate::location::Location;
use crate::profile::Profile;
use crate::verdict::{Decision, Verdict};

/// Accumulates findings up to the cap, counts and the reject flag.
pub(crate) struct Collector<'p> {
    profile: &'p Profile,
    /// The request's path, as received (for `path` exclusions; empty for uploads).
    path: &'p [u8],
    findings: Vec<Finding>,
    truncated: bool,
    counts: BTreeMap<String, u64>,
    reject: bool,
    /// Some finding's action rewrites (used by scans, which never rewrite).
    pub(crate) would_rewrite: bool,
    /// Some field was rewritten to NFC.
    pub(crate) normalized: bool,
    bytes_inspected: u64,
    bytes_by_location: BTreeMap<String, u64>,
    identities: Vec<IdentityReport>,
}

impl<'p> Collector<'p> {
    /// An empty collector for `profile`, about a request with path `path`.
    pub(crate) fn new(profile: &'p Profile, path: &'p [u8]) -> Collector<'p> {
        Collector {
            profile,
            path,
            findings: Vec::new(),
            truncated: false,
            counts: BTreeMap::new(),
            reject: false,
            would_rewrite: false,
            normalized: false,
            bytes_inspected: 0,
            bytes_by_location: BTreeMap::new(),
            identities: Vec::new(),
        }
    }

    /// Counts `bytes` of field content inspected in location class `class`.
    pub(crate) fn inspected(&mut self, class: &str, bytes: u64) {
        self.bytes_inspected += bytes;
        // The key is allocated once per class, not once per field.
        match self.bytes_by_location.get_mut(class) {
            Some(total) => *total += bytes,
            None => {
                self.bytes_by_location.insert(class.to_string(), bytes);
            }
        }
    }

    /// The identity of the profile that names the field at `location`, if one does (the
    /// first in order).
    pub(crate) fn identity(&self, location: &Location) -> Option<&'p Identity> {
        let profile: &'p Profile = self.profile;
        profile
            .identities
            .iter()
            .find(|i| i.matches(location, self.path))
    }

    /// Lists an identity field's report, up to the cap on findings.
    pub(crate) fn identity_report(&mut self, report: IdentityReport) {
        if self.identities.len() < self.profile.limits.max_findings {
            self.identities.push(report);
        }
    }

    /// The action the profile gives `kind` at `location`: its rule's (an identity kind: the
    /// identity's), unless one of its exclusions exempts it there.
    pub(crate) fn action(&self, kind: FindingKind, location: &Location) -> Action {
        let action = match self.identity(location) {
            Some(identity) if kind.is_identity() => identity.action_for(kind),
            _ => self.profile.action(kind, location.part),
        };
        crate::exclusion::apply(&self.profile.exclusions, kind, location, self.path, action)
    }

    /// Records a finding under the action [`action`](Self::action) chooses.
    pub(crate) fn add(&mut self, location: &Location, raw: RawFinding, prefix: &str) {
        let action = self.action(raw.kind, location);
        self.add_with(location, raw, action, prefix);
    }

    /// Records a finding under the action already chosen for it.
    pub(crate) fn add_with(
        &mut self,
        location: &Location,
        raw: RawFinding,
        action: Action,
        prefix: &str,
    ) {
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

    /// The verdict, by the one decision rule of evaluations and scans alike: a finding whose
    /// action is `reject` rejects; otherwise `rewritten` (fields were rewritten; for a scan,
    /// which never rewrites, some finding's action would rewrite) sanitizes; otherwise the
    /// request is allowed. The decision is enforced unless the profile is in monitor mode.
    pub(crate) fn finish(self, rewritten: bool) -> Verdict {
        let decision = if self.reject {
            Decision::Reject
        } else if rewritten {
            Decision::Sanitize
        } else {
            Decision::Allow
        };
        let enforced = !self.profile.monitor;
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
            identities: self.identities,
        }
    }
}
