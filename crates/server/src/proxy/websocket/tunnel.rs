//! A WebSocket tunnel: frames read from both sides (`frame`), put together into messages
//! (`message`), checked, and sent on.
//!
//! The client's text messages are validated as UTF-8 (1007) and then judged by the route's
//! profile (`judge`, 1008). The upstream's text messages are validated as
//! `websocket.server_text` says. Binary messages go through unread. A failure sends a Close
//! frame with its code to both sides, then ends both connections; one log line (target
//! `utf8gate::websocket`) says why, and one more when any tunnel ends (its reason and counts).
//! Every wait is bounded: no frame either way for `websocket.idle_timeout_seconds` closes with
//! 1001, and a write that does not finish within it ends the tunnel.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::BytesMut;
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt, ReadHalf, WriteHalf};

use super::frame::{self, CLOSE, Fail, Frame, Side, code};
use super::judge::{Judged, judge};
use super::message::{Assembly, Step, TextCheck, text_frame};
use crate::gate::Evaluations;
use crate::listen::serve::Draining;
use crate::ops::config::{ServerText, WebSocket};
use crate::ops::metrics::{Closed, WebSocketMetrics};
use crate::routes::Route;
use crate::state::AppState;

/// How long a failed tunnel waits for each side to end its connection after the Close frame.
const LINGER: Duration = Duration::from_secs(1);

type Io = TokioIo<Upgraded>;

/// What a tunnel needs besides its two connections.
pub(super) struct Tunnel {
    max_frame: usize,
    max_message: usize,
    server_text: TextCheck,
    idle: Duration,
    lifetime: Duration,
    route: Arc<Route>,
    /// The places of long messages' evaluations (`limits.max_concurrent_evaluations`).
    evaluations: Evaluations,
    metrics: WebSocketMetrics,
    request_id: String,
    /// The listener's stop signal: a stopping server closes its tunnels with 1001.
    draining: Option<Draining>,
    /// Messages sent on: from the client, from the upstream.
    messages: [AtomicU64; 2],
}

/// One side of the tunnel.
struct End {
    reader: ReadHalf<Io>,
    writer: WriteHalf<Io>,
    buf: BytesMut,
    side: Side,
    messages: Assembly,
    /// It sent a Close frame (nothing more is read from it).
    closed: bool,
}

/// What reading one side gave.
enum Read {
    Frame(Frame),
    Fail(Fail),
    /// The connection ended (or failed) without a frame.
    End,
}

impl End {
    fn new(io: Upgraded, side: Side, messages: Assembly) -> End {
        let (reader, writer) = tokio::io::split(TokioIo::new(io));
        End {
            reader,
            writer,
            buf: BytesMut::with_capacity(8 * 1024),
            side,
            messages,
            closed: false,
        }
    }

    /// The next frame. Cancel-safe: what was read stays in `buf` until it makes a frame.
    async fn next(&mut self, max_frame: usize) -> Read {
        loop {
            match frame::parse(&mut self.buf, self.side, max_frame) {
                Ok(Some(frame)) => return Read::Frame(frame),
                Err(fail) => return Read::Fail(fail),
                Ok(None) => {}
            }
            match self.reader.read_buf(&mut self.buf).await {
                Ok(0) | Err(_) => return Read::End,
                Ok(_) => {}
            }
        }
    }

    /// Writes `bytes` within `within`; `false` if it failed or took too long.
    async fn send(&mut self, bytes: &[u8], within: Duration) -> bool {
        matches!(
            tokio::time::timeout(within, self.writer.write_all(bytes)).await,
            Ok(Ok(()))
        )
    }

    /// The masking key of a frame to this side: frames to the upstream are masked (with the
    /// client's key when the frame came with one), frames to the client are not.
    fn mask(&self, key: Option<[u8; 4]>) -> Option<[u8; 4]> {
        match self.side {
            Side::Client => None,
            Side::Server => Some(key.unwrap_or_else(fresh_key)),
        }
    }

    /// Ends the connection: our side shut, then what the peer still sends read and dropped
    /// until it ends, for at most [`LINGER`] (closing with unread bytes would reset it and
    /// could lose the Close frame).
    async fn end(mut self) {
        let _ = tokio::time::timeout(LINGER, async {
            let _ = self.writer.shutdown().await;
            let mut sink = [0u8; 4096];
            while let Ok(1..) = self.reader.read(&mut sink).await {}
        })
        .await;
    }
}

