//! pi-gortex-schema: the JSON Schemas of every pi-gortex wire shape, the Rust types generated
//! from them (one module per schema file, e.g. [`mcp`], [`hook`]) and [`validate`], which checks a
//! JSON value against a named type with the schemas embedded in the binary.

#[rustfmt::skip]
mod generated;
mod validate;

pub use generated::*;
pub use validate::{type_names, validate, SchemaError};
