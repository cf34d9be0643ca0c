//! `utf8gate scan`: every input read and reported, even after one that cannot be read; the
//! exit status is the worst of them (66 unreadable > 2 reject > 1 sanitize > 0 allow).
//!
//! Why an unreadable input outranks a rejected one: a script's `utf8gate scan *.txt || ...`
//! fails either way, but one that tells the cases apart (`case $?`) must not read "2, some
//! file is bad" as "every file was checked": 66 says the answer is incomplete, as grep's and
//! ripgrep's 2 for an error outranks their 0 for a match. Every input is still scanned and
//! reported, so the rejects are in the output whatever the status.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;

use super::input::{self, Input, Reading};
use super::report::{self, Format};
use super::setup::{
    EXIT_NO_INPUT, ProfileArgs, config_and_profile, content_type_for, exit_for, named_type,
};

/// Flags of `scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Profile, configuration and content type.
    #[command(flatten)]
    pub profile: ProfileArgs,
    /// Output format: human (`file:line:col: kind: message [bytes]`, the default on a
    /// terminal) or json (one verdict per line, the default otherwise).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Print nothing on stdout (and no notes on stderr); only the exit status and errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// Read binary inputs as text: those that look binary (a NUL in the first 8 KiB) instead
    /// of skipping them, and those of a binary type (`.png`, `--content-type image/png`)
    /// instead of reporting them not text (the profile's `scan_binary`).
    #[arg(long)]
    pub binary: bool,
    /// Files, or - for standard input.
    #[arg(required = true)]
    pub inputs: Vec<String>,
}

/// `utf8gate scan`.
pub fn scan(args: &ScanArgs) -> ExitCode {
    let (config, mut profile) = match config_and_profile(&args.profile) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
        Format::Human
    } else {
        Format::Json
    });
    profile.scan_binary |= args.binary;
    let how = Reading {
        profile: &profile,
        max_body: config.max_body_bytes,
        max_scan: config.max_scan_bytes,
        max_archive: config.max_archive_bytes,
        skip_binary: !args.binary && args.profile.content_type.is_none(),
    };
    let mut worst = 0;
    let mut stdout = std::io::stdout().lock();
    for name in &args.inputs {
        let content_type = content_type_for(name, args.profile.content_type.as_deref());
        // An input of a known type is read as `/v1/scan` reads it (a binary type is not text);
        // one of no known type is skipped when it looks binary.
        let how = Reading {
            skip_binary: how.skip_binary && named_type(name).is_none(),
            ..how
        };
        let scanned = match input::evaluate(name, &content_type, &how) {
            Ok(Input::Scanned(s)) => s,
            Ok(Input::Binary) => {
                if !args.quiet {
                    eprintln!(
                        "utf8gate: {name}: skipped: binary (a binary signature, or a binary \
                         data byte in the first 1445 bytes); --binary to scan it as text"
                    );
                }
                continue;
            }
            Err(e) => {
                eprintln!("utf8gate: {name}: {e}");
                worst = EXIT_NO_INPUT;
                continue;
            }
        };
        let verdict = &scanned.verdict;
        if worst != EXIT_NO_INPUT {
            worst = worst.max(exit_for(verdict.decision));
        }
        if args.quiet {
            continue;
        }
        let written = match format {
            Format::Json => report::json_line(&mut stdout, name, verdict),
            Format::Human => {
                let positions = match (&scanned.body, name.as_str()) {
                    (Some(body), _) => report::positions(&body[..], &verdict.findings),
                    // A streamed file is read again for its lines; standard input cannot be.
                    (None, "-") => Ok(Vec::new()),
                    (None, path) => std::fs::File::open(path)
                        .and_then(|f| report::positions(f, &verdict.findings)),
                };
                report::human(&mut stdout, name, verdict, &positions.unwrap_or_default())
            }
        };
        if let Err(e) = written.and_then(|()| stdout.flush()) {
            // A closed pipe (`| head`): stop quietly, with the status so far.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("utf8gate: stdout: {e}");
            }
            return ExitCode::from(worst);
        }
    }
    ExitCode::from(worst)
}
