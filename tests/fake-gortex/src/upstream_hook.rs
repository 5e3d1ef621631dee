//! The `hook` verb handed to Gortex's own hook handler: when `FAKE_GORTEX_UPSTREAM_HOOK` names
//! its binary, the envelope goes to it unchanged and its stdout and exit code come back
//! unchanged, so the decision is the upstream one while the log still records what was sent.
//! `FAKE_GORTEX_HOOK_HOME` becomes the handler's `HOME` (it keeps session state under
//! `$HOME/.gortex`). A scenario with hook faults or scripted `decisions` keeps the simulator's
//! hook: those stand for what the real handler cannot be made to do.

use crate::log;
use crate::scenario::{Fault, Scenario};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// The upstream handler to relay to, unless the scenario asks for the simulator.
pub fn binary(sc: &Scenario) -> Option<std::ffi::OsString> {
    let simulated = !sc.decisions.is_empty()
        || sc.faults.iter().any(|f| {
            matches!(
                f,
                Fault::HookTimeout { .. }
                    | Fault::HookGarbage { .. }
                    | Fault::HookExit { .. }
                    | Fault::HookHuge { .. }
                    | Fault::HookStderr { .. }
            )
        });
    std::env::var_os("FAKE_GORTEX_UPSTREAM_HOOK").filter(|p| !simulated && !p.is_empty())
}

/// Relays one hook run; returns the handler's exit code (1 when it cannot be started).
pub fn relay(bin: &std::ffi::OsStr, argv: &[String], flags: &[String]) -> i32 {
    let mode = flags
        .iter()
        .find_map(|f| f.strip_prefix("--mode="))
        .unwrap_or("deny");
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let mut command = Command::new(bin);
    command
        .arg("hook")
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(home) = std::env::var_os("FAKE_GORTEX_HOOK_HOME") {
        command.env("HOME", home);
    }
    let (stdout, code) = match command.spawn() {
        Ok(mut child) => {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(&input);
            }
            match child.wait_with_output() {
                Ok(out) => (out.stdout, out.status.code().unwrap_or(1)),
                Err(_) => (Vec::new(), 1),
            }
        }
        Err(e) => {
            eprintln!("fake-gortex: cannot start the upstream hook: {e}");
            (Vec::new(), 1)
        }
    };
    let envelope: Value = serde_json::from_slice(&input).unwrap_or(Value::from("invalid"));
    let decision = String::from_utf8_lossy(&stdout).into_owned();
    log::record(
        "hook",
        json!({"argv": argv, "mode": mode, "envelope": envelope, "decision": decision,
               "code": code, "upstream": true}),
    );
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&stdout);
    let _ = out.flush();
    code
}
