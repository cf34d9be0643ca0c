//! `UTF8GATE_<SECTION>_<KEY>` environment overrides, applied to the TOML table before it is
//! deserialized (so they are checked like the file's own keys).

use super::ConfigError;

const SECTIONS: [&str; 6] = ["listen", "upstream", "policy", "limits", "authz", "log"];

/// Sets the key a `UTF8GATE_<SECTION>_<KEY>` variable names in `table`.
pub(super) fn apply(table: &mut toml::Table, name: &str, raw: &str) -> Result<(), ConfigError> {
    let err = |message: String| ConfigError {
        source: format!("environment {name}"),
        line: None,
        message,
    };
    let rest = name
        .strip_prefix("UTF8GATE_")
        .ok_or_else(|| err("not a UTF8GATE_ variable".into()))?
        .to_ascii_lowercase();
    let (section, key) = rest
        .split_once('_')
        .ok_or_else(|| err("expected UTF8GATE_<SECTION>_<KEY>".into()))?;
    if !SECTIONS.contains(&section) {
        return Err(err(format!("unknown section {section:?}")));
    }
    // A TOML value if it parses as one (numbers, booleans, arrays), a string otherwise.
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let section = table
        .entry(section.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    match section {
        toml::Value::Table(t) => {
            t.insert(key.to_string(), value);
            Ok(())
        }
        _ => Err(err("the section is not a table".into())),
    }
}
