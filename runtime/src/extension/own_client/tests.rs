//! Every way a start fails leaves the start error the first turn gives the
//! model and the last error `/gortex` shows, and the three agree.

use std::sync::Arc;

use pi_gortex_schema::host::{OwnStartResult, OwnStartResultStatus};

use super::{NO_CONFIG, START_PANICKED};
use crate::config::{self, ConfigInputs};
use crate::extension::status::ConnectionState;
use crate::extension::{Extension, ModuleState};

/// The start's error, the model's start error and `/gortex`'s last error.
fn seen(
    extension: &Extension,
    result: &OwnStartResult,
) -> (Option<String>, Option<String>, Option<String>) {
    let module = extension.module();
    let locked = module.lock();
    let record = &locked.status;
    assert_eq!(
        record.state,
        Some(ConnectionState::Down),
        "/gortex says down"
    );
    assert_eq!(result.status, OwnStartResultStatus::Failed);
    let last = record.last_error.clone();
    drop(locked);
    (result.error.clone(), module.take_start_error(), last)
}

/// An instance of a fresh import, resolved with `env` in an empty folder.
fn extension_with(env: &[(&str, &str)]) -> Extension {
    let dir = std::env::temp_dir();
    let inputs = ConfigInputs {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        cwd: dir.clone(),
        home: dir.join("pi-gortex-no-home"),
    };
    let config = Arc::new(config::resolve(&inputs));
    let module = Arc::new(ModuleState::default());
    let extension = Extension::new(module);
    extension.set_config(config.clone(), config, dir);
    extension
}

fn assert_all_agree(seen: (Option<String>, Option<String>, Option<String>)) -> String {
    let (answered, start_error, last_error) = seen;
    let error = answered.expect("the start answered an error");
    assert!(!error.is_empty());
    assert_eq!(
        start_error.as_deref(),
        Some(error.as_str()),
        "the model's start error"
    );
    assert_eq!(
        last_error.as_deref(),
        Some(error.as_str()),
        "/gortex's last error"
    );
    error
}

#[test]
fn a_start_that_panicked_sets_the_start_error() {
    let extension = extension_with(&[]);
    let result = extension.start_panicked();
    assert_eq!(assert_all_agree(seen(&extension, &result)), START_PANICKED);
}

#[tokio::test]
async fn a_start_without_configuration_sets_the_start_error() {
    let extension = Extension::new(Arc::new(ModuleState::default()));
    let result = extension.start_own_client(|_| {}).await;
    assert_eq!(assert_all_agree(seen(&extension, &result)), NO_CONFIG);
}

/// The error a start with `env` failed with, once all three agree on it.
async fn failed_start_with(env: &[(&str, &str)]) -> String {
    let extension = extension_with(env);
    let result = extension.start_own_client(|_| {}).await;
    assert_all_agree(seen(&extension, &result))
}

#[tokio::test]
async fn a_start_whose_binary_is_absent_sets_the_start_error() {
    let error = failed_start_with(&[("GORTEX_BIN", "/nonexistent/pi-gortex/gortex")]).await;
    assert!(error.contains("spawn"), "{error}");
}

#[tokio::test]
async fn a_start_whose_binary_is_refused_as_relative_sets_the_start_error() {
    // An empty PATH resolves nothing; the bare name is never run.
    let error = failed_start_with(&[("PATH", "")]).await;
    assert!(error.contains("gortex"), "{error}");
}

#[test]
fn only_a_positive_test_timeout_from_the_users_environment_changes_a_wait() {
    use crate::mcp::own_client::OwnClientConfig;
    use std::time::Duration;
    let with = |pairs: &[(&str, &str)]| {
        let env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut config = OwnClientConfig::new("gortex");
        super::apply_test_timeouts(&env, &mut config);
        (config.timeouts.initialize, config.timeouts.call)
    };
    let defaults = with(&[]);
    assert_eq!(
        with(&[
            ("PI_GORTEX_TEST_INIT_TIMEOUT_MS", " 250 "),
            ("PI_GORTEX_TEST_CALL_TIMEOUT_MS", "1500")
        ]),
        (Duration::from_millis(250), Duration::from_millis(1500))
    );
    for bad in ["0", "-5", "soon", ""] {
        let env = [
            ("PI_GORTEX_TEST_INIT_TIMEOUT_MS", bad),
            ("PI_GORTEX_TEST_CALL_TIMEOUT_MS", bad),
        ];
        assert_eq!(with(&env), defaults, "{bad:?} changes nothing");
    }
}

/// The `fake-gortex` double: `FAKE_GORTEX_BIN` (as `make test` sets it), else built here.
fn fake_gortex() -> String {
    if let Some(bin) = std::env::var_os("FAKE_GORTEX_BIN") {
        return bin.to_string_lossy().into_owned();
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let built = std::process::Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "fake-gortex"])
        .current_dir(&root)
        .status()
        .expect("cargo runs");
    assert!(built.success(), "cargo build -p fake-gortex failed");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or(root.join("target"), Into::into);
    target
        .join("debug/fake-gortex")
        .to_string_lossy()
        .into_owned()
}

