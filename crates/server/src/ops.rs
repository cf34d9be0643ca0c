//! Running the gateway: its configuration ([`config`]) and reloading it ([`reload`]), what a
//! request leaves behind (the audit line, [`audit`]; the Prometheus metrics, [`metrics`]) and the
//! process's logs ([`logging`]).

pub mod audit;
pub mod config;
pub mod logging;
pub mod metrics;
pub mod reload;
