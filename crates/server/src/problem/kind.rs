//! The table of problems ([`ProblemKind`]) and the [`Problem`] handlers and layers return: a
//! leaf of `problem`, which renders them.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use utf8gate_policy::Verdict;
use utf8gate_policy::answer::{self, BODY_TOO_LARGE, REJECTED};

/// The media type of problem details.
pub use utf8gate_policy::answer::PROBLEM_JSON;

/// Declares [`ProblemKind`] from one table: each kind once, with its default status, the slug
/// of its type and its title.
macro_rules! problem_kinds {
    ($($(#[doc = $doc:literal])+ $kind:ident => ($status:ident, $slug:expr, $title:expr),)+) => {
        /// Every problem utf8gate reports: its status (unless the configuration sets it), the
        /// slug of its type (`urn:utf8gate:problem:{slug}`) and its title.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ProblemKind {
            $($(#[doc = $doc])+ $kind,)+
        }

        impl ProblemKind {
            /// Every kind.
            pub const ALL: &[ProblemKind] = &[$(ProblemKind::$kind),+];

            /// The table: default status, type slug, title.
            pub const fn describe(self) -> (StatusCode, &'static str, &'static str) {
                match self {
                    $(ProblemKind::$kind => (StatusCode::$status, $slug, $title),)+
                }
            }
        }
    };
}

problem_kinds! {
    /// The policy rejected the request (the status is `policy.reject_status`,
    /// `policy.authz_deny_status`, 415 or 422, by listener).
    Rejected => (BAD_REQUEST, REJECTED.slug, REJECTED.title),
    /// A body over the limit.
    BodyTooLarge => (PAYLOAD_TOO_LARGE, BODY_TOO_LARGE.slug, BODY_TOO_LARGE.title),
    /// A body that could not be read (cut short, malformed framing).
    BadBody => (BAD_REQUEST, "bad-body", "Body could not be read"),
    /// A query string the API's parameters cannot be read from.
    BadQuery => (BAD_REQUEST, "bad-query", "Bad query string"),
    /// `?profile=` names no profile.
    UnknownProfile => (BAD_REQUEST, "unknown-profile", "Unknown profile"),
    /// No route of the API listener serves the request's path.
    NotFound => (NOT_FOUND, "not-found", "Not found"),
    /// A gRPC check that describes no HTTP request (`attributes.request.http`).
    BadCheck => (BAD_REQUEST, "bad-check", "Check describes no HTTP request"),
    /// A request target that cannot be forwarded.
    BadTarget => (BAD_REQUEST, "bad-target", "Bad request target"),
    /// A rewritten header value that cannot be sent.
    BadHeader => (BAD_REQUEST, "bad-header", "Bad header"),
    /// Readings of the request's path or host that choose different routes.
    AmbiguousRoute => (BAD_REQUEST, "ambiguous-route", "Request reads as two routes"),
    /// CONNECT, or TRACE when not allowed.
    MethodNotAllowed => (METHOD_NOT_ALLOWED, "method-not-allowed", "Method not allowed"),
    /// A path-override header from a peer that is not a trusted proxy.
    UntrustedPathOverride => (
        BAD_REQUEST,
        "untrusted-path-override",
        "Path override from an untrusted peer"
    ),
    /// An `Upgrade` the proxy does not let through (h2c, custom protocols, or WebSocket when
    /// `websocket.enabled` is false).
    UpgradeRefused => (BAD_REQUEST, "upgrade-refused", "Upgrade refused"),
    /// A WebSocket opening handshake that breaks RFC 6455 §4.1.
    BadHandshake => (BAD_REQUEST, "bad-websocket-handshake", "Bad WebSocket handshake"),
    /// A WebSocket handshake of a version other than 13 (RFC 6455 §4.2.2: 426 with the
    /// version this server speaks in `Sec-WebSocket-Version`).
    WebSocketVersion => (UPGRADE_REQUIRED, "websocket-version", "Unsupported WebSocket version"),
    /// The request took longer than `limits.request_timeout_seconds`.
    RequestTimeout => (REQUEST_TIMEOUT, "request-timeout", "Request timeout"),
    /// More than `limits.max_concurrent_requests` in flight.
    Overloaded => (SERVICE_UNAVAILABLE, "overloaded", "Overloaded"),
    /// The bodies in flight hold `limits.max_buffered_bytes`; answered with `Retry-After`.
    Busy => (SERVICE_UNAVAILABLE, "busy", "Busy: too many bodies in memory"),
    /// The proxy has no upstream configured.
    NoUpstream => (BAD_GATEWAY, "no-upstream", "No upstream"),
    /// The upstream refused or reset the connection.
    UpstreamUnavailable => (BAD_GATEWAY, "upstream-unavailable", "Upstream unavailable"),
    /// The upstream did not answer in time.
    UpstreamTimeout => (GATEWAY_TIMEOUT, "upstream-timeout", "Upstream timeout"),
    /// The upstream answered a WebSocket handshake with a `101` that does not match it (accept
    /// key, extension, subprotocol).
    UpstreamHandshake => (
        BAD_GATEWAY,
        "upstream-websocket-handshake",
        "Upstream WebSocket handshake failed"
    ),
    /// A fault of utf8gate's own (details in the logs only).
    Internal => (INTERNAL_SERVER_ERROR, "internal", "Internal error"),
}

impl ProblemKind {
    /// The slug of the problem type.
    pub const fn slug(self) -> &'static str {
        self.describe().1
    }

    /// The `Retry-After` (seconds) of an answer of this kind, for those that ask the client to
    /// come back.
    pub const fn retry_after(self) -> Option<&'static str> {
        match self {
            ProblemKind::Busy => Some(RETRY_AFTER_SECONDS),
            _ => None,
        }
    }
}

/// When to retry a request refused for the memory budget: the bodies holding it are evaluated
/// in tens of milliseconds, so a second is plenty (and the smallest `Retry-After` there is).
const RETRY_AFTER_SECONDS: &str = "1";

/// A problem to report to the client.
#[derive(Debug, Clone)]
pub struct Problem {
    /// What kind of problem.
    pub kind: ProblemKind,
    /// The HTTP status (the kind's, unless set).
    pub status: StatusCode,
    /// What happened to this request.
    pub detail: String,
    /// The verdict, for rejections.
    pub verdict: Option<Box<Verdict>>,
}

impl Problem {
    /// A problem of `kind` with its table status.
    pub fn new(kind: ProblemKind, detail: impl Into<String>) -> Problem {
        Problem {
            kind,
            status: kind.describe().0,
            detail: detail.into(),
            verdict: None,
        }
    }

    /// A rejection carrying its verdict, with `status`.
    pub fn rejected(status: StatusCode, verdict: Verdict) -> Problem {
        let detail = answer::rejected_detail(&verdict);
        Problem {
            kind: ProblemKind::Rejected,
            status,
            detail,
            verdict: Some(Box::new(verdict)),
        }
    }

    /// 413: a body over `limit` bytes.
    pub fn too_large(limit: u64) -> Problem {
        Problem::new(ProblemKind::BodyTooLarge, answer::too_large_detail(limit))
    }

    /// 503: the memory budget of buffered bodies cannot hold this one now.
    pub fn busy() -> Problem {
        Problem::new(
            ProblemKind::Busy,
            "the bodies in flight fill the memory budget (limits.max_buffered_bytes); retry later",
        )
    }

    /// 400: the body could not be read.
    pub fn bad_body() -> Problem {
        Problem::new(
            ProblemKind::BadBody,
            "the request body ended early or was malformed",
        )
    }
}

impl IntoResponse for Problem {
    /// The status, with the problem in the extensions for the problem layer to render.
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        response.extensions_mut().insert(self);
        response
    }
}
