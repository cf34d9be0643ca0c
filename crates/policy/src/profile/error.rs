//! Where and why a profile could not be loaded.

use std::fmt;

pub(super) fn line_of(text: &str, needle: &str) -> usize {
    nth_line_of(text, needle, 0)
}

/// The 1-based line of the `n`th (from 0) line containing `needle`, or 1.
pub(super) fn nth_line_of(text: &str, needle: &str, n: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(n)
        .map_or(1, |(i, _)| i + 1)
}

/// Why a profile could not be loaded: where and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    /// The source the text came from (a file name).
    pub source: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl ProfileError {
    pub(super) fn from_toml(e: &toml::de::Error, text: &str, source: &str) -> ProfileError {
        let (line, column) = match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                (line, column)
            }
            None => (1, 1),
        };
        ProfileError {
            source: source.to_string(),
            line,
            column,
            message: e.message().to_string(),
        }
    }
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.source, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ProfileError {}
