//! The tool events' orchestration without Node: answers collected through
//! the same reply a binding passes, files and a hook that are real.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pi_gortex_schema::host::{ToolCallAction, ToolCallEvent, ToolResultAction, ToolResultEvent};
use serde_json::{json, Value};

use super::{PlannedCall, ResultIds, ToolCallIds, ToolNames};
use crate::extension::session::latches;
use crate::extension::{Answer, Extension};

const EDIT: &str = "mcp__gortex__edit";

/// An instance of a fresh import resolved in `dir`, on the native path or
/// not, with the hook `hook` enforced when given.
fn extension(dir: &Path, native: bool, hook: Option<Vec<String>>) -> Extension {
    crate::extension::test_instance(dir, &[], native, |config| {
        config.enforce = hook.is_some();
        config.hook_argv = hook.unwrap_or_default();
        // These tests count what each event reads; the savings' own reads are tested below.
        config.stats = false;
    })
}

#[cfg(unix)]
/// A hook that answers `decision` to every call.
fn hook_answering(dir: &Path, decision: &str) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let hook = dir.join("hook.sh");
    let script = format!("#!/bin/sh\ncat >/dev/null\necho '{decision}'\n");
    std::fs::write(&hook, script).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    vec![hook.to_string_lossy().into_owned()]
}

#[cfg(unix)]
/// An instance with the hook `argv` in effect and `stats` as given.
fn counting(dir: &Path, native: bool, argv: Vec<String>, stats: bool) -> Extension {
    crate::extension::test_instance(dir, &[], native, |config| {
        config.enforce = true;
        config.hook_argv = argv;
        config.stats = stats;
    })
}

// SAVE-1 counts and SAVE-2 shows: a 40,000-byte read blocked, a grep blocked, one graph answer.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn save_1_a_blocked_read_is_kept_out_and_a_graph_answer_counted_on_both_paths() {
    for native in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.go"), vec![b'a'; 40_000]).unwrap();
        let argv = hook_answering(dir.path(), r#"{"block":true,"reason":"use gortex"}"#);
        let extension = counting(dir.path(), native, argv, true);
        let search = match native {
            true => "mcp__gortex__search",
            false => "search",
        };
        extension
            .module()
            .register_for_test(&[("search", "search")]);
        for (id, name, input) in [
            ("r1", "read", json!({"path": "big.go"})),
            ("g1", "grep", json!({"pattern": "a"})),
        ] {
            let event = call_event(dir.path(), id, name, input);
            let action = answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
            assert!(matches!(action, Some(ToolCallAction::Block { .. })));
        }
        assert!(extension.reads_result_text(search));
        let mut event = result_event(dir.path(), "s1", search);
        event.text = Some("x".repeat(1_234));
        let result = ResultIds {
            tool_call_id: "s1",
            tool_name: search,
            is_error: false,
        };
        let _ = answer(extension.tool_result(result, || Some(event), no_names)).await;
        let savings = extension.module().lock().status.savings.clone();
        assert_eq!(savings.redirected, [1, 1, 0, 0, 0], "native {native}");
        assert_eq!(savings.kept_out_bytes, 40_000);
        assert_eq!(savings.not_sized, 1);
        assert_eq!((savings.graph_answers, savings.graph_chars), (1, 1_234));
        assert_eq!(savings.net_tokens(), 10_000 - 309);
        let request = pi_gortex_schema::host::StatusRequest {
            pi_tools: vec![search.to_string()],
        };
        let view = extension.status_view(&request);
        assert!(
            view.text
                .contains("    reads redirected  2 (read 1, grep 1)\n"),
            "{}",
            view.text
        );
        let kept = "    kept out          40,000 bytes, 10,000 tokens (1 not sized)\n";
        assert!(view.text.contains(kept), "{}", view.text);
        assert!(
            view.text.contains("    net               9,691 tokens"),
            "{}",
            view.text
        );
        assert!(view.footer.ends_with(" · −9.7k tok"), "{}", view.footer);
    }
}

