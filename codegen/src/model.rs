//! A small language-neutral model of the schema subset, read from the JSON Schema documents,
//! from which the TypeScript and Go emitters and the docs are written.

use crate::discover::SchemaFile;
use crate::open_union::{open_unions, OpenUnion};
use serde_json::Value;

/// How an object treats members it does not declare.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra {
    /// `additionalProperties: false`: unknown members are invalid.
    Closed,
    /// No `additionalProperties`: unknown members are valid but not kept by typed code.
    Ignored,
    /// `additionalProperties: {}` or `true`: unknown members are valid and kept.
    Kept,
    /// `additionalProperties: <schema>` without declared properties: a map.
    Map(Box<Shape>),
}

/// One declared object member.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub description: String,
    pub required: bool,
    pub shape: Shape,
    /// The member's schema as written, for bounds and target-specific annotations.
    pub raw: Value,
}

/// The shape of a schema.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Any JSON value.
    Any,
    Null,
    Boolean,
    Integer,
    Number,
    /// A string; `allowed` is a closed set (`enum`/`const`), `known` documents values without
    /// rejecting others (`examples`).
    String {
        allowed: Option<Vec<String>>,
        known: Vec<String>,
    },
    Array(Box<Shape>),
    Object {
        fields: Vec<Field>,
        extra: Extra,
    },
    /// A named type of the same file.
    Ref(String),
    /// Exactly one / at least one of several shapes.
    Union(Vec<Shape>),
}

/// One named type (`$defs` entry).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    pub name: String,
    pub description: String,
    pub shape: Shape,
    /// Set when the type is an open tagged union.
    pub open_union: Option<OpenUnion>,
    /// The raw definition, for target-specific `x-` annotations.
    pub raw: Value,
}

/// The types of one schema file.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    pub file: SchemaFile,
    pub title: String,
    pub description: String,
    pub types: Vec<TypeDef>,
}

/// Builds the model of one file. The file must have passed lint.
pub fn module_of(file: &SchemaFile) -> Module {
    let unions = open_unions(file).unwrap_or_default();
    let types = file
        .defs()
        .into_iter()
        .map(|(name, def)| TypeDef {
            name: name.to_string(),
            description: text(def, "description"),
            shape: shape_of(def),
            open_union: unions.iter().find(|u| u.name == name).cloned(),
            raw: def.clone(),
        })
        .collect();
    Module {
        title: text(&file.document, "title"),
        description: text(&file.document, "description"),
        file: file.clone(),
        types,
    }
}

/// A string member of a schema object, or `""`.
pub fn text(schema: &Value, key: &str) -> String {
    schema
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The shape of one schema.
pub fn shape_of(schema: &Value) -> Shape {
    let Some(object) = schema.as_object() else {
        return Shape::Any;
    };
    if let Some(target) = object.get("$ref").and_then(Value::as_str) {
        return Shape::Ref(target.trim_start_matches("#/$defs/").to_string());
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(items) = object.get(key).and_then(Value::as_array) {
            return Shape::Union(items.iter().map(shape_of).collect());
        }
    }
    if let Some(constant) = object.get("const").and_then(Value::as_str) {
        return Shape::String {
            allowed: Some(vec![constant.to_string()]),
            known: Vec::new(),
        };
    }
    match object.get("type") {
        Some(Value::Array(types)) => Shape::Union(
            types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| single_type(t, object))
                .collect(),
        ),
        Some(Value::String(t)) => single_type(t, object),
        _ => Shape::Any,
    }
}

fn single_type(type_name: &str, object: &serde_json::Map<String, Value>) -> Shape {
    match type_name {
        "null" => Shape::Null,
        "boolean" => Shape::Boolean,
        "integer" => Shape::Integer,
        "number" => Shape::Number,
        "string" => Shape::String {
            allowed: object.get("enum").map(|e| strings(Some(e))),
            known: strings(object.get("examples")),
        },
        "array" => Shape::Array(Box::new(
            object.get("items").map(shape_of).unwrap_or(Shape::Any),
        )),
        "object" => object_shape(object),
        _ => Shape::Any,
    }
}

fn object_shape(object: &serde_json::Map<String, Value>) -> Shape {
    let required = strings(object.get("required"));
    let fields: Vec<Field> = object
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| Field {
                    name: name.clone(),
                    description: text(prop, "description"),
                    required: required.contains(name),
                    shape: shape_of(prop),
                    raw: prop.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let extra = match object.get("additionalProperties") {
        None => Extra::Ignored,
        Some(Value::Bool(false)) => Extra::Closed,
        Some(Value::Bool(true)) => Extra::Kept,
        Some(Value::Object(o)) if o.is_empty() => Extra::Kept,
        Some(schema) if fields.is_empty() => Extra::Map(Box::new(shape_of(schema))),
        Some(_) => Extra::Kept,
    };
    Shape::Object { fields, extra }
}

/// The machine width of a schema integer, from its bounds: the one every emitter maps to
/// (Rust `u32`/`i64`, Go `uint32`/`int64`, stated in the TypeScript docs), so that decoding accepts
/// exactly the declared range in every language. Lint requires both bounds within `i64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerWidth {
    /// `0 <= minimum` and `maximum <= 4294967295`: counts, line numbers, seconds.
    U32,
    /// Anything else within the `i64` range: ids, codes, sizes.
    I64,
}

impl IntegerWidth {
    /// The JSON Schema `format` typify reads (`uint32`, `int64`).
    pub fn format(self) -> &'static str {
        match self {
            IntegerWidth::U32 => "uint32",
            IntegerWidth::I64 => "int64",
        }
    }
}

/// The declared `(minimum, maximum)` of an integer schema, when both are exact `i64` values.
pub fn integer_bounds(schema: &Value) -> Option<(i64, i64)> {
    Some((
        schema.get("minimum")?.as_i64()?,
        schema.get("maximum")?.as_i64()?,
    ))
}

/// The width of an integer schema; `I64` when its bounds are missing (lint reports that).
pub fn integer_width(schema: &Value) -> IntegerWidth {
    match integer_bounds(schema) {
        Some((min, max)) if min >= 0 && max <= i64::from(u32::MAX) => IntegerWidth::U32,
        _ => IntegerWidth::I64,
    }
}

/// True when the schema's `type` is or includes `integer`.
pub fn admits_integer(schema: &Value) -> bool {
    admits_type(schema, "integer")
}

/// True when the schema's `type` is or includes `number`.
pub fn admits_number(schema: &Value) -> bool {
    admits_type(schema, "number")
}

fn admits_type(schema: &Value, name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(types)) => types.iter().any(|t| t == name),
        _ => false,
    }
}

/// The declared `(minimum, maximum)` of a number schema, when both are finite (every JSON number
/// serde_json reads is) and in order.
pub fn number_bounds(schema: &Value) -> Option<(f64, f64)> {
    let bounds = (
        schema.get("minimum")?.as_f64()?,
        schema.get("maximum")?.as_f64()?,
    );
    (bounds.0 <= bounds.1).then_some(bounds)
}
