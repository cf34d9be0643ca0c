//! A profile's rules worked out for every kind and location class (a leaf of `profile`): what
//! the evaluation of a request asks per kind and field, read from arrays instead of the rules'
//! maps (two map searches per ask were a fifth of a GET's evaluation, and working out the kinds
//! a class may rewrite from every kind's action another 2 900 instructions a GET).

use crate::finding::{Action, FindingKind};
use crate::location::LocationClass;

/// Location classes.
const CLASSES: usize = LocationClass::ALL.len();

/// Every kind's action in every location class, and the kinds each class may rewrite (empty
/// by default: every action `reject`, until the profile tabulates its rules).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ActionTable {
    /// The action of kind `k` in class `c`: `actions[k.index()][c as usize]`.
    actions: Vec<[Action; CLASSES]>,
    /// For each class, the kinds (bit `kind.index()`) whose action there rewrites; last, the
    /// kinds of identity fields.
    rewriting: [u64; CLASSES + 1],
}

impl ActionTable {
    /// The table of the actions `action` gives each kind in each class.
    pub(super) fn of(action: impl Fn(FindingKind, LocationClass) -> Action) -> Self {
        let actions: Vec<[Action; CLASSES]> = FindingKind::ALL
            .iter()
            .map(|&kind| LocationClass::ALL.map(|class| action(kind, class)))
            .collect();
        let mut rewriting = [0; CLASSES + 1];
        for (&kind, row) in FindingKind::ALL.iter().zip(&actions) {
            let bit = 1u64 << kind.index();
            for class in LocationClass::ALL {
                if row[class as usize].rewrites() {
                    rewriting[class as usize] |= bit;
                }
            }
            if kind.is_identity() {
                rewriting[CLASSES] |= bit;
            }
        }
        ActionTable { actions, rewriting }
    }

    /// The action of `kind` in `class` (`reject` for a kind the table does not know).
    pub(super) fn action(&self, kind: FindingKind, class: LocationClass) -> Action {
        self.actions
            .get(kind.index())
            .map_or(Action::Reject, |row| row[class as usize])
    }

    /// The kinds (bit `kind.index()`) a field of `class` may have rewritten: those whose action
    /// there rewrites, and the identity kinds when the profile has identity fields (their
    /// action is the identity table's).
    pub(super) fn rewriting(&self, class: LocationClass, identities: bool) -> u64 {
        let identity = if identities {
            self.rewriting[CLASSES]
        } else {
            0
        };
        self.rewriting[class as usize] | identity
    }
}
