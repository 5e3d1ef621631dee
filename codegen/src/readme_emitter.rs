//! The configuration table of `README.md`, written from `SidecarConfig` in
//! `schema/sidecar.schema.json`.
//!
//! The README is hand-written prose, so only the region between two markers is
//! generated; everything around it is kept byte for byte. A README without the
//! markers is left alone, so the emitter never invents a section.

use crate::model::{Module, Shape};
use crate::ts_emitter::ts_type;

/// Marker opening the generated region.
pub const BEGIN: &str = "<!-- BEGIN generated: configuration table (pi-gortex-codegen from schema/sidecar.schema.json; do not edit) -->";
/// Marker closing the generated region.
pub const END: &str = "<!-- END generated: configuration table -->";

/// The README with its configuration region rewritten, or `None` when the
/// README has no such region or the sidecar type is missing.
pub fn emit_readme(readme: &str, modules: &[Module]) -> Option<String> {
    let start = readme.find(BEGIN)? + BEGIN.len();
    let end = start + readme[start..].find(END)?;
    let table = configuration_table(modules)?;
    Some(format!("{}\n{}{}", &readme[..start], table, &readme[end..]))
}

fn configuration_table(modules: &[Module]) -> Option<String> {
    let sidecar = modules
        .iter()
        .flat_map(|module| &module.types)
        .find(|def| def.name == "SidecarConfig")?;
    let Shape::Object { fields, .. } = &sidecar.shape else {
        return None;
    };
    let mut out = String::from("| Sidecar key | Type | Meaning |\n|---|---|---|\n");
    for field in fields {
        out.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            field.name,
            ts_type(&field.shape, "").replace('|', "\\|"),
            field.description.replace('|', "\\|").replace('\n', " ")
        ));
    }
    Some(out)
}
