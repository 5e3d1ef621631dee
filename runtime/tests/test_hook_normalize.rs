//! HOOK-5..HOOK-9 and HOOK-15: Pi tool calls become envelopes. Checked as the
//! exact JSON written to the hook's stdin (WIRE-13).

use pi_gortex_runtime::hook::{
    canonical_tool_name, envelope_for_prompt, envelope_for_session_start, envelope_for_tool_call,
    EnvelopeContext,
};
use serde_json::{json, Value};

fn ctx(session_id: &str) -> EnvelopeContext {
    EnvelopeContext {
        cwd: "/repo".into(),
        session_id: session_id.into(),
    }
}

fn wire(event: &impl serde::Serialize) -> Value {
    serde_json::to_value(event).expect("serialize")
}

fn no_registry(_: &str) -> Option<&'static str> {
    None
}

#[test]
fn name_map_per_hook_7() {
    for (pi, canonical) in [
        ("read", "Read"),
        ("grep", "Grep"),
        ("find", "Glob"),
        ("ls", "Glob"),
        ("bash", "Bash"),
        ("edit", "Edit"),
        ("write", "Write"),
        ("READ", "Read"),
    ] {
        assert_eq!(canonical_tool_name(pi), Some(canonical), "{pi}");
    }
    let envelope = envelope_for_tool_call("MyTool", &json!({}), &ctx("s"), no_registry);
    assert_eq!(
        envelope.tool_name.as_deref(),
        Some("MyTool"),
        "outside the map: unchanged"
    );
}

#[test]
fn read_path_gains_file_path_spec_example() {
    let envelope = envelope_for_tool_call(
        "read",
        &json!({"path":"src/a.go"}),
        &ctx("01a229b5-042f-7456-9654-522c6a609810"),
        no_registry,
    );
    assert_eq!(
        wire(&envelope),
        json!({"event":"tool_call","tool_name":"Read","tool_input":{"path":"src/a.go","file_path":"src/a.go"},"cwd":"/repo","session_id":"01a229b5-042f-7456-9654-522c6a609810","is_gortex_tool":false})
    );
}

#[test]
fn file_path_drops_the_at_prefix_pi_reads_paths_without() {
    // HOOK-8: Pi's read resolves `@src/a.go` to `src/a.go`; Gortex's hook looks up `file_path`
    // as written, so with the `@` kept an indexed file read this way was never denied.
    let envelope =
        envelope_for_tool_call("read", &json!({"path":"@src/a.go"}), &ctx(""), no_registry);
    assert_eq!(
        envelope.tool_input.unwrap(),
        json!({"path":"@src/a.go","file_path":"src/a.go"})
            .as_object()
            .unwrap()
            .clone()
    );
}

#[test]
fn ls_uses_file_path_as_glob_pattern_and_keeps_empty_context() {
    let envelope = envelope_for_tool_call("ls", &json!({"path":"src"}), &ctx(""), no_registry);
    assert_eq!(
        wire(&envelope),
        json!({"event":"tool_call","tool_name":"Glob","tool_input":{"path":"src","file_path":"src","pattern":"src"},"cwd":"/repo","session_id":"","is_gortex_tool":false})
    );
}

#[test]
fn key_map_takes_first_non_empty_string_candidate() {
    let envelope = envelope_for_tool_call(
        "grep",
        &json!({"file_path":"","path":7,"file":"a.rs","glob":"*.rs","pattern":"","cmd":"x","command":["no"]}),
        &ctx("s"),
        no_registry,
    );
    let input = wire(&envelope)["tool_input"].clone();
    assert_eq!(
        input["file_path"], "a.rs",
        "empty and non-string candidates skipped"
    );
    assert_eq!(input["pattern"], "*.rs");
    assert_eq!(input["command"], "x");
    assert_eq!(input["path"], 7, "original keys are kept");
}

#[test]
fn no_source_adds_no_key() {
    let envelope = envelope_for_tool_call("bash", &json!({"timeout":5}), &ctx("s"), no_registry);
    assert_eq!(wire(&envelope)["tool_input"], json!({"timeout":5}));
    let envelope = envelope_for_tool_call("read", &json!("not an object"), &ctx("s"), no_registry);
    assert_eq!(wire(&envelope)["tool_input"], json!({}));
}

#[test]
fn own_client_alias_is_sent_by_bare_daemon_name() {
    // HOOK-6 (improvement over 0.4.0): `gortex_read` goes as `read`, raw input.
    let registry = |name: &str| match name {
        "gortex_read" => Some("read"),
        "explore" => Some("explore"),
        _ => None,
    };
    let input = json!({"target":{"file":"src/a.go"}});
    let envelope = envelope_for_tool_call("gortex_read", &input, &ctx("01a2"), registry);
    assert_eq!(
        wire(&envelope),
        json!({"event":"tool_call","tool_name":"read","tool_input":{"target":{"file":"src/a.go"}},"cwd":"/repo","session_id":"01a2","is_gortex_tool":true})
    );
    let envelope = envelope_for_tool_call("explore", &json!({"path":"x"}), &ctx("s"), registry);
    assert_eq!(envelope.tool_name.as_deref(), Some("explore"));
    assert_eq!(
        wire(&envelope)["tool_input"],
        json!({"path":"x"}),
        "graph input not normalized"
    );
}

#[test]
fn native_prefix_is_stripped_and_other_servers_are_not_graph() {
    let envelope = envelope_for_tool_call(
        "mcp__gortex__read",
        &json!({"target":{"file":"src/a.go"}}),
        &ctx("s"),
        no_registry,
    );
    assert_eq!(envelope.tool_name.as_deref(), Some("read"));
    assert_eq!(envelope.is_gortex_tool, Some(true));
    let envelope = envelope_for_tool_call(
        "mcp__docs__read",
        &json!({"path":"a"}),
        &ctx("s"),
        no_registry,
    );
    assert_eq!(
        envelope.tool_name.as_deref(),
        Some("mcp__docs__read"),
        "skips the name map"
    );
    assert_eq!(envelope.is_gortex_tool, Some(false));
    // An unregistered `gortex_` name is not ours.
    let envelope = envelope_for_tool_call("gortex_read", &json!({}), &ctx("s"), no_registry);
    assert_eq!(envelope.is_gortex_tool, Some(false));
}

#[test]
fn session_start_and_prompt_envelopes() {
    assert_eq!(
        wire(&envelope_for_session_start("/repo")),
        json!({"event":"session_start","cwd":"/repo"})
    );
    let prompt = envelope_for_prompt("explain the hook bridge", &ctx("sid")).expect("sent");
    assert_eq!(
        wire(&prompt),
        json!({"event":"prompt","prompt":"explain the hook bridge","cwd":"/repo","session_id":"sid"})
    );
    assert!(
        envelope_for_prompt("/reload", &ctx("sid")).is_none(),
        "slash commands never sent"
    );
    assert!(envelope_for_prompt("  ", &ctx("sid")).is_none());
}
