//! Command-line entry point of pi-gortex-codegen: `generate`, `check`, `lint`, `validate`.

use clap::{Parser, Subcommand, ValueEnum};
use pi_gortex_codegen::check::find_drift;
use pi_gortex_codegen::error::CodegenError;
use pi_gortex_codegen::generate::{load_linted, render_all, write_all};
use pi_gortex_codegen::validate::{render_text, validate_files, TypeValidator};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "pi-gortex-codegen",
    about = "Generate, check, lint and validate pi-gortex schema targets"
)]
struct Cli {
    /// Repository root (the directory holding `schema/`); defaults to the current directory when
    /// it has one, else the checkout this binary was built from.
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
    /// Validate JSON files against a schema type; exit 0 valid, 1 invalid, 2 usage or I/O error.
    Validate {
        /// Type name, e.g. `HookDecision`.
        type_name: String,
        /// JSON files to validate.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn default_root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    if cwd.join("schema").is_dir() {
        cwd
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }
}

fn report(errors: &[CodegenError]) -> ExitCode {
    for error in errors {
        eprintln!("error: {error}");
    }
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
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
        } => {
            let schemas = match pi_gortex_codegen::discover::load_schemas(&root.join("schema")) {
                Ok(schemas) => schemas,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let outcome = TypeValidator::new(&schemas, &type_name)
                .and_then(|validator| validate_files(&validator, &files));
            let errors = match outcome {
                Ok(errors) => errors,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            match format {
                Format::Json => println!(
                    "{}",
                    serde_json::to_string(&errors).unwrap_or_else(|_| "[]".into())
                ),
                Format::Text => {
                    print!("{}", render_text(&errors));
                    if errors.is_empty() {
                        println!("{} file(s) valid as {type_name}", files.len());
                    }
                }
            }
            if errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}
