//! The `pi-gortex` command line as a library function.
//!
//! - `pi-gortex doctor [--format text|json] [--cwd DIR]` tells what is wrong with a setup
//!   (`--json` is `--format json`).
//! - `pi-gortex diff <before> <after> [--path NAME]` prints one `EditDetails`.
//! - `pi-gortex stats [--days N] [--json]` reports what the graph saved (SAVE-5).
//!
//! Exit codes, as for `pi-gortex-codegen`: 0 fine, 1 a finding (an unhealthy setup), 2 a usage
//! error or an input that cannot be read.
//!
//! Two front ends run it: the Rust binary (`src/bin/pi-gortex.rs`) and the
//! npm package's Node entry (`bin/pi-gortex.mjs`, through the addon). Both
//! print [`CliOutput`] unchanged, so they give the same output and exit codes
//! by construction. Nothing here prints: inside Pi, stdout and stderr belong
//! to the TUI.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

pub use pi_gortex_schema::host::CliOutput;

use crate::config::ConfigInputs;

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
    /// What the graph saved: totals per project and per day, the largest savings, a chart.
    Stats {
        /// The window, in days, ending now.
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=36_500))]
        days: u32,
        /// Print a `StatsReport` as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn output(stdout: String, stderr: String, exit_code: u8) -> CliOutput {
    CliOutput {
        stdout,
        stderr,
        exit_code: u32::from(exit_code),
    }
}

/// Runs one command line (`args[0]` is the program name) with the process's
/// environment and working directory.
pub async fn run<I, T>(args: I) -> CliOutput
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        // --help and --version are "errors" that go to stdout with status 0.
        Err(error) => {
            let text = error.render().to_string();
            let code = u8::try_from(error.exit_code()).unwrap_or(2);
            return if error.use_stderr() {
                output(String::new(), text, code)
            } else {
                output(text, String::new(), code)
            };
        }
    };
    match cli.command {
        Command::Doctor { format, json, cwd } => {
            doctor(json || format == Some(Format::Json), cwd).await
        }
        Command::Diff {
            before,
            after,
            path,
        } => match crate::diff::cli::run(&before, &after, path.as_deref()) {
            Ok(json) => output(format!("{json}\n"), String::new(), 0),
            // Missing or non-file inputs are the caller's mistake: a usage error, like clap's.
            Err(error) => output(String::new(), format!("pi-gortex diff: {error}\n"), 2),
        },
        Command::Stats { days, json } => stats(days, json),
    }
}

/// Reads the stats file under Pi's global agent dir (CFG-3) and reports on it;
/// a file that cannot be read is exit 2, a corrupt line only a count.
fn stats(days: u32, json: bool) -> CliOutput {
    let inputs = ConfigInputs::from_process();
    let agent_dir = crate::config::agent_dir(&inputs.env, &inputs.home);
    let path = crate::stats::file_path(&agent_dir);
    let report = match crate::stats::read_report(&path, days, crate::stats::now_ms()) {
        Ok(report) => report,
        Err(error) => {
            let text = format!("pi-gortex stats: cannot read {}: {error}\n", path.display());
            return output(String::new(), crate::terminal_text::shown(&text), 2);
        }
    };
    if !json {
        let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
        return output(crate::stats::render(&report, tty), String::new(), 0);
    }
    match serde_json::to_string_pretty(&report) {
        Ok(text) => output(format!("{text}\n"), String::new(), 0),
        Err(error) => output(String::new(), format!("pi-gortex stats: {error}\n"), 2),
    }
}

async fn doctor(json: bool, cwd: Option<PathBuf>) -> CliOutput {
    let mut inputs = ConfigInputs::from_process();
    if let Some(cwd) = cwd {
        inputs.cwd = inputs.cwd.join(cwd);
    }
    if !inputs.cwd.is_dir() {
        let text = format!(
            "pi-gortex doctor: {} is not a directory\n",
            inputs.cwd.display()
        );
        return output(String::new(), text, 2);
    }
    let report = crate::doctor::diagnose(&inputs).await;
    let code = crate::doctor::exit_code(&report);
    if !json {
        return output(crate::doctor::render_text(&report), String::new(), code);
    }
    match serde_json::to_string_pretty(&report) {
        Ok(text) => output(format!("{text}\n"), String::new(), code),
        Err(error) => output(
            String::new(),
            format!("pi-gortex doctor: cannot serialize the report: {error}\n"),
            2,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn usage_errors_go_to_stderr_with_status_2() {
        let out = run(["pi-gortex", "frobnicate"]).await;
        assert_eq!(out.exit_code, 2);
        assert!(out.stdout.is_empty());
        assert!(out.stderr.contains("unrecognized subcommand 'frobnicate'"));
    }

    #[tokio::test]
    async fn help_goes_to_stdout_with_status_0() {
        let out = run(["pi-gortex", "--help"]).await;
        assert_eq!(out.exit_code, 0);
        assert!(out.stdout.contains("doctor"), "{}", out.stdout);
        assert!(out.stderr.is_empty());
    }

    #[tokio::test]
    async fn doctor_of_a_missing_directory_is_status_2() {
        let parent = tempfile::tempdir().expect("temp dir");
        let missing = parent.path().join("pi-gortex-dir");
        let out = run([
            "pi-gortex".into(),
            "doctor".into(),
            "--cwd".into(),
            missing.clone().into_os_string(),
        ])
        .await;
        assert_eq!(out.exit_code, 2);
        assert_eq!(
            out.stderr,
            format!(
                "pi-gortex doctor: {} is not a directory\n",
                missing.display()
            )
        );
    }

    #[tokio::test]
    async fn diff_of_two_missing_files_is_status_2() {
        let out = run(["pi-gortex", "diff", "/nonexistent/a", "/nonexistent/b"]).await;
        assert_eq!(out.exit_code, 2);
        assert!(out.stderr.starts_with("pi-gortex diff: "), "{}", out.stderr);
    }
}
