//! The `tower::Layer`s utf8gate writes itself, one concern each, for what tower's own layers
//! (`load_shed`, `concurrency_limit`, `timeout`) do not do. The stacks that
//! compose them per listener are in `crate::listen::stack`.

pub mod audit;
pub mod body_limit;
pub mod errors;
pub mod in_flight;
pub mod on_response;
pub mod problems;
pub mod request_id;
pub mod snapshot;
