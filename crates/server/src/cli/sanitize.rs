//! `utf8gate sanitize`: one input's sanitized bytes on stdout.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use utf8gate_policy::Decision;

use super::input::{self, Input, Reading};
use super::setup::{
    EXIT_NO_INPUT, EXIT_USAGE, ProfileArgs, config_and_profile, content_type_for, exit_for,
};

/// Flags of `sanitize`.
#[derive(Debug, Args)]
pub struct SanitizeArgs {
    /// Profile, configuration and content type.
    #[command(flatten)]
    pub profile: ProfileArgs,
    /// One file, or - for standard input; at most `limits.max_body_bytes` (a larger input
    /// cannot be rewritten: exit 64).
    pub input: String,
}

/// `utf8gate sanitize`.
pub fn sanitize(args: &SanitizeArgs) -> ExitCode {
    let (config, profile) = match config_and_profile(&args.profile) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let name = &args.input;
    let content_type = content_type_for(name, args.profile.content_type.as_deref());
    let how = Reading {
        profile: &profile,
        max_body: config.max_body_bytes,
        max_scan: config.max_scan_bytes,
        max_archive: config.max_archive_bytes,
        skip_binary: false,
    };
    let scanned = match input::evaluate(name, &content_type, &how) {
        Ok(Input::Scanned(s)) => s,
        Ok(Input::Binary) => return ExitCode::from(EXIT_USAGE),
        Err(e) => {
            eprintln!("utf8gate: {name}: {e}");
            return ExitCode::from(EXIT_NO_INPUT);
        }
    };
    let verdict = &scanned.verdict;
    let code = exit_for(verdict.decision);
    if verdict.decision == Decision::Reject && verdict.enforced {
        eprintln!("utf8gate: {name}: rejected: {}", verdict.kinds().join(", "));
        return ExitCode::from(code);
    }
    let Some(original) = scanned.body else {
        eprintln!("utf8gate: {name}: larger than max_body_bytes; cannot rewrite a streamed input");
        return ExitCode::from(EXIT_USAGE);
    };
    let out = scanned.sanitized.map_or(original, |r| Vec::from(r.body));
    let _ = std::io::stdout().lock().write_all(&out);
    ExitCode::from(code)
}
