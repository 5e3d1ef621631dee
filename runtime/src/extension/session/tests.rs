//! A session's start and a turn's rest, without Node: the steps the glue
//! applies, the footer only where Pi shows one, and the native tool poll.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pi_gortex_schema::host::{PathRequest, SessionBegin, TurnEvent, TurnPlanTurn};

use super::latches::InstanceLatches;
use super::PlannedTurn;
use crate::config::{self, ConfigInputs};
use crate::extension::{Extension, ModuleState, Parked};
use crate::sync::lock;

/// An instance of a fresh import resolved in the temp folder, with no hook.
fn resolved(native: bool) -> Extension {
    crate::extension::test_instance(&std::env::temp_dir(), &[], native, |config| {
        config.hook_argv = Vec::new()
    })
}

fn planned(extension: &Extension, has_ui: bool) -> PlannedTurn {
    let event = TurnEvent {
        prompt: None,
        message_type: None,
    };
    PlannedTurn {
        plan: extension.plan_turn(Some(event.clone())),
        cwd: "/w".into(),
        session_id: String::new(),
        context_entries: None,
        has_ui,
    }
}

#[test]
fn each_extension_owns_its_instance_and_a_distinct_id() {
    let module = Arc::new(ModuleState::default());
    let (a, b) = (Extension::new(module.clone()), Extension::new(module));
    assert_ne!(a.id(), b.id());
    assert!(a.instance().is_none(), "no state before the configuration");
    let (ticket, plan) = (a.open_session(), a.session_plan(None, Some(&[])));
    assert_eq!(ticket, 0, "no barrier without an instance");
    assert!(
        !plan.1 && plan.0.footer.is_none(),
        "nothing to apply: {:?}",
        plan.0
    );
}

#[test]
fn a_session_opening_without_a_start_is_already_the_last_step() {
    let extension = resolved(true);
    let begin = SessionBegin {
        commands: Some(vec!["mcp".into()]),
        project_trusted: None,
    };
    let tools = ["mcp__gortex__search".to_string()];
    let opening = extension.session_opening(Some(begin), Some(&tools));
    assert!(!opening.start);
    assert_ne!(opening.ticket, 0, "a ticket on the barrier");
    let footer = opening.action.footer.clone();
    assert!(footer.is_some_and(|f| f.contains("gortex")), "{opening:?}");
    assert!(extension.end_session(opening.ticket).is_empty());
}

#[test]
fn ses_7_a_session_start_without_the_own_client_words_the_footer_only_with_a_ui() {
    let extension = resolved(true);
    let begin = SessionBegin {
        commands: Some(vec!["mcp".into()]),
        project_trusted: None,
    };
    let (action, start) = extension.session_plan(Some(begin.clone()), Some(&[]));
    assert!(!start);
    assert_eq!(
        action.footer, None,
        "the footer comes with the session's end step"
    );
    let mut notices = action.notices;
    let footer = extension.end_step(&mut notices, Some(&["mcp__gortex__search".into()]), &[]);
    assert!(footer.is_some_and(|f| f.contains("gortex")));
    assert_eq!(
        extension.end_step(&mut notices, None, &[]),
        None,
        "no UI, no footer"
    );
}

#[test]
fn fail_4_a_caught_panic_is_told_once_per_session_in_the_end_step() {
    let extension = resolved(false);
    let mut notices = Vec::new();
    extension.end_step(&mut notices, None, &["boom".to_string()]);
    extension.end_step(&mut notices, None, &["again".to_string()]);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("boom"));
}

#[tokio::test]
async fn ses_10_a_first_turn_ends_with_the_footer_a_later_one_does_not() {
    let extension = resolved(false);
    let names = || async { Some(Vec::<String>::new()) };
    extension
        .module()
        .set_start_error("gortex mcp exited".into());
    let first = planned(&extension, true);
    assert_eq!(first.plan.turn, TurnPlanTurn::First);
    let action = extension.finish_turn(first, true, names, Vec::new).await;
    assert!(action.footer.is_some(), "{action:?}");
    assert!(
        action.message.is_some(),
        "the first turn tells the model the start error"
    );
    extension.session_compact();
    let later = planned(&extension, true);
    assert_eq!(later.plan.turn, TurnPlanTurn::Later);
    let action = extension.finish_turn(later, true, names, Vec::new).await;
    assert_eq!(action.footer, None);
    let no_ui = resolved(false);
    let action = no_ui
        .finish_turn(planned(&no_ui, false), true, names, Vec::new)
        .await;
    assert_eq!(action.footer, None, "no UI, no footer");
}

