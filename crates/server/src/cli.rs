//! The command line: `serve`, `demo`, `scan`, `sanitize`, `check-config`.
//!
//! Exit codes: 0 allow, 1 sanitize, 2 reject (scan, sanitize); 64 usage or configuration
//! error; 66 an input cannot be read; 69 a socket cannot be bound.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use utf8gate_policy::{BodyScan, Decision, Mode, Profile, Request};

use crate::config::{Config, ConfigError, Overrides};

/// Exit code for usage and configuration errors (sysexits EX_USAGE).
pub const EXIT_USAGE: u8 = 64;
/// Exit code for unreadable input (EX_NOINPUT).
pub const EXIT_NO_INPUT: u8 = 66;
/// Exit code for a socket that cannot be bound (EX_UNAVAILABLE).
pub const EXIT_UNAVAILABLE: u8 = 69;

/// utf8gate lets through only text that is exactly what it claims to be: strict UTF-8
/// (RFC 3629), free of encoding tricks, in NFC.
#[derive(Debug, Parser)]
#[command(name = "utf8gate", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gateway: proxy (with --upstream), API and admin listeners.
    Serve(ServeArgs),
    /// Run the gateway in front of a built-in echo upstream (same as `serve --demo`).
    Demo(ServeArgs),
    /// Print one verdict per input as JSON Lines; exit 0 allow, 1 sanitize, 2 reject.
    Scan(FileArgs),
    /// Write the sanitized input to stdout (nothing when rejected); same exit codes.
    Sanitize(FileArgs),
    /// Check a configuration file and exit (0 valid, 64 invalid).
    CheckConfig {
        /// The file.
        file: PathBuf,
    },
}

/// Flags of `serve`.
#[derive(Debug, Args, Default)]
pub struct ServeArgs {
    /// Configuration file (default: the embedded default).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The application behind the proxy, http://host:port.
    #[arg(long)]
    pub upstream: Option<String>,
    /// Proxy listener address.
    #[arg(long)]
    pub proxy_addr: Option<String>,
    /// API listener address.
    #[arg(long)]
    pub api_addr: Option<String>,
    /// Admin listener address.
    #[arg(long)]
    pub admin_addr: Option<String>,
    /// Default profile.
    #[arg(long)]
    pub profile: Option<String>,
    /// Serve in front of a built-in echo upstream.
    #[arg(long)]
    pub demo: bool,
}

