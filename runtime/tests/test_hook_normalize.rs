//! HOOK-5..HOOK-9 and HOOK-15: Pi tool calls become envelopes. Checked as the
//! exact JSON written to the hook's stdin (WIRE-13).

use std::path::Path;

use pi_gortex_runtime::diff::paths::expand_pi_path;
use pi_gortex_runtime::hook::{
    canonical_tool_name, envelope_for_prompt, envelope_for_session_start, envelope_for_tool_call,
    normalize_tool_input, EnvelopeContext,
};
use serde_json::{json, Value};

/// A written path as the envelope carries it: as Pi's tools read it, relative when written so.
fn as_pi_reads(written: &str, home: Option<&Path>) -> String {
    expand_pi_path(written, home).to_string_lossy().into_owned()
}

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
    let prompt = envelope_for_prompt("explain the hook exchange", &ctx("sid")).expect("sent");
    assert_eq!(
        wire(&prompt),
        json!({"event":"prompt","prompt":"explain the hook exchange","cwd":"/repo","session_id":"sid"})
    );
    assert!(
        envelope_for_prompt("/reload", &ctx("sid")).is_none(),
        "slash commands never sent"
    );
    assert!(envelope_for_prompt("  ", &ctx("sid")).is_none());
}

/// A path below the test's home `/home/u`, as Node's `path.join` writes it on this platform
/// (`\\home\\u\\…` on Windows).
fn under_home(unix: &str) -> String {
    if cfg!(windows) {
        unix.replace('/', "\\")
    } else {
        unix.to_string()
    }
}

