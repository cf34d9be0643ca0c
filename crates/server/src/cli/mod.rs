//! The command line: `serve`, `demo`, `scan`, `sanitize`, `check-config`.
//!
//! One file per command that reads inputs (`scan`, `sanitize`), the human and JSON renderings
//! of a verdict in `report`, what every command sets up (exit codes, configuration, profile)
//! in `setup`; this file holds the commands and their arguments.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::ops::config::Overrides;
use crate::tls::LiveTls;

pub mod demo;
mod input;
pub mod report;
pub mod sanitize;
pub mod scan;
pub mod setup;

pub use sanitize::sanitize;
pub use scan::scan;
pub use setup::{
    EXIT_ALLOW, EXIT_NO_INPUT, EXIT_REJECT, EXIT_SANITIZE, EXIT_UNAVAILABLE, EXIT_USAGE,
    ProfileArgs, environment, load_config,
};

const EXIT_CODES: &str = "\
Exit codes:
  0   every input allowed (binary inputs skipped count as allowed)
  1   some input would be sanitized, none rejected
  2   some input rejected
  64  usage or configuration error, or TLS files that do not load (nothing was scanned)
  66  some input could not be read (the others were still scanned and reported)
  69  a listener's socket cannot be bound (serve, demo)
scan exits with the worst status of its inputs: 66 > 2 > 1 > 0.";

/// utf8gate lets through only text that is exactly what it claims to be: strict UTF-8
/// (RFC 3629), free of encoding tricks, in NFC.
#[derive(Debug, Parser)]
#[command(name = "utf8gate", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gateway: proxy (with --upstream), API and admin listeners.
    #[command(after_help = EXIT_CODES)]
    Serve(ServeArgs),
    /// Run the gateway in front of a built-in echo upstream on a free loopback port, and print
    /// curl lines to try it (same as `serve --demo`).
    #[command(after_help = EXIT_CODES)]
    Demo(DemoArgs),
    /// Scan files (or standard input) and report one verdict per input; exit with the worst
    /// status (see below).
    #[command(after_help = EXIT_CODES)]
    Scan(scan::ScanArgs),
    /// Write the sanitized input to stdout (nothing when rejected); exit 0 allowed, 1
    /// sanitized, 2 rejected.
    #[command(after_help = EXIT_CODES)]
    Sanitize(sanitize::SanitizeArgs),
    /// Check a configuration file and exit: 0 valid, 64 invalid (with file and line), 66
    /// unreadable.
    CheckConfig {
        /// The file.
        file: PathBuf,
    },
}

/// The flags `serve` and `demo` share: the configuration file, listener addresses, profile.
#[derive(Debug, Args, Default)]
pub struct ListenArgs {
    /// Configuration file (default: the embedded default).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Proxy listener address (host:port).
    #[arg(long)]
    pub proxy_addr: Option<String>,
    /// API listener address (host:port).
    #[arg(long)]
    pub api_addr: Option<String>,
    /// Admin listener address (host:port).
    #[arg(long)]
    pub admin_addr: Option<String>,
    /// Default profile.
    #[arg(long)]
    pub profile: Option<String>,
}

/// Flags of `serve`.
#[derive(Debug, Args, Default)]
pub struct ServeArgs {
    /// Configuration, listeners, profile.
    #[command(flatten)]
    pub listen: ListenArgs,
    /// The application behind the proxy, http://host:port.
    #[arg(long)]
    pub upstream: Option<String>,
    /// Serve in front of a built-in echo upstream (instead of --upstream).
    #[arg(long, conflicts_with = "upstream")]
    pub demo: bool,
}

/// Flags of `demo`: those of `serve` but the upstream, which is the built-in echo.
#[derive(Debug, Args, Default)]
pub struct DemoArgs {
    /// Configuration, listeners, profile.
    #[command(flatten)]
    pub listen: ListenArgs,
}

impl From<DemoArgs> for ServeArgs {
    fn from(d: DemoArgs) -> ServeArgs {
        ServeArgs {
            listen: d.listen,
            upstream: None,
            demo: true,
        }
    }
}

/// `utf8gate check-config FILE`: 0 valid, 64 invalid (the TLS files it names that do not load
/// too), 66 unreadable.
pub fn check_config(file: &PathBuf) -> ExitCode {
    match load_config(Some(file), &Overrides::default()) {
        Ok(c) => {
            let listeners = match c.tls.listeners.any() {
                true => LiveTls::prepare(&c.tls).map(|_| ()),
                false => Ok(()),
            };
            let tls = listeners.and(crate::tls::client::upstream_loads(&c).map(|_| ()));
            if let Err(why) = tls {
                eprintln!("{}: TLS: {why}", file.display());
                return ExitCode::from(EXIT_USAGE);
            }
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
