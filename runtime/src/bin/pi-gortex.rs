//! `pi-gortex`: the command-line face of the runtime.
//!
//! - `pi-gortex doctor [--json] [--cwd DIR]` diagnoses a setup (owned by `doctor`).
//! - `pi-gortex diff <before> <after> [--path NAME]` prints one `EditDetails` (owned by `diff`).
fn main() {
    std::process::exit(2);
}