/// Who failed the tunnel, for its log line.
fn name(side: Side) -> &'static str {
    match side {
        Side::Client => "client",
        Side::Server => "upstream",
    }
}

/// Completes when the listener stops; never without a listener's signal.
async fn stopping(draining: &mut Option<Draining>) {
    match draining {
        Some(draining) => draining.stopped().await,
        None => std::future::pending().await,
    }
}

/// A masking key no one can predict (§5.3), for frames utf8gate writes itself.
fn fresh_key() -> [u8; 4] {
    use std::hash::{BuildHasher, Hasher};
    // Each `RandomState` has keys of its own, seeded from the system's randomness.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u8(0);
    let [a, b, c, d, ..] = hasher.finish().to_le_bytes();
    [a, b, c, d]
}

impl Tunnel {
    /// The tunnel of a handshake on `route`, with the limits `ws` of the configuration the
    /// handshake started with.
    pub(super) fn new(
        state: &AppState,
        ws: &WebSocket,
        route: Arc<Route>,
        request_id: String,
        draining: Option<Draining>,
    ) -> Tunnel {
        Tunnel {
            max_frame: ws.max_frame_bytes,
            max_message: ws.max_message_bytes,
            server_text: match ws.server_text {
                ServerText::Off => TextCheck::Off,
                ServerText::Log => TextCheck::Log,
                ServerText::Enforce => TextCheck::Enforce,
            },
            idle: ws.idle_timeout,
            lifetime: ws.max_lifetime,
            route,
            evaluations: state.evaluations.clone(),
            metrics: state.metrics.websocket().clone(),
            request_id,
            draining,
            messages: [AtomicU64::new(0), AtomicU64::new(0)],
        }
    }

    /// One side's connection could not be taken over after the 101.
    pub(super) fn not_opened(&self) {
        let request_id = self.request_id.as_str();
        tracing::warn!(target: "utf8gate::websocket", request_id, "tunnel not opened: a side went away after the 101");
    }

    /// Relays frames between `client` and `upstream` until the tunnel ends.
    pub(super) async fn run(mut self, client: Upgraded, upstream: Upgraded) {
        self.metrics.opened();
        let client = End::new(
            client,
            Side::Client,
            Assembly::new(self.max_message, TextCheck::Enforce),
        );
        let upstream = End::new(
            upstream,
            Side::Server,
            Assembly::new(self.max_message, self.server_text),
        );
        let mut draining = self.draining.take();
        let closed = self.relay(client, upstream, &mut draining).await;
        self.metrics.closed(closed);
        let request_id = self.request_id.as_str();
        let [client, upstream] = self.messages.each_ref().map(|m| m.load(Ordering::Relaxed));
        tracing::info!(target: "utf8gate::websocket", request_id, route = self.route.name, reason = closed.label(), client_messages = client, upstream_messages = upstream, "websocket tunnel ended");
        // The listener's drain waits until here.
        drop(draining);
    }

