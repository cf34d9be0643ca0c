//! Collecting findings into a verdict: the cap on listed findings, counts by kind, and the
//! decision rule shared by [`evaluate`](crate::evaluate()) and the streamed
//! [`BodyScan`](crate::BodyScan).

use std::collections::BTreeMap;

use crate::decide::found::{Actions, Found, KindCounts, KindSet};
use crate::decide::verdict::{BytesByLocation, Decision, Verdict};
use crate::finding::{Action, Finding, FindingKind, Fix, RawFinding, hex_bytes};
use crate::identity::{Identity, IdentityReport};
use crate::location::{Location, LocationClass};
use crate::profile::Profile;

/// Accumulates findings up to the cap, counts and the reject flag.
pub(crate) struct Collector<'p> {
    profile: &'p Profile,
    /// The request's path, as received (for `path` exclusions; empty for uploads).
    path: &'p [u8],
    findings: Vec<Finding>,
    truncated: bool,
    counts: KindCounts,
    reject: bool,
    /// Some finding's action rewrites (used by scans, which never rewrite).
    pub(crate) would_rewrite: bool,
    /// Some field was rewritten to NFC.
    pub(crate) normalized: bool,
    bytes_inspected: u64,
    bytes_by_location: BytesByLocation,
    identities: Vec<IdentityReport>,
    /// Checking stopped early (see [`Collector::settled`]).
    pub(crate) stopped_early: bool,
    /// Why the body was not read as text (the verdict's `not_text`).
    pub(crate) not_text: Option<String>,
    /// Occurrences recorded.
    seen: u64,
}

impl<'p> Collector<'p> {
    /// An empty collector for `profile`, about a request with path `path`.
    pub(crate) fn new(profile: &'p Profile, path: &'p [u8]) -> Collector<'p> {
        Collector {
            profile,
            path,
            findings: Vec::new(),
            truncated: false,
            counts: KindCounts::default(),
            reject: false,
            would_rewrite: false,
            normalized: false,
            bytes_inspected: 0,
            bytes_by_location: BytesByLocation::default(),
            identities: Vec::new(),
            stopped_early: false,
            not_text: None,
            seen: 0,
        }
    }

    /// Counts `bytes` of field content inspected in location class `class`.
    pub(crate) fn inspected(&mut self, class: LocationClass, bytes: u64) {
        self.bytes_inspected += bytes;
        self.bytes_by_location.add(class, bytes);
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
        self.counts.add(raw.kind, 1);
        self.seen += 1;
        self.list(location, raw, action, prefix);
    }

    /// Lists a finding already counted, if there is room.
    fn list(&mut self, location: &Location, raw: RawFinding, action: Action, prefix: &str) {
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
            run: (raw.run > 1).then_some(raw.run),
        });
    }

    /// Detailed findings the verdict can still list.
    pub(crate) fn room(&self) -> usize {
        self.profile
            .limits
            .max_findings
            .saturating_sub(self.findings.len())
    }

    /// The kinds whose action may rewrite in location class of `part`: the profile's rules,
    /// and every identity kind when the profile names identity fields (exclusions only ever
    /// turn an action into `excluded`, so this is a superset of what a field rewrites).
    pub(crate) fn may_rewrite(&self, part: crate::location::Part) -> KindSet {
        // Asked for every field: the profile tabulated it when its rules were set.
        KindSet::from_bits(self.profile.rewriting(part.class()))
    }

    /// Records everything one field's checks found, at `location`: every kind's action (its
    /// rule's, `log` for a rewriting rule of a `check_only` field, `reject` for one of a field
    /// that cannot be rewritten), counts, and the detailed
    /// findings in offset order while there is room. Returns the actions, by kind.
    pub(crate) fn add_found(
        &mut self,
        location: &Location,
        found: &mut Found,
        check_only: bool,
        prefix: &str,
    ) -> Actions {
        let mut actions = Actions::default();
        for (kind, n) in found.counts.iter() {
            let action = match self.action(kind, location) {
                // A second reading is checked, never rewritten: the first one rewrites.
                a if a.rewrites() && check_only => Action::Log,
                // A field that cannot be written back (an XML name, a YAML scalar) refuses what
                // would rewrite it.
                a if a.rewrites() && !location.part.is_rewritable() => Action::Reject,
                a => a,
            };
            actions.0[kind.index()] = Some(action);
            self.reject |= action == Action::Reject;
            self.would_rewrite |= action.rewrites() && found.fixable.contains(kind);
            self.counts.add(kind, n);
            self.seen += n;
        }
        // Most fields have no detailed finding: no sort and no drain to set up.
        if !found.detailed.is_empty() {
            found.detailed.sort_by_key(|r| r.offset);
            for raw in found.detailed.drain(..) {
                let action = actions.get(raw.kind);
                self.list(location, raw, action, prefix);
            }
        }
        self.truncated |= found.dropped;
        actions
    }

    /// Records the findings of a rewritten field's re-check whose action is `reject` and that
    /// the field's first check did not already reject (`known`), with `prefix` on their
    /// messages. Returns the re-check's actions.
    pub(crate) fn add_new_rejects(
        &mut self,
        location: &Location,
        again: &mut Found,
        known: &Actions,
        prefix: &str,
    ) -> Actions {
        let mut actions = Actions::default();
        let mut new = KindSet::default();
        for (kind, n) in again.counts.iter() {
            let action = self.action(kind, location);
            actions.0[kind.index()] = Some(action);
            if action == Action::Reject && known.get(kind) != Action::Reject {
                new.insert(kind);
                self.reject = true;
                self.counts.add(kind, n);
            }
        }
        again.detailed.sort_by_key(|r| r.offset);
        for raw in again.detailed.drain(..).filter(|r| new.contains(r.kind)) {
            self.list(location, raw, Action::Reject, prefix);
        }
        actions
    }

    /// `true` once nothing more can change the verdict's decision: a finding rejects, the
    /// profile enforces, and as many findings as the verdict lists (`max_findings`) have been
    /// seen. The rest of the request need not be read (a hostile body then costs what its
    /// first findings cost).
    pub(crate) fn settled(&self) -> bool {
        let max = self.profile.limits.max_findings;
        self.reject && !self.profile.monitor && (self.room() == 0 || self.seen >= max as u64)
    }

    /// The kinds whose action at `location` is `reject`, for a field where checking may stop
    /// early (see [`Found::stop_early`]); empty in monitor mode, which always reads everything.
    pub(crate) fn rejecting(&self, location: &Location) -> KindSet {
        let mut set = KindSet::default();
        if !self.profile.monitor {
            for &kind in FindingKind::ALL {
                if self.action(kind, location) == Action::Reject {
                    set.insert(kind);
                }
            }
        }
        set
    }

    /// `true` once a finding's action is `reject`: no rewrite will be forwarded.
    pub(crate) fn rejects(&self) -> bool {
        self.reject
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
            counts: self
                .counts
                .iter()
                .map(|(k, n)| (k.as_str().to_string(), n))
                .collect::<BTreeMap<_, _>>(),
            normalized: self.normalized,
            bytes_inspected: self.bytes_inspected,
            bytes_by_location: self.bytes_by_location,
            identities: self.identities,
            stopped_early: self.stopped_early,
            not_text: self.not_text,
        }
    }
}