#[test]
fn tilde_names_join_as_node_path_join_joins_them() {
    // Pi's `normalizePath` returns `path.join(homedir(), rest)`: a leading separator in the rest
    // stays below the home, `.` and `..` resolve, a trailing separator is kept. Expected values
    // printed by Node 22's `path.posix.join` and `path.win32.join`.
    let home = Some(Path::new("/home/u"));
    for (written, posix, win32) in [
        ("~/proj/src", "/home/u/proj/src", r"\home\u\proj\src"),
        ("~//etc", "/home/u/etc", r"\home\u\etc"),
        ("~/a/../b", "/home/u/b", r"\home\u\b"),
        ("~/proj/", "/home/u/proj/", r"\home\u\proj\"),
        ("~/a/../../../x", "/x", r"\x"),
        ("~/.", "/home/u", r"\home\u"),
        ("~/./x/.", "/home/u/x", r"\home\u\x"),
        ("~/proj//x", "/home/u/proj/x", r"\home\u\proj\x"),
    ] {
        let expected = if cfg!(windows) { win32 } else { posix };
        assert_eq!(as_pi_reads(written, home), expected, "{written:?}");
    }
}

#[cfg(windows)]
#[test]
fn windows_drive_forms_resolve_as_pi_reads_them() {
    // `normalizeWindowsShellPath` runs before the `~` expansion; `~\` is a home name there.
    let home = Some(Path::new(r"C:\Users\u"));
    assert_eq!(as_pi_reads("/c/src/a.go", home), r"C:\src\a.go");
    assert_eq!(as_pi_reads("@/mnt/d/x", home), r"D:\x");
    assert_eq!(as_pi_reads(r"~\proj\a.go", home), r"C:\Users\u\proj\a.go");
}

#[test]
fn paths_resolve_as_pi_tools_resolve_them() {
    // HOOK-8: Pi's read/grep/find/ls/edit/write drop one leading `@`, then expand `~` and `~/…`
    // to the home directory; `~name` and a `~` inside the path are not expanded.
    let home = Some(Path::new("/home/u"));
    for (written, resolved) in [
        ("@src/a.go", "src/a.go"),
        ("~", "/home/u"),
        ("~/", "/home/u"),
        ("~/proj/src/a.go", "/home/u/proj/src/a.go"),
        ("@~/proj/src", "/home/u/proj/src"),
        ("@~", "/home/u"),
        ("~user/src", "~user/src"),
        ("~src", "~src"),
        ("src/~/a.go", "src/~/a.go"),
        ("@@src", "@src"),
        ("/abs/a.go", "/abs/a.go"),
        ("", ""),
    ] {
        // `~` alone is the home as written; a joined name is Node's `path.join` output.
        let joined = written.trim_start_matches('@') != "~";
        let resolved = if joined && resolved.starts_with("/home/u") {
            under_home(resolved)
        } else {
            resolved.to_string()
        };
        assert_eq!(as_pi_reads(written, home), resolved, "{written:?}");
    }
}

#[test]
fn without_a_home_tilde_paths_stay_as_written() {
    // Fail open: where `os.homedir()` throws, `~` stays as written, the `@` still goes.
    assert_eq!(as_pi_reads("~/proj/a.go", None), "~/proj/a.go");
    assert_eq!(as_pi_reads("@~/proj", None), "~/proj");
    assert_eq!(as_pi_reads("~", None), "~");
}

#[test]
fn an_empty_home_joins_nothing_as_node_path_join() {
    // An empty `HOME` is Node's home on Unix: `path.join("", rest)` is `rest` alone, so Pi's
    // tools read `~/x` in the working directory and `~//etc` at the root. Expected values
    // printed by Node 22's `path.posix.join` and `path.win32.join`; `~` alone is Pi's `""`,
    // the working directory, which the envelope names `.`.
    let home = Some(Path::new(""));
    for (written, posix, win32) in [
        ("~", ".", "."),
        ("~/", ".", "."),
        ("~/proj/a.go", "proj/a.go", r"proj\a.go"),
        ("~/a/..", ".", "."),
        ("~/../x", "../x", r"..\x"),
        ("~//etc", "/etc", r"\etc"),
    ] {
        let expected = if cfg!(windows) { win32 } else { posix };
        assert_eq!(as_pi_reads(written, home), expected, "{written:?}");
    }
}

#[test]
fn grep_and_glob_path_scope_resolved_like_pi() {
    // HOOK-8: Gortex's hook takes the scope of Grep and Glob from `path`, as written; Pi's
    // grep/find/ls search `@src` in `src` and `~/proj` in the home directory.
    let home = Some(Path::new("/home/u"));
    let input = json!({"pattern":"Handler","path":"@src"});
    assert_eq!(
        Value::Object(normalize_tool_input(
            "Grep",
            input.as_object().unwrap(),
            home
        )),
        json!({"pattern":"Handler","path":"src","file_path":"src"})
    );
    let input = json!({"pattern":"*.go","path":"~/proj/src"});
    assert_eq!(
        Value::Object(normalize_tool_input(
            "Glob",
            input.as_object().unwrap(),
            home
        )),
        json!({"pattern":"*.go","path":under_home("/home/u/proj/src"),"file_path":under_home("/home/u/proj/src")})
    );
    let input = json!({"path":"@~/proj"});
    assert_eq!(
        Value::Object(normalize_tool_input(
            "Glob",
            input.as_object().unwrap(),
            home
        )),
        json!({"path":under_home("/home/u/proj"),"file_path":under_home("/home/u/proj"),"pattern":under_home("/home/u/proj")})
    );
}

#[test]
fn read_edit_write_file_path_expands_tilde_and_keeps_path() {
    // HOOK-8: the hook reads `file_path` for Read/Edit/Write; their `path` is an original key.
    let home = Some(Path::new("/home/u"));
    for canonical in ["Read", "Edit", "Write"] {
        let input = json!({"path":"~/proj/a.go"});
        assert_eq!(
            Value::Object(normalize_tool_input(
                canonical,
                input.as_object().unwrap(),
                home
            )),
            json!({"path":"~/proj/a.go","file_path":under_home("/home/u/proj/a.go")}),
            "{canonical}"
        );
    }
}

#[test]
fn envelope_expands_tilde_with_the_process_home() {
    // The envelope takes the home directory from the environment, as Pi's `os.homedir()` does.
    let envelope = envelope_for_tool_call(
        "grep",
        &json!({"pattern":"x","path":"~/proj"}),
        &ctx("s"),
        no_registry,
    );
    // Set, empty and unset variables are test_home_tilde's matrix; here the home is set.
    let home_variable = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    let home = std::env::var(home_variable).expect("the test runs with a home directory");
    let expected = Path::new(&home).join("proj").to_string_lossy().into_owned();
    let input = wire(&envelope)["tool_input"].clone();
    assert_eq!(input["path"], expected.as_str());
    assert_eq!(input["file_path"], expected.as_str());
}
