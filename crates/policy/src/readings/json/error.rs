//! Why a body is not JSON the scanner accepts.

/// Why a body is not JSON the scanner accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum JsonError {
    /// Not RFC 8259 JSON at this byte offset.
    Syntax {
        /// Offset of the offending byte (`body.len()` when the body ends too early; for a bad
        /// escape, the backslash that starts it).
        offset: usize,
        /// Short lowercase description, e.g. `expected ':'` or `invalid escape`.
        message: &'static str,
    },
    /// Nesting deeper than the limit at this offset.
    TooDeep {
        /// Offset of the `[` or `{` that would open one container too many.
        offset: usize,
        /// The `max_depth` in force.
        limit: usize,
    },
    /// More string tokens (keys and string values together) than the limit.
    TooManyStrings {
        /// The `max_strings` in force.
        limit: usize,
    },
}

/// Builds a syntax error.
pub(super) fn syntax(offset: usize, message: &'static str) -> JsonError {
    JsonError::Syntax { offset, message }
}
