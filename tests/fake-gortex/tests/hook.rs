//! FAKE-6: the `hook` verb: slots, classifier texts, postures with session state across
//! processes, scripted decisions, and argv handling.

mod common;
use common::Fake;
use serde_json::{json, Value};

const FOOTER: &str = "  - Native Gortex MCP is mandatory for this profile. If a referenced Gortex tool is missing from the callable MCP tools despite the server being configured, surface a Gortex MCP integration failure to the user and stop. Do not start a daemon or use any CLI/shell fallback.\n";

fn call(tool: &str, input: Value) -> Value {
    json!({"event": "tool_call", "tool_name": tool, "tool_input": input, "cwd": "/repo", "session_id": "", "is_gortex_tool": false})
}

fn call_in(session: &str, tool: &str, input: Value) -> Value {
    let mut c = call(tool, input);
    c["session_id"] = json!(session);
    c
}

fn reason(d: &Value) -> String {
    assert_eq!(d["block"], true, "expected a block, got {d}");
    d["reason"].as_str().unwrap().to_string()
}

#[test]
fn orientation_standard_ready_text() {
    let fake = Fake::defaults();
    let repo = common::repo(&fake, "proj");
    let cwd = repo.to_string_lossy().to_string();
    let d = fake.decide(&[], &json!({"event": "Session-Start", "cwd": cwd}));
    let expected = format!(
        "## Gortex Session Orientation\n\n✓ Gortex daemon ready (v0.64.4, uptime 5s). 1 tracked repo(s), 1200 nodes, 3400 edges across 1 workspace(s).\n\n**cwd `{cwd}` is tracked** as repo `proj` (workspace: `proj`, 1200 nodes). Enforcement is active.\n**Rule:** For an explicitly named file that the user asks you to read, review, or summarize, "
    );
    let text = d["orientation"].as_str().unwrap();
    assert!(text.starts_with(&expected), "{text}");
    assert_eq!(d.as_object().unwrap().len(), 1);
}

#[test]
fn orientation_tiers() {
    let cases = [
        ("standard_partial", "✓ Gortex daemon ready — references queryable (v0.64.4, uptime 1m); semantic enrichment still running. 1 tracked repo(s), "),
        ("warming", "⏳ Gortex daemon warming up (v0.64.4, 3s elapsed). Enforcement is partial until ready. "),
        ("lean_ready", "✓ Gortex ready (v0.64.4): 1 repo(s), 1200 nodes.\n"),
        ("lean_warming", "✓ Gortex warming up — enforcement partial (v0.64.4): 1 repo(s), 1200 nodes.\n"),
        ("vv", "✓ Gortex daemon ready (vv0.64.4, uptime 5s). 1 tracked repo(s)"),
        ("unknown_version", "✓ Gortex daemon ready (vunknown, uptime 5s). "),
        ("unreachable", "⚠️  **Gortex graph transport is unreachable.** Required native MCP tools and code-operation enforcement cannot be assumed healthy. "),
    ];
    for (tier, line) in cases {
        let fake = Fake::new(json!({"orientation": tier}));
        let d = fake.decide(&[], &json!({"event": "before_agent_start", "cwd": "/repo"}));
        let text = d["orientation"].as_str().unwrap();
        let prefix = format!("## Gortex Session Orientation\n\n{line}");
        assert!(text.starts_with(&prefix), "{tier}: {text}");
    }
    let none = Fake::new(json!({"orientation": "none"}));
    assert_eq!(
        none.decide(&[], &json!({"event": "session_start", "cwd": "/repo"})),
        json!({})
    );
}

