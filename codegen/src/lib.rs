//! pi-gortex-codegen: turns the JSON Schemas of `schema/` into Rust, TypeScript and Go types and
//! `docs/schema.md`, checks that the checked-in output is current, lints schemas and validates
//! JSON instances.

pub mod check;
pub mod discover;
pub mod docs_emitter;
mod embedded_schemas;
pub mod error;
pub mod generate;
pub mod go_emitter;
pub mod lint;
pub mod model;
pub mod open_union;
pub mod output;
pub mod position;
pub mod readme_emitter;
pub mod rust_emitter;
pub mod ts_emitter;
pub mod validate;
pub use pi_gortex_validation as validation;
