//! Why an upstream request failed: the closed set of the `reason` label.

/// Why an upstream request failed: the `reason` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpstreamError {
    /// Connection refused or reset, or any transport failure.
    Connect,
    /// No response head within the response timeout.
    Timeout,
    /// The response head was forwarded, then the upstream failed before the end of the body
    /// (the client's connection is cut, so it sees an incomplete message).
    Body,
}

impl UpstreamError {
    pub(super) fn label(self) -> &'static str {
        match self {
            UpstreamError::Connect => "connect",
            UpstreamError::Timeout => "timeout",
            UpstreamError::Body => "body",
        }
    }
}
