//! `validate <Type> <file>...`: checks JSON instances against a schema type, reading the schema
//! files from disk so that it works even while generated code is stale. Every input is reported
//! (one unreadable file does not stop the rest), `-` is standard input, and the report has the
//! shape `ValidationReport` of `schema/validation-report.schema.json`.

use crate::discover::SchemaFile;
use crate::validation::{CompiledType, Failure};
use serde::Serialize;
use serde_json::Value;
use std::io::Read;
use std::num::NonZeroU32;
use std::path::PathBuf;

/// One failure of one validated file, with the place of the offending value when it can be found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileFailure {
    pub file: String,
    pub instance_pointer: String,
    pub schema_pointer: String,
    pub message: String,
    /// 1-based line of the offending value in the file, when the pointer maps to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<NonZeroU32>,
    /// 1-based column (in characters) of the offending value, when the pointer maps to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<NonZeroU32>,
}

/// What became of one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Valid,
    Invalid,
    /// Could not be read, or is not JSON.
    Unreadable,
}

/// The result of one input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileResult {
    /// The path as given; `-` for standard input.
    pub file: String,
    pub status: FileStatus,
    /// Every failure (empty unless `invalid`).
    pub errors: Vec<FileFailure>,
    /// Why the input is unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Line of a JSON syntax error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<NonZeroU32>,
    /// Column of a JSON syntax error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<NonZeroU32>,
}

/// The whole run: printed as one JSON document with `--format json`, whatever the exit code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValidationReport {
    /// The type the inputs were checked against, when the command line named one.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// True when every input is valid.
    pub valid: bool,
    pub files: Vec<FileResult>,
    /// A usage error that stopped the run before any input was checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ValidationReport {
    /// A run that could not start (unknown type, bad command line, unreadable schemas).
    pub fn usage_error(type_name: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            type_name: type_name.map(str::to_string),
            valid: false,
            files: Vec::new(),
            error: Some(message.into()),
        }
    }

    /// 0 every input valid, 1 some invalid, 2 a usage error or an unreadable input.
    pub fn exit_code(&self) -> u8 {
        let unreadable = self
            .files
            .iter()
            .any(|f| f.status == FileStatus::Unreadable);
        if self.error.is_some() || unreadable {
            2
        } else if self.valid {
            0
        } else {
            1
        }
    }
}

/// Why validation could not run at all (usage, exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ValidateUsageError {
    #[error("unknown type `{type_name}`; known types: {known}")]
    UnknownType { type_name: String, known: String },
    #[error("{0}")]
    SchemaCompile(String),
}

/// A validator for one type, built from the file that declares it.
pub struct TypeValidator {
    compiled: CompiledType,
}

impl TypeValidator {
    /// Compiles the validator of `type_name` from the loaded schema files.
    pub fn new(files: &[SchemaFile], type_name: &str) -> Result<Self, ValidateUsageError> {
        let Some(file) = files
            .iter()
            .find(|f| f.defs().iter().any(|(name, _)| *name == type_name))
        else {
            let mut known: Vec<&str> = files
                .iter()
                .flat_map(|f| f.defs().into_iter().map(|(n, _)| n))
                .collect();
            known.sort_unstable();
            return Err(ValidateUsageError::UnknownType {
                type_name: type_name.to_string(),
                known: known.join(", "),
            });
        };
        let compiled = CompiledType::new(&file.document, type_name)
            .map_err(ValidateUsageError::SchemaCompile)?;
        Ok(Self { compiled })
    }

    /// Every failure of `value`, attributed to `file`, without source positions.
    pub fn errors(&self, file: &str, value: &Value) -> Vec<FileFailure> {
        self.compiled
            .failures(value)
            .into_iter()
            .map(|f| file_failure(file, f, None))
            .collect()
    }

    /// The result of one input's text.
    pub fn check_text(&self, file: &str, text: &str) -> FileResult {
        let value: Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(e) => {
                return FileResult {
                    file: file.to_string(),
                    status: FileStatus::Unreadable,
                    errors: Vec::new(),
                    message: Some(format!("{file}:{}:{}: not JSON: {e}", e.line(), e.column())),
                    line: one_based(e.line()),
                    column: one_based(e.column()),
                }
            }
        };
        let errors: Vec<FileFailure> = self
            .compiled
            .failures(&value)
            .into_iter()
            .map(|f| file_failure(file, f, Some(text)))
            .collect();
        FileResult {
            file: file.to_string(),
            status: if errors.is_empty() {
                FileStatus::Valid
            } else {
                FileStatus::Invalid
            },
            errors,
            message: None,
            line: None,
            column: None,
        }
    }
}

fn file_failure(file: &str, failure: Failure, text: Option<&str>) -> FileFailure {
    let position = text.and_then(|t| crate::position::locate(t, &failure.instance_pointer));
    FileFailure {
        file: file.to_string(),
        instance_pointer: failure.instance_pointer,
        schema_pointer: failure.schema_pointer,
        message: failure.message,
        line: position.and_then(|p| one_based(p.0)),
        column: position.and_then(|p| one_based(p.1)),
    }
}

