//! Command-line entry point of pi-gortex-codegen: `generate`, `check`, `lint`, `validate`.

use clap::{Parser, Subcommand, ValueEnum};
use pi_gortex_codegen::check::find_drift;
use pi_gortex_codegen::error::CodegenError;
use pi_gortex_codegen::generate::{load_linted, render_all, write_all};
use pi_gortex_codegen::validate::{
    render_github, render_text, validate_inputs, Input, TypeValidator, ValidationReport,
};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "pi-gortex-codegen",
    version,
    about = "Generate, check, lint and validate pi-gortex schema targets"
)]
struct Cli {
    /// Repository root (the directory holding `schema/`); defaults to the current directory when
    /// it has one, else the checkout this binary was built from (`validate`: else the schemas
    /// compiled into the binary).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate every target (Rust, TypeScript, Go, docs) from schema/*.schema.json.
    Generate,
    /// Regenerate in memory and fail with a unified diff when a checked-in file differs.
    Check,
    /// Reject schema keywords outside the supported subset.
    Lint,
    /// Validate JSON files against a schema type; exit 0 valid, 1 invalid, 2 usage error or an
    /// unreadable input. Every file is reported.
    Validate {
        /// Type name, e.g. `HookDecision`.
        type_name: String,
        /// JSON files to validate; `-` reads standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format: `json` prints one `ValidationReport` document whatever the exit code,
        /// `github` prints GitHub Actions annotations.
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// Same as `--format json`.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Github,
}

/// The format a command line asks for, read without clap: a usage error must still be reported
/// in the requested format.
fn requested_format(args: &[OsString]) -> Format {
    let mut format = Format::Text;
    let mut args = args.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        let value = match arg.as_ref() {
            "--json" => Some("json".into()),
            "--format" => args.next().map(|v| v.into_owned()),
            other => other.strip_prefix("--format=").map(str::to_string),
        };
        match value.as_deref() {
            Some("json") => format = Format::Json,
            Some("github") => format = Format::Github,
            _ => {}
        }
    }
    format
}

/// Prints a validation report in `format`; returns its exit code.
fn emit_report(report: &ValidationReport, format: Format) -> ExitCode {
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string(report).unwrap_or_else(|_| "{}".into())
        ),
        Format::Github => print!("{}", render_github(report)),
        Format::Text => {
            let (out, err) = render_text(report);
            print!("{out}");
            eprint!("{err}");
        }
    }
    ExitCode::from(report.exit_code())
}

fn default_root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    if cwd.join("schema").is_dir() {
        cwd
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }
}

/// Where `validate` reads the schemas: `--root`, else a `schema/` in the current directory (a
/// checkout, where the files may be newer than this binary), else none: the schemas compiled
/// into the binary, so an installed validator works anywhere (never the build checkout, which
/// a user's machine does not have).
fn validate_root(root: Option<&std::path::Path>) -> Option<PathBuf> {
    if let Some(root) = root {
        return Some(root.to_path_buf());
    }
    let cwd = std::env::current_dir().ok()?;
    cwd.join("schema").is_dir().then_some(cwd)
}

fn report(errors: &[CodegenError]) -> ExitCode {
    for error in errors {
        eprintln!("error: {error}");
    }
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && requested_format(&args) != Format::Text => {
            let _ = e.print();
            let message = e.render().to_string().trim_end().to_string();
            return emit_report(
                &ValidationReport::usage_error(None, message),
                requested_format(&args),
            );
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let validate_root = validate_root(cli.root.as_deref());
    let root = cli.root.unwrap_or_else(default_root);
    match cli.command {
        Command::Lint => match load_linted(&root) {
            Ok(files) => {
                println!("lint: {} schema files ok", files.len());
                ExitCode::SUCCESS
            }
            Err(errors) => report(&errors),
        },
        Command::Generate => {
            let files = match load_linted(&root) {
                Ok(files) => files,
                Err(errors) => return report(&errors),
            };
            match render_all(&root, &files)
                .and_then(|out| write_all(&root, &out).map(|()| out.len()))
            {
                Ok(count) => {
                    println!("generate: {count} files from {} schemas", files.len());
                    ExitCode::SUCCESS
                }
                Err(e) => report(&[e]),
            }
        }
        Command::Check => {
            let files = match load_linted(&root) {
                Ok(files) => files,
                Err(errors) => return report(&errors),
            };
            let expected = match render_all(&root, &files) {
                Ok(expected) => expected,
                Err(e) => return report(&[e]),
            };
            let drift = find_drift(&root, &expected);
            if drift.is_empty() {
                println!("check: {} generated files up to date", expected.len());
                return ExitCode::SUCCESS;
            }
            for d in &drift {
                print!("{}", d.unified_diff);
            }
            eprintln!(
                "check: {} generated file(s) differ; run `cargo run -p pi-gortex-codegen -- generate`",
                drift.len()
            );
            ExitCode::from(1)
        }
        Command::Validate {
            type_name,
            files,
            format,
            json,
        } => {
            let format = if json {
                Format::Json
            } else {
                format.unwrap_or(Format::Text)
            };
            let loaded = match &validate_root {
                Some(root) => pi_gortex_codegen::discover::load_schemas(&root.join("schema")),
                None => pi_gortex_codegen::discover::embedded_schemas(),
            };
            let schemas = match loaded {
                Ok(schemas) => schemas,
                Err(e) => {
                    let report = ValidationReport::usage_error(Some(&type_name), e.to_string());
                    return emit_report(&report, format);
                }
            };
            let validator = match TypeValidator::new(&schemas, &type_name) {
                Ok(validator) => validator,
                Err(e) => {
                    let report = ValidationReport::usage_error(Some(&type_name), e.to_string());
                    return emit_report(&report, format);
                }
            };
            let inputs: Vec<Input> = files.into_iter().map(Input::from_arg).collect();
            let mut report = validate_inputs(&validator, &inputs, &mut std::io::stdin().lock());
            report.type_name = Some(type_name);
            emit_report(&report, format)
        }
    }
}
