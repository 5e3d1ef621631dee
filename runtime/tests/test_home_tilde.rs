//! HOOK-8, DIFF-14, CFG-3: `~` names one file in the hook envelope, in the claim of Pi's own
//! edit and in the configuration, for every combination of a set, an empty and an unset `HOME`
//! and `USERPROFILE`; and that file is the one Node's `os.homedir()` gives Pi's tools (libuv:
//! `HOME` as it is on Unix, `USERPROFILE` of three bytes or more on Windows, else the
//! account's own directory).
//!
//! One test in a binary of its own: it changes the process environment, which nothing else
//! in this process reads meanwhile.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pi_gortex_runtime::config::ConfigInputs;
use pi_gortex_runtime::diff::paths::{normalize, resolve_pi_path};
use pi_gortex_runtime::diff::{EditClaims, ToolCall};
use pi_gortex_runtime::hook::{envelope_for_tool_call, EnvelopeContext};
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Var {
    Unset,
    Empty,
    Set,
}

const STATES: [Var; 3] = [Var::Unset, Var::Empty, Var::Set];

/// Names Pi's tools expand: `~` alone, below it, after `@`, with a separator doubled, and
/// climbing out of it. `~\` is a home name on Windows and a plain name on Unix.
const WRITTEN: [&str; 7] = [
    "~",
    "~/",
    "~/a.ts",
    "@~/src/b.ts",
    "~//etc/c.ts",
    "~/../d.ts",
    r"~\e.ts",
];

fn put(name: &str, state: Var, value: &Path) {
    match state {
        Var::Unset => std::env::remove_var(name),
        Var::Empty => std::env::set_var(name, ""),
        Var::Set => std::env::set_var(name, value),
    }
}

/// What `os.homedir()` answers, by libuv's rule for this platform; `account` is the
/// directory of the account itself, which it falls back to when the variable is unset.
fn node_homedir(
    home: Var,
    profile: Var,
    vars: &Vars,
    account: &Option<PathBuf>,
) -> Option<PathBuf> {
    let (state, value) = if cfg!(windows) {
        (profile, &vars.profile)
    } else {
        (home, &vars.home)
    };
    match state {
        Var::Set => Some(value.clone()),
        // An empty `USERPROFILE` fails in libuv and `os.homedir()` throws.
        Var::Empty if cfg!(windows) => None,
        Var::Empty => Some(PathBuf::new()),
        Var::Unset => account.clone(),
    }
}

struct Vars {
    home: PathBuf,
    profile: PathBuf,
}

/// The file Pi's edit of `~/a.ts` writes with `home` as `os.homedir()`.
fn pi_writes_a_ts(home: &Option<PathBuf>, cwd: &Path) -> PathBuf {
    match home {
        Some(home) => normalize(&cwd.join(home).join("a.ts")),
        // `os.homedir()` threw: the tool fails, and `~` is claimed as a name.
        None => cwd.join("~").join("a.ts"),
    }
}

/// The `file_path` the hook envelope of Pi's `edit` carries, resolved as the hook resolves a
/// relative one: against the envelope's working directory.
fn envelope_file(written: &str, cwd: &Path) -> PathBuf {
    let context = EnvelopeContext {
        cwd: cwd.to_string_lossy().into_owned(),
        session_id: "s".into(),
    };
    let envelope = envelope_for_tool_call("edit", &json!({ "path": written }), &context, |_| None);
    let input = serde_json::to_value(&envelope).expect("serialize")["tool_input"].clone();
    let file_path = input["file_path"].as_str().expect("file_path is a string");
    normalize(&cwd.join(file_path))
}

/// The path the claim of Pi's own `edit` of `written` holds: a second Pi call that names
/// `probe` contests it exactly when the two are the same file.
fn claim_holds(written: &str, probe: &Path, cwd: &Path) -> bool {
    let mut claims = EditClaims::new();
    for (id, path) in [
        ("edit", written.to_string()),
        ("probe", probe.to_string_lossy().into()),
    ] {
        let input = json!({ "path": path });
        let call = ToolCall {
            tool_call_id: id,
            tool_name: "edit",
            input: &input,
            parent_tool_call_id: None,
        };
        // Pi's own edit is claimed at once: there is no before side to read ahead.
        assert!(claims
            .begin_tool_call(call, true, cwd, |_, _, _| None)
            .is_none());
    }
    claims.contested_paths("edit") == [probe.to_path_buf()]
}

#[test]
fn tilde_names_one_file_for_hook_claim_and_config_under_every_home_variable() {
    let root = tempfile::tempdir().expect("temp dir");
    let root = std::path::absolute(root.path()).expect("absolute");
    let cwd = root.join("work").join("repo");
    let vars = Vars {
        home: root.join("home-var"),
        profile: root.join("profile-var"),
    };
    let saved: Vec<(&str, Option<OsString>)> = ["HOME", "USERPROFILE"]
        .into_iter()
        .map(|name| (name, std::env::var_os(name)))
        .collect();
    put("HOME", Var::Unset, &vars.home);
    put("USERPROFILE", Var::Unset, &vars.profile);
    // With both unset, std reads the passwd entry (Unix) or the profile directory (Windows).
    #[allow(deprecated)]
    let account = std::env::home_dir();

    let mut failures = Vec::new();
    for home in STATES {
        for profile in STATES {
            put("HOME", home, &vars.home);
            put("USERPROFILE", profile, &vars.profile);
            let case = format!("HOME {home:?}, USERPROFILE {profile:?}");
            let expected = node_homedir(home, profile, &vars, &account);
            for written in WRITTEN {
                let claimed = resolve_pi_path(written, &cwd);
                let enveloped = envelope_file(written, &cwd);
                if claimed != enveloped {
                    failures.push(format!(
                        "{case}: {written:?} is {} in the claim, {} in the envelope",
                        claimed.display(),
                        enveloped.display()
                    ));
                }
                if !claim_holds(written, &enveloped, &cwd) {
                    failures.push(format!(
                        "{case}: the edit claim of {written:?} does not hold {}",
                        enveloped.display()
                    ));
                }
            }
            let written = resolve_pi_path("~/a.ts", &cwd);
            let node = pi_writes_a_ts(&expected, &cwd);
            if written != node {
                failures.push(format!(
                    "{case}: ~/a.ts is {}, Node's os.homedir() makes it {}",
                    written.display(),
                    node.display()
                ));
            }
            let config_home = ConfigInputs::from_process().home;
            if config_home != expected.clone().unwrap_or_default() {
                failures.push(format!(
                    "{case}: the config's home is {}, os.homedir() is {expected:?}",
                    config_home.display()
                ));
            }
        }
    }
    for (name, value) in saved {
        match value {
            Some(value) => std::env::set_var(name, value),
            None => std::env::remove_var(name),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
