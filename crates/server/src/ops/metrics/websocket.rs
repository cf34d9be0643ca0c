//! The WebSocket tunnels' series: open tunnels, tunnels opened and closed (by reason), text
//! messages checked (by direction and verdict). Labels from closed sets only.

use prometheus::{IntCounter, IntCounterVec, IntGauge, Opts, Registry};

fn must<T>(r: prometheus::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("metric definition: {e}"))
}

/// Why a tunnel ended: the `reason` label of `utf8gate_websocket_closed_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// Both sides exchanged Close frames, or one side ended its connection.
    Normal,
    /// A text message or close reason that is not UTF-8 (1007).
    InvalidUtf8,
    /// A text message the profile refuses (1008).
    Policy,
    /// A frame that breaks RFC 6455 (1002).
    Protocol,
    /// A frame or message over the limits (1009).
    TooBig,
    /// No frame either way for `websocket.idle_timeout_seconds` (1001).
    Idle,
    /// Open for `websocket.max_lifetime_seconds` (1001).
    Lifetime,
    /// The server is shutting down (1001).
    Shutdown,
    /// A write failed or timed out.
    Error,
}

const CLOSED: [(Closed, &str); 9] = [
    (Closed::Normal, "normal"),
    (Closed::InvalidUtf8, "invalid_utf8"),
    (Closed::Policy, "policy"),
    (Closed::Protocol, "protocol"),
    (Closed::TooBig, "too_big"),
    (Closed::Idle, "idle"),
    (Closed::Lifetime, "lifetime"),
    (Closed::Shutdown, "shutdown"),
    (Closed::Error, "error"),
];

impl Closed {
    /// The label.
    pub fn label(self) -> &'static str {
        CLOSED
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("error", |(_, l)| l)
    }
}

/// Who sent a message: the `direction` label.
const DIRECTIONS: [&str; 2] = ["client", "server"];
/// What became of a checked text message: the `verdict` label.
const VERDICTS: [&str; 3] = ["valid", "invalid", "refused"];

/// The tunnels' series. Cheap to clone.
#[derive(Clone)]
pub struct WebSocketMetrics {
    open: IntGauge,
    opened: IntCounter,
    closed: IntCounterVec,
    messages: IntCounterVec,
}

impl WebSocketMetrics {
    /// Registers the series in `registry`, every label combination at 0.
    pub(super) fn register(registry: &Registry) -> WebSocketMetrics {
        let open = must(IntGauge::new("websocket_open", "WebSocket tunnels open."));
        let opened = must(IntCounter::new(
            "websocket_opened_total",
            "WebSocket tunnels opened (the upstream answered 101 with the right accept key).",
        ));
        let closed = must(IntCounterVec::new(
            Opts::new(
                "websocket_closed_total",
                "WebSocket tunnels closed, by reason (normal, invalid_utf8, policy, protocol, too_big, idle, shutdown, error).",
            ),
            &["reason"],
        ));
        let messages = must(IntCounterVec::new(
            Opts::new(
                "websocket_messages_total",
                "Text messages checked, by direction (client, server) and verdict (valid, invalid, refused).",
            ),
            &["direction", "verdict"],
        ));
        for (_, label) in CLOSED {
            closed.with_label_values(&[label]);
        }
        for d in DIRECTIONS {
            for v in VERDICTS {
                messages.with_label_values(&[d, v]);
            }
        }
        must(registry.register(Box::new(open.clone())));
        must(registry.register(Box::new(opened.clone())));
        must(registry.register(Box::new(closed.clone())));
        must(registry.register(Box::new(messages.clone())));
        WebSocketMetrics {
            open,
            opened,
            closed,
            messages,
        }
    }

    /// A tunnel opened.
    pub fn opened(&self) {
        self.opened.inc();
        self.open.inc();
    }

    /// A tunnel closed for `why`.
    pub fn closed(&self, why: Closed) {
        self.open.dec();
        self.closed.with_label_values(&[why.label()]).inc();
    }

    /// A text message checked: `direction` is `client` or `server`, `verdict` one of `valid`,
    /// `invalid`, `refused`.
    pub fn message(&self, direction: &'static str, verdict: &'static str) {
        self.messages.with_label_values(&[direction, verdict]).inc();
    }
}
