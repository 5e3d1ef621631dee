//! FAKE-5: facade and legacy deferred surfaces, `tools_search` promotion, default replies,
//! scenario call overrides, the untracked error and paging.

mod common;
use common::{Fake, Mcp};
use serde_json::{json, Value};

fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed"))
}

fn started(fake: &Fake) -> Mcp {
    let mut m = fake.mcp();
    m.initialize();
    m
}

#[test]
fn facade_lists_exactly_the_21_tools_with_wire6_schemas() {
    let fake = Fake::defaults();
    let mut m = started(&fake);
    let list = m.call("tools/list", json!({}));
    let expected = [
        "analyze",
        "ask",
        "capabilities",
        "change",
        "edit",
        "explore",
        "overlay",
        "pr",
        "publish_review",
        "read",
        "recall",
        "refactor",
        "relations",
        "remember",
        "response",
        "review",
        "search",
        "session",
        "trace",
        "workspace",
        "workspace_admin",
    ];
    assert_eq!(names(&list), expected);
    assert!(list["result"].get("nextCursor").is_none());
    let search = tool(&list, "search");
    assert_eq!(
        search["inputSchema"]["properties"]["operation"]["enum"],
        json!([
            "artifacts",
            "ast",
            "completion",
            "files",
            "symbols",
            "text",
            "winnow"
        ])
    );
    assert_eq!(search["annotations"]["readOnlyHint"], true);
    assert_eq!(
        tool(&list, "read")["inputSchema"]["properties"]["operation"]["enum"],
        json!([
            "artifact",
            "editing_context",
            "file",
            "history",
            "source",
            "summary",
            "symbols"
        ])
    );
    let edit = tool(&list, "edit");
    assert_eq!(
        edit["inputSchema"]["properties"]["operation"]["enum"],
        json!([
            "batch",
            "docs",
            "export_graph",
            "file",
            "scaffold",
            "skill",
            "symbol",
            "write",
            "wiki",
            "apply_overlay"
        ])
    );
    assert_eq!(edit["annotations"]["readOnlyHint"], false);
    assert!(edit["inputSchema"]["properties"]["target"]["properties"]["symbols"].is_object());
    assert!(tool(&list, "analyze")["inputSchema"]["properties"]["kind"]["enum"].is_array());
    assert_eq!(
        tool(&list, "ask")["inputSchema"]["required"],
        json!(["question"])
    );
    for cold in [
        "publish_review",
        "pr",
        "recall",
        "remember",
        "workspace",
        "workspace_admin",
        "overlay",
        "response",
    ] {
        let props = &tool(&list, cold)["inputSchema"]["properties"];
        let keys: Vec<&String> = props.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["operation", "arguments"], "{cold}");
    }
    for t in list["result"]["tools"].as_array().unwrap() {
        assert!(t["description"].as_str().unwrap().len() > 10);
        assert_eq!(t["inputSchema"]["type"], "object");
    }
}

#[test]
fn default_reply_and_facade_meta() {
    let fake = Fake::defaults();
    let mut m = started(&fake);
    let r = m.tool("search", json!({"operation": "symbols", "query": "Foo"}));
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": "[fake-gortex] search symbols {\"operation\":\"symbols\",\"query\":\"Foo\"}"}])
    );
    assert_eq!(r["result"]["isError"], false);
    assert_eq!(
        r["result"]["_meta"]["gortex_facade"],
        json!({"surface_version": "facade-v1", "facade": "search", "operation": "symbols", "canonical_tool": "search_symbols"})
    );
    assert_eq!(
        m.tool_text("analyze", json!({"kind": "hotspots"})),
        "[fake-gortex] analyze hotspots {\"kind\":\"hotspots\"}"
    );
    assert_eq!(
        m.tool_text("capabilities", json!({})),
        "[fake-gortex] capabilities - {}"
    );
    let r = m.tool("get_callers", json!({}));
    assert_eq!(r["error"]["code"], -32601);
    assert_eq!(
        r["error"]["message"],
        "tool \"get_callers\" is not available in this client's tool set (gortex mcp --tools)"
    );
}

