//! TOOL-1..TOOL-5, TOOL-10, TOOL-11, MCP-36: the pure catalogue (no processes).

use pi_gortex_runtime::catalogue::{
    alias_note, definition, plan, registered_name, takes_tool_metadata, CatalogueChanges,
    CatalogueState, ToolHints, RESERVED_PI_NAMES,
};
use serde_json::{json, Value};

fn tool(name: &str) -> Value {
    json!({"name": name, "description": format!("{name} tool"), "inputSchema": {"type":"object","properties":{"q":{"type":"string"}}}})
}

fn names(changes: &CatalogueChanges) -> Vec<&str> {
    changes.register.iter().map(|d| d.name.as_str()).collect()
}

#[test]
fn tool_1_2_every_reserved_pi_name_is_aliased_and_others_keep_their_name() {
    assert_eq!(
        RESERVED_PI_NAMES,
        ["read", "grep", "find", "ls", "bash", "edit", "write"]
    );
    for reserved in RESERVED_PI_NAMES {
        assert_eq!(registered_name(reserved), format!("gortex_{reserved}"));
    }
    for plain in ["search", "explore", "powershell", "gortex_read", "Read"] {
        assert_eq!(registered_name(plain), plain);
    }
}

#[test]
fn tool_3_alias_note_is_front_loaded_with_one_blank_line() {
    let read = definition(&tool("read")).unwrap();
    assert_eq!(read.name, "gortex_read");
    assert_eq!(read.label, "gortex_read");
    assert_eq!(read.daemon_name, "read");
    assert_eq!(
        read.description,
        "Gortex's `read` tool, registered as `gortex_read` because Pi has a built-in `read`. Gortex guidance and denial messages that name `read` mean this tool.\n\nread tool"
    );
    assert_eq!(
        alias_note("edit", "gortex_edit"),
        "Gortex's `edit` tool, registered as `gortex_edit` because Pi has a built-in `edit`. Gortex guidance and denial messages that name `edit` mean this tool."
    );
    let search = definition(&tool("search")).unwrap();
    assert_eq!(search.description, "search tool");
}

#[test]
fn tool_3_description_is_trimmed_with_the_name_as_fallback() {
    let trimmed = definition(&json!({"name":"search","description":"  padded \n"})).unwrap();
    assert_eq!(trimmed.description, "padded");
    for missing in [
        json!({"name":"trace"}),
        json!({"name":"trace","description":"   "}),
        json!({"name":"trace","description":7}),
    ] {
        assert_eq!(definition(&missing).unwrap().description, "trace");
    }
    let aliased = definition(&json!({"name":"ls"})).unwrap();
    assert!(aliased.description.ends_with("mean this tool.\n\nls"));
}

#[test]
fn tool_4_schema_is_verbatim_when_an_object_else_an_empty_object_schema() {
    let verbatim = json!({"type":"object","properties":{"operation":{"type":"string","enum":["a","b"]}},"required":["operation"],"x-extra":true});
    let kept = definition(&json!({"name":"search","inputSchema": verbatim.clone()})).unwrap();
    assert_eq!(kept.parameters, verbatim);
    for bad in [json!(null), json!("object"), json!([1]), json!(3)] {
        let replaced = definition(&json!({"name":"search","inputSchema": bad})).unwrap();
        assert_eq!(
            replaced.parameters,
            json!({"type":"object","properties":{}})
        );
    }
    let absent = definition(&json!({"name":"search"})).unwrap();
    assert_eq!(absent.parameters, json!({"type":"object","properties":{}}));
}

#[test]
fn tool_4_tools_without_a_non_empty_name_are_skipped() {
    for nameless in [
        json!({}),
        json!({"name":""}),
        json!({"name":5}),
        json!("read"),
        json!(null),
    ] {
        assert!(definition(&nameless).is_none(), "{nameless}");
    }
}

#[test]
fn tool_5_duplicates_are_registered_once_and_the_registry_maps_back_to_daemon_names() {
    let mut state = CatalogueState::new();
    let changes = state.apply(&[tool("read"), tool("search"), tool("read"), tool("search")]);
    assert_eq!(names(&changes), ["gortex_read", "search"]);
    assert_eq!(state.daemon_name("gortex_read"), Some("read"));
    assert_eq!(state.daemon_name("search"), Some("search"));
    assert_eq!(state.daemon_name("read"), None);
    let again = state.apply(&[tool("read"), tool("search")]);
    assert!(
        again.is_empty(),
        "an unchanged listing registers nothing: {again:?}"
    );
}