/// Flags of `scan` and `sanitize`.
#[derive(Debug, Args)]
pub struct FileArgs {
    /// Profile (strict, windows-backend, lossy, monitor, or one from the configuration).
    #[arg(long)]
    pub profile: Option<String>,
    /// Configuration file.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Content type of the inputs (default: from the file name; text/plain otherwise).
    #[arg(long)]
    pub content_type: Option<String>,
    /// Files, or - for standard input.
    #[arg(required = true)]
    pub inputs: Vec<String>,
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
/// environment, then `overrides`), reporting errors on stderr.
pub fn load_config(file: Option<&PathBuf>, overrides: &Overrides) -> Result<Config, ExitCode> {
    let (text, source) = match file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(t) => (t, path.display().to_string()),
            Err(e) => {
                eprintln!("utf8gate: {}: {e}", path.display());
                return Err(ExitCode::from(EXIT_USAGE));
            }
        },
        None => (
            crate::config::DEFAULT_TOML.to_string(),
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

fn content_type_for(name: &str, flag: Option<&str>) -> String {
    if let Some(t) = flag {
        return t.to_string();
    }
    let lower = name.to_ascii_lowercase();
    let by_ext = [
        (".json", "application/json"),
        (".html", "text/html"),
        (".xml", "application/xml"),
        (".csv", "text/csv"),
    ];
    by_ext
        .iter()
        .find(|(e, _)| lower.ends_with(e))
        .map_or("text/plain", |(_, t)| t)
        .to_string()
}

fn open(name: &str) -> std::io::Result<Box<dyn Read>> {
    if name == "-" {
        Ok(Box::new(std::io::stdin().lock()))
    } else {
        Ok(Box::new(std::fs::File::open(name)?))
    }
}

fn exit_for(decision: Decision) -> u8 {
    match decision {
        Decision::Allow => 0,
        Decision::Sanitize => 1,
        Decision::Reject => 2,
    }
}

/// Reads an input: whole if it fits `max_body_bytes` (every check), else streamed through the
/// codec checks in bounded memory. Returns the verdict and, when buffered, the evaluation.
fn evaluate_input(
    name: &str,
    profile: &Profile,
    content_type: &str,
    max_body: usize,
) -> std::io::Result<(utf8gate_policy::Verdict, Option<Request>, Vec<u8>)> {
    let mut reader = open(name)?;
    let mut buffer = Vec::new();
    let mut scan = BodyScan::new(profile);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut buffering = true;
    loop {
        let n = reader.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        scan.feed(&chunk[..n]);
        if buffering {
            if buffer.len() + n <= max_body {
                buffer.extend_from_slice(&chunk[..n]);
            } else {
                buffering = false;
                buffer = Vec::new();
            }
        }
    }
    if !buffering {
        return Ok((scan.finish(), None, Vec::new()));
    }
    let request = Request::new("POST", b"/")
        .mode(Mode::Scan)
        .header("content-type", content_type.as_bytes())
        .body(&buffer);
    let e = utf8gate_policy::evaluate_upload(profile, &request);
    Ok((e.verdict, e.sanitized, buffer))
}

/// The configuration and the profile a file command asked for.
fn config_and_profile(args: &FileArgs) -> Result<(Config, Profile), ExitCode> {
    let config = load_config(args.config.as_ref(), &Overrides::default())?;
    let name = args.profile.as_deref().unwrap_or(&config.profile);
    match config.profiles.get(name).cloned() {
        Some(profile) => Ok((config, profile)),
        None => {
            eprintln!("utf8gate: unknown profile {name:?}");
            Err(ExitCode::from(EXIT_USAGE))
        }
    }
}

/// `utf8gate scan`.
pub fn scan(args: &FileArgs) -> ExitCode {
    let (config, profile) = match config_and_profile(args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let profile = &profile;
    let mut worst = 0;
    let mut stdout = std::io::stdout().lock();
    for name in &args.inputs {
        let content_type = content_type_for(name, args.content_type.as_deref());
        match evaluate_input(name, profile, &content_type, config.max_body_bytes) {
            Ok((verdict, _, _)) => {
                worst = worst.max(exit_for(verdict.decision));
                let mut line = serde_json::to_value(&verdict).unwrap_or_default();
                if let Some(obj) = line.as_object_mut() {
                    obj.insert("input".into(), name.clone().into());
                }
                let _ = writeln!(stdout, "{line}");
            }
            Err(e) => {
                eprintln!("utf8gate: {name}: {e}");
                return ExitCode::from(EXIT_NO_INPUT);
            }
        }
    }
    ExitCode::from(worst)
}

/// `utf8gate sanitize`.
pub fn sanitize(args: &FileArgs) -> ExitCode {
    if args.inputs.len() != 1 {
        eprintln!("utf8gate: sanitize takes exactly one input");
        return ExitCode::from(EXIT_USAGE);
    }
    let (config, profile) = match config_and_profile(args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let profile = &profile;
    let name = &args.inputs[0];
    let content_type = content_type_for(name, args.content_type.as_deref());
    match evaluate_input(name, profile, &content_type, config.max_body_bytes) {
        Ok((verdict, sanitized, original)) => {
            let code = exit_for(verdict.decision);
            if verdict.decision == Decision::Reject && verdict.enforced {
                eprintln!("utf8gate: {name}: rejected: {}", verdict.kinds().join(", "));
                return ExitCode::from(code);
            }
            if verdict.bytes_inspected > 0
                && original.is_empty()
                && sanitized.is_none()
                && verdict
                    .bytes_by_location
                    .get("body")
                    .is_some_and(|b| *b as usize > config.max_body_bytes)
            {
                eprintln!(
                    "utf8gate: {name}: larger than max_body_bytes; cannot rewrite a streamed input"
                );
                return ExitCode::from(EXIT_USAGE);
            }
            let out = sanitized.map_or(original, |r| r.body);
            let _ = std::io::stdout().lock().write_all(&out);
            ExitCode::from(code)
        }
        Err(e) => {
            eprintln!("utf8gate: {name}: {e}");
            ExitCode::from(EXIT_NO_INPUT)
        }
    }
}

/// `utf8gate check-config FILE`.
pub fn check_config(file: &PathBuf) -> ExitCode {
    match load_config(Some(file), &Overrides::default()) {
        Ok(c) => {
            println!(
                "{}: ok (profile {}, {} profiles)",
                file.display(),
                c.profile,
                c.profiles.len()
            );
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}
