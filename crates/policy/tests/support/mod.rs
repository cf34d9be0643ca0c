//! Helpers shared by the policy's integration tests.

pub(crate) mod coders;
