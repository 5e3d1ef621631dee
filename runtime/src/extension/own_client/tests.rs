//! Every way a start fails leaves the bridge error the first turn gives the
//! model and the last error `/gortex` shows, and the three agree.

use std::sync::Arc;

use pi_gortex_schema::host::{OwnStartResult, OwnStartResultStatus};

use super::{NO_CONFIG, START_PANICKED};
use crate::config::{self, ConfigInputs};
use crate::extension::{Extension, ModuleState};
use crate::status::BridgeState;

/// The start's error, the model's bridge error and `/gortex`'s last error.
fn seen(
    extension: &Extension,
    result: &OwnStartResult,
) -> (Option<String>, Option<String>, Option<String>) {
    let module = extension.module();
    let record = module.status();
    assert_eq!(record.state, Some(BridgeState::Down), "/gortex says down");
    assert_eq!(result.status, OwnStartResultStatus::Failed);
    let last = record.last_error.clone();
    drop(record);
    (result.error.clone(), module.take_bridge_error(), last)
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
    let (answered, bridge_error, last_error) = seen;
    let error = answered.expect("the start answered an error");
    assert!(!error.is_empty());
    assert_eq!(
        bridge_error.as_deref(),
        Some(error.as_str()),
        "the model's bridge error"
    );
    assert_eq!(
        last_error.as_deref(),
        Some(error.as_str()),
        "/gortex's last error"
    );
    error
}

#[test]
fn a_start_that_panicked_sets_the_bridge_error() {
    let extension = extension_with(&[]);
    let result = extension.start_panicked();
    assert_eq!(assert_all_agree(seen(&extension, &result)), START_PANICKED);
}

#[tokio::test]
async fn a_start_without_configuration_sets_the_bridge_error() {
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
async fn a_start_whose_binary_is_absent_sets_the_bridge_error() {
    let error = failed_start_with(&[("GORTEX_BIN", "/nonexistent/pi-gortex/gortex")]).await;
    assert!(error.contains("spawn"), "{error}");
}

#[tokio::test]
async fn a_start_whose_binary_is_refused_as_relative_sets_the_bridge_error() {
    // An empty PATH resolves nothing; the bare name is never run.
    let error = failed_start_with(&[("PATH", "")]).await;
    assert!(error.contains("gortex"), "{error}");
}

#[test]
fn only_a_positive_test_timeout_from_the_users_environment_changes_a_wait() {
    use crate::mcp::bridge::BridgeConfig;
    use std::time::Duration;
    let with = |pairs: &[(&str, &str)]| {
        let env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut config = BridgeConfig::new("gortex");
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