    async fn relay(
        &self,
        mut client: End,
        mut upstream: End,
        draining: &mut Option<Draining>,
    ) -> Closed {
        let mut out = Vec::new();
        let end_of_life = tokio::time::Instant::now() + self.lifetime;
        loop {
            let (from, read) = tokio::select! {
                read = client.next(self.max_frame), if !client.closed => (Side::Client, read),
                read = upstream.next(self.max_frame), if !upstream.closed => (Side::Server, read),
                () = stopping(draining) => {
                    let stop = Fail { code: code::GOING_AWAY, why: "server shutting down" };
                    self.fail(client, upstream, stop, "utf8gate").await;
                    return Closed::Shutdown;
                }
                () = tokio::time::sleep_until(end_of_life) => {
                    let old = Fail { code: code::GOING_AWAY, why: "tunnel lifetime over" };
                    self.fail(client, upstream, old, "utf8gate").await;
                    return Closed::Lifetime;
                }
                _ = tokio::time::sleep(self.idle) => {
                    let idle = Fail { code: code::GOING_AWAY, why: "idle timeout" };
                    return self.fail(client, upstream, idle, "utf8gate").await;
                }
            };
            let (src, dst) = match from {
                Side::Client => (&mut client, &mut upstream),
                Side::Server => (&mut upstream, &mut client),
            };
            let step = match read {
                Read::End => {
                    // One side went away: the other's connection ends too.
                    tokio::join!(client.end(), upstream.end());
                    return Closed::Normal;
                }
                Read::Fail(fail) => Err(fail),
                Read::Frame(frame) => src.messages.accept(frame),
            };
            let step = match step {
                Ok(step) => step,
                Err(fail) => {
                    self.count_failure(fail, from);
                    return self.fail(client, upstream, fail, name(from)).await;
                }
            };
            out.clear();
            match step {
                Step::Kept => continue,
                Step::Forward(frame) => {
                    if frame.opcode == CLOSE {
                        if let Err(fail) = frame::check_close(&frame.payload) {
                            return self.fail(client, upstream, fail, name(from)).await;
                        }
                        src.closed = true;
                    }
                    let mask = dst.mask(frame.mask);
                    frame::write(&mut out, frame.fin, frame.opcode, &frame.payload, mask);
                }
                Step::Text {
                    payload,
                    mask,
                    invalid,
                } => {
                    let payload = match (from, invalid) {
                        (Side::Client, _) => {
                            let request_id = self.request_id.as_str();
                            let (route, places) = (&self.route, &self.evaluations);
                            match judge(route, places, request_id, payload).await {
                                Judged::Allowed(payload) => payload,
                                Judged::Refused => {
                                    self.metrics.message("client", "refused");
                                    let fail = Fail {
                                        code: code::POLICY,
                                        why: "message refused by policy",
                                    };
                                    return self.fail(client, upstream, fail, name(from)).await;
                                }
                                Judged::Failed => {
                                    let fail = Fail {
                                        code: code::INTERNAL,
                                        why: "message not evaluated",
                                    };
                                    return self.fail(client, upstream, fail, name(from)).await;
                                }
                            }
                        }
                        (Side::Server, Some(kind)) => {
                            self.metrics.message("server", "invalid");
                            let request_id = self.request_id.as_str();
                            tracing::warn!(target: "utf8gate::websocket", request_id, route = self.route.name, kind = kind.as_str(), "upstream sent a text message that is not UTF-8 (server_text = log: sent on)");
                            payload
                        }
                        (Side::Server, None) => payload,
                    };
                    if invalid.is_none() {
                        let direction = if from == Side::Client {
                            "client"
                        } else {
                            "server"
                        };
                        self.metrics.message(direction, "valid");
                    }
                    text_frame(&mut out, &payload, dst.mask(mask));
                }
            }
            if !out.is_empty() && out[0] & 0x80 != 0 && out[0] & 0x0F < CLOSE {
                // The last frame of a data message.
                self.messages[usize::from(from == Side::Server)].fetch_add(1, Ordering::Relaxed);
            }
            if !dst.send(&out, self.idle).await {
                tokio::join!(client.end(), upstream.end());
                return Closed::Error;
            }
            if client.closed && upstream.closed {
                tokio::join!(client.end(), upstream.end());
                return Closed::Normal;
            }
        }
    }

    /// Counts a message that failed its UTF-8 check.
    fn count_failure(&self, fail: Fail, from: Side) {
        if fail.code == code::INVALID_DATA {
            let direction = if from == Side::Client {
                "client"
            } else {
                "server"
            };
            self.metrics.message(direction, "invalid");
        }
    }

    /// Fails the tunnel: a Close frame with `fail`'s code to both sides, both connections
    /// ended, one log line.
    async fn fail(&self, mut client: End, mut upstream: End, fail: Fail, from: &str) -> Closed {
        let request_id = self.request_id.as_str();
        tracing::warn!(target: "utf8gate::websocket", request_id, route = self.route.name, code = fail.code, reason = fail.why, from, "websocket tunnel closed");
        let payload = frame::close_payload(fail.code, fail.why);
        let mut out = Vec::new();
        frame::write(&mut out, true, CLOSE, &payload, None);
        let to_client = client.send(&out, LINGER);
        let mut masked = Vec::new();
        frame::write(&mut masked, true, CLOSE, &payload, Some(fresh_key()));
        let to_upstream = upstream.send(&masked, LINGER);
        let _ = tokio::join!(to_client, to_upstream);
        tokio::join!(client.end(), upstream.end());
        match fail.code {
            code::INVALID_DATA => Closed::InvalidUtf8,
            code::POLICY => Closed::Policy,
            code::TOO_BIG => Closed::TooBig,
            code::GOING_AWAY => Closed::Idle,
            code::PROTOCOL => Closed::Protocol,
            _ => Closed::Error,
        }
    }
}