#[test]
fn orientation_when_untracked_or_unreachable() {
    let fake = Fake::new(json!({"tracked": false, "version": "0.60.0"}));
    let d = fake.decide(&[], &json!({"event": "session_start", "cwd": "/elsewhere"}));
    let text = d["orientation"].as_str().unwrap();
    assert!(text.contains("(v0.60.0, uptime 5s)"));
    assert!(text.contains("\n\n⚠️  **cwd `/elsewhere` is not covered by any tracked repo.** "));
    let down = Fake::new(json!({"daemon_up": false}));
    let d = down.decide(&[], &json!({"event": "session_start", "cwd": "/repo"}));
    assert!(d["orientation"]
        .as_str()
        .unwrap()
        .contains("**Gortex graph transport is unreachable.**"));
    assert_eq!(
        down.decide(&[], &call("Read", json!({"file_path": "src/a.go"}))),
        json!({})
    );
}

#[test]
fn prompt_slot() {
    let fake = Fake::defaults();
    let d = fake.decide(
        &[],
        &json!({"event": "user_prompt", "prompt": "fix parseConfig please", "cwd": "/repo"}),
    );
    assert!(d["additional_context"]
        .as_str()
        .unwrap()
        .starts_with("## Gortex — relevant indexed symbols for your request\n"));
    assert_eq!(
        fake.decide(
            &[],
            &json!({"event": "prompt", "prompt": "/help me", "cwd": "/r"})
        ),
        json!({})
    );
    assert_eq!(
        fake.decide(
            &[],
            &json!({"event": "prompt", "prompt": "a b", "cwd": "/r"})
        ),
        json!({})
    );
    assert_eq!(
        fake.decide(&[], &json!({"event": "turn_end", "cwd": "/r"})),
        json!({})
    );
}

#[test]
fn read_of_indexed_source_is_denied_with_the_exact_text() {
    let fake = Fake::defaults();
    let r = reason(&fake.decide(
        &[],
        &call("Read", json!({"path": "src/a.go", "file_path": "src/a.go"})),
    ));
    assert!(r.starts_with("[Gortex] BLOCKED: Read of src/a.go (12 symbols indexed). Call `explore` first, then use `read` instead:\n"));
    assert!(r.ends_with(FOOTER));
    assert_eq!(
        fake.decide(&[], &call("Read", json!({"file_path": "README.md"}))),
        json!({})
    );
    let untracked = Fake::new(json!({"tracked": false}));
    assert_eq!(
        untracked.decide(&[], &call("Read", json!({"file_path": "src/a.go"}))),
        json!({})
    );
}

#[test]
fn grep_glob_and_bash() {
    let fake = Fake::defaults();
    let r = reason(&fake.decide(&[], &call("Grep", json!({"pattern": "TODO"}))));
    assert!(r.starts_with("[Gortex] BLOCKED: Grep `TODO` targets indexed source. Use the indexed search surface instead:\n"));
    assert!(r.ends_with(FOOTER));
    assert_eq!(
        fake.decide(&[], &call("Grep", json!({"pattern": "x", "type": "md"}))),
        json!({})
    );
    assert_eq!(
        fake.decide(
            &[],
            &call("Grep", json!({"pattern": "x", "glob": "*.json"}))
        ),
        json!({})
    );
    let r = reason(&fake.decide(&[], &call("Glob", json!({"pattern": "**/*.ts"}))));
    assert!(r.starts_with("[Gortex] BLOCKED: Glob `**/*.ts` targets indexed source. Use:\n"));
    assert_eq!(
        fake.decide(
            &[],
            &call(
                "Glob",
                json!({"pattern": "src", "path": "src", "file_path": "src"})
            )
        ),
        json!({})
    );
    let r = reason(&fake.decide(&[], &call("Bash", json!({"command": "cat src/main.rs"}))));
    assert!(r.starts_with(
        "[Gortex] BLOCKED: Bash `cat src/main.rs` reads indexed source (12 symbols). "
    ));
    assert!(r.ends_with(FOOTER));
    let r = reason(&fake.decide(&[], &call("Bash", json!({"command": "rg -n foo src"}))));
    assert!(r.starts_with("[Gortex] BLOCKED: Grep `foo` targets indexed source."));
    let r = reason(&fake.decide(
        &[],
        &call("Bash", json!({"command": "find . -name '*.go'"})),
    ));
    assert!(r.starts_with("[Gortex] BLOCKED: Grep `*.go` targets indexed source."));
    assert_eq!(
        fake.decide(&[], &call("Bash", json!({"command": "ls -la"}))),
        json!({})
    );
    assert_eq!(
        fake.decide(&[], &call("Bash", json!({"command": "cat notes.md"}))),
        json!({})
    );
    assert_eq!(
        fake.decide(&[], &call("WebFetch", json!({"url": "x"}))),
        json!({})
    );
}

