//! Configuration: the embedded default, a file, `UTF8GATE_*` environment variables, flags;
//! and where a running server's came from ([`Source`]), read again by a reload.
//!
//! The layers are merged into one TOML table, each over the one below (`config::layers`):
//! the embedded default has every key, so a file, variable or flag sets only what it changes.
//! The table is deserialized (unknown keys refused, unit-suffixed names) and validated into
//! durations and limits before any socket is bound. Every error names its source: a file's
//! line and column, or the environment variable or flag.

use std::path::PathBuf;

use raw::Raw;

mod caps;
mod cidr;
mod env;
mod error;
mod layers;
mod raw;
mod routes;
mod size;
mod tls;
mod validate;
mod values;
mod websocket;

pub use cidr::Cidr;
pub use error::ConfigError;
pub use tls::{ClientAuth, Pair, Tls, TlsListeners, UpstreamTls};
pub use values::{Config, Http2, LogFormat, upstream_authority, upstream_is_https};
pub use websocket::{ServerText, WebSocket};

/// The embedded default configuration (`config/utf8gate.toml`).
pub const DEFAULT_TOML: &str = include_str!("../../../../config/utf8gate.toml");

/// Command-line values that override the configuration.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--upstream`.
    pub upstream: Option<String>,
    /// `--proxy-addr`.
    pub proxy_addr: Option<String>,
    /// `--api-addr`.
    pub api_addr: Option<String>,
    /// `--admin-addr`.
    pub admin_addr: Option<String>,
    /// `--profile`.
    pub profile: Option<String>,
}

impl Config {
    /// The embedded default.
    pub fn default_config() -> Config {
        Config::load(
            DEFAULT_TOML,
            "embedded default",
            &[],
            &Overrides::default(),
            &|_| None,
        )
        .unwrap_or_else(|e| panic!("the embedded default configuration is invalid: {e}"))
    }

    /// Builds the configuration from the TOML text of a file (`source` names it in errors),
    /// laid over the embedded default ([`DEFAULT_TOML`]), then `UTF8GATE_*` environment
    /// variables (name and value pairs), then flags. `read_file` reads profile files (the only
    /// I/O, passed in so tests need no files).
    pub fn load(
        text: &str,
        source: &str,
        env: &[(String, String)],
        overrides: &Overrides,
        read_file: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let mut sources = layers::Sources::default();
        let mut table = sources.file("embedded default", DEFAULT_TOML)?;
        let defaults = table.clone();
        let file = sources.file(source, text)?;
        layers::overlay(&mut table, file, &sources)?;
        for (name, raw) in env {
            let (section, key, value) =
                env::read(&defaults, name, raw).map_err(|message| ConfigError {
                    source: name.clone(),
                    line: None,
                    column: None,
                    message,
                })?;
            let value = sources.named(name, raw, value);
            layers::set(&mut table, &section, &key, value);
        }
        for (flag, section, key, value) in overrides.flags() {
            if let Some(value) = value {
                let value = sources.flag(flag, value);
                layers::set(&mut table, section, key, value);
            }
        }
        let raw = Raw::from_table(table)
            .map_err(|e| sources.error(e.span().unwrap_or(0..0), e.message().to_string()))?;
        validate::validate(raw, &sources, read_file)
    }
}

impl Overrides {
    /// Each flag with the key it sets and its value, if given.
    fn flags(&self) -> [(&'static str, &'static str, &'static str, Option<&str>); 5] {
        [
            (
                "--proxy-addr",
                "listen",
                "proxy_addr",
                self.proxy_addr.as_deref(),
            ),
            ("--api-addr", "listen", "api_addr", self.api_addr.as_deref()),
            (
                "--admin-addr",
                "listen",
                "admin_addr",
                self.admin_addr.as_deref(),
            ),
            ("--upstream", "upstream", "url", self.upstream.as_deref()),
            ("--profile", "policy", "profile", self.profile.as_deref()),
        ]
    }
}

/// The file (or the embedded default), the flags and what the demo sets, as `serve` and
/// `demo` were started with.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// `--config`; `None`: the embedded default.
    pub file: Option<PathBuf>,
    /// The flags that override the configuration.
    pub overrides: Overrides,
    /// The demo's echo upstream (`http://127.0.0.1:PORT`), which the demo sets over the
    /// configuration, with the explain page on.
    pub demo_upstream: Option<String>,
}

impl Source {
    /// Reads and validates the configuration: the file now, laid over the embedded default,
    /// under the environment variables `env` and the flags; the same validation as start-up.
    /// A file that cannot be read is an error naming it, without a line.
    pub fn read(&self, env: &[(String, String)]) -> Result<Config, ConfigError> {
        let (text, name) = match &self.file {
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => (text, path.display().to_string()),
                Err(e) => {
                    return Err(ConfigError {
                        source: path.display().to_string(),
                        line: None,
                        column: None,
                        message: format!("cannot read it: {e}"),
                    });
                }
            },
            None => (DEFAULT_TOML.to_string(), "embedded default".to_string()),
        };
        let read_file = |p: &str| std::fs::read_to_string(p).ok();
        let mut config = Config::load(&text, &name, env, &self.overrides, &read_file)?;
        self.pin(&mut config);
        Ok(config)
    }

    /// What the demo sets over the configuration it loaded (at start-up and on reload alike).
    pub fn pin(&self, config: &mut Config) {
        if let Some(url) = &self.demo_upstream {
            config.upstream = Some(url.clone());
            config.explain = true;
        }
    }

    /// The name of the configuration's file, for messages.
    pub fn name(&self) -> String {
        match &self.file {
            Some(path) => path.display().to_string(),
            None => "embedded default".to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
