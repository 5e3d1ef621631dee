//! Exact round trips of the generated Rust types, as a property: for every schema type, values
//! generated from the schema itself (every member, bound, enum, open union and free-form value it
//! allows, unknown members of open objects including case variants of declared names, `null`
//! where allowed, floats of every magnitude) are schema-valid, decode from their JSON text, and
//! re-encode to the same JSON value, numbers compared by exact value.
//!
//! The same generator writes the corpus `bindings/go/testdata/roundtrip/<Type>/NNN.json` that the
//! Go tests round-trip; this test fails when the checked-in corpus is not what it would write.
//! Regenerate it with `PI_GORTEX_WRITE_CORPUS=1 cargo test -p pi-gortex-schema --test
//! test_roundtrip_property`.
//!
//! Documented exceptions: a `number` member is an f64 in Rust (and Go), so an integer literal
//! beyond ±2^53 written there is not kept exactly (floats are); a free-form value in Rust is a
//! `serde_json::Value` without `arbitrary_precision`, so an integer beyond the i64 and u64 ranges
//! written there comes back as the nearest f64 (Go keeps it exactly; `test_number_limits` pins
//! it); `HookEvent` and `HookDecision` (`x-go-value-fields`, mirrors of the daemon's Go structs)
//! drop unknown members as the daemon does, so their generated values have none.

use proptest::prelude::*;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Number, Value};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Generated values checked per type by the property.
const CASES: u32 = 256;
/// Values per type written to the corpus.
const CORPUS_PER_TYPE: usize = 6;

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn corpus_dir() -> PathBuf {
    schema_dir().join("../bindings/go/testdata/roundtrip")
}

