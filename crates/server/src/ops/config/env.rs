//! `UTF8GATE_<SECTION>_<KEY>` environment variables, the one way the environment sets a key.
//!
//! A variable names a key of the embedded default and its value is read as that key's type
//! there: a string verbatim (`UTF8GATE_UPSTREAM_URL=http://127.0.0.1:3000`), a number or a
//! boolean as TOML writes them, a list as a TOML array of strings
//! (`UTF8GATE_LISTEN_TRUSTED_PROXIES=["10.0.0.0/8"]`). Any other `UTF8GATE_` variable is an
//! error, as is a value that does not read as its key's type; errors name the variable.

use std::borrow::Cow;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::layers::Value;

/// The prefix of the variables read.
pub(super) const PREFIX: &str = "UTF8GATE_";

/// What a variable sets: section, key and value (spans relative to `raw`). `defaults` is the
/// embedded default's table, which has every key with a value of its type. Errors are
/// messages, about the variable.
pub(super) fn read<'a>(
    defaults: &DeTable<'_>,
    name: &str,
    raw: &'a str,
) -> Result<(String, String, Value<'a>), String> {
    let rest = name
        .strip_prefix(PREFIX)
        .ok_or_else(|| format!("not a {PREFIX} variable"))?
        .to_ascii_lowercase();
    let (section, key) = rest
        .split_once('_')
        .ok_or_else(|| format!("expected {PREFIX}<SECTION>_<KEY>"))?;
    let keys = defaults
        .get(section)
        .and_then(|s| s.get_ref().as_table())
        .ok_or_else(|| format!("unknown section {section:?} (known: {})", names(defaults)))?;
    let expected = keys.get(key).ok_or_else(|| {
        format!(
            "unknown key {key:?} of [{section}] (known: {})",
            names(keys)
        )
    })?;
    let parsed = DeValue::parse(raw.trim()).ok();
    let is = |test: fn(&DeValue<'_>) -> bool| parsed.clone().filter(|v| test(v.get_ref()));
    let value = match expected.get_ref() {
        DeValue::String(_) => Some(Spanned::new(
            0..raw.len(),
            DeValue::String(Cow::Borrowed(raw)),
        )),
        // A size may also be a string with a unit (`10MiB`), read as one by validation.
        DeValue::Integer(_) if key.ends_with("_bytes") => is(|v| v.is_integer()).or_else(|| {
            let text = DeValue::String(Cow::Borrowed(raw.trim()));
            Some(Spanned::new(0..raw.len(), text))
        }),
        DeValue::Integer(_) => is(|v| v.is_integer()),
        DeValue::Float(_) => is(|v| v.is_integer() || v.is_float()),
        DeValue::Boolean(_) => is(|v| v.is_bool()),
        DeValue::Array(_) => is(|v| v.is_array()),
        _ => parsed.clone(),
    };
    let value = value.ok_or_else(|| match expected.get_ref() {
        DeValue::Integer(_) => format!("invalid number {raw:?} (expected an integer)"),
        DeValue::Float(_) => format!("invalid number {raw:?}"),
        DeValue::Boolean(_) => format!("invalid boolean {raw:?} (expected true or false)"),
        DeValue::Array(_) => format!(
            "invalid list {raw:?} (expected a TOML array of strings, like [\"10.0.0.0/8\", \"::1\"])"
        ),
        _ => format!("invalid value {raw:?}"),
    })?;
    Ok((section.to_string(), key.to_string(), value))
}

fn names(table: &DeTable<'_>) -> String {
    table
        .keys()
        .map(|k| k.get_ref().as_ref())
        .collect::<Vec<&str>>()
        .join(", ")
}