/// A 1-based line or column as the report declares it (`uint32`, at least 1, the width the
/// Rust, Go and TypeScript types of `ValidationReport` share); a position that does not fit is
/// left out, as an unmapped one is.
fn one_based(position: usize) -> Option<NonZeroU32> {
    u32::try_from(position).ok().and_then(NonZeroU32::new)
}

/// One input of `validate`: a file, or standard input when the argument is `-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn from_arg(arg: PathBuf) -> Self {
        if arg.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File(arg)
        }
    }

    /// The name results carry: the path as given, or `-`.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "-".into(),
            Input::File(path) => path.display().to_string(),
        }
    }
}

/// Validates every input; standard input is read once however often `-` is given.
pub fn validate_inputs(
    validator: &TypeValidator,
    inputs: &[Input],
    stdin: &mut dyn Read,
) -> ValidationReport {
    let mut stdin_text: Option<Result<String, String>> = None;
    let files: Vec<FileResult> = inputs
        .iter()
        .map(|input| {
            let name = input.name();
            let text = match input {
                Input::Stdin => stdin_text
                    .get_or_insert_with(|| {
                        let mut text = String::new();
                        stdin
                            .read_to_string(&mut text)
                            .map(|_| text)
                            .map_err(|e| format!("-: cannot read standard input: {e}"))
                    })
                    .clone(),
                Input::File(path) => {
                    std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))
                }
            };
            match text {
                Ok(text) => validator.check_text(&name, &text),
                Err(message) => FileResult {
                    file: name,
                    status: FileStatus::Unreadable,
                    errors: Vec::new(),
                    message: Some(message),
                    line: None,
                    column: None,
                },
            }
        })
        .collect();
    ValidationReport {
        type_name: None,
        valid: files.iter().all(|f| f.status == FileStatus::Valid),
        files,
        error: None,
    }
}

/// Human-readable report: one line per failure, unreadable inputs on `stderr_lines`.
pub fn render_text(report: &ValidationReport) -> (String, String) {
    let mut out = String::new();
    let mut err = String::new();
    if let Some(error) = &report.error {
        err.push_str(&format!("error: {error}\n"));
    }
    for file in &report.files {
        for e in &file.errors {
            out.push_str(&format!(
                "{}: at {:?}: {} (schema {})\n",
                e.file, e.instance_pointer, e.message, e.schema_pointer
            ));
        }
        if let Some(message) = &file.message {
            err.push_str(&format!("error: {message}\n"));
        }
    }
    if report.error.is_none() {
        let valid = report
            .files
            .iter()
            .filter(|f| f.status == FileStatus::Valid)
            .count();
        out.push_str(&format!(
            "{valid} of {} file(s) valid as {}\n",
            report.files.len(),
            report.type_name.as_deref().unwrap_or("?")
        ));
    }
    (out, err)
}

/// GitHub Actions workflow commands: one `::error` annotation per failure, with the file, line
/// and column of the offending value where they are known.
pub fn render_github(report: &ValidationReport) -> String {
    let mut out = String::new();
    if let Some(error) = &report.error {
        out.push_str(&annotation(None, None, None, error));
    }
    for file in &report.files {
        let name = (file.file != "-").then_some(file.file.as_str());
        for e in &file.errors {
            let message = format!(
                "{} (at {:?}, schema {})",
                e.message, e.instance_pointer, e.schema_pointer
            );
            out.push_str(&annotation(name, e.line, e.column, &message));
        }
        if let Some(message) = &file.message {
            out.push_str(&annotation(name, file.line, file.column, message));
        }
    }
    out
}

fn annotation(
    file: Option<&str>,
    line: Option<NonZeroU32>,
    column: Option<NonZeroU32>,
    message: &str,
) -> String {
    let mut properties = Vec::new();
    if let Some(file) = file {
        properties.push(format!("file={}", escape_property(file)));
    }
    if let Some(line) = line {
        properties.push(format!("line={line}"));
    }
    if let Some(column) = column {
        properties.push(format!("col={column}"));
    }
    let properties = if properties.is_empty() {
        String::new()
    } else {
        format!(" {}", properties.join(","))
    };
    format!("::error{properties}::{}\n", escape_data(message))
}

/// Escaping of a workflow command's message: without it a newline would end the command.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping of a workflow command's property value, where `:` and `,` are separators too.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::one_based;

    #[test]
    fn positions_outside_the_declared_uint32_range_are_left_out() {
        assert_eq!(one_based(0), None);
        assert_eq!(one_based(7).map(|n| n.get()), Some(7));
        assert_eq!(
            one_based(u32::MAX as usize).map(|n| n.get()),
            Some(u32::MAX)
        );
        assert_eq!(one_based(u32::MAX as usize + 1), None);
    }
}