/// Every `$defs` type with the document that declares it, sorted by name.
fn types() -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(schema_dir()).expect("schema dir") {
        let path = entry.expect("entry").path();
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

/// Any JSON value, a few levels deep.
fn any_json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        finite_float(),
        text(0, 8).prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(text(0, 6), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Any finite f64, including subnormals and the extremes: exact float parsing is on trial.
fn finite_float() -> BoxedStrategy<Value> {
    use proptest::num::f64::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    (POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO)
        .prop_filter_map("finite", Number::from_f64)
        .prop_map(Value::Number)
        .boxed()
}

/// A string of `min..=max` arbitrary characters (JSON Schema lengths count code points).
fn text(min: usize, max: usize) -> BoxedStrategy<String> {
    proptest::collection::vec(any::<char>(), min..=max)
        .prop_map(String::from_iter)
        .boxed()
}

fn usize_of(schema: &Value, key: &str) -> Option<usize> {
    schema.get(key)?.as_u64().map(|n| n as usize)
}

/// The strategy of one schema of `document`.
fn strategy(document: &Value, schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    let Some(object) = schema.as_object() else {
        return any_json();
    };
    if depth > 12 {
        return Just(Value::Null).boxed();
    }
    if let Some(target) = object.get("$ref").and_then(Value::as_str) {
        let pointer = target.trim_start_matches('#');
        return strategy(
            document,
            &document.pointer(pointer).unwrap().clone(),
            depth + 1,
        );
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = object.get(key).and_then(Value::as_array) {
            let options: Vec<BoxedStrategy<Value>> = branches
                .iter()
                .map(|b| strategy(document, b, depth + 1))
                .collect();
            return proptest::strategy::Union::new(options).boxed();
        }
    }
    if let Some(constant) = object.get("const") {
        return Just(constant.clone()).boxed();
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return proptest::sample::select(values.clone()).boxed();
    }
    match object.get("type") {
        Some(Value::String(t)) => typed(document, schema, t, depth),
        Some(Value::Array(types)) => {
            let options: Vec<BoxedStrategy<Value>> = types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| typed(document, schema, t, depth))
                .collect();
            proptest::strategy::Union::new(options).boxed()
        }
        _ => any_json(),
    }
}

fn typed(document: &Value, schema: &Value, type_name: &str, depth: u32) -> BoxedStrategy<Value> {
    match type_name {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "integer" => {
            let min = schema["minimum"].as_i64().expect("lint: integer bounds");
            let max = schema["maximum"].as_i64().expect("lint: integer bounds");
            prop_oneof![Just(min), Just(max), min..=max]
                .prop_map(Value::from)
                .boxed()
        }
        // A `number` is an f64 in Rust and Go: an integer literal is exact within ±2^53
        // (documented exception beyond that).
        "number" => prop_oneof![
            finite_float(),
            (-(1i64 << 53)..=(1i64 << 53)).prop_map(Value::from)
        ]
        .boxed(),
        "string" => {
            let min = usize_of(schema, "minLength").unwrap_or(0);
            let max = usize_of(schema, "maxLength").unwrap_or(min + 12);
            let free = text(min, max).prop_map(Value::String);
            match schema.get("examples").and_then(Value::as_array) {
                Some(examples) => {
                    prop_oneof![proptest::sample::select(examples.clone()), free].boxed()
                }
                None => free.boxed(),
            }
        }
        "array" => {
            let items = schema
                .get("items")
                .map(|i| strategy(document, i, depth + 1))
                .unwrap_or_else(any_json);
            let min = usize_of(schema, "minItems").unwrap_or(0);
            let max = usize_of(schema, "maxItems").unwrap_or(min + 3);
            proptest::collection::vec(items, min..=max)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => object(document, schema, depth),
        other => panic!("no generator for type {other}"),
    }
}

fn object(document: &Value, schema: &Value, depth: u32) -> BoxedStrategy<Value> {
    let declared: Vec<(String, Value)> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let members: Vec<BoxedStrategy<Option<(String, Value)>>> = declared
        .iter()
        .map(|(name, member)| {
            let name = name.clone();
            let value = strategy(document, member, depth + 1);
            if required.contains(&name) {
                value.prop_map(move |v| Some((name.clone(), v))).boxed()
            } else {
                proptest::option::of(value.prop_map(move |v| (name.clone(), v))).boxed()
            }
        })
        .collect();
    let names: Vec<String> = declared.iter().map(|(n, _)| n.clone()).collect();
    let extras = extra_members(document, schema, &names, depth);
    (members, extras)
        .prop_map(|(members, extras)| {
            let mut map: Map<String, Value> = members.into_iter().flatten().collect();
            for (name, value) in extras {
                map.entry(name).or_insert(value);
            }
            Value::Object(map)
        })
        .boxed()
}

/// Members the object does not declare, as far as the schema allows and typed code keeps them.
fn extra_members(
    document: &Value,
    schema: &Value,
    declared: &[String],
    depth: u32,
) -> BoxedStrategy<Vec<(String, Value)>> {
    let none = || Just(Vec::new()).boxed();
    let values = match schema.get("additionalProperties") {
        Some(Value::Bool(false)) => return none(),
        Some(Value::Bool(true)) => any_json(),
        Some(additional) => strategy(document, additional, depth + 1),
        // Open by default; the Go-struct mirrors drop unknown members (documented exception).
        None if schema.get("x-go-value-fields").is_some() => return none(),
        None => any_json(),
    };
    // Case variants of declared names: typed code must match member names exactly.
    let variants: Vec<String> = declared
        .iter()
        .map(|n| n.to_uppercase())
        .filter(|v| !declared.contains(v))
        .collect();
    let names = if variants.is_empty() {
        text(1, 8).boxed()
    } else {
        prop_oneof![proptest::sample::select(variants), text(1, 8)].boxed()
    };
    let declared = declared.to_vec();
    proptest::collection::vec(
        (
            names.prop_filter("undeclared", move |n| !declared.contains(n)),
            values,
        ),
        0..3,
    )
    .boxed()
}

/// The schema-valid values of one type.
fn valid_values(type_name: &str, document: &Value) -> BoxedStrategy<Value> {
    let name = type_name.to_string();
    strategy(document, &document["$defs"][type_name], 0)
        .prop_filter("schema-valid", move |v| {
            pi_gortex_schema::validate(&name, v).is_ok()
        })
        .boxed()
}

fn runner(type_name: &str) -> TestRunner {
    // One fixed seed per type: the corpus is reproducible and a failure is too.
    let mut seed = [0u8; 32];
    for (i, b) in type_name.bytes().enumerate() {
        seed[i % 32] ^= b;
    }
    TestRunner::new_with_rng(
        Config {
            cases: CASES,
            failure_persistence: None,
            max_global_rejects: 100_000,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    )
}

/// Equal JSON values, numbers by exact value (`1` equals `1.0`, but not `1.0000000000000002`).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => same_number(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn same_number(x: &Number, y: &Number) -> bool {
    if let (Some(p), Some(q)) = (x.as_i64(), y.as_i64()) {
        return p == q;
    }
    if let (Some(p), Some(q)) = (x.as_u64(), y.as_u64()) {
        return p == q;
    }
    match (x.is_f64(), y.is_f64()) {
        (true, true) => x.as_f64() == y.as_f64(),
        // An integer and a float: equal only when the float is that integer exactly.
        (true, false) => float_is_integer(x.as_f64().unwrap(), y),
        (false, true) => float_is_integer(y.as_f64().unwrap(), x),
        (false, false) => false,
    }
}

fn float_is_integer(float: f64, integer: &Number) -> bool {
    let as_i128 = integer
        .as_i64()
        .map(i128::from)
        .or_else(|| integer.as_u64().map(i128::from));
    float.fract() == 0.0 && float.abs() < 2f64.powi(120) && Some(float as i128) == as_i128
}

#[test]
fn every_schema_valid_value_round_trips_exactly_through_the_rust_types() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (type_name, document) in types() {
        let strategy = valid_values(&type_name, &document);
        let checked = Cell::new(0u32);
        let outcome = runner(&type_name).run(&strategy, |value| {
            checked.set(checked.get() + 1);
            let back = pi_gortex_schema::reserialize(&type_name, &value)
                .expect("a generated type per schema type")
                .map_err(|e| TestCaseError::fail(format!("does not decode: {e}")))?;
            prop_assert!(
                same_json(&back, &value),
                "changed in a round trip:\n  in:  {value}\n  out: {back}"
            );
            Ok(())
        });
        match outcome {
            Ok(()) => report.push(format!("{type_name}: {} values", checked.get())),
            Err(e) => failures.push(format!("{type_name}: {e}")),
        }
    }
    // The per-type counts, for the record (`cargo test -- --nocapture`).
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The corpus as it should be: `<Type>/NNN.json` → pretty JSON text.
fn expected_corpus() -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for (type_name, document) in types() {
        let strategy = valid_values(&type_name, &document);
        let mut runner = runner(&type_name);
        for index in 0..CORPUS_PER_TYPE {
            let value = strategy
                .new_tree(&mut runner)
                .unwrap_or_else(|e| panic!("{type_name}: {e}"))
                .current();
            let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
            out.insert(
                PathBuf::from(&type_name).join(format!("{index:03}.json")),
                text,
            );
        }
    }
    out
}

fn corpus_on_disk() -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let Ok(types) = std::fs::read_dir(corpus_dir()) else {
        return out;
    };
    for type_dir in types.flatten() {
        for file in std::fs::read_dir(type_dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let relative = file
                .path()
                .strip_prefix(corpus_dir())
                .unwrap()
                .to_path_buf();
            out.insert(
                relative,
                std::fs::read_to_string(file.path()).unwrap_or_default(),
            );
        }
    }
    out
}

