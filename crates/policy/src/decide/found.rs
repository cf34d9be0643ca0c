//! Bounded finding collection: what the checks and layers of one field report into.
//!
//! A hostile field can hold a finding every byte (8 MiB of lone continuation bytes is eight
//! million `unexpected_continuation`s). The cost of collecting them must follow the bytes, not
//! the findings, so [`Found`] keeps
//!
//! * at most `room` *detailed* findings (the verdict lists no more than `max_findings`), built
//!   only when they are kept: a check hands over a closure, never a built finding;
//! * a counter per kind ([`KindCounts`], a fixed array allocated with the first finding) of
//!   every occurrence;
//! * what a rewrite needs, only for the kinds whose action may rewrite in this field: the kinds
//!   of malformed UTF-8 found (a rewrite walks the field's malformations again, in one pass), and
//!   the characters to rewrite as packed spans ([`spans`], a few bytes each, adjacent ones of a
//!   kind merged).
//!
//! Adjacent findings of one kind and one fix class are one finding (a *run*): its `length`
//! covers them all and its `run` says how many occurrences it stands for. Past the detail limit
//! a finding costs a counter increment and, in a rewriting profile, at most one span.

use crate::finding::{Action, FindingKind, Fix, RawFinding};

mod counts;
pub(crate) mod spans;

pub(crate) use counts::KindCounts;

use spans::{Span, Spans};

/// Number of finding kinds.
pub(crate) const KIND_COUNT: usize = FindingKind::ALL.len();

const _: () = assert!(KIND_COUNT <= 64, "KindSet is one u64");

/// A set of finding kinds, one bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct KindSet(u64);

impl KindSet {
    /// Every kind.
    #[cfg(test)]
    pub(crate) const ALL: KindSet = KindSet(u64::MAX);

    /// The kinds of the bits set in `bits` (bit `kind.index()` for each).
    pub(crate) fn from_bits(bits: u64) -> KindSet {
        KindSet(bits)
    }

    /// Adds `kind`.
    pub(crate) fn insert(&mut self, kind: FindingKind) {
        self.0 |= 1 << kind.index();
    }

    /// Whether some kind of the set has an action that rewrites (a repair: a CESU-8 pair's).
    pub(crate) fn rewrites_any(self, actions: &Actions) -> bool {
        self.kinds().any(|k| {
            let action = actions.get(k);
            action.rewrites() && (action != Action::Repair || k == FindingKind::Cesu8Pair)
        })
    }

    /// The kinds in the set, in declaration order.
    pub(crate) fn kinds(self) -> impl Iterator<Item = FindingKind> {
        let mut bits = self.0;
        core::iter::from_fn(move || {
            let i = bits.trailing_zeros() as usize;
            (bits != 0).then(|| {
                bits &= bits - 1;
                FindingKind::ALL[i]
            })
        })
    }

    /// Whether `kind` is in the set.
    pub(crate) fn contains(self, kind: FindingKind) -> bool {
        self.0 & (1 << kind.index()) != 0
    }
}

/// What a fix does with its bytes, as far as merging is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FixClass {
    /// No fix, or one of the whole field (NFC, an identity's enforced form).
    Other,
    /// Malformed UTF-8.
    Malformed,
    /// Valid characters.
    Char,
}

impl FixClass {
    fn of(fix: &Fix) -> FixClass {
        match fix {
            Fix::Malformed { .. } => FixClass::Malformed,
            Fix::Char(_) => FixClass::Char,
            _ => FixClass::Other,
        }
    }
}

/// Where the last finding of one kind and class ended, and whether it is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Tail {
    kind: FindingKind,
    class: FixClass,
    end: usize,
    /// Index in `detailed`, when it is listed.
    listed: Option<usize>,
}

