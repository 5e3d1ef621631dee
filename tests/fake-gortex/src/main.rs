//! `fake-gortex`: a scriptable test double of the `gortex` binary (spec: fake-gortex.md).
//!
//! Verbs: `mcp`, `hook --agent=pi [--mode=..] [--port=..]`, `daemon start --detach`,
//! `version [--short]`. Configuration comes only from the environment (FAKE-1).

mod calls;
#[cfg(unix)]
mod daemon_socket;
mod edits;
mod facade;
mod glob;
mod hook;
// Only the daemon's socket side reads the index, and that side is Unix-only.
#[cfg(unix)]
mod index;
mod legacy;
mod log;
mod mcp;
mod out;
mod paths;
mod replay;
mod scenario;
mod signals;
mod state;
mod stdio;
mod surface;
mod texts;
mod upstream_hook;

use scenario::{Fault, FaultVerb, Scenario};
use serde_json::json;

const USAGE: &str = "Usage: gortex <command>\n\nCommands (fake-gortex):\n  mcp                                   serve MCP on stdio\n  hook --agent=pi [--mode=<m>] [--port=<n>]  judge one tool call\n  daemon start --detach                 start the daemon\n  version [--short]                     print the version\n";

const BUILD_SUFFIX: &str = "+fa4e0001";

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let args: Vec<String> = argv.iter().skip(1).cloned().collect();
    let verb = match args.first().map(String::as_str) {
        Some("mcp") => "mcp",
        Some("hook") => "hook",
        Some("daemon") => "daemon",
        Some("version") => "version",
        _ => "usage",
    };
    log::init(verb);
    let code = run(verb, &argv, &args);
    std::process::exit(code);
}

fn env_subset() -> serde_json::Value {
    let mut env = serde_json::Map::new();
    for k in [
        "GORTEX_TOOLS",
        "GORTEX_TOOLS_MODE",
        "GORTEX_BIN",
        "GORTEX_AUTOSTART",
    ] {
        match std::env::var_os(k).map(std::ffi::OsString::into_string) {
            Some(Ok(v)) => {
                env.insert(k.into(), v.into());
            }
            // A value that is no string arrived raw: its code units show what the parent passed.
            Some(Err(raw)) => {
                env.insert(k.into(), json!({ "not_unicode": raw_units(&raw) }));
            }
            None => {}
        }
    }
    serde_json::Value::Object(env)
}

/// The UTF-16 code units of a value that is not valid UTF-16.
#[cfg(windows)]
fn raw_units(raw: &std::ffi::OsStr) -> Vec<u16> {
    std::os::windows::ffi::OsStrExt::encode_wide(raw).collect()
}

/// The bytes of a value that is not valid UTF-8.
#[cfg(unix)]
fn raw_units(raw: &std::ffi::OsStr) -> Vec<u8> {
    std::os::unix::ffi::OsStrExt::as_bytes(raw).to_vec()
}

fn run(verb: &str, argv: &[String], args: &[String]) -> i32 {
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    log::record(
        "start",
        json!({"argv": argv, "cwd": cwd, "env": env_subset()}),
    );
    let sc = match scenario::load() {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("fake-gortex: {e}");
            log::record(
                "exit",
                json!({"code": 2, "reason": "bad_scenario", "error": e}),
            );
            return 2;
        }
    };
    let ignore_sigterm = sc
        .faults
        .iter()
        .any(|f| matches!(f, Fault::IgnoreSigterm {}));
    signals::install(ignore_sigterm && verb == "mcp");
    let fault_verb = match verb {
        "hook" => FaultVerb::Hook,
        "daemon" => FaultVerb::Daemon,
        "version" => FaultVerb::Version,
        _ => FaultVerb::Mcp,
    };
    if verb != "usage" {
        if let Some(code) = mcp::start_faults(&sc, fault_verb) {
            log::record("exit", json!({"code": code, "reason": "exit_on_start"}));
            return code;
        }
    }
    let (code, reason) = match verb {
        "mcp" if sc.replay.is_some() => {
            return replay::run(sc.replay.as_deref().unwrap_or_default())
        }
        "mcp" => return mcp::run(sc),
        "hook" if upstream_hook::binary(&sc).is_some() => {
            let bin = upstream_hook::binary(&sc).unwrap_or_default();
            (upstream_hook::relay(&bin, argv, &args[1..]), "hook_done")
        }
        "hook" => match args.get(1..) {
            Some(flags) => (hook::run(&sc, argv, flags), "hook_done"),
            None => (hook::run(&sc, argv, &[]), "hook_done"),
        },
        #[cfg(unix)]
        "daemon" if args.get(1).map(String::as_str) == Some("serve") => {
            (daemon_socket::run(sc), "daemon_served")
        }
        "daemon" => daemon(&sc, args),
        "version" => version(&sc, args),
        _ => {
            eprint!("{USAGE}");
            (1, "usage")
        }
    };
    log::record("exit", json!({"code": code, "reason": reason}));
    code
}

fn daemon(sc: &Scenario, args: &[String]) -> (i32, &'static str) {
    if args.get(1).map(String::as_str) != Some("start") {
        eprint!("{USAGE}");
        return (1, "usage");
    }
    log::record("daemon_start", json!({"args": &args[1..]}));
    for f in &sc.faults {
        if let Fault::DaemonStartFail { exit_code, stderr } = f {
            let text = stderr
                .clone()
                .unwrap_or_else(|| "daemon already running (pid 4242)\n".to_string());
            eprint!("{text}");
            return (*exit_code, "daemon_start_fail");
        }
    }
    (0, "daemon_started")
}

fn version(sc: &Scenario, args: &[String]) -> (i32, &'static str) {
    let short = args.iter().skip(1).any(|a| a == "--short");
    let text = match &sc.version {
        None => "v0.0.0-dev".to_string(),
        Some(v) if short => format!("v{v}{BUILD_SUFFIX}"),
        Some(v) => format!("gortex v{v}{BUILD_SUFFIX}"),
    };
    println!("{text}");
    (0, "version")
}
