//! The layers of a configuration (the embedded default, the file, `UTF8GATE_*` variables,
//! flags) merged into one TOML table whose spans still say where each value came from.
//!
//! Every layer's text gets offsets of its own, laid end to end (the default from 0, the file
//! after it, then each variable and flag): a span in the merged table names both the layer and
//! the place in its text, so an error about any value, found while deserializing or validating,
//! points into the file it was written in (line and column) or names the variable or flag.

use std::borrow::Cow;
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::ConfigError;

/// A value of the merged table, with its span.
pub(super) type Value<'a> = Spanned<DeValue<'a>>;

/// What a layer is, which decides how its errors read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A TOML file: errors have a line and column.
    File,
    /// An environment variable or a flag: errors name it.
    Named,
}

#[derive(Debug)]
struct Layer<'a> {
    name: String,
    text: &'a str,
    base: usize,
    kind: Kind,
}

/// The texts behind a merged table's spans.
#[derive(Debug, Default)]
pub(super) struct Sources<'a> {
    layers: Vec<Layer<'a>>,
}

impl<'a> Sources<'a> {
    fn add(&mut self, name: &str, text: &'a str, kind: Kind) -> usize {
        let base = self.layers.last().map_or(0, |l| l.base + l.text.len() + 1);
        self.layers.push(Layer {
            name: name.to_string(),
            text,
            base,
            kind,
        });
        base
    }

    /// Parses a TOML file as the next layer. Syntax errors and repeated keys point into `text`.
    pub(super) fn file(&mut self, name: &str, text: &'a str) -> Result<DeTable<'a>, ConfigError> {
        let base = self.add(name, text, Kind::File);
        match DeTable::parse(text) {
            Ok(table) => Ok(shift_table(table.into_inner(), base)),
            Err(e) => {
                let at = base + e.span().map_or(0, |s| s.start);
                Err(self.error(at..at, e.message().to_string()))
            }
        }
    }

    /// Adds a value named by an environment variable or a flag (`name`) as the next layer;
    /// `value`'s spans are relative to `text`.
    pub(super) fn named(&mut self, name: &str, text: &'a str, value: Value<'a>) -> Value<'a> {
        let base = self.add(name, text, Kind::Named);
        shift(value, base)
    }

    /// A string given by a flag, as the next layer.
    pub(super) fn flag(&mut self, flag: &str, text: &'a str) -> Value<'a> {
        let value = Spanned::new(0..text.len(), DeValue::String(Cow::Borrowed(text)));
        self.named(flag, text, value)
    }

    /// The error `message` about the value at `span`: in a file, its line and column; from a
    /// variable or flag, its name.
    pub(super) fn error(&self, span: Range<usize>, message: String) -> ConfigError {
        let Some(layer) = self.layers.iter().rev().find(|l| l.base <= span.start) else {
            return ConfigError {
                source: "configuration".to_string(),
                line: None,
                column: None,
                message,
            };
        };
        let (line, column) = match layer.kind {
            Kind::File => {
                let mut at = (span.start - layer.base).min(layer.text.len());
                while !layer.text.is_char_boundary(at) {
                    at -= 1;
                }
                let before = &layer.text[..at];
                let start = before.rfind('\n').map_or(0, |i| i + 1);
                (
                    Some(before.matches('\n').count() + 1),
                    Some(before[start..].chars().count() + 1),
                )
            }
            Kind::Named => (None, None),
        };
        ConfigError {
            source: layer.name.clone(),
            line,
            column,
            message,
        }
    }

    /// [`Sources::error`] about the value of `key` (`section.key`): a file's message starts
    /// with the key; a variable's or flag's name says it already.
    pub(super) fn about(&self, key: &str, span: Range<usize>, message: String) -> ConfigError {
        let mut e = self.error(span, message);
        if e.line.is_some() {
            e.message = format!("{key}: {}", e.message);
        }
        e
    }
}

/// Lays `top` over `base`: tables merge key by key, any other value replaces the one below.
/// A table may not be replaced by another kind of value (`limits = 1`).
pub(super) fn overlay<'a>(
    base: &mut DeTable<'a>,
    top: DeTable<'a>,
    sources: &Sources<'a>,
) -> Result<(), ConfigError> {
    for (key, value) in top {
        if let Some(below) = base.get_mut(key.get_ref().as_ref())
            && let DeValue::Table(below) = below.get_mut()
        {
            let span = value.span();
            match value.into_inner() {
                DeValue::Table(above) => overlay(below, above, sources)?,
                other => {
                    let message = format!("{}: expected a table, found {}", key, other.type_str());
                    return Err(sources.error(span, message));
                }
            }
            continue;
        }
        base.remove(key.get_ref().as_ref());
        base.insert(key, value);
    }
    Ok(())
}

/// Sets `section.key` to `value`. Variables and flags name known keys only, of sections that
/// are tables (a file cannot make them anything else: see [`overlay`]).
pub(super) fn set<'a>(table: &mut DeTable<'a>, section: &str, key: &str, value: Value<'a>) {
    if let Some(DeValue::Table(section)) = table.get_mut(section).map(Spanned::get_mut) {
        section.remove(key);
        section.insert(
            Spanned::new(value.span(), Cow::Owned(key.to_string())),
            value,
        );
    }
}

fn shift(value: Value<'_>, base: usize) -> Value<'_> {
    let span = value.span();
    let inner = match value.into_inner() {
        DeValue::Array(mut items) => {
            for item in items.iter_mut() {
                let old = std::mem::replace(item, Spanned::new(0..0, DeValue::Boolean(false)));
                *item = shift(old, base);
            }
            DeValue::Array(items)
        }
        DeValue::Table(table) => DeValue::Table(shift_table(table, base)),
        other => other,
    };
    Spanned::new(span.start + base..span.end + base, inner)
}

fn shift_table(table: DeTable<'_>, base: usize) -> DeTable<'_> {
    table
        .into_iter()
        .map(|(k, v)| {
            let span = k.span();
            let k = Spanned::new(span.start + base..span.end + base, k.into_inner());
            (k, shift(v, base))
        })
        .collect()
}