#[test]
fn edit_and_write_advise_or_block() {
    let fake = Fake::defaults();
    let d = fake.decide(&[], &call("Edit", json!({"file_path": "src/a.go"})));
    let text = d["additional_context"].as_str().unwrap();
    assert!(
        text.starts_with("[Gortex] Edit of src/a.go (indexed source). Use Gortex MCP edit tools ")
    );
    assert!(text.ends_with(FOOTER));
    let d = fake.decide(&[], &call("Write", json!({"file_path": "src/b.go"})));
    assert!(d["additional_context"]
        .as_str()
        .unwrap()
        .starts_with("[Gortex] Write of src/b.go (indexed source — would overwrite existing tracked file). Use:\n"));
    let strict = Fake::defaults().with_env("GORTEX_HOOK_BLOCK_EDIT", "1");
    let r = reason(&strict.decide(&[], &call("Edit", json!({"file_path": "src/a.go"}))));
    assert!(r.starts_with("[Gortex] BLOCKED: Edit of src/a.go (indexed source)."));
    let off = Fake::defaults().with_env("GORTEX_HOOK_BLOCK_EDIT", "off");
    assert!(
        off.decide(&[], &call("Edit", json!({"file_path": "src/a.go"})))["additional_context"]
            .is_string()
    );
}

#[test]
fn gortex_tools_always_pass() {
    let fake = Fake::defaults();
    let mut c = call("read", json!({"target": {"file": "src/a.go"}}));
    c["is_gortex_tool"] = json!(true);
    assert_eq!(fake.decide(&[], &c), json!({}));
}

#[test]
fn enrich_turns_a_deny_into_context() {
    let fake = Fake::defaults();
    let d = fake.decide(
        &["--mode=enrich"],
        &call("Read", json!({"file_path": "src/a.go"})),
    );
    assert!(d["additional_context"]
        .as_str()
        .unwrap()
        .starts_with("[Gortex] BLOCKED: Read of src/a.go"));
    assert!(d.get("block").is_none());
}

#[test]
fn consult_unlock_blocks_until_the_session_consulted_the_graph() {
    let fake = Fake::defaults();
    let read = call_in("sess/1", "Read", json!({"file_path": "src/a.go"}));
    let r = reason(&fake.decide(&["--mode=consult-unlock"], &read));
    assert!(r.ends_with("[Gortex] consult-unlock: query the Gortex graph once (any mcp__gortex__ tool) to unlock fallback file reads for the rest of this session."));
    let mut g = call_in("sess/1", "search", json!({}));
    g["is_gortex_tool"] = json!(true);
    assert_eq!(fake.decide(&["--mode=consult-unlock"], &g), json!({}));
    // A later process sees the consulted session and only enriches.
    let d = fake.decide(&["--mode", "consult-unlock"], &read);
    assert!(d["additional_context"].is_string(), "{d}");
    assert!(fake.dir.join("sess_1.json").exists());
    // Another session is still locked.
    reason(&fake.decide(
        &["--mode=consult-unlock"],
        &call_in("other", "Read", json!({"file_path": "src/a.go"})),
    ));
}

