//! What every command sets up: the exit codes, the configuration (file, environment, flags)
//! and the profile, and how an input's content type is chosen. A leaf of `cli`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use utf8gate_policy::{Decision, Profile};

use crate::ops::config::{Config, ConfigError, Overrides};

/// Exit code of an allowed input (and of a command that succeeded).
pub const EXIT_ALLOW: u8 = 0;
/// Exit code of an input the profile would sanitize.
pub const EXIT_SANITIZE: u8 = 1;
/// Exit code of a rejected input.
pub const EXIT_REJECT: u8 = 2;
/// Exit code for usage and configuration errors (sysexits EX_USAGE).
pub const EXIT_USAGE: u8 = 64;
/// Exit code for unreadable input (EX_NOINPUT).
pub const EXIT_NO_INPUT: u8 = 66;
/// Exit code for a socket that cannot be bound (EX_UNAVAILABLE).
pub const EXIT_UNAVAILABLE: u8 = 69;

/// Flags of `scan` and `sanitize` that choose the profile and how inputs are read.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// Profile (strict, windows-backend, lossy, monitor, or one from the configuration).
    #[arg(long)]
    pub profile: Option<String>,
    /// Configuration file.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Content type of the inputs, as /v1/scan reads a request's Content-Type (default: from
    /// the file name: .json, .html, .xml, .csv; text/plain otherwise).
    #[arg(long)]
    pub content_type: Option<String>,
}

/// The `UTF8GATE_*` variables of the process environment, the only way it enters the
/// configuration ([`Config::load`] reads them). A name or value that is not UTF-8 is an error
/// naming the variable.
pub fn environment() -> Result<Vec<(String, String)>, ConfigError> {
    let mut vars = Vec::new();
    for (name, value) in std::env::vars_os() {
        let lossy = name.to_string_lossy();
        if !lossy.starts_with("UTF8GATE_") {
            continue;
        }
        match (name.to_str(), value.into_string()) {
            (Some(name), Ok(value)) => vars.push((name.to_string(), value)),
            _ => {
                return Err(ConfigError {
                    source: lossy.into_owned(),
                    line: None,
                    column: None,
                    message: "not UTF-8".to_string(),
                });
            }
        }
    }
    Ok(vars)
}

/// Loads the configuration for a command (`file` over the embedded default, then the
/// environment, then `overrides`), reporting errors on stderr: 66 when the file cannot be
/// read (as an unreadable input of `scan`), 64 when it is invalid.
pub fn load_config(file: Option<&PathBuf>, overrides: &Overrides) -> Result<Config, ExitCode> {
    let (text, source) = match file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(t) => (t, path.display().to_string()),
            Err(e) => {
                eprintln!("utf8gate: {}: {e}", path.display());
                return Err(ExitCode::from(EXIT_NO_INPUT));
            }
        },
        None => (
            crate::ops::config::DEFAULT_TOML.to_string(),
            "embedded default".to_string(),
        ),
    };
    environment()
        .and_then(|env| {
            Config::load(&text, &source, &env, overrides, &|p| {
                std::fs::read_to_string(p).ok()
            })
        })
        .map_err(|e| {
            eprintln!("utf8gate: configuration error: {e}");
            ExitCode::from(EXIT_USAGE)
        })
}

/// The configuration and the profile a file command asked for; an unknown profile is a
/// usage error that lists the known ones.
pub(super) fn config_and_profile(args: &ProfileArgs) -> Result<(Config, Profile), ExitCode> {
    let config = load_config(args.config.as_ref(), &Overrides::default())?;
    let name = args.profile.as_deref().unwrap_or(&config.profile);
    match config.profiles.get(name).cloned() {
        Some(profile) => Ok((config, profile)),
        None => {
            let known: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
            eprintln!(
                "utf8gate: unknown profile {name:?} (known: {})",
                known.join(", ")
            );
            Err(ExitCode::from(EXIT_USAGE))
        }
    }
}

/// The content type an input is read as: the flag's, else one from its file name, else
/// `text/plain`.
pub(super) fn content_type_for(name: &str, flag: Option<&str>) -> String {
    flag.or_else(|| named_type(name))
        .unwrap_or("text/plain")
        .to_string()
}

/// The media type a file name's extension names, if any.
pub(super) fn named_type(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let by_ext = [
        (".json", "application/json"),
        (".html", "text/html"),
        (".xml", "application/xml"),
        (".csv", "text/csv"),
        (".png", "image/png"),
        (".jpg", "image/jpeg"),
        (".jpeg", "image/jpeg"),
        (".gif", "image/gif"),
        (".webp", "image/webp"),
        (".pdf", "application/pdf"),
        (".zip", "application/zip"),
        (".tar", "application/x-tar"),
        (".tar.gz", "application/gzip"),
        (".tgz", "application/gzip"),
        (".gz", "application/gzip"),
    ];
    by_ext
        .iter()
        .find(|(e, _)| lower.ends_with(e))
        .map(|(_, t)| *t)
}

/// The exit code of a decision.
pub(super) fn exit_for(decision: Decision) -> u8 {
    match decision {
        Decision::Allow => EXIT_ALLOW,
        Decision::Sanitize => EXIT_SANITIZE,
        Decision::Reject => EXIT_REJECT,
    }
}
