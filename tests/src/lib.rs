//! Test support for the end-to-end tests of utf8gate (`tests/e2e/`).
//!
//! Everything runs on loopback (127.0.0.1, port 0):
//!
//! - [`Gateway`]: the real binary, `utf8gate serve`, as a child process with its three
//!   listeners (proxy, api, admin); the test reads the bound ports from its JSON log, stops it
//!   with SIGTERM and can read every log line it wrote.
//! - [`Upstream`]: a real HTTP application behind the proxy, an axum echo router that records
//!   every request it receives (method, target, raw header bytes, body) so tests can assert
//!   what reached it, and that nothing did.
//! - [`HungUpstream`] (accepts, never answers), [`ResettingUpstream`] (answers part of a
//!   response, then resets) and [`dead_addr`] (refuses).
//! - Real front proxies and browsers ([`front_tool`], [`ProcessGroup`], [`ScratchDir`],
//!   [`exchange_from`] a chosen loopback address) for `tests/e2e/fronts/`, and a [`Relay`]
//!   between a front and utf8gate that keeps what the front asked.
//! - A raw HTTP/1.1 client over [`tokio::net::TcpStream`]: [`exchange`] writes bytes no well-behaved
//!   client would send (raw header bytes, oversized heads) while reading the response, and
//!   [`RawConn`] drives a connection step by step (slowloris).
//! - HTTP/2 clients ([`curl_h2`], `curl --http2-prior-knowledge`; [`H2Raw`], raw frames).
//! - WebSocket ([`WsUpstream`], an echoing upstream, and [`WsClient`], raw frames).
//! - [`parse_html`]: an error page as Python's `html.parser` reads it.
//! - [`MemoryLimit`]: a way to run the gateway under a memory limit (a systemd scope, a cgroup
//!   v2, `prlimit --data`), with [`Gateway::start_under`].
//!
//! Every wait is bounded: exchanges have a timeout, polls have a deadline.

use std::time::{Duration, Instant};

/// How long an [`exchange`] waits for a complete response by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Polls `check` every 10 ms until it is true or `within` has passed; returns its last value.
pub async fn poll_until(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

mod browser;
mod client;
mod data;
mod fronts;
mod gateway;
mod h2;
mod html;
mod memory_limit;
mod python;
mod relay;
mod tls;
mod upstream;
mod websocket;

pub use browser::*;
pub use client::*;
pub use data::*;
pub use fronts::*;
pub use gateway::*;
pub use h2::*;
pub use html::*;
pub use memory_limit::*;
pub use python::*;
pub use relay::*;
pub use tls::*;
pub use upstream::*;
pub use websocket::*;
