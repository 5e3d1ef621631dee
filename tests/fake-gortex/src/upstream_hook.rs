//! The `hook` verb handed to Gortex's own hook handler: when `FAKE_GORTEX_UPSTREAM_HOOK` names
//! its binary, the envelope goes to it unchanged and its stdout and exit code come back
//! unchanged, so the decision is the upstream one while the log still records what was sent.
//! `FAKE_GORTEX_HOOK_HOME` becomes the handler's `HOME` (it keeps session state under
//! `$HOME/.gortex`). A scenario with hook faults or scripted `decisions` keeps the simulator's
//! hook: those stand for what the real handler cannot be made to do.
//!
//! `FAKE_GORTEX_UPSTREAM_TWIN` names a second build of the handler (Gortex's hook built on the
//! generated Go types): it is sent the same envelope at the same moment, with a `HOME` of its own
//! that has seen the same runs (`<hook home>.twin`), and an `upstream_twin` record says whether
//! its stdout and exit code were the same. The decision returned is always the first build's.

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
/// `upstream_answered` is logged only once the handler has exited with a JSON answer, and
/// `upstream_failed` otherwise, so a test can tell Gortex's decision from a relay that fell over.
pub fn relay(bin: &std::ffi::OsStr, argv: &[String], flags: &[String]) -> i32 {
    let mode = flags
        .iter()
        .find_map(|f| f.strip_prefix("--mode="))
        .unwrap_or("deny");
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    // As the simulator's runs: a process fed an envelope logs its size before it is relayed.
    log::record("input", json!({"bytes": input.len()}));
    let home = std::env::var_os("FAKE_GORTEX_HOOK_HOME");
    let command = hook_command(bin, flags, home.clone(), Stdio::inherit());
    let twin = twin_command(flags, home.as_deref());
    let (published, twin) = std::thread::scope(|scope| {
        let twin = twin.map(|twin| scope.spawn(|| exchange(twin, &input)));
        (exchange(command, &input), twin.map(|t| t.join()))
    });
    if let Some(Ok(twin)) = twin {
        log::record("upstream_twin", twin_record(&published, &twin));
    }
    let (stdout, code, answered) = match published {
        Ok((pid, stdout, code)) => {
            log::record("upstream_answered", json!({"hook_pid": pid, "code": code}));
            (stdout, code, true)
        }
        Err((stdout, error)) => {
            eprintln!("fake-gortex: the upstream hook did not answer: {error}");
            log::record("upstream_failed", json!({"error": error}));
            (stdout, 1, false)
        }
    };
    let envelope: Value = serde_json::from_slice(&input).unwrap_or(Value::from("invalid"));
    let decision = String::from_utf8_lossy(&stdout).into_owned();
    log::record(
        "hook",
        json!({"argv": argv, "mode": mode, "envelope": envelope, "decision": decision,
               "code": code, "upstream": answered}),
    );
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&stdout);
    let _ = out.flush();
    code
}

/// The twin build's command, when one is named: the same flags, and its own `HOME`.
fn twin_command(flags: &[String], home: Option<&std::ffi::OsStr>) -> Option<Command> {
    let bin = std::env::var_os("FAKE_GORTEX_UPSTREAM_TWIN").filter(|p| !p.is_empty())?;
    let twin_home = home.map(|home| {
        let mut twin_home = home.to_os_string();
        twin_home.push(".twin");
        let _ = std::fs::create_dir_all(&twin_home);
        twin_home
    });
    Some(hook_command(&bin, flags, twin_home, Stdio::null()))
}

/// `<bin> hook <flags>` with piped stdin and stdout, and `HOME` when one is given.
fn hook_command(
    bin: &std::ffi::OsStr,
    flags: &[String],
    home: Option<std::ffi::OsString>,
    stderr: Stdio,
) -> Command {
    let mut command = Command::new(bin);
    command
        .arg("hook")
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr);
    if let Some(home) = home {
        command.env("HOME", home);
    }
    command
}

/// Whether the twin answered as the first build did: the same stdout bytes and exit code.
fn twin_record(published: &Result<Answer, NoAnswer>, twin: &Result<Answer, NoAnswer>) -> Value {
    let outcome = |r: &Result<Answer, NoAnswer>| match r {
        Ok((_, stdout, code)) => (String::from_utf8_lossy(stdout).into_owned(), Some(*code)),
        Err((stdout, _)) => (String::from_utf8_lossy(stdout).into_owned(), None),
    };
    let (a, b) = (outcome(published), outcome(twin));
    json!({"same": a == b, "decision": b.0, "code": b.1})
}

/// The handler's pid, stdout and exit code.
type Answer = (u32, Vec<u8>, i32);
/// What the handler wrote, and why that is no answer.
type NoAnswer = (Vec<u8>, String);

/// Runs the handler on `input`: its answer when it exited with a code and wrote one JSON value.
fn exchange(mut command: Command, input: &[u8]) -> Result<Answer, NoAnswer> {
    let mut child = command
        .spawn()
        .map_err(|e| (Vec::new(), format!("cannot start it: {e}")))?;
    let pid = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let out = child
        .wait_with_output()
        .map_err(|e| (Vec::new(), format!("cannot wait for it: {e}")))?;
    let Some(code) = out.status.code() else {
        return Err((
            out.stdout,
            format!("it ended without an exit code ({})", out.status),
        ));
    };
    if serde_json::from_slice::<Value>(&out.stdout).is_err() {
        return Err((
            out.stdout,
            format!("it exited with {code} without a JSON answer"),
        ));
    }
    Ok((pid, out.stdout, code))
}