#[test]
fn nudge_blocks_the_third_flagged_call_in_a_row_once() {
    let fake = Fake::defaults();
    let grep = call_in("n1", "Grep", json!({"pattern": "x"}));
    assert_eq!(fake.decide(&["--mode=nudge"], &grep), json!({}));
    assert_eq!(fake.decide(&["--mode=adaptive-nudge"], &grep), json!({}));
    let r = reason(&fake.decide(&["--mode=nudge"], &grep));
    assert!(r.starts_with("[Gortex] You've made several raw file-search calls in a row. "));
    assert!(r.ends_with("This reminder fires once — the next call will proceed."));
    assert_eq!(fake.decide(&["--mode=nudge"], &grep), json!({}));
    // A Gortex tool call resets the streak.
    assert_eq!(fake.decide(&["--mode=nudge"], &grep), json!({}));
    let mut g = call_in("n1", "search", json!({}));
    g["is_gortex_tool"] = json!(true);
    fake.decide(&["--mode=nudge"], &g);
    assert_eq!(fake.decide(&["--mode=nudge"], &grep), json!({}));
    assert_eq!(fake.decide(&["--mode=nudge"], &grep), json!({}));
    reason(&fake.decide(&["--mode=nudge"], &grep));
}

#[test]
fn session_dir_env_overrides_the_state_dir() {
    let fake = Fake::defaults();
    let sessions = fake.dir.join("sessions");
    let fake = fake.with_env("GORTEX_HOOK_SESSION_DIR", &sessions.to_string_lossy());
    let mut g = call_in("abc", "search", json!({}));
    g["is_gortex_tool"] = json!(true);
    fake.decide(&[], &g);
    assert!(sessions.join("abc.json").exists());
}

#[test]
fn scripted_decisions_replace_the_classifier() {
    let fake = Fake::new(json!({"decisions": [
        {"match": {"event": "tool_call", "tool_name": "Read", "file_path_glob": "docs/**"}, "decision": {"block": true, "reason": "[Gortex] BLOCKED: scripted"}},
        {"match": {"tool_name": "Read"}, "decision": {"additional_context": "[Gortex] scripted context"}},
        {"match": {"event": "session_start"}, "decision": {"orientation": "custom"}}
    ]}));
    assert_eq!(
        fake.decide(&[], &call("Read", json!({"file_path": "docs/x/y.md"}))),
        json!({"block": true, "reason": "[Gortex] BLOCKED: scripted"})
    );
    assert_eq!(
        fake.decide(&[], &call("Read", json!({"file_path": "src/a.go"}))),
        json!({"additional_context": "[Gortex] scripted context"})
    );
    assert_eq!(
        fake.decide(&[], &json!({"event": "session_start"})),
        json!({"orientation": "custom"})
    );
    assert!(fake.decide(&[], &call("Grep", json!({"pattern": "x"})))["block"] == true);
}

#[test]
fn argv_and_input_handling() {
    let fake = Fake::defaults();
    let out = fake.run(&["hook", "--agent=claude"], b"{}");
    assert_eq!(out.stdout, b"{}");
    assert_eq!(out.status.code(), Some(0));
    let out = fake.run(&["hook", "--agent=pi", "--bogus"], b"{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown flag: --bogus"));
    let out = fake.run(&["hook", "--agent=pi", "--port=9999"], b"garbled {");
    assert_eq!(out.stdout, b"{}");
    assert_eq!(out.status.code(), Some(0));
    let (text, code) = fake.hook(&[], &call("Read", json!({"file_path": "src/a.go"})));
    assert_eq!(code, 0);
    assert!(!text.ends_with('\n'));
    let hooks = fake.events("hook");
    let last = hooks.last().unwrap();
    assert_eq!(last["mode"], "deny");
    assert_eq!(last["code"], 0);
    assert_eq!(last["envelope"]["tool_name"], "Read");
    assert_eq!(last["decision"], text);
    assert_eq!(hooks[hooks.len() - 2]["envelope"], "invalid");
}