/// The findings of one field, bounded (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Detailed findings in the order reported, runs merged, at most `room`.
    pub(crate) detailed: Vec<RawFinding>,
    room: usize,
    /// Every occurrence, listed or not.
    pub(crate) counts: KindCounts,
    /// Kinds reported with a fix.
    pub(crate) fixable: KindSet,
    /// Kinds whose fixes are kept.
    rewritable: KindSet,
    /// Kinds of malformed UTF-8 reported with a kept fix (their bytes are found again).
    pub(crate) malformed: KindSet,
    /// Characters to rewrite.
    pub(crate) spans: Spans,
    /// The kind of a finding whose fix normalizes the whole field (`not_nfc`).
    pub(crate) normalize: Option<FindingKind>,
    /// An identity's enforced form for the whole field, and its finding's kind.
    pub(crate) enforce: Option<(FindingKind, String)>,
    /// Some finding was not listed for want of room.
    pub(crate) dropped: bool,
    /// Kinds that reject in this field, when checking may stop early (see [`Found::settled`]).
    rejecting: KindSet,
    /// A finding of a kind in `rejecting` (or an earlier field's) rejected the request.
    rejected: bool,
    /// Checking stopped before the end of the field.
    pub(crate) stopped: bool,
    /// Occurrences reported (every finding, listed, merged into a run or counted only).
    seen: usize,
    /// The last finding of each kind and class seen (a handful: a field rarely has more).
    tails: Vec<Tail>,
}

impl Found {
    /// Room for `room` detailed findings; fixes kept for the kinds in `rewritable`.
    pub(crate) fn new(room: usize, rewritable: KindSet) -> Found {
        Found {
            detailed: Vec::new(),
            room,
            counts: KindCounts::default(),
            fixable: KindSet::default(),
            rewritable,
            malformed: KindSet::default(),
            spans: Spans::default(),
            normalize: None,
            enforce: None,
            dropped: false,
            rejecting: KindSet::default(),
            rejected: false,
            stopped: false,
            seen: 0,
            tails: Vec::new(),
        }
    }

    /// Lets checking stop early once the request is settled: `rejecting` are the kinds whose
    /// action rejects in this field, `rejected` whether an earlier one already rejected it.
    pub(crate) fn stop_early(mut self, rejecting: KindSet, rejected: bool) -> Found {
        self.rejecting = rejecting;
        self.rejected = rejected;
        self
    }

    /// `true` once the request is rejected and as many findings as the verdict lists have
    /// been seen: the checks of the field may stop (and set [`Found::stopped`]). A run that
    /// was growing then covers what was read.
    #[inline]
    pub(crate) fn settled(&self) -> bool {
        self.rejected && self.seen >= self.room
    }

    /// Whether a finding the profile rejects was seen (with [`Found::stop_early`]).
    #[inline]
    pub(crate) fn rejecting(&self) -> bool {
        self.rejected
    }

    /// Nothing reported, no room: the layer findings of a field no layer decoded.
    pub(crate) fn none() -> Found {
        Found::new(0, KindSet::default())
    }

    /// On the heap when there is anything, `None` when nothing was reported: what a field
    /// keeps of its layers' findings (most fields have none, and a `Found` is large).
    #[inline]
    pub(crate) fn boxed(self) -> Option<Box<Found>> {
        (!self.is_empty()).then(|| Box::new(self))
    }

    /// Whether nothing was reported, listed or counted.
    pub(crate) fn is_empty(&self) -> bool {
        self.counts.is_empty() && self.detailed.is_empty()
    }

    /// Everything listed, every fix kept (tests and small inputs).
    #[cfg(test)]
    pub(crate) fn unbounded() -> Found {
        Found::new(usize::MAX, KindSet::ALL)
    }

    /// Detailed findings still allowed.
    pub(crate) fn room(&self) -> usize {
        self.room.saturating_sub(self.detailed.len())
    }

    /// Reports a finding already built (findings that occur once per field or request).
    pub(crate) fn push(&mut self, raw: RawFinding) {
        let (kind, offset, length, fix) = (raw.kind, raw.offset, raw.length, raw.fix.clone());
        self.report(kind, offset, length, fix, || raw);
    }

