//! From findings to a decision: what a field's checks report, bounded ([`found`]); each finding
//! given its action by the profile, and the decision rule ([`collect`]); and the verdict that
//! comes of it ([`verdict`]).

pub(crate) mod collect;
pub(crate) mod found;
pub(crate) mod verdict;
