//! Configuration errors, with the source and the line and column they are about.

use std::fmt;

/// Why the configuration cannot be used.
///
/// Displayed as `source:line:column: message` for a place in a file, `source: message` for an
/// environment variable or a flag (whose name is the source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Where the problem is: a file (its path as given, or `embedded default`), an environment
    /// variable (`UTF8GATE_LIMITS_MAX_BODY_BYTES`) or a flag (`--api-addr`).
    pub source: String,
    /// 1-based line in a file, when the problem is in one.
    pub line: Option<usize>,
    /// 1-based column of that line, in characters, when the problem is in a file.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => {
                write!(f, "{}:{line}:{column}: {}", self.source, self.message)
            }
            (Some(line), None) => write!(f, "{}:{line}: {}", self.source, self.message),
            _ => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// A profile file's error, which carries its own file, line and column.
pub(super) fn from_profile(e: utf8gate_policy::ProfileError) -> ConfigError {
    ConfigError {
        source: e.source,
        line: Some(e.line),
        column: Some(e.column),
        message: e.message,
    }
}