// SAVE-2: once a footer was shown, a result that changes the net it shows carries the new
// footer (a graph answer, or a read blocked since the last result); one that leaves it the same,
// or any result of a session that never showed a footer (no UI), carries none.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn save_2_the_footer_follows_the_net_after_each_result_that_changes_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.go"), vec![b'a'; 40_000]).unwrap();
    let argv = hook_answering(dir.path(), r#"{"block":true,"reason":"use gortex"}"#);
    let extension = counting(dir.path(), true, argv, true);
    let search = "mcp__gortex__search";
    let graph = |id: &str, chars: usize| {
        let mut event = result_event(dir.path(), id, search);
        event.text = Some("x".repeat(chars));
        event
    };
    let footer_of = |action: Option<ToolResultAction>| action.and_then(|a| a.footer);
    // No footer shown yet: nothing to follow.
    assert_eq!(
        footer_of(result_of(&extension, graph("s0", 400)).await),
        None
    );
    let request = pi_gortex_schema::host::StatusRequest {
        pi_tools: vec![search.to_string()],
    };
    let shown = extension.status_view(&request).footer;
    assert!(shown.ends_with(" · +100 tok"), "{shown}");
    // Unchanged since the footer: none.
    assert_eq!(footer_of(result_of(&extension, graph("s1", 0)).await), None);
    let event = call_event(dir.path(), "r1", "read", json!({"path": "big.go"}));
    let action = answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    assert!(matches!(action, Some(ToolCallAction::Block { .. })));
    // The block has no result of its own; the next result of any tool carries it.
    let other = result_event(dir.path(), "b1", "bash");
    let footer = footer_of(result_of(&extension, other).await).expect("a new footer");
    assert!(footer.starts_with("gortex: connected · native"), "{footer}");
    assert!(footer.ends_with(" · −9.9k tok"), "{footer}");
    assert_eq!(
        footer_of(result_of(&extension, graph("s2", 4)).await),
        None,
        "−9.9k still"
    );
    let footer = footer_of(result_of(&extension, graph("s3", 4_000)).await);
    assert!(footer.is_some_and(|f| f.ends_with(" · −8.9k tok")));
}

// SAVE-2: with `stats_footer` off the footer never follows the net.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn save_2_a_quiet_footer_is_not_moved_by_results() {
    let dir = tempfile::tempdir().unwrap();
    let extension = crate::extension::test_instance(dir.path(), &[], true, |config| {
        config.stats = true;
        config.stats_footer = false;
    });
    let search = "mcp__gortex__search";
    let request = pi_gortex_schema::host::StatusRequest {
        pi_tools: vec![search.to_string()],
    };
    let _ = extension.status_view(&request);
    let mut event = result_event(dir.path(), "s1", search);
    event.text = Some("x".repeat(4_000));
    let action = result_of(&extension, event).await.unwrap();
    assert_eq!(action.footer, None);
    assert_eq!(extension.module().lock().status.savings.graph_chars, 4_000);
}

// SAVE-1: a read the posture let run with guidance is sized, and not kept out.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn save_1_a_guided_read_that_ran_is_counted_with_its_size_not_kept_out() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.go"), "line\n".repeat(100)).unwrap();
    let decision = r#"{"additional_context":"gortex has the symbols of this file"}"#;
    let extension = counting(dir.path(), true, hook_answering(dir.path(), decision), true);
    let input = json!({"path": "big.go", "offset": 11, "limit": 10});
    let event = call_event(dir.path(), "r1", "read", input);
    let action = answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    assert!(matches!(action, Some(ToolCallAction::Steer { .. })));
    let savings = extension.module().lock().status.savings.clone();
    assert_eq!((savings.allowed, savings.allowed_bytes), (1, 49));
    assert_eq!((savings.redirected_total(), savings.kept_out_bytes), (0, 0));
}

// SAVE-3: with stats off nothing is counted and no graph result is read for it.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn save_3_stats_off_counts_nothing_and_reads_no_graph_result() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.go"), "x").unwrap();
    let argv = hook_answering(dir.path(), r#"{"block":true,"reason":"use gortex"}"#);
    let extension = counting(dir.path(), true, argv, false);
    let event = call_event(dir.path(), "r1", "read", json!({"path": "big.go"}));
    let _ = answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    assert!(!extension.reads_result_text("mcp__gortex__search"));
    let result = ResultIds {
        tool_call_id: "s1",
        tool_name: "mcp__gortex__search",
        is_error: false,
    };
    let read = extension.tool_result(result, || panic!("stats off reads no result"), no_names);
    assert!(matches!(read, Answer::Now(_)));
    assert!(extension.module().lock().status.savings.is_empty());
}