#[test]
fn go_round_trip_corpus_is_what_the_generator_writes() {
    let expected = expected_corpus();
    if std::env::var_os("PI_GORTEX_WRITE_CORPUS").is_some() {
        let _ = std::fs::remove_dir_all(corpus_dir());
        for (relative, text) in &expected {
            let path = corpus_dir().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }
    let on_disk = corpus_on_disk();
    let stale: Vec<String> = expected
        .keys()
        .chain(on_disk.keys())
        .filter(|k| expected.get(*k) != on_disk.get(*k))
        .map(|k| k.display().to_string())
        .collect();
    assert!(
        stale.is_empty(),
        "bindings/go/testdata/roundtrip is stale ({} files differ, e.g. {:?}); regenerate with \
         PI_GORTEX_WRITE_CORPUS=1 cargo test -p pi-gortex-schema --test test_roundtrip_property",
        stale.len(),
        &stale[..stale.len().min(5)]
    );
    // Every corpus value is itself schema-valid and round-trips.
    for (relative, text) in &on_disk {
        let type_name = relative
            .iter()
            .next()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let value: Value = serde_json::from_str(text).unwrap();
        assert!(pi_gortex_schema::validate(&type_name, &value).is_ok());
        let back = pi_gortex_schema::reserialize(&type_name, &value)
            .unwrap()
            .unwrap();
        assert!(same_json(&back, &value), "{}", relative.display());
    }
}
