//! `utf8gate`: see `utf8gate --help`.

use std::process::ExitCode;

use clap::Parser;
use utf8gate_server::cli::{self, Cli, Command};

fn main() -> ExitCode {
    // Before any other thread exists: the memory budget holds only with few malloc arenas.
    utf8gate_server::budget::arenas::cap();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { cli::EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Scan(args) => cli::scan(&args),
        Command::Sanitize(args) => cli::sanitize(&args),
        Command::CheckConfig { file } => cli::check_config(&file),
        Command::Serve(args) => runtime(args, false),
        Command::Demo(args) => runtime(args.into(), true),
    }
}

fn runtime(args: cli::ServeArgs, demo: bool) -> ExitCode {
    let demo = demo || args.demo;
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(utf8gate_server::serve_command(args, demo)),
        Err(e) => {
            eprintln!("utf8gate: cannot start the runtime: {e}");
            ExitCode::from(cli::EXIT_UNAVAILABLE)
        }
    }
}
