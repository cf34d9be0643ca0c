//! utf8gate inside the proxy: the policy as a proxy-wasm HTTP filter, for Envoy (and Istio's
//! `WasmPlugin`, Envoy Gateway's `EnvoyExtensionPolicy.wasm`) and any other proxy-wasm host.
//!
//! ```text
//! request headers ──▶ Exchange::head ──(a body follows)──▶ pause, the host buffers it
//! request body    ──▶ Exchange::body ──(end, or past max_body_bytes)──▶ Outcome
//! Outcome ──▶ go on │ go on rewritten (:path, headers, body, Content-Length) │ local reply
//! ```
//!
//! [`settings`] reads the plugin configuration (TOML, or the JSON Istio passes); [`exchange`]
//! is one request's conversation with the host, as values: it is the whole filter but the host
//! calls, and runs (and is tested) on any target. The host calls are in `host`, built only for
//! `wasm32`.

pub mod exchange;
pub mod settings;

#[cfg(target_arch = "wasm32")]
mod host;
