//! Reads the open tagged unions (`x-open-tag`) of a schema file: known variants with their
//! `const` tag and the one fallback variant. Shared by the Rust, TypeScript and Go emitters.

use crate::discover::SchemaFile;
use crate::error::CodegenError;
use serde_json::Value;

/// An open tagged union, e.g. MCP's `ContentBlock`.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenUnion {
    /// Type name of the union.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The tag property, e.g. `type`.
    pub tag: String,
    /// Known variants: (type name, tag value), in schema order.
    pub known: Vec<(String, String)>,
    /// Type name of the variant that takes every other tag.
    pub fallback: String,
}

/// Every open union of `file`, in `$defs` order.
pub fn open_unions(file: &SchemaFile) -> Result<Vec<OpenUnion>, CodegenError> {
    file.defs()
        .into_iter()
        .filter_map(|(name, def)| {
            let tag = def.get("x-open-tag")?.as_str()?;
            Some(read_union(file, name, def, tag))
        })
        .collect()
}

fn read_union(
    file: &SchemaFile,
    name: &str,
    def: &Value,
    tag: &str,
) -> Result<OpenUnion, CodegenError> {
    let fail = |pointer: String, message: &str| CodegenError::Lint {
        file: file.display_path(),
        pointer,
        message: message.to_string(),
    };
    let base = format!("/$defs/{name}/oneOf");
    let variants = def
        .get("oneOf")
        .and_then(Value::as_array)
        .ok_or_else(|| fail(base.clone(), "an open union needs `oneOf`"))?;
    let mut known = Vec::new();
    let mut fallback = None;
    for (index, variant) in variants.iter().enumerate() {
        let pointer = format!("{base}/{index}");
        let target = variant
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .ok_or_else(|| fail(pointer.clone(), "open union variants must be `$ref`s"))?;
        let is_fallback = variant.pointer(&format!("/properties/{tag}/not")).is_some();
        if is_fallback {
            if fallback.replace(target.to_string()).is_some() {
                return Err(fail(pointer, "an open union has exactly one fallback"));
            }
            continue;
        }
        let tag_value = file
            .document
            .pointer(&format!("/$defs/{target}/properties/{tag}/const"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                fail(
                    pointer.clone(),
                    "a known variant needs a string `const` tag",
                )
            })?;
        known.push((target.to_string(), tag_value.to_string()));
    }
    let fallback = fallback.ok_or_else(|| {
        fail(
            base.clone(),
            "an open union needs a fallback variant whose tag is `not` the known ones",
        )
    })?;
    Ok(OpenUnion {
        name: name.to_string(),
        description: def
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        tag: tag.to_string(),
        known,
        fallback,
    })
}