/// The answer, waited for when it comes later; `None` when the reply was dropped.
async fn answer<T: Send + 'static>(answer: Answer<T>) -> Option<T> {
    match answer {
        Answer::Now(value) => Some(value),
        Answer::Later(start) => {
            let (tx, rx) = tokio::sync::oneshot::channel();
            start(Box::new(move |value| {
                let _ = tx.send(value);
            }));
            rx.await.ok()
        }
        Answer::Parked(_) => panic!("a tool event is never parked"),
    }
}

fn call_event(dir: &Path, id: &str, name: &str, input: Value) -> ToolCallEvent {
    ToolCallEvent {
        tool_call_id: id.into(),
        tool_name: name.into(),
        input,
        parent_tool_call_id: None,
        cwd: dir.to_string_lossy().into_owned(),
        session_id: "s".into(),
    }
}

fn ids<'a>(event: &'a ToolCallEvent) -> ToolCallIds<'a> {
    ToolCallIds {
        tool_call_id: &event.tool_call_id,
        tool_name: &event.tool_name,
        parent_tool_call_id: event.parent_tool_call_id.as_deref(),
    }
}

fn edit_input() -> Value {
    json!({"operation": "file", "target": {"file": "main.go"}, "match": "hello", "replacement": "howdy"})
}

fn result_event(dir: &Path, id: &str, name: &str) -> ToolResultEvent {
    ToolResultEvent {
        tool_call_id: id.into(),
        tool_name: name.into(),
        is_error: false,
        cwd: dir.to_string_lossy().into_owned(),
        details: Some(json!({"server": "gortex"})),
        text: Some("done".into()),
    }
}

async fn result_of(extension: &Extension, event: ToolResultEvent) -> Option<ToolResultAction> {
    let ids = ResultIds {
        tool_call_id: &event.tool_call_id.clone(),
        tool_name: &event.tool_name.clone(),
        is_error: event.is_error,
    };
    answer(extension.tool_result(ids, || Some(event), no_names)).await
}

/// A binding that was never asked for Pi's tool names.
fn no_names() -> Option<ToolNames> {
    panic!("the tool names were read")
}

/// Pi's tool names as a counting double: `promoted` is listed from the
/// `listed_at`-th read on.
fn names_listed_at(listed_at: usize, promoted: &str, reads: Arc<AtomicUsize>) -> ToolNames {
    let promoted = promoted.to_string();
    Arc::new(move || {
        let read = reads.fetch_add(1, Ordering::SeqCst) + 1;
        let names = match read >= listed_at {
            true => vec!["read".to_string(), promoted.clone()],
            false => vec!["read".to_string()],
        };
        Box::pin(async move { Some(names) })
    })
}

