//! Every example vector under `schema/examples/<Type>/` behaves as its directory says: valid ones
//! validate and survive a typed round trip unchanged; invalid ones fail at the pointer recorded
//! in their `.expect` file.

use serde_json::Value;
use std::path::{Path, PathBuf};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// (type name, vector path) for every `*.json` of `<Type>/<kind>/`.
fn vectors(kind: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for type_dir in std::fs::read_dir(examples_dir()).expect("examples dir") {
        let type_dir = type_dir.expect("entry").path();
        let type_name = type_dir.file_name().unwrap().to_string_lossy().to_string();
        let Ok(entries) = std::fs::read_dir(type_dir.join(kind)) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                out.push((type_name.clone(), path));
            }
        }
    }
    out.sort();
    out
}

fn load(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("readable vector");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_type_with_vectors_is_a_known_type_with_enough_vectors() {
    let known = pi_gortex_schema::type_names();
    for type_dir in std::fs::read_dir(examples_dir()).unwrap() {
        let type_dir = type_dir.unwrap().path();
        let name = type_dir.file_name().unwrap().to_string_lossy().to_string();
        assert!(known.contains(&name.as_str()), "no schema type `{name}`");
        for kind in ["valid", "invalid"] {
            let count = std::fs::read_dir(type_dir.join(kind))
                .map(|d| {
                    d.filter(|e| {
                        e.as_ref()
                            .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
                    })
                    .count()
                })
                .unwrap_or(0);
            // GortexMessageDetails is `{briefing: bool}` closed: only two valid values exist.
            let minimum = if name == "GortexMessageDetails" && kind == "valid" {
                2
            } else {
                3
            };
            assert!(count >= minimum, "{name}/{kind} has {count} vectors");
        }
    }
}

#[test]
fn valid_vectors_validate() {
    let all = vectors("valid");
    assert!(!all.is_empty());
    for (type_name, path) in all {
        if let Err(errors) = pi_gortex_schema::validate(&type_name, &load(&path)) {
            panic!(
                "{} should be a valid {type_name}: {errors:?}",
                path.display()
            );
        }
    }
}

#[test]
fn valid_vectors_round_trip_through_the_generated_types() {
    for (type_name, path) in vectors("valid") {
        let value = load(&path);
        let back = pi_gortex_schema::reserialize(&type_name, &value)
            .unwrap_or_else(|| panic!("no generated type {type_name}"))
            .unwrap_or_else(|e| panic!("{} does not deserialize: {e}", path.display()));
        assert_eq!(back, value, "{} changed in a round trip", path.display());
    }
}

#[test]
fn invalid_vectors_fail_at_their_expected_pointer() {
    let all = vectors("invalid");
    assert!(!all.is_empty());
    for (type_name, path) in all {
        let expect_path = path.with_extension("expect");
        let expected = std::fs::read_to_string(&expect_path)
            .unwrap_or_else(|_| panic!("{} has no .expect file", path.display()));
        let expected = expected.trim_end_matches('\n');
        match pi_gortex_schema::validate(&type_name, &load(&path)) {
            Ok(()) => panic!("{} should not be a valid {type_name}", path.display()),
            Err(errors) => assert!(
                errors.iter().any(|e| e.instance_pointer == expected),
                "{}: expected an error at {expected:?}, got {errors:?}",
                path.display()
            ),
        }
    }
}