#[test]
fn tool_10_withdrawn_tools_are_deactivated_and_relisted_ones_reactivated() {
    let mut state = CatalogueState::new();
    state.apply(&[tool("read"), tool("search"), tool("trace")]);
    let withdrawn = state.apply(&[tool("search")]);
    assert!(withdrawn.register.is_empty());
    assert!(withdrawn.activate.is_empty());
    assert_eq!(withdrawn.deactivate, ["gortex_read", "trace"]);
    assert!(state.is_withdrawn("trace"));
    // A withdrawn tool still maps back for a late call or hook envelope.
    assert_eq!(state.daemon_name("gortex_read"), Some("read"));
    let relisted = state.apply(&[tool("search"), tool("trace"), tool("explore")]);
    assert_eq!(names(&relisted), ["trace", "explore"]);
    assert_eq!(relisted.activate, ["trace"]);
    assert!(relisted.deactivate.is_empty());
    assert!(!state.is_withdrawn("trace"));
    assert!(state.is_withdrawn("gortex_read"));
    assert_eq!(
        relisted.apply_to_active(&["bash".into(), "search".into()]),
        ["bash", "search", "trace"]
    );
    assert_eq!(
        withdrawn.apply_to_active(&[
            "read".into(),
            "gortex_read".into(),
            "trace".into(),
            "search".into()
        ]),
        ["read", "search"]
    );
}

#[test]
fn tool_10_plan_is_pure_and_a_fresh_state_forgets_withdrawals() {
    let listed = CatalogueState::new();
    let (first, after_first) = plan(&[tool("read")], &listed);
    assert_eq!(
        listed,
        CatalogueState::new(),
        "the previous state is untouched"
    );
    let (second, _) = plan(&[], &after_first);
    assert_eq!(second.deactivate, ["gortex_read"]);
    // A new session starts from a fresh state: nothing is withdrawn any more.
    let (fresh, _) = plan(&[tool("read")], &CatalogueState::new());
    assert_eq!(fresh, first);
}

#[test]
fn tool_11_a_late_registered_alias_still_gets_the_full_note() {
    let mut state = CatalogueState::new();
    state.apply(&[tool("search")]);
    let late = state.apply(&[tool("search"), tool("write")]);
    assert_eq!(names(&late), ["gortex_write"]);
    assert!(late.register[0].description.starts_with(
        "Gortex's `write` tool, registered as `gortex_write` because Pi has a built-in `write`."
    ));
}

#[test]
fn tool_10_a_listing_that_changes_nothing_is_empty_and_leaves_the_active_tools() {
    // The own client calls the catalogue listener only for a non-empty change, and
    // the glue calls setActiveTools only when a tool is withdrawn or re-activated.
    let changes_active = |c: &CatalogueChanges| !c.activate.is_empty() || !c.deactivate.is_empty();
    let mut state = CatalogueState::new();
    let first = state.apply(&[tool("search"), tool("trace")]);
    let mut registered: Vec<&str> = state.registered().collect();
    registered.sort_unstable();
    assert_eq!(registered, ["search", "trace"]);
    assert!(!first.is_empty(), "registrations alone are a change");
    assert!(!changes_active(&first), "new tools need no setActiveTools");
    let same = state.apply(&[tool("search"), tool("trace")]);
    assert!(same.is_empty());
    assert!(!changes_active(&same));
    let withdrawn = state.apply(&[tool("search")]);
    assert!(!withdrawn.is_empty(), "a withdrawal alone is a change");
    assert!(changes_active(&withdrawn));
    let back = state.apply(&[tool("search"), tool("trace")]);
    assert_eq!(
        (names(&back), back.activate.as_slice()),
        (vec!["trace"], &["trace".to_string()][..])
    );
    assert!(changes_active(&back));
}

#[test]
fn mcp_36_definition_carries_boolean_hints_and_output_schema_and_title_fills_description() {
    let listed = json!({
        "name": "search",
        "title": "Search symbols",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}}},
        "annotations": {
            "title": "ignored when title is set",
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": "yes",
            "openWorldHint": false,
            "customHint": true
        }
    });
    let search = definition(&listed).unwrap();
    assert_eq!(
        search.annotations,
        Some(ToolHints {
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: None,
            open_world_hint: Some(false),
        })
    );
    assert_eq!(
        search.output_schema,
        Some(json!({"type": "object", "properties": {"hits": {"type": "array"}}}))
    );
    assert_eq!(search.description, "Search symbols");
    let wire = serde_json::to_value(&search).unwrap();
    assert_eq!(
        wire["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false})
    );

    let annotated_title = definition(&json!({"name": "x", "annotations": {"title": "From hints"}}));
    let annotated_title = annotated_title.unwrap();
    assert_eq!(annotated_title.description, "From hints");
    assert_eq!(
        annotated_title.annotations, None,
        "no boolean hint, no annotations"
    );

    let plain =
        definition(&json!({"name": "y", "description": "d", "title": "T", "outputSchema": "no"}));
    let plain = plain.unwrap();
    assert_eq!(plain.description, "d", "a description wins over the title");
    assert_eq!(
        plain.output_schema, None,
        "a non-object outputSchema is dropped"
    );
    let wire = serde_json::to_value(&plain).unwrap();
    assert!(wire.get("annotations").is_none() && wire.get("outputSchema").is_none());
}

#[test]
fn mcp_36_an_older_tool_api_gets_the_definition_without_metadata() {
    let listed = json!({"name": "search", "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}});
    let full = definition(&listed).unwrap();
    assert!(takes_tool_metadata(true) && !takes_tool_metadata(false));
    assert_eq!(full.clone().for_host(true), full);
    let bare = full.clone().for_host(false);
    assert_eq!((bare.annotations, bare.output_schema), (None, None));
    assert_eq!((bare.name, bare.parameters), (full.name, full.parameters));
}
