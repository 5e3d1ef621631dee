//! `pi-gortex`: the command-line face of the runtime, for users and tests.
//!
//! - `pi-gortex doctor [--format text|json] [--cwd DIR]` tells what is wrong with a setup
//!   (`--json` is `--format json`).
//! - `pi-gortex diff <before> <after> [--path NAME]` prints one `EditDetails`.
//!
//! Exit codes, as for `pi-gortex-codegen`: 0 fine, 1 a finding (an unhealthy setup), 2 a usage
//! error or an input that cannot be read.
//!
//! Printing happens here only: the library never writes to stdout or stderr,
//! because inside Pi those streams belong to the TUI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "pi-gortex",
    version,
    about = "Diagnostics and debugging tools of the pi-gortex bridge"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Diagnose the Gortex setup Pi would see from a directory.
    Doctor {
        /// Output format; `json` prints a machine-readable `DoctorReport`.
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// Same as `--format json`.
        #[arg(long)]
        json: bool,
        /// Directory to diagnose (default: the current directory).
        #[arg(long)]
        cwd: Option<PathBuf>,
    },
    /// Print the `EditDetails` of one change, exactly as the extension stores it.
    Diff {
        /// The file before the change.
        before: PathBuf,
        /// The file after the change.
        after: PathBuf,
        /// Display path used in the patch headers (default: the `after` path).
        #[arg(long)]
        path: Option<String>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Doctor { format, json, cwd } => {
            let json = json || format == Some(Format::Json);
            let mut inputs = pi_gortex_runtime::config::ConfigInputs::from_process();
            if let Some(cwd) = cwd {
                inputs.cwd = inputs.cwd.join(cwd);
            }
            if !inputs.cwd.is_dir() {
                eprintln!(
                    "pi-gortex doctor: {} is not a directory",
                    inputs.cwd.display()
                );
                return ExitCode::from(2);
            }
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(error) => {
                    eprintln!("pi-gortex doctor: cannot start the async runtime: {error}");
                    return ExitCode::from(2);
                }
            };
            let report = runtime.block_on(pi_gortex_runtime::doctor::diagnose(&inputs));
            if json {
                match serde_json::to_string_pretty(&report) {
                    Ok(text) => println!("{text}"),
                    Err(error) => {
                        eprintln!("pi-gortex doctor: cannot serialize the report: {error}");
                        return ExitCode::from(2);
                    }
                }
            } else {
                print!("{}", pi_gortex_runtime::doctor::render_text(&report));
            }
            ExitCode::from(pi_gortex_runtime::doctor::exit_code(&report))
        }
        Command::Diff {
            before,
            after,
            path,
        } => match pi_gortex_runtime::diff::cli::run(&before, &after, path.as_deref()) {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            // Missing or non-file inputs are the caller's mistake: a usage error, like clap's.
            Err(error) => {
                eprintln!("pi-gortex diff: {error}");
                ExitCode::from(2)
            }
        },
    }
}
