//! pi-gortex-validation: compiling the validator of one schema type, and turning its failures
//! into pointers a reader can open in the schema file.
//!
//! Its own crate because two crates use it: `pi-gortex-codegen validate`, and
//! `pi_gortex_schema::validate`. The codegen does not depend on the schema crate, so that a stale
//! generated crate never stops the codegen from regenerating it.

use serde_json::{Map, Value};

/// One failure of one value: where in the value, which keyword of the schema file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// JSON pointer into the validated value (`""` is the value itself).
    pub instance_pointer: String,
    /// JSON pointer into the schema file, e.g. `/$defs/HookDecision/properties/block/type`.
    pub schema_pointer: String,
    /// Plain-language description of the failure.
    pub message: String,
}

/// The compiled validator of one type, with the schema file it was built from.
pub struct CompiledType {
    validator: jsonschema::Validator,
    document: Value,
    type_name: String,
}

/// The keyword added next to every `type` that admits integers; see [`IntegerLiteral`].
const INTEGER_LITERAL: &str = "x-integer-literal";

impl CompiledType {
    /// Compiles the validator of `type_name` (a `$defs` name) from the schema file `document`.
    // The keyword factory's signature (a large `ValidationError` in `Err`) is the `jsonschema` crate's.
    #[allow(clippy::result_large_err)]
    pub fn new(document: &Value, type_name: &str) -> Result<Self, String> {
        // The file itself, entered through the wanted type: schema pointers stay those of the file.
        let mut entry = document.clone();
        mark_integer_types(&mut entry);
        if let Some(object) = entry.as_object_mut() {
            object.insert("$ref".into(), Value::String(format!("#/$defs/{type_name}")));
        }
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .with_keyword(INTEGER_LITERAL, |_, _, path| {
                Ok(Box::new(IntegerLiteral { path }))
            })
            .build(&entry)
            .map_err(|e| format!("schema of `{type_name}` does not compile: {e}"))?;
        Ok(Self {
            validator,
            document: document.clone(),
            type_name: type_name.to_string(),
        })
    }

    /// Every failure of `value`; empty when it is valid.
    pub fn failures(&self, value: &Value) -> Vec<Failure> {
        let raw: Vec<(Failure, bool)> = self
            .validator
            .iter_errors(value)
            .map(|error| {
                let path = error.schema_path.to_string();
                let literal = path.ends_with(INTEGER_LITERAL);
                let failure = Failure {
                    instance_pointer: error.instance_path.to_string(),
                    schema_pointer: file_pointer(&self.document, &self.type_name, &path),
                    message: error.to_string(),
                };
                (failure, literal)
            })
            .collect();
        without_shadowed_type_failures(raw)
    }
}

/// The integer-literal failure says more than the `type` failure at the same place (which the
/// `jsonschema` crate reports for `1.0` against `["string","integer"]` but not against
/// `"integer"`), so only the former is kept there.
fn without_shadowed_type_failures(raw: Vec<(Failure, bool)>) -> Vec<Failure> {
    let literal_at: Vec<String> = raw
        .iter()
        .filter(|(_, literal)| *literal)
        .map(|(f, _)| f.instance_pointer.clone())
        .collect();
    raw.into_iter()
        .filter(|(f, literal)| {
            *literal
                || !(f.schema_pointer.ends_with("/type")
                    && literal_at.contains(&f.instance_pointer))
        })
        .map(|(f, _)| f)
        .collect()
}

/// Rejects a number written with a fraction or an exponent (`1.0`, `1e3`) where the schema says
/// `integer`. JSON Schema counts `1.0` as an integer, but the generated Rust and Go types decode
/// integers into `i64`/`u32`, which refuse it; `validate` must not accept what decoding rejects.
struct IntegerLiteral {
    /// Where the keyword sits in the compiled schema (its evaluation path).
    path: jsonschema::paths::Location,
}

impl jsonschema::Keyword for IntegerLiteral {
    fn validate<'i>(
        &self,
        instance: &'i Value,
        location: &jsonschema::paths::LazyLocation,
    ) -> Result<(), jsonschema::ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        Err(jsonschema::ValidationError::custom(
            self.path.clone(),
            location.into(),
            instance,
            format!(
                "{instance} is not an integer literal (write it without a fraction or exponent)"
            ),
        ))
    }

    fn is_valid(&self, instance: &Value) -> bool {
        match instance {
            Value::Number(number) => number.is_i64() || number.is_u64(),
            _ => true,
        }
    }
}

/// Adds [`INTEGER_LITERAL`] to every subschema whose `type` admits integers but not all numbers.
/// Only schema positions are visited, so a property *named* `type` is never mistaken for one.
fn mark_integer_types(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if admits_integers_only(object) {
        object.insert(INTEGER_LITERAL.into(), Value::Bool(true));
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child) = object.get_mut(key) {
            mark_integer_types(child);
        }
    }
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = object.get_mut(key) {
            children.values_mut().for_each(mark_integer_types);
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(children)) = object.get_mut(key) {
            children.iter_mut().for_each(mark_integer_types);
        }
    }
}

fn admits_integers_only(object: &Map<String, Value>) -> bool {
    let named = |name: &str| match object.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(types)) => types.iter().any(|t| t == name),
        _ => false,
    };
    named("integer") && !named("number")
}

/// Turns the validator's evaluation path (which goes *through* `$ref`s, e.g.
/// `/$ref/properties/content/items/$ref/oneOf/0`) into a pointer inside the schema file
/// (e.g. `/$defs/TextContent/...`), which is what a reader can open.
pub fn file_pointer(document: &Value, type_name: &str, evaluation_path: &str) -> String {
    let mut current = format!("/$defs/{type_name}");
    let mut segments = evaluation_path.split('/').skip(1).peekable();
    // The first `$ref` is the synthetic entry reference to the type itself.
    if segments.peek() == Some(&"$ref") {
        segments.next();
    }
    for segment in segments {
        if segment == "$ref" {
            let target = document
                .pointer(&format!("{current}/$ref"))
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'));
            if let Some(target) = target {
                current = target.to_string();
                continue;
            }
        }
        current.push('/');
        // The added keyword is not in the file; the reader's keyword is the `type` beside it.
        current.push_str(if segment == INTEGER_LITERAL {
            "type"
        } else {
            segment
        });
    }
    current
}