    /// Takes over everything `other` reported (detailed findings up to the room left).
    pub(crate) fn absorb(&mut self, other: &Found) {
        self.counts.add_all(&other.counts);
        self.fixable.0 |= other.fixable.0;
        let room = self.room();
        self.dropped |= other.dropped || other.detailed.len() > room;
        self.detailed
            .extend(other.detailed.iter().take(room).cloned());
        self.malformed.0 |= other.malformed.0;
        self.spans.extend(&other.spans);
        self.normalize = self.normalize.or(other.normalize);
        if other.enforce.is_some() {
            self.enforce.clone_from(&other.enforce);
        }
    }

    fn keep_fix(&mut self, kind: FindingKind, fix: Fix) {
        match fix {
            Fix::Malformed { .. } => self.malformed.insert(kind),
            Fix::Char(range) => self.spans.push(Span {
                start: range.start,
                end: range.end,
                kind,
            }),
            Fix::Normalize => self.normalize = Some(kind),
            Fix::Enforce(form) => self.enforce = Some((kind, form)),
            Fix::None => {}
        }
    }
}

/// The action of each kind found in one field.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Actions(pub(crate) [Option<Action>; KIND_COUNT]);

impl Default for Actions {
    fn default() -> Actions {
        Actions([None; KIND_COUNT])
    }
}

impl Actions {
    /// `kind`'s action (`log` for a kind not found in the field).
    pub(crate) fn get(&self, kind: FindingKind) -> Action {
        self.0[kind.index()].unwrap_or(Action::Log)
    }

    /// Sets `kind`'s action (tests).
    #[cfg(test)]
    pub(crate) fn set(&mut self, kind: FindingKind, action: Action) {
        self.0[kind.index()] = Some(action);
    }

    /// Whether applying `found`'s fixes under these actions changes anything.
    pub(crate) fn rewrite_any(&self, found: &Found) -> bool {
        let rewrites = |kind: FindingKind| self.get(kind).rewrites();
        found.malformed.rewrites_any(self)
            || found.spans.any_kind(rewrites)
            || found.normalize.is_some_and(rewrites)
            || found.enforce.as_ref().is_some_and(|(k, _)| rewrites(*k))
    }
}

/// Where checks report: a bounded [`Found`] in the pipeline, a plain vector in unit tests.
pub(crate) trait Report {
    /// Reports a finding whose details `build` makes when they are kept.
    fn report(
        &mut self,
        kind: FindingKind,
        offset: usize,
        length: usize,
        fix: Fix,
        build: impl FnOnce() -> RawFinding,
    );
}

impl Report for Found {
    /// Counts the finding, keeps its fix where the kind may rewrite, extends the run it
    /// continues or lists it while there is room (only then is `build` run).
    #[inline]
    fn report(
        &mut self,
        kind: FindingKind,
        offset: usize,
        length: usize,
        fix: Fix,
        build: impl FnOnce() -> RawFinding,
    ) {
        self.counts.add(kind, 1);
        self.seen += 1;
        self.rejected |= self.rejecting.contains(kind);
        let class = FixClass::of(&fix);
        if !matches!(fix, Fix::None) {
            self.fixable.insert(kind);
            if self.rewritable.contains(kind) {
                self.keep_fix(kind, fix);
            }
        }
        let end = offset + length;
        let slot = self
            .tails
            .iter()
            .position(|t| t.kind == kind && t.class == class);
        if let Some(i) = slot {
            let tail = &mut self.tails[i];
            if length > 0 && tail.end == offset {
                tail.end = end;
                if let Some(d) = tail.listed {
                    self.detailed[d].extend_run(length);
                }
                return;
            }
        }
        let listed = (self.detailed.len() < self.room).then(|| {
            self.detailed.push(build());
            self.detailed.len() - 1
        });
        self.dropped |= listed.is_none();
        let tail = Tail {
            kind,
            class,
            end,
            listed,
        };
        match slot {
            Some(i) => self.tails[i] = tail,
            None => self.tails.push(tail),
        }
    }
}

impl Report for Vec<RawFinding> {
    fn report(
        &mut self,
        _: FindingKind,
        _: usize,
        _: usize,
        _: Fix,
        build: impl FnOnce() -> RawFinding,
    ) {
        self.push(build());
    }
}

#[cfg(test)]
mod tests;