#[tokio::test]
async fn nat_9_a_native_first_turn_polls_pi_s_tools_until_one_is_there() {
    let extension = resolved(true);
    let polls = AtomicUsize::new(0);
    let names = || {
        let seen = polls.fetch_add(1, Ordering::SeqCst);
        async move {
            Some(match seen {
                0 | 1 => vec!["read".to_string()],
                _ => vec!["read".to_string(), "mcp__gortex__search".to_string()],
            })
        }
    };
    let first = planned(&extension, false);
    assert!(first.plan.native_wait.is_some());
    extension.finish_turn(first, false, names, Vec::new).await;
    assert_eq!(polls.load(Ordering::SeqCst), 3, "ready at the third poll");
    let locked = extension.module().lock();
    let record = &locked.status;
    assert_ne!(
        record.state,
        Some(crate::extension::status::ConnectionState::Down),
        "the tools appeared: not down"
    );
}

#[test]
fn ses_7_a_session_start_s_last_step_words_the_footer_only_with_a_ui() {
    let _serial = lock(&crate::extension::guard::RECORD_TAKERS);
    let extension = resolved(true);
    let mut action = super::no_action();
    extension.end_session_step(&mut action, Some(&["mcp__gortex__search".into()]));
    assert!(action.footer.is_some_and(|f| f.contains("gortex")));
    let mut action = super::no_action();
    extension.end_session_step(&mut action, None);
    assert_eq!(action.footer, None, "no UI, no footer");
}

#[tokio::test]
async fn a_readiness_refresh_that_changes_nothing_reads_no_tool_names() {
    let extension = resolved(false);
    let read = Arc::new(AtomicUsize::new(0));
    let counted = read.clone();
    let names = async move {
        counted.fetch_add(1, Ordering::SeqCst);
        Some(vec!["mcp__gortex__search".to_string()])
    };
    let footer = extension.refresh_footer("/w", Some(names)).await;
    assert_eq!(footer, None, "no refresh was due");
    assert_eq!(read.load(Ordering::SeqCst), 0, "Pi's tool names were read");
}

#[tokio::test]
#[allow(clippy::await_holding_lock)] // The lock only orders tests; one thread each.
async fn ses_9_an_own_client_that_cannot_start_ends_its_session_start_with_the_footer() {
    let _serial = lock(&crate::extension::guard::RECORD_TAKERS);
    let extension = Extension::new(Arc::new(ModuleState::default()));
    let listings = Arc::new(AtomicUsize::new(0));
    let counted = listings.clone();
    let on_listing = move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
    };
    let tools = ["mcp__gortex__search".to_string()];
    let action = extension.start_session(Some(&tools), on_listing).await;
    assert_eq!(action.catalogue, None, "nothing started: {action:?}");
    assert!(action.footer.is_some_and(|f| f.contains("gortex")));
    assert_eq!(listings.load(Ordering::SeqCst), 0);
}

/// An own-client instance whose hook is `script` (a `/bin/sh` body reading the envelope on stdin).
/// Unix only: the hook double is a shell script; the Windows side of the exchange has its own
/// tests (`test_hook_windows`).
#[cfg(unix)]
fn with_hook(dir: &std::path::Path, script: &str) -> Extension {
    use std::os::unix::fs::PermissionsExt;
    let hook = dir.join("hook.sh");
    std::fs::write(&hook, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    crate::extension::test_instance(dir, &[], false, |config| {
        config.hook_argv = vec![hook.to_string_lossy().into_owned()];
        config.prompt_context = true;
    })
}

#[cfg(unix)]
#[tokio::test]
async fn a_prompts_guidance_from_the_hook_reaches_the_model_with_the_sessions_place() {
    let dir = tempfile::tempdir().unwrap();
    // Guidance only for a prompt envelope that names the turn's cwd and session.
    let extension = with_hook(
        dir.path(),
        r#"input=$(cat)
case "$input" in
  *'"cwd":"/w"'*'"event":"prompt"'*'"session_id":"s1"'*) echo '{"additional_context":"look at main.go first"}' ;;
  *) echo '{}' ;;
esac"#,
    );
    let names = || async { Some(Vec::<String>::new()) };
    let event = TurnEvent {
        prompt: Some("fix the bug".into()),
        message_type: None,
    };
    let turn = PlannedTurn {
        plan: extension.plan_turn(Some(event)),
        cwd: "/w".into(),
        session_id: "s1".into(),
        context_entries: None,
        has_ui: false,
    };
    let action = extension.finish_turn(turn, true, names, Vec::new).await;
    let message = format!("{:?}", action.message);
    assert!(message.contains("look at main.go first"), "{message}");
}

/// A parked first turn that records how it was opened.
fn recorded_turn(opened: &Arc<Mutex<Vec<bool>>>) -> Parked {
    let opened = opened.clone();
    Parked::new(move |ready| lock(&opened).push(ready))
}

