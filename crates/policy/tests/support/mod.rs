//! Helpers shared by the policy's integration tests.

#[allow(dead_code)] // not every test binary uses every helper
pub(crate) mod coders;
#[allow(dead_code)]
pub(crate) mod differential;
#[allow(dead_code)]
pub(crate) mod requests;
#[allow(dead_code)]
pub(crate) mod zips;
