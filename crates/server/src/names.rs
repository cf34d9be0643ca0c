//! The header names utf8gate itself adds or reads (a leaf: it imports nothing of the crate;
//! `utf8gate-decision` is the policy's, shared with the embeddings).

use axum::http::HeaderName;

/// `utf8gate-decision`: allow, sanitize or reject, on API and authz responses and on sanitized
/// requests sent upstream.
pub const DECISION: HeaderName = HeaderName::from_static(utf8gate_policy::answer::DECISION_HEADER);
/// `utf8gate-request-id` on every response.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("utf8gate-request-id");
/// `x-request-id`: taken from requests when present, sent upstream.
pub const REQUEST_ID_IN: HeaderName = HeaderName::from_static("x-request-id");