/// The `path` of each file diff in `details`.
fn diffed(action: &ToolResultAction) -> Vec<String> {
    let diffs = action
        .details
        .as_ref()
        .and_then(|d| d.get("diffs"))
        .cloned();
    diffs
        .and_then(|d| d.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|d| d["path"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_that_cannot_edit_is_answered_now_and_its_event_is_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let extension = extension(dir.path(), true, None);
    let ids = ToolCallIds {
        tool_call_id: "c1",
        tool_name: "mcp__gortex__search",
        parent_tool_call_id: None,
    };
    let answer = extension.tool_call(ids, || panic!("the event was read"));
    assert!(matches!(answer, Answer::Now(ToolCallAction::None)));
    let result = ResultIds {
        tool_call_id: "c1",
        tool_name: "mcp__gortex__search",
        is_error: false,
    };
    let answer = extension.tool_result(result, || panic!("the result was read"), no_names);
    assert!(matches!(answer, Answer::Now(ref a) if *a == ToolResultAction::default()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_native_edit_is_claimed_at_its_call_and_its_result_carries_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
    let extension = extension(dir.path(), true, None);
    let event = call_event(dir.path(), "e1", EDIT, edit_input());
    let call = extension.tool_call(ids(&event), || Some(event.clone()));
    assert!(
        matches!(call, Answer::Later(_)),
        "the before side is read off Pi's thread"
    );
    assert_eq!(answer(call).await, Some(ToolCallAction::None));
    std::fs::write(dir.path().join("main.go"), "howdy\n").unwrap();
    let action = result_of(&extension, result_event(dir.path(), "e1", EDIT))
        .await
        .unwrap();
    assert_eq!(diffed(&action), vec!["main.go".to_string()]);
    let details = action.details.unwrap();
    assert_eq!(details["server"], "gortex", "Pi's own details are kept");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_own_client_path_claims_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
    let extension = extension(dir.path(), false, None);
    let event = call_event(dir.path(), "e1", EDIT, edit_input());
    let call = extension.tool_call(ids(&event), || panic!("the event was read"));
    assert!(matches!(call, Answer::Now(ToolCallAction::None)));
}

#[test]
fn only_a_tools_search_result_has_its_text_read() {
    let dir = tempfile::tempdir().unwrap();
    let extension = extension(dir.path(), true, None);
    assert!(extension.reads_result_text("mcp__gortex__tools_search"));
    assert!(!extension.reads_result_text(EDIT));
    assert!(!extension.reads_result_text("mcp__gortex__search"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_ahead_gives_the_claim_its_before_side() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
    let extension = extension(dir.path(), true, None);
    assert!(extension.reads_ahead(EDIT));
    assert!(!extension.reads_ahead("mcp__gortex__search"));
    let planned = PlannedCall {
        tool_call_id: "e1".into(),
        tool_name: EDIT.into(),
        arguments: edit_input(),
    };
    let cwd = dir.path().to_string_lossy().into_owned();
    answer(extension.message_end(vec![planned], cwd))
        .await
        .unwrap();
    let event = call_event(dir.path(), "e1", EDIT, edit_input());
    assert_eq!(
        answer(extension.tool_call(ids(&event), || Some(event.clone()))).await,
        Some(ToolCallAction::None)
    );
    std::fs::write(dir.path().join("main.go"), "howdy\n").unwrap();
    let action = result_of(&extension, result_event(dir.path(), "e1", EDIT))
        .await
        .unwrap();
    assert_eq!(diffed(&action), vec!["main.go".to_string()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_edit_reads_no_result_and_its_end_releases_the_claim() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
    let extension = extension(dir.path(), true, None);
    let event = call_event(dir.path(), "e1", EDIT, edit_input());
    answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    let failed = ResultIds {
        tool_call_id: "e1",
        tool_name: EDIT,
        is_error: true,
    };
    let answer = extension.tool_result(failed, || panic!("the result was read"), no_names);
    assert!(matches!(answer, Answer::Now(ref a) if *a == ToolResultAction::default()));
    extension.tool_execution_end("e1");
    let again = ResultIds {
        is_error: false,
        ..failed
    };
    assert!(matches!(
        extension.tool_result(again, || panic!("the claim is gone"), no_names),
        Answer::Now(_)
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tools_search_is_answered_only_once_pi_lists_its_promoted_tools() {
    let dir = tempfile::tempdir().unwrap();
    let extension = extension(dir.path(), true, None);
    let mut event = result_event(dir.path(), "t1", "mcp__gortex__tools_search");
    event.text = Some(r#"{"query":"q","promoted":["find_usages",""],"tools":[]}"#.into());
    let ids = ResultIds {
        tool_call_id: "t1",
        tool_name: "mcp__gortex__tools_search",
        is_error: false,
    };
    let reads = Arc::new(AtomicUsize::new(0));
    let names = names_listed_at(3, "mcp__gortex__find_usages", reads.clone());
    let held = extension.tool_result(ids, || Some(event.clone()), || Some(names));
    assert!(matches!(held, Answer::Later(_)), "held, not answered now");
    let action = answer(held).await.unwrap();
    assert_eq!(
        reads.load(Ordering::SeqCst),
        3,
        "answered at the read that listed it"
    );
    assert_eq!(action, ToolResultAction::default());

    // Negative control: a tool Pi never lists holds the answer to the budget, not forever.
    let never = names_listed_at(usize::MAX, "mcp__gortex__other", Arc::default());
    let started = Instant::now();
    let held = extension.tool_result(ids, || Some(event.clone()), || Some(never));
    assert!(answer(held).await.is_some());
    let budget = Duration::from_millis(latches::PROMOTION_WAIT_MS.into());
    assert!(started.elapsed() >= budget, "waited out the budget");

    // A search that promoted nothing, or a binding without the names, is answered now.
    event.text = Some(r#"{"query":"q","promoted":[],"tools":[]}"#.into());
    let now = extension.tool_result(ids, || Some(event.clone()), no_names);
    assert!(matches!(now, Answer::Now(_)));
    event.text = Some(r#"{"query":"q","promoted":["find_usages"],"tools":[]}"#.into());
    assert!(matches!(
        extension.tool_result(ids, || Some(event), || None),
        Answer::Now(_)
    ));
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn the_hook_judges_first_and_a_block_claims_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
    let hook = dir.path().join("hook.sh");
    let decision = r#"{"block":true,"reason":"use gortex"}"#;
    std::fs::write(
        &hook,
        format!("#!/bin/sh\ncat >/dev/null\necho '{decision}'\n"),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let argv = vec![hook.to_string_lossy().into_owned()];
    let extension = extension(dir.path(), true, Some(argv));
    let event = call_event(dir.path(), "e1", EDIT, edit_input());
    let action = answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    assert_eq!(
        action,
        Some(ToolCallAction::Block {
            reason: "use gortex".into()
        })
    );
    assert_eq!(extension.module().lock().status.hook.blocks, 1);
    let result = ResultIds {
        tool_call_id: "e1",
        tool_name: EDIT,
        is_error: false,
    };
    assert!(
        matches!(
            extension.tool_result(result, || panic!("no claim"), no_names),
            Answer::Now(_)
        ),
        "a blocked call claims nothing"
    );
}

#[test]
fn promoted_names_are_read_from_the_result_text() {
    let text = r#"{"query":"select:find_usages","promoted":["find_usages",""],"tools":[]}"#;
    assert_eq!(
        super::promoted_tools(text),
        vec!["mcp__gortex__find_usages".to_string()]
    );
    assert!(super::promoted_tools("not json").is_empty());
}

#[cfg(unix)]
/// The answer when it is given before `start` returns (on the caller's thread), else `None`.
fn answered_now<T: Send + 'static>(answer: Answer<T>) -> Option<T> {
    answer.start(|run| run(), |_| None)
}

#[cfg(target_os = "linux")]
/// Whether `file` in `dir` can be opened the way a read on the caller's thread opens it
/// (a local file system, a kernel and emulator with `openat2`).
fn reads_on_the_callers_thread(dir: &Path, file: &str) -> bool {
    let local = crate::platform::local_dir::LocalDir::open(dir);
    local.is_some_and(|local| local.open_beneath(Path::new(file)).is_ok())
}

#[cfg(unix)]
/// One native edit of `main.go`, its after side written as `after`; the result's answer.
async fn edit_once(extension: &Extension, dir: &Path, id: &str, after: &str) -> ToolResultAction {
    let event = call_event(dir, id, EDIT, edit_input());
    answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    std::fs::write(dir.join("main.go"), after).unwrap();
    let action = result_of(extension, result_event(dir, id, EDIT))
        .await
        .unwrap();
    extension.tool_execution_end(id);
    action
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread")]
async fn once_the_folder_is_known_local_a_small_edit_is_read_and_diffed_on_the_callers_thread() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(dir.join("main.go"), "hello\n").unwrap();
    if !reads_on_the_callers_thread(&dir, "main.go") {
        eprintln!(
            "no openat2 or no local file system here: nothing is read on the caller's thread"
        );
        return;
    }
    let extension = extension(&dir, true, None);
    // The first read is made off the caller's thread and learns the folder.
    assert_eq!(
        diffed(&edit_once(&extension, &dir, "e1", "howdy\n").await),
        ["main.go"]
    );

    let event = call_event(&dir, "e2", EDIT, edit_input());
    let call = extension.tool_call(ids(&event), || Some(event.clone()));
    assert_eq!(answered_now(call), Some(ToolCallAction::None));
    std::fs::write(dir.join("main.go"), "hello\n").unwrap();
    let ids = ResultIds {
        tool_call_id: "e2",
        tool_name: EDIT,
        is_error: false,
    };
    let event = result_event(&dir, "e2", EDIT);
    let result = answered_now(extension.tool_result(ids, || Some(event), no_names));
    let result = result.expect("answered before the call returned");
    assert_eq!(diffed(&result), ["main.go"]);
    let diff = &result.details.as_ref().unwrap()["diffs"][0];
    assert!(diff.to_string().contains("howdy"), "{diff}");
}

#[cfg(unix)]
#[test]
fn a_large_file_or_one_behind_a_symlink_is_still_read_off_the_callers_thread() {
    // One pool thread, held busy while each call starts, so a pool read cannot answer before
    // the call returns: only a read on the caller's thread could.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(dir.join("main.go"), "hello\n").unwrap();
        let extension = extension(&dir, true, None);
        edit_once(&extension, &dir, "e1", "howdy\n").await;
        let starts_with_the_pool_held = |id: &str| {
            let (release, held) = std::sync::mpsc::channel::<()>();
            tokio::task::spawn_blocking(move || held.recv());
            let event = call_event(&dir, id, EDIT, edit_input());
            let call = extension.tool_call(ids(&event), || Some(event.clone()));
            let now = answered_now(call);
            release.send(()).unwrap();
            now
        };
        std::fs::write(dir.join("main.go"), "hello\n".repeat(20_000)).unwrap();
        assert_eq!(
            starts_with_the_pool_held("e2"),
            None,
            "over 64 KiB: read on the pool"
        );

        std::fs::remove_file(dir.join("main.go")).unwrap();
        std::fs::write(dir.join("real.go"), "hello\n").unwrap();
        // Relative, so it stays beneath the folder: only the refusal of symlinks keeps it off.
        std::os::unix::fs::symlink("real.go", dir.join("main.go")).unwrap();
        assert_eq!(
            starts_with_the_pool_held("e3"),
            None,
            "a symlink: the full checks, on the pool"
        );
    });
}

#[test]
fn a_flag_is_read_with_javascripts_truthiness() {
    use super::truthy;
    for falsy in [json!(null), json!(false), json!(0), json!(0.0), json!("")] {
        assert!(!truthy(Some(falsy.clone())), "{falsy} is falsy");
    }
    assert!(!truthy(None), "an absent flag is falsy");
    for truthful in [
        json!(true),
        json!(1),
        json!(-0.5),
        json!("x"),
        json!([]),
        json!({}),
    ] {
        assert!(truthy(Some(truthful.clone())), "{truthful} is truthy");
    }
}

#[test]
fn a_results_text_is_its_text_blocks_joined_by_newlines() {
    use super::result_text;
    let content = json!([
        {"type": "text", "text": "one"},
        {"type": "image", "data": "x", "text": "not text"},
        {"type": "text", "text": "two"},
        {"type": "text"}
    ]);
    assert_eq!(result_text(Some(content)), "one\ntwo");
    assert_eq!(result_text(Some(json!({"type": "text", "text": "x"}))), "");
    assert_eq!(result_text(None), "");
}

#[cfg(target_os = "linux")]
/// The text of the first diff in `action`'s details.
fn first_diff(action: &ToolResultAction) -> String {
    action.details.as_ref().unwrap()["diffs"][0].to_string()
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread")]
async fn the_before_side_is_what_the_read_ahead_read_at_message_end() {
    let dir = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(dir.join("main.go"), "hello\n").unwrap();
    if !reads_on_the_callers_thread(&dir, "main.go") {
        eprintln!("no openat2 or no local file system here: the read-ahead's end cannot be known");
        return;
    }
    let extension = extension(&dir, true, None);
    // A first edit learns the folder, so the read-ahead below ends before message_end returns.
    edit_once(&extension, &dir, "e0", "hello\n").await;
    let planned = PlannedCall {
        tool_call_id: "e1".into(),
        tool_name: EDIT.into(),
        arguments: edit_input(),
    };
    let cwd = dir.to_string_lossy().into_owned();
    assert_eq!(
        answered_now(extension.message_end(vec![planned], cwd)),
        Some(())
    );
    // Changed after the read-ahead: the claim takes the read-ahead's side, not this one.
    std::fs::write(dir.join("main.go"), "middle\n").unwrap();
    let action = edit_once(&extension, &dir, "e1", "howdy\n").await;
    let diff = first_diff(&action);
    assert!(diff.contains("hello") && !diff.contains("middle"), "{diff}");
}

#[test]
fn a_message_is_read_ahead_only_on_the_native_path_and_only_with_planned_edits() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_string_lossy().into_owned();
    let planned = || PlannedCall {
        tool_call_id: "e1".into(),
        tool_name: EDIT.into(),
        arguments: edit_input(),
    };
    let own = extension(dir.path(), false, None);
    assert!(matches!(
        own.message_end(vec![planned()], cwd.clone()),
        Answer::Now(())
    ));
    let native = extension(dir.path(), true, None);
    assert!(matches!(
        native.message_end(vec![], cwd.clone()),
        Answer::Now(())
    ));
    assert!(matches!(
        native.message_end(vec![planned()], cwd),
        Answer::Later(_)
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_turn_drops_the_claims_of_the_last_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
    let extension = extension(dir.path(), true, None);
    let event = call_event(dir.path(), "e1", EDIT, edit_input());
    answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    extension.clear_calls();
    let result = ResultIds {
        tool_call_id: "e1",
        tool_name: EDIT,
        is_error: false,
    };
    assert!(matches!(
        extension.tool_result(result, || panic!("the claim was dropped"), no_names),
        Answer::Now(_)
    ));
}

#[test]
fn a_failed_tools_search_is_answered_now_without_its_result_read() {
    let dir = tempfile::tempdir().unwrap();
    let extension = extension(dir.path(), true, None);
    let failed = ResultIds {
        tool_call_id: "t1",
        tool_name: "mcp__gortex__tools_search",
        is_error: true,
    };
    let answer = extension.tool_result(failed, || panic!("the result was read"), no_names);
    assert!(matches!(answer, Answer::Now(ref a) if *a == ToolResultAction::default()));
}

// Unix only: the hook double is a shell script (the Windows exchange: `test_hook_windows`).
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn an_edit_the_hook_allows_is_claimed_after_the_judgement_and_diffed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
    let hook = dir.path().join("hook.sh");
    std::fs::write(&hook, "#!/bin/sh\ncat >/dev/null\necho '{}'\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let argv = vec![hook.to_string_lossy().into_owned()];
    let extension = extension(dir.path(), true, Some(argv));
    let action = edit_once(&extension, dir.path(), "e1", "howdy\n").await;
    assert_eq!(diffed(&action), ["main.go"]);
    assert_eq!(extension.module().lock().status.hook.blocks, 0);
}

/// Whether `pid` is still a process running `program` (a zombie included: not yet reaped).
#[cfg(target_os = "linux")]
fn runs(pid: u32, program: &Path) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        String::from_utf8_lossy(&cmdline).contains(&*program.to_string_lossy())
    }) || std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.contains(") Z "))
}

#[cfg(unix)]
#[test]
fn hook_18_a_spare_is_started_only_when_prespawn_is_on() {
    for prespawn in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let extension = crate::extension::test_instance(dir.path(), &[], false, |config| {
            config.enforce = true;
            config.hook_prespawn = prespawn;
            config.hook_argv = vec!["/bin/cat".into()];
        });
        let me = extension.instance().unwrap();
        let config = me.lock().config.clone();
        me.refill_hook_spare(&config);
        assert_eq!(
            me.hook_spare.counts().started,
            usize::from(prespawn),
            "hook_prespawn {prespawn}"
        );
        me.hook_spare.close();
    }
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_18_a_thousand_calls_and_the_sessions_end_leave_no_hook_process_and_one_spare_at_most()
{
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let hook = dir.path().join("hook.sh");
    // Each hook process records its pid before it reads stdin, a spare included.
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\necho $$ >> '{}'\ncat >/dev/null\necho '{{}}'\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let extension = crate::extension::test_instance(dir.path(), &[], false, |config| {
        config.enforce = true;
        config.hook_prespawn = true;
        config.hook_argv = vec![hook.to_string_lossy().into_owned()];
    });
    for i in 0..1000 {
        let event = call_event(
            dir.path(),
            &format!("c{i}"),
            "read",
            json!({"path": "a.go"}),
        );
        let action = answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
        assert_eq!(action, Some(ToolCallAction::None));
    }
    let me = extension.instance().unwrap();
    extension.session_shutdown().await;
    // A refill that raced the session's end ends its spare itself: waited for.
    let deadline = Instant::now() + Duration::from_secs(20);
    let started: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|line| line.trim().parse().unwrap())
        .collect();
    assert!(started.len() >= 1000, "{} hook processes", started.len());
    let hook_path = hook.clone();
    let left = || -> Vec<u32> {
        started
            .iter()
            .copied()
            .filter(|pid| runs(*pid, &hook_path))
            .collect()
    };
    while (me.hook_spare.counts().alive > 0 || !left().is_empty()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(
        left(),
        Vec::<u32>::new(),
        "hook processes left after the session's end"
    );
    let counts = me.hook_spare.counts();
    assert!(counts.used > 0, "the spare was used: {counts:?}");
    assert!(counts.peak <= 1, "one spare at a time: {counts:?}");
    assert_eq!(counts.alive, 0, "{counts:?}");
}

// SAVE-4: a stats file that cannot be written costs the record, is said in `/gortex` and once
// to the user, and the next write is still tried; nothing else of the session changes.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn save_4_an_unwritable_stats_file_is_told_in_gortex_and_costs_only_the_record() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.go"), "x".repeat(400)).unwrap();
    let agent = dir.path().join("agent");
    std::fs::create_dir(&agent).unwrap();
    let fifo = crate::stats::file_path(&agent);
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let argv = hook_answering(dir.path(), r#"{"block":true,"reason":"use gortex"}"#);
    let extension = crate::extension::test_instance(dir.path(), &[], true, |config| {
        config.enforce = true;
        config.hook_argv = argv;
        config.stats = true;
        config.agent_dir = agent.clone();
    });
    let event = call_event(dir.path(), "r1", "read", json!({"path": "big.go"}));
    let action = answer(extension.tool_call(ids(&event), || Some(event.clone()))).await;
    assert!(
        matches!(action, Some(ToolCallAction::Block { .. })),
        "the call is judged as before"
    );
    // The first record is written after the answer, on the call's pool thread.
    let deadline = Instant::now() + Duration::from_secs(5);
    while extension.module().lock().status.stats_error.is_none() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let error = extension.module().lock().status.stats_error.clone();
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("gortex-stats.jsonl: ")),
        "{error:?}"
    );
    let request = pi_gortex_schema::host::StatusRequest { pi_tools: vec![] };
    let text = extension.status_view(&request).text;
    assert!(text.contains("    not recorded      "), "{text}");
    assert!(
        text.contains("    kept out          400 bytes, 100 tokens\n"),
        "{text}"
    );
    // The user is warned once, with the next result, not at each failed write.
    let notice_of = |action: Option<ToolResultAction>| action.and_then(|a| a.notice);
    let notice = notice_of(result_of(&extension, result_event(dir.path(), "b1", "bash")).await);
    assert!(
        notice.as_deref().is_some_and(|n| n
            .starts_with("pi-gortex could not record what the graph saved (")
            && n.contains("gortex-stats.jsonl: ")),
        "{notice:?}"
    );
    extension
        .module()
        .lock()
        .status
        .savings
        .record_graph_answer("more");
    extension.record_stats(0);
    let again = result_event(dir.path(), "b2", "bash");
    assert_eq!(
        notice_of(result_of(&extension, again).await),
        None,
        "once per session"
    );
    // A new session warns again if its writes fail too.
    extension.module().lock().status.reset_for_session();
    assert_eq!(extension.module().lock().status.stats_error, None);
    std::fs::remove_file(&fifo).unwrap();
    extension
        .module()
        .lock()
        .status
        .savings
        .record_graph_answer("answer");
    extension.record_stats(0);
    assert_eq!(
        crate::stats::read(&fifo).unwrap().records.len(),
        1,
        "the next write is tried"
    );
    assert_eq!(
        notice_of(result_of(&extension, result_event(dir.path(), "b3", "bash")).await),
        None
    );
}
