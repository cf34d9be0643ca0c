//! The `[websocket]` section: WebSocket upgrades on the proxy listener and the limits of the
//! tunnels they open (docs/config.md, docs/operations.md#websockets).

use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use super::error::ConfigError;
use super::size::RawSize;

/// `[websocket]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWebSocket {
    pub(super) enabled: bool,
    pub(super) max_frame_bytes: Spanned<RawSize>,
    pub(super) max_message_bytes: Spanned<RawSize>,
    pub(super) server_text: Spanned<String>,
    pub(super) idle_timeout_seconds: Spanned<f64>,
    pub(super) max_lifetime_seconds: Spanned<f64>,
    pub(super) max_tunnels: Spanned<u64>,
}

/// How the upstream's text messages are read (`websocket.server_text`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerText {
    /// Not read: its text frames go on as they come.
    Off,
    /// Validated as UTF-8; an invalid message is logged and counted, and sent on.
    Log,
    /// Validated as UTF-8; an invalid message closes both sides with 1007.
    Enforce,
}

/// The validated `[websocket]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSocket {
    /// Let RFC 6455 upgrades through (`enabled`); refused with 400 otherwise.
    pub enabled: bool,
    /// The largest frame either side may send (`max_frame_bytes`); larger closes with 1009.
    pub max_frame_bytes: usize,
    /// The largest message (`max_message_bytes`), all its frames; larger closes with 1009.
    /// A text message is held whole until validated, so it is also the memory of one message.
    pub max_message_bytes: usize,
    /// How the upstream's text messages are read (`server_text`).
    pub server_text: ServerText,
    /// A tunnel with no frame either way for this long is closed with 1001 (`idle_timeout_seconds`).
    pub idle_timeout: Duration,
    /// A tunnel open this long is closed with 1001, busy or not (`max_lifetime_seconds`).
    pub max_lifetime: Duration,
    /// Tunnels open at once, for the whole process (`max_tunnels`); more upgrades get 503.
    pub max_tunnels: usize,
}

/// The validation's error at a key's span.
type Bad<'a> = &'a dyn Fn(&str, std::ops::Range<usize>, String) -> ConfigError;
/// The validation's reader of a size within bounds.
type Size<'a> = &'a dyn Fn(&str, &Spanned<RawSize>, u64, u64) -> Result<u64, ConfigError>;
/// The validation's reader of seconds (zero allowed or not).
type Seconds<'a> = &'a dyn Fn(&str, &Spanned<f64>, bool) -> Result<Duration, ConfigError>;

/// Checks the section with the validation's own readers of sizes and seconds.
pub(super) fn validate(
    raw: &RawWebSocket,
    bad: Bad<'_>,
    size: Size<'_>,
    seconds: Seconds<'_>,
) -> Result<WebSocket, ConfigError> {
    let max_frame_bytes = size(
        "websocket.max_frame_bytes",
        &raw.max_frame_bytes,
        125,
        1 << 30,
    )?;
    let max_message_bytes = size(
        "websocket.max_message_bytes",
        &raw.max_message_bytes,
        max_frame_bytes,
        1 << 30,
    )?;
    let server_text = match raw.server_text.get_ref().as_str() {
        "off" => ServerText::Off,
        "log" => ServerText::Log,
        "enforce" => ServerText::Enforce,
        other => {
            let message = format!("{other:?} is not off, log or enforce");
            return Err(bad(
                "websocket.server_text",
                raw.server_text.span(),
                message,
            ));
        }
    };
    let tunnels = *raw.max_tunnels.get_ref();
    if !(1..=1 << 20).contains(&tunnels) {
        let message = format!("{tunnels} is outside 1..=1048576");
        return Err(bad(
            "websocket.max_tunnels",
            raw.max_tunnels.span(),
            message,
        ));
    }
    Ok(WebSocket {
        enabled: raw.enabled,
        max_frame_bytes: max_frame_bytes as usize,
        max_message_bytes: max_message_bytes as usize,
        server_text,
        idle_timeout: seconds(
            "websocket.idle_timeout_seconds",
            &raw.idle_timeout_seconds,
            false,
        )?,
        max_lifetime: seconds(
            "websocket.max_lifetime_seconds",
            &raw.max_lifetime_seconds,
            false,
        )?,
        max_tunnels: tunnels as usize,
    })
}
