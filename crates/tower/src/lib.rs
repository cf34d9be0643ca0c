//! utf8gate inside a Rust service: the policy as a [`tower`](https://docs.rs/tower) layer, for
//! axum, tonic or any hyper stack, in process and with no server of its own.
//!
//! ```text
//! Request<B> ──collect the body (max_body_bytes)──▶ policy::Request ──evaluate──▶ Answer
//!   Answer::Forward ─▶ inner service: the request as received, or sanitized (target, headers,
//!                      body with a true Content-Length); the Verdict in its extensions
//!   Answer::Refuse  ─▶ problem+json (the proxy's), the inner service not called
//! ```
//!
//! The five lines an axum app adds:
//!
//! ```no_run
//! use utf8gate_tower::Utf8GateLayer;
//! use utf8gate_policy::Profile;
//! # let app: axum::Router = axum::Router::new();
//! let app = app.layer(Utf8GateLayer::new(Profile::strict()));
//! ```
//!
//! A handler reads the verdict with `Extension<utf8gate_policy::Verdict>`.

mod convert;
mod layer;

pub use layer::{Utf8Gate, Utf8GateLayer};
