//! DIFF-2, DIFF-3, DIFF-4: which calls are file edits, dry runs, flattening,
//! and the operation inference for `edit` without `operation` (improvement
//! over 0.4.0).

use pi_gortex_runtime::diff::classify::{
    edit_kind, flatten, is_edit, may_edit, EditKind, EditOperation,
};
use serde_json::{json, Value};

#[test]
fn legacy_tools_are_edits_unless_dry_run() {
    for tool in ["edit_file", "write_file", "edit_symbol", "batch_edit"] {
        assert_eq!(
            edit_kind(tool, &json!({"path": "a.ts"})),
            Some(EditKind::Legacy),
            "{tool}"
        );
        assert!(
            !is_edit(tool, &json!({"path": "a.ts", "dry_run": true})),
            "{tool} dry run"
        );
        assert!(
            !is_edit(tool, &json!({"options": {"dry_run": true}})),
            "{tool} nested dry run"
        );
    }
}

#[test]
fn edit_facade_operations_that_write_are_edits() {
    for (op, expected) in [
        ("file", EditOperation::File),
        ("symbol", EditOperation::Symbol),
        ("write", EditOperation::Write),
        ("batch", EditOperation::Batch),
    ] {
        assert_eq!(
            edit_kind("edit", &json!({"operation": op})),
            Some(EditKind::Facade(expected))
        );
        assert_eq!(
            edit_kind("edit", &json!({"arguments": {"operation": op}})),
            Some(EditKind::Facade(expected))
        );
    }
}

#[test]
fn other_operations_and_tools_are_not_edits() {
    for op in ["docs", "scaffold", "refactor", "read", ""] {
        assert!(!is_edit("edit", &json!({"operation": op})), "{op}");
    }
    for tool in ["read_file", "search", "get_symbol", "bash", "editfile"] {
        assert!(!is_edit(tool, &json!({"path": "a.ts"})), "{tool}");
    }
    // An operation of the wrong type names no edit operation.
    assert!(!is_edit("edit", &json!({"operation": 3})));
}

#[test]
fn dry_run_is_only_json_true() {
    assert!(!is_edit(
        "edit",
        &json!({"operation": "file", "options": {"dry_run": true}})
    ));
    assert!(is_edit(
        "edit",
        &json!({"operation": "file", "dry_run": "true"})
    ));
    assert!(is_edit("edit", &json!({"operation": "file", "dry_run": 1})));
    assert!(is_edit(
        "edit",
        &json!({"operation": "file", "dry_run": false})
    ));
}

#[test]
fn edit_without_operation_is_inferred_like_the_daemon() {
    let cases: [(Value, EditOperation); 6] = [
        (json!({"changes": [{"path": "a"}]}), EditOperation::Batch),
        (
            json!({"target": {"symbol": "r/a.ts::f", "file": "a.ts"}}),
            EditOperation::Symbol,
        ),
        (
            json!({"target": {"file": "a.ts"}, "content": "x"}),
            EditOperation::Write,
        ),
        (
            json!({"target": {"file": "a.ts"}, "content": "x", "match": "y"}),
            EditOperation::File,
        ),
        (json!({"target": {"file": "a.ts"}}), EditOperation::File),
        (json!({"path": "a.ts"}), EditOperation::File),
    ];
    for (args, expected) in cases {
        assert_eq!(
            edit_kind("edit", &args),
            Some(EditKind::Inferred(expected)),
            "{args}"
        );
    }
    // `changes` wins over a symbol target; `null` counts as absent.
    assert_eq!(
        edit_kind(
            "edit",
            &json!({"changes": "[]", "target": {"symbol": "a::b"}})
        ),
        Some(EditKind::Inferred(EditOperation::Batch))
    );
    assert_eq!(
        edit_kind(
            "edit",
            &json!({"operation": null, "changes": null, "target": {"file": "a"}})
        ),
        Some(EditKind::Inferred(EditOperation::File))
    );
    // Inferred edits honour dry runs too.
    assert!(!is_edit(
        "edit",
        &json!({"target": {"file": "a.ts"}, "options": {"dry_run": true}})
    ));
}

#[test]
fn flatten_merges_containers_in_order_then_top_level_keys() {
    let args = json!({
        "arguments": {"a": 1, "shared": "arguments"},
        "options": {"shared": "options", "dry_run": false},
        "source": {"s": true},
        "context": {"c": 1, "shared": "context"},
        "guard": {"g": 1},
        "output": {"o": 1, "shared": "output"},
        "shared": "top",
        "target": {"file": "src/a.ts", "symbol": "r/src/a.ts::f"},
    });
    let flat = flatten(&args);
    assert_eq!(flat["shared"], json!("top"));
    assert_eq!(flat["a"], json!(1));
    assert_eq!(flat["s"], json!(true));
    assert_eq!(flat["o"], json!(1));
    assert_eq!(flat["path"], json!("src/a.ts"));
    assert_eq!(flat["id"], json!("r/src/a.ts::f"));
    assert!(!flat.contains_key("target"));
    assert!(
        !flat.contains_key("source"),
        "an object container is not copied"
    );

    let later_container_wins = flatten(&json!({"arguments": {"k": 1}, "output": {"k": 2}}));
    assert_eq!(later_container_wins["k"], json!(2));

    // A container key that is not an object is an ordinary key.
    let plain = flatten(&json!({"source": "src/a.ts", "options": 5}));
    assert_eq!(plain["source"], json!("src/a.ts"));
    assert_eq!(plain["options"], json!(5));

    // `target` members that are not strings are not lifted.
    let odd = flatten(&json!({"target": {"file": 1, "symbol": null}, "path": "p"}));
    assert_eq!(odd["path"], json!("p"));
    assert!(!odd.contains_key("id"));

    assert!(flatten(&json!([1, 2])).is_empty());
    assert!(flatten(&json!("x")).is_empty());
}

/// The name-only pre-check the per-call fast path uses: a name it
/// turns away is never an edit, whatever the arguments; a name it lets
/// through is an edit with some arguments.
#[test]
fn may_edit_turns_away_only_names_that_never_edit() {
    let argument_shapes = [
        json!({}),
        json!({"path": "a.ts"}),
        json!({"operation": "file", "path": "a.ts"}),
        json!({"operation": "write", "file": "a.ts", "content": "x"}),
        json!({"arguments": {"operation": "batch"}}),
        json!({"old_string": "a", "new_string": "b", "path": "a.ts"}),
    ];
    for tool in [
        "edit",
        "edit_file",
        "write_file",
        "edit_symbol",
        "batch_edit",
        "search",
        "read",
        "write",
        "Edit",
        "tools_search",
        "",
        "edit_files",
    ] {
        let edits_with_some_args = argument_shapes.iter().any(|args| is_edit(tool, args));
        assert_eq!(may_edit(tool), edits_with_some_args, "{tool}");
    }
}