#[tokio::test]
async fn ses_4_a_turn_parked_on_a_session_start_is_released_at_its_end_or_by_its_cap() {
    let extension = resolved(false);
    let opened = Arc::new(Mutex::new(Vec::new()));
    let ticket = extension.open_session();
    assert!(
        extension.park_turn(recorded_turn(&opened)).is_ok(),
        "parked"
    );
    let released = extension.end_session(ticket);
    assert_eq!(released.len(), 1, "released at the end");
    released.into_iter().for_each(|turn| turn.open(true));
    assert_eq!(*lock(&opened), [true], "the release opens the turn");

    extension.open_session();
    let (me, id) = extension.park_turn(recorded_turn(&opened)).unwrap();
    let capped = Extension::expire_turn(me, id, std::time::Duration::from_millis(10)).await;
    assert!(
        capped.is_some(),
        "the cap expired first and hands the turn back"
    );
}

fn begin(trusted: Option<bool>) -> Option<SessionBegin> {
    Some(SessionBegin {
        commands: Some(vec!["mcp".into()]),
        project_trusted: trusted,
    })
}

#[test]
fn nat_2_a_refused_registration_is_told_at_each_session_start() {
    let extension = resolved(true);
    extension.refuse_native("duplicate server".into());
    for _ in 0..2 {
        let (action, starts) = extension.session_plan(begin(None), None);
        assert!(
            action
                .notices
                .iter()
                .any(|n| n.contains("duplicate server")),
            "{action:?}"
        );
        assert!(starts, "the own client takes over");
    }
}

#[test]
fn cfg_19_a_native_registration_the_untrusted_folder_does_not_hold_is_withdrawn() {
    let dir = std::env::temp_dir();
    let inputs = ConfigInputs {
        env: Default::default(),
        cwd: dir.clone(),
        home: dir.join("no-home"),
    };
    let trusted = Arc::new(config::resolve(&inputs));
    let mut untrusted = config::resolve(&inputs);
    untrusted.daemon_autostart = !trusted.daemon_autostart;
    let extension = Extension::new(Arc::new(ModuleState::default()));
    extension.set_config(trusted, Arc::new(untrusted), dir);
    extension.instance().unwrap().lock().latches = InstanceLatches::new(true);
    let (action, _) = extension.session_plan(begin(Some(false)), None);
    assert_eq!(action.withdraw_server, Some(true), "{action:?}");
}

#[test]
fn a_started_own_client_adds_its_warning_and_first_listing_and_a_failed_one_nothing() {
    use pi_gortex_schema::host::{CatalogueUpdate, OwnStartResult, OwnStartResultStatus};
    let extension = resolved(false);
    let catalogue = CatalogueUpdate {
        activate: vec!["search".into()],
        deactivate: Vec::new(),
        register: Vec::new(),
    };
    let started = OwnStartResult {
        catalogue: catalogue.clone(),
        error: None,
        status: OwnStartResultStatus::Started,
        user_warning: Some("daemon 0.1 is old".into()),
    };
    let action = extension.session_started(started.clone());
    assert_eq!(action.notices, ["daemon 0.1 is old"]);
    assert_eq!(action.catalogue, Some(catalogue.clone()));
    let failed = OwnStartResult {
        status: OwnStartResultStatus::Failed,
        ..started
    };
    assert_eq!(extension.session_started(failed), super::no_action());
    assert_eq!(
        super::catalogue_action(catalogue.clone()).catalogue,
        Some(catalogue)
    );
}

#[test]
fn nat_2_a_binary_that_does_not_resolve_keeps_the_own_client_even_where_pi_has_native_mcp() {
    let dir = std::env::temp_dir();
    let resolve_with = |bin: &str| {
        let inputs = ConfigInputs {
            env: [("GORTEX_BIN".to_string(), bin.to_string())].into(),
            cwd: dir.clone(),
            home: dir.join("no-home"),
        };
        let resolved = Arc::new(config::resolve(&inputs));
        let extension = Extension::new(Arc::new(ModuleState::default()));
        extension.set_config(resolved.clone(), resolved, dir.clone());
        extension.choose_path(Some(PathRequest {
            has_register_mcp_server: true,
        }))
    };
    let missing = resolve_with("/nonexistent/pi-gortex/gortex");
    assert!(!missing.native);
    assert_eq!(missing.reason, "binary_does_not_resolve");
    // Negative control: an absolute binary that exists takes the native path.
    let this_test = std::env::current_exe().unwrap();
    let present = resolve_with(&this_test.to_string_lossy());
    assert!(present.native, "{}", present.reason);
}

#[tokio::test]
async fn cfg_19_the_handler_is_kept_when_only_the_untrusted_resolution_enforces() {
    if std::env::var_os("GORTEX_ENFORCE").is_some() {
        eprintln!("GORTEX_ENFORCE is set here: the sidecar's choice would not show");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    std::fs::write(dir.path().join(".pi/gortex.json"), r#"{"enforce": false}"#).unwrap();
    let extension = Extension::new(Arc::new(ModuleState::default()));
    let host = extension
        .resolve_config(dir.path().to_string_lossy().into_owned())
        .await;
    assert!(
        host.enforce,
        "the untrusted folder cannot turn enforcement off"
    );
    let me = extension.instance().unwrap();
    assert!(!me.apply_trust(true).enforce, "trusted, the sidecar holds");
}