/// An own-client instance in `dir` whose `gortex` is `bin`, with no daemon launched first.
fn own_client_of(dir: &std::path::Path, bin: &str) -> Extension {
    let env = [("GORTEX_BIN", bin), ("GORTEX_DAEMON_AUTOSTART", "0")];
    crate::extension::test_instance(dir, &env, false, |_| {})
}

#[tokio::test(flavor = "multi_thread")]
async fn an_own_client_edit_comes_back_with_its_diff_and_a_search_without_one() {
    use pi_gortex_schema::host::ToolExecuteRequest;
    use serde_json::json;
    let tmp = tempfile::tempdir().unwrap();
    // The real path on Unix (macOS's /var is a link); Windows' canonical form is a verbatim path.
    let dir = match cfg!(unix) {
        true => std::fs::canonicalize(tmp.path()).unwrap(),
        false => tmp.path().to_path_buf(),
    };
    std::fs::write(dir.join("main.go"), "hello\n").unwrap();
    let extension = own_client_of(&dir, &fake_gortex());
    let started = extension.start_own_client(|_| {}).await;
    assert_eq!(
        started.status,
        OwnStartResultStatus::Started,
        "{:?}",
        started.error
    );
    let registry = extension.module().registry_entries();
    let pi_name = |daemon: &str| {
        let entry = registry.iter().find(|(_, d)| d == daemon);
        entry.expect("registered").0.clone()
    };
    let request = |name: String, diff: bool, args| ToolExecuteRequest {
        args,
        call_id: format!("call-{name}"),
        cwd: dir.to_string_lossy().into_owned(),
        diff,
        name,
    };
    let edit = json!({"operation": "file", "target": {"file": "main.go"}, "match": "hello", "replacement": "howdy"});
    let edited = extension
        .begin_execution(Some(request(pi_name("edit"), true, edit)), None)
        .finish()
        .await;
    assert!(edited.ok, "{}", edited.text);
    assert!(edited.content.is_some());
    let diffs = edited
        .details
        .get("diffs")
        .and_then(|d| d.as_array())
        .cloned();
    assert_eq!(diffs.map(|d| d.len()), Some(1), "{:?}", edited.details);
    assert_eq!(
        std::fs::read_to_string(dir.join("main.go")).unwrap(),
        "howdy\n"
    );

    let search = json!({"operation": "symbols", "query": "main"});
    let searched = extension
        .begin_execution(Some(request(pi_name("search"), false, search)), None)
        .finish()
        .await;
    assert!(searched.ok, "{}", searched.text);
    assert!(!searched.details.contains_key("diffs"));
    let own_client = extension.module().lock().client.own_client();
    if let Some(own_client) = own_client {
        own_client.stop().await;
    }
}

// Unix only: the scenario reaches the daemon through a shell wrapper, since the child's
// variables come from this process's environment, which a test must not change.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn tool_9_a_later_listing_that_withdraws_a_tool_reaches_the_glue_and_an_unchanged_one_does_not(
) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    // After the first listing the daemon withdraws `search`, then a burst of list_changed
    // announces nothing more: one update, not one per notification.
    let scenario = serde_json::json!({"faults": [
        {"kind": "withdraw", "tools": ["search"], "after_list": 1},
        {"kind": "list_changed_burst", "count": 5, "spacing_ms": 0, "after": "tools/list"}
    ]});
    std::fs::write(dir.join("scenario.json"), scenario.to_string()).unwrap();
    let wrapper = dir.join("gortex");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nFAKE_GORTEX_SCENARIO='{0}/scenario.json' FAKE_GORTEX_STATE='{0}' exec '{1}' \"$@\"\n",
            dir.display(),
            fake_gortex()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let extension = own_client_of(&dir, &wrapper.to_string_lossy());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let started = extension
        .start_own_client(move |update| {
            let _ = tx.send(update);
        })
        .await;
    assert_eq!(
        started.status,
        OwnStartResultStatus::Started,
        "{:?}",
        started.error
    );
    let wait = std::time::Duration::from_secs(10);
    let update = tokio::time::timeout(wait, rx.recv())
        .await
        .expect("an update")
        .unwrap();
    assert_eq!(update.deactivate, ["search"], "{update:?}");
    assert!(
        extension.module().daemon_name("search").is_none(),
        "left the registry"
    );
    // Quiet: the re-lists after the burst changed nothing, so nothing more reached the glue.
    let quiet = std::time::Duration::from_millis(800);
    assert!(
        tokio::time::timeout(quiet, rx.recv()).await.is_err(),
        "an unchanged listing was forwarded"
    );
    let own_client = extension.module().lock().client.own_client();
    if let Some(own_client) = own_client {
        own_client.stop().await;
    }
}
