//! Configuration errors, with the source and the line they are about.

use std::fmt;
use std::time::Duration;

/// Why the configuration cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file, environment variable or flag the problem is in.
    pub source: String,
    /// 1-based line in a file, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.source, line, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// A TOML syntax error, with the line of its span.
pub(super) fn toml_error(e: &toml::de::Error, text: &str, source: &str) -> ConfigError {
    ConfigError {
        source: source.to_string(),
        line: e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
        message: e.message().to_string(),
    }
}

/// The 1-based line where `key` is set in `text`.
pub(super) fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.trim_start().starts_with(key))
        .map(|i| i + 1)
}

/// `value` seconds as a duration, or an error naming `what` and its line.
pub(super) fn seconds(
    value: f64,
    what: &str,
    source: &str,
    text: &str,
    allow_zero: bool,
) -> Result<Duration, ConfigError> {
    let ok = value.is_finite() && (value > 0.0 || (allow_zero && value == 0.0)) && value < 1e9;
    if ok {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(ConfigError {
            source: source.to_string(),
            line: line_of(text, what),
            message: format!(
                "{what} must be a number of seconds {}",
                if allow_zero { ">= 0" } else { "> 0" }
            ),
        })
    }
}
