//! `pi-gortex`: the command-line face of the runtime, for users and tests.
//! The commands live in `pi_gortex_runtime::cli`, shared with the npm
//! package's Node entry; this binary only prints their output.
//!
//! Exit codes, as for `pi-gortex-codegen`: 0 fine, 1 a finding (an unhealthy setup), 2 a usage
//! error or an input that cannot be read.
//!
//! Printing happens here only: the library never writes to stdout or stderr,
//! because inside Pi those streams belong to the TUI.

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("pi-gortex: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let output = runtime.block_on(pi_gortex_runtime::cli::run(std::env::args_os()));
    // A closed pipe (`pi-gortex doctor | head`) is not worth a panic.
    let _ = std::io::stdout().write_all(output.stdout.as_bytes());
    let _ = std::io::stderr().write_all(output.stderr.as_bytes());
    // The schema bounds the status to 0..=255; anything else would be a bug, reported as usage.
    ExitCode::from(u8::try_from(output.exit_code).unwrap_or(2))
}
