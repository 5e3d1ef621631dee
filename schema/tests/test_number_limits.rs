//! Where numbers meet their limits, pinned as docs/schema.md states them ("Numbers and member
//! names"): `validate` agrees with a standard JSON Schema 2020-12 validator on every number at
//! every number position of every valid example, except that it refuses an integral float
//! (`1.0`) in an integer member, which the generated types cannot decode; and a free-form
//! integer beyond 64 bits is read by Rust as the nearest f64 (`arbitrary_precision` is off).

use pi_gortex_schema::{edit_details, mcp, validate};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every `$defs` type with the document that declares it.
fn documents() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(schema_dir()).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".schema.json") {
            continue;
        }
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for name in document["$defs"].as_object().unwrap().keys() {
            out.insert(name.clone(), document.clone());
        }
    }
    out
}

/// The standard validator of one type: the `jsonschema` crate, 2020-12, no added keyword.
fn standard(document: &Value, type_name: &str) -> jsonschema::Validator {
    let mut entry = document.clone();
    entry["$ref"] = json!(format!("#/$defs/{type_name}"));
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&entry)
        .unwrap()
}

/// The JSON pointer of every number inside `value`.
fn number_pointers(value: &Value, here: String, out: &mut Vec<String>) {
    match value {
        Value::Number(_) => out.push(here),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                number_pointers(item, format!("{here}/{i}"), out);
            }
        }
        Value::Object(members) => {
            for (name, member) in members {
                let token = name.replace('~', "~0").replace('/', "~1");
                number_pointers(member, format!("{here}/{token}"), out);
            }
        }
        _ => {}
    }
}

/// Numbers at and beyond the edges of the 64-bit types, as serde_json reads their text.
const PROBES: &[&str] = &[
    "0",
    "-1",
    "1.5",
    "1.0",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "1e300",
    "-1e300",
    "1.7976931348623157e308",
];

/// The integer an integral float within the 64-bit range stands for (`1.0` is 1): such a float is
/// the documented difference (c). Beyond that range an integral float is an integer no generated
/// type holds, and the bounds must refuse it.
fn integer_spelling(number: &Value) -> Option<Value> {
    let f = number.as_f64().filter(|_| number.is_f64())?;
    if f.fract() != 0.0 || f < -(2f64.powi(63)) || f >= 2f64.powi(64) {
        return None;
    }
    Some(if f < 0.0 {
        Value::from(f as i64)
    } else {
        Value::from(f as u64)
    })
}

#[test]
fn validate_agrees_with_a_standard_validator_on_every_number_of_every_example() {
    let documents = documents();
    let examples = schema_dir().join("examples");
    let mut probed = 0;
    let mut disagreements = Vec::new();
    for (type_name, document) in &documents {
        let Ok(files) = std::fs::read_dir(examples.join(type_name).join("valid")) else {
            continue;
        };
        let standard = standard(document, type_name);
        for file in files {
            let path = file.unwrap().path();
            let example: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let mut pointers = Vec::new();
            number_pointers(&example, String::new(), &mut pointers);
            for pointer in pointers {
                for probe in PROBES {
                    let number: Value = serde_json::from_str(probe).unwrap();
                    let mut value = example.clone();
                    *value.pointer_mut(&pointer).unwrap() = number.clone();
                    probed += 1;
                    let by_standard = standard.is_valid(&value);
                    let ours = validate(type_name, &value);
                    let agree = match (&ours, by_standard) {
                        (Ok(()), true) | (Err(_), false) => true,
                        // Only the integer-literal rule may make the difference: the same
                        // integer written without a fraction is valid.
                        (Err(_), true) => integer_spelling(&number).is_some_and(|integer| {
                            let mut spelled = value.clone();
                            *spelled.pointer_mut(&pointer).unwrap() = integer;
                            validate(type_name, &spelled).is_ok()
                        }),
                        (Ok(()), false) => false,
                    };
                    if !agree {
                        disagreements.push(format!(
                            "{type_name} {} at {pointer} = {probe}: standard {by_standard}, validate {ours:?}",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(
        probed > 100,
        "only {probed} probes: the examples hold too few numbers"
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements, e.g.:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(8)].join("\n")
    );
}

#[test]
fn an_integral_float_is_an_integer_to_a_standard_validator_but_not_to_validate_or_decoding() {
    let document = &documents()["EditDetails"];
    let standard = standard(document, "EditDetails");
    for text in ["1.0", "1e3"] {
        let value: Value =
            serde_json::from_str(&format!(r#"{{"firstChangedLine":{text}}}"#)).unwrap();
        assert!(
            standard.is_valid(&value),
            "{text}: JSON Schema counts it an integer"
        );
        let errors = validate("EditDetails", &value).expect_err(text);
        assert!(
            errors[0].message.contains("not an integer literal"),
            "{text}: {errors:?}"
        );
        assert!(
            serde_json::from_value::<edit_details::EditDetails>(value).is_err(),
            "{text}: the generated type decodes it, so validate should accept it"
        );
    }
    assert!(validate("EditDetails", &json!({"firstChangedLine": 1000})).is_ok());
}

#[test]
fn a_free_form_integer_beyond_64_bits_is_read_as_the_nearest_f64() {
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"n":18446744073709551617,"m":-9223372036854775809,"k":18446744073709551615}}"#;
    let request: mcp::JsonRpcRequest = serde_json::from_str(text).unwrap();
    let params = serde_json::to_value(&request).unwrap()["params"].clone();
    assert_eq!(params["n"].to_string(), "1.8446744073709552e+19");
    assert_eq!(params["m"].to_string(), "-9.223372036854776e+18");
    assert_eq!(
        params["k"].to_string(),
        "18446744073709551615",
        "u64 stays exact"
    );
    // Beyond the f64 range the document is unreadable.
    assert!(serde_json::from_str::<Value>(r#"{"n":1e400}"#).is_err());
}