#[test]
fn scenario_call_overrides_text_structured_error_and_delay() {
    let fake = Fake::new(json!({"calls": {
        "ask": {"text": "forty-two", "structured": {"answer": 42}, "is_error": true},
        "trace": {"delay_ms": 50}
    }}));
    let mut m = started(&fake);
    let r = m.tool("ask", json!({"question": "?"}));
    assert_eq!(r["result"]["content"][0]["text"], "forty-two");
    assert_eq!(r["result"]["structuredContent"], json!({"answer": 42}));
    assert_eq!(r["result"]["isError"], true);
    // The delayed reply does not hold up a later request: the ping answer comes first.
    let slow = m.request(
        "tools/call",
        json!({"name": "trace", "arguments": {"operation": "path"}}),
    );
    let ping = m.request("ping", json!({}));
    assert_eq!(m.frame()["id"], json!(ping));
    let late = m.frame();
    assert_eq!(late["id"], json!(slow));
    assert_eq!(
        late["result"]["content"][0]["text"],
        "[fake-gortex] trace path {\"operation\":\"path\"}"
    );
}

#[test]
fn untracked_repo_rejects_every_call_but_capabilities() {
    let fake = Fake::new(json!({"tracked": false}));
    let mut m = started(&fake);
    let r = m.tool("search", json!({"operation": "text"}));
    let cwd = fake.dir.to_string_lossy().to_string();
    assert_eq!(r["error"]["code"], -32000);
    assert_eq!(
        r["error"]["message"],
        format!("repository not tracked: {cwd}")
    );
    assert_eq!(r["error"]["data"]["error_code"], "repo_not_tracked");
    assert_eq!(r["error"]["data"]["path"], cwd);
    assert!(m.tool("capabilities", json!({}))["result"].is_object());
}

#[test]
fn paging_uses_opaque_page_cursors() {
    let fake = Fake::new(json!({"page_size": 8}));
    let mut m = started(&fake);
    let p1 = m.call("tools/list", json!({}));
    assert_eq!(names(&p1).len(), 8);
    assert_eq!(p1["result"]["nextCursor"], "page-2");
    let p2 = m.call("tools/list", json!({"cursor": "page-2"}));
    assert_eq!(p2["result"]["nextCursor"], "page-3");
    let p3 = m.call("tools/list", json!({"cursor": "page-3"}));
    assert_eq!(names(&p3).len(), 5);
    assert!(p3["result"].get("nextCursor").is_none());
    let all: Vec<String> = [names(&p1), names(&p2), names(&p3)].concat();
    assert_eq!(all.len(), 21);
    assert_eq!(
        m.call("tools/list", json!({"cursor": "bogus"}))["error"]["code"],
        -32602
    );
}

#[test]
fn legacy_presets_are_eager_with_profile_and_search() {
    let nav = Fake::defaults().with_env("GORTEX_TOOLS", "nav");
    let mut m = started(&nav);
    let list = names(&m.call("tools/list", json!({})));
    assert_eq!(list.len(), 19 + 2);
    assert_eq!(list[0], "explore");
    assert_eq!(&list[19..], ["tool_profile", "tools_search"]);

    let edit = Fake::defaults().with_env("GORTEX_TOOLS", "edit");
    let mut m = started(&edit);
    let list = names(&m.call("tools/list", json!({})));
    assert!(list.contains(&"edit_file".to_string()) && list.contains(&"batch_edit".to_string()));
    assert_eq!(list.len(), 21 + 2);

    let ro = Fake::defaults().with_env("GORTEX_TOOLS", "readonly");
    let mut m = started(&ro);
    let list = names(&m.call("tools/list", json!({})));
    assert_eq!(list.len(), 22 + 2);
    assert!(list.contains(&"get_architecture".to_string()));

    let custom = Fake::defaults().with_env("GORTEX_TOOLS", "read_file,find_usages");
    let mut m = started(&custom);
    let list = m.call("tools/list", json!({}));
    assert_eq!(
        names(&list),
        ["read_file", "find_usages", "tool_profile", "tools_search"]
    );
    assert_eq!(
        tool(&list, "read_file")["inputSchema"]["required"],
        json!(["path"])
    );
}

#[test]
fn tools_search_promotes_and_announces_before_the_reply() {
    let fake =
        Fake::new(json!({"promote_notify": {"count_per_tool": 2}})).with_env("GORTEX_TOOLS", "nav");
    let mut m = started(&fake);
    let id = m.request(
        "tools/call",
        json!({"name": "tools_search", "arguments": {"query": "select:find_clones,why"}}),
    );
    for _ in 0..4 {
        assert_eq!(m.frame()["method"], "notifications/tools/list_changed");
    }
    let r = m.frame();
    assert_eq!(r["id"], json!(id));
    let payload: Value =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(payload["query"], "select:find_clones,why");
    assert_eq!(payload["promoted"], json!(["find_clones", "why"]));
    assert_eq!(payload["omitted_count"], 0);
    assert_eq!(payload["tools"][0]["name"], "find_clones");
    assert!(payload["tools"][0]["input_schema"].is_object());
    let list = names(&m.call("tools/list", json!({})));
    assert!(list.contains(&"find_clones".to_string()) && list.contains(&"why".to_string()));
    assert_eq!(
        fake.events("promote")[0]["tools"],
        json!(["find_clones", "why"])
    );
}

