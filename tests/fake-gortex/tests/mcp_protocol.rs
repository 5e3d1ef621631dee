//! FAKE-4: the `mcp` verb's JSON-RPC behaviour and its log records (FAKE-3).

mod common;
use common::Fake;
use serde_json::json;

#[test]
fn initialize_answers_the_wire3_shape_and_logs_the_client_params() {
    let fake = Fake::defaults();
    let mut m = fake.mcp();
    let r = m.initialize();
    let res = &r["result"];
    assert_eq!(res["protocolVersion"], "2025-06-18");
    assert_eq!(
        res["capabilities"],
        json!({"tools": {"listChanged": true}, "resources": {"subscribe": true}})
    );
    assert_eq!(
        res["serverInfo"],
        json!({"name": "gortex", "version": "0.64.4"})
    );
    assert!(res["instructions"]
        .as_str()
        .unwrap()
        .starts_with("MUST use Gortex MCP."));
    let (_, status) = m.finish();
    assert!(status.success());
    let recv = fake.events("recv");
    assert_eq!(recv[0]["method"], "initialize");
    assert_eq!(recv[0]["params"]["clientInfo"]["version"], "1.0.0");
    assert_eq!(
        recv[0]["params"]["capabilities"]["experimental"]["gortex/wire"],
        json!(["gcx"])
    );
    assert_eq!(recv[1]["method"], "notifications/initialized");
    let exit = fake.events("exit");
    assert_eq!(exit[0]["reason"], "stdin_eof");
    assert_eq!(exit[0]["code"], 0);
    let start = &fake.events("start")[0];
    assert_eq!(start["pid"], exit[0]["pid"]);
    // The parent's pid is recorded on Unix; Windows has no cheap lookup and records 0.
    let ppid = start["ppid"].as_u64().unwrap();
    if cfg!(unix) {
        assert!(ppid > 0, "{ppid}");
    } else {
        assert_eq!(ppid, 0);
    }
    assert_eq!(start["verb"], "mcp");
    assert_eq!(start["argv"][1], "mcp");
}

#[test]
fn protocol_negotiation_follows_mcp_go() {
    let fake = Fake::defaults();
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("", "2025-03-26"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let mut m = fake.mcp();
        let r = m.call("initialize", json!({"protocolVersion": asked}));
        assert_eq!(r["result"]["protocolVersion"], answered, "asked {asked:?}");
    }
}

#[test]
fn protocol_override_and_null_version() {
    let fake = Fake::new(json!({"protocol": "2024-11-05", "version": null}));
    let mut m = fake.mcp();
    let r = m.initialize();
    assert_eq!(r["result"]["protocolVersion"], "2024-11-05");
    assert!(r["result"].get("serverInfo").is_none());

    let old = Fake::new(json!({"version": "0.60.0"}));
    let mut m = old.mcp();
    assert_eq!(m.initialize()["result"]["serverInfo"]["version"], "0.60.0");
}

#[test]
fn ping_unknown_methods_notifications_and_empty_lists() {
    let fake = Fake::defaults();
    let mut m = fake.mcp();
    m.initialize();
    assert_eq!(m.call("ping", json!({}))["result"], json!({}));
    let r = m.call("roots/frobnicate", json!({}));
    assert_eq!(
        r["error"],
        json!({"code": -32601, "message": "Method not found: roots/frobnicate"})
    );
    // A notification gets no reply: the next frame answers the following request.
    m.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
    );
    assert_eq!(
        m.call("resources/list", json!({}))["result"],
        json!({"resources": []})
    );
    assert_eq!(
        m.call("prompts/list", json!({}))["result"],
        json!({"prompts": []})
    );
    let (rest, _) = m.finish();
    assert!(rest.is_empty());
    let cancelled = fake
        .events("recv")
        .into_iter()
        .find(|r| r["method"] == "notifications/cancelled")
        .unwrap();
    assert_eq!(cancelled["params"]["requestId"], 7);
    let sends = fake.events("send");
    assert!(sends.iter().all(|s| s["bytes"].as_u64().unwrap() > 0));
    assert!(sends.iter().any(|s| s["method"] == "error"));
}

#[test]
fn unparseable_input_gets_a_parse_error_and_the_server_carries_on() {
    let fake = Fake::defaults();
    let mut m = fake.mcp();
    m.stdin
        .as_mut()
        .map(|s| std::io::Write::write_all(s, b"this is not json\n"))
        .unwrap()
        .unwrap();
    let f = m.frame();
    assert_eq!(f["error"]["code"], -32700);
    assert_eq!(m.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn log_start_records_the_env_subset() {
    let fake = Fake::defaults()
        .with_env("GORTEX_TOOLS", "nav")
        .with_env("GORTEX_TOOLS_MODE", "defer")
        .with_env("GORTEX_BIN", "/x/gortex");
    let m = fake.mcp();
    m.finish();
    let start = &fake.events("start")[0];
    assert_eq!(
        start["env"],
        json!({"GORTEX_TOOLS": "nav", "GORTEX_TOOLS_MODE": "defer", "GORTEX_BIN": "/x/gortex"})
    );
    assert!(start["t"].as_u64().unwrap() > 1_600_000_000_000);
}

// SIGTERM exists on Unix only; on Windows a stop is a kill.
#[cfg(unix)]
#[test]
fn sigterm_ends_the_process_and_is_logged() {
    let fake = Fake::defaults();
    let mut m = fake.mcp();
    m.initialize();
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(m.child.id() as i32, libc::SIGTERM) };
    let status = m.child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    let exit = fake.events("exit");
    assert_eq!(exit.len(), 1);
    assert_eq!(exit[0]["reason"], "sigterm");
}