#[test]
fn tools_search_after_reply_delayed_and_without_promotion() {
    let after = Fake::new(json!({"promote_notify": {"when": "after_reply"}}))
        .with_env("GORTEX_TOOLS", "nav");
    let mut m = started(&after);
    let id = m.request(
        "tools/call",
        json!({"name": "tools_search", "arguments": {"query": "clone"}}),
    );
    assert_eq!(m.frame()["id"], json!(id));
    assert_eq!(m.frame()["method"], "notifications/tools/list_changed");

    let delayed = Fake::new(json!({"promote_notify": {"when": "delayed", "spacing_ms": 5}}))
        .with_env("GORTEX_TOOLS", "nav");
    let mut m = started(&delayed);
    let id = m.request(
        "tools/call",
        json!({"name": "tools_search", "arguments": {"query": "+get_ churn"}}),
    );
    let r = m.frame();
    assert_eq!(r["id"], json!(id));
    let payload: Value =
        serde_json::from_str(r["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(payload["promoted"], json!(["get_churn_rate"]));
    assert_eq!(m.frame()["method"], "notifications/tools/list_changed");

    let browse = Fake::defaults().with_env("GORTEX_TOOLS", "nav");
    let mut m = started(&browse);
    let text = m.tool_text("tools_search", json!({"query": "", "promote": false}));
    let payload: Value = serde_json::from_str(&text).unwrap();
    assert!(payload["browse_names"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "why"));
    assert_eq!(payload["promoted"], json!([]));
    // Nothing was announced: the next frame is the ping reply.
    assert_eq!(m.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn direct_call_to_a_deferred_tool_promotes_silently() {
    let fake = Fake::defaults().with_env("GORTEX_TOOLS", "nav");
    let mut m = started(&fake);
    assert_eq!(
        m.tool_text("why", json!({"id": "a.go::F"})),
        "[fake-gortex] why - {\"id\":\"a.go::F\"}"
    );
    assert!(names(&m.call("tools/list", json!({}))).contains(&"why".to_string()));
    let r = m.tool("no_such_tool", json!({}));
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn hide_mode_has_no_tools_search_and_rejects_outside_calls() {
    let fake = Fake::defaults()
        .with_env("GORTEX_TOOLS", "nav")
        .with_env("GORTEX_TOOLS_MODE", "hide");
    let mut m = started(&fake);
    let list = names(&m.call("tools/list", json!({})));
    assert!(!list.contains(&"tools_search".to_string()));
    assert_eq!(list.last().unwrap(), "tool_profile");
    let r = m.tool("why", json!({}));
    assert_eq!(
        r["error"],
        json!({"code": -32601, "message": "tool \"why\" is not available in this client's tool set (gortex mcp --tools)"})
    );
}

#[test]
fn surface_key_overrides_the_environment() {
    let fake = Fake::new(json!({"surface": "facade"})).with_env("GORTEX_TOOLS", "nav");
    let mut m = started(&fake);
    assert_eq!(names(&m.call("tools/list", json!({}))).len(), 21);
    let legacy = Fake::new(json!({"surface": "legacy"}));
    let mut m = started(&legacy);
    assert!(names(&m.call("tools/list", json!({}))).contains(&"tools_search".to_string()));
}

#[test]
fn a_reply_held_until_lists_waits_for_that_many_listings() {
    // The session's own listing is the first; the reply waits for the second,
    // and a ping sent in between is answered before it.
    let fake = Fake::new(json!({"calls": {"trace": {"until_lists": 2}}}));
    let mut m = started(&fake);
    assert!(m.call("tools/list", json!({}))["result"]["tools"].is_array());
    let held = m.request("tools/call", json!({"name": "trace", "arguments": {}}));
    let ping = m.request("ping", json!({}));
    assert_eq!(m.frame()["id"], json!(ping), "the held reply waits");
    let relist = m.request("tools/list", json!({}));
    assert_eq!(m.frame()["id"], json!(relist));
    assert_eq!(
        m.frame()["id"],
        json!(held),
        "released by the second listing"
    );
}
