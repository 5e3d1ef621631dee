//! The native path's read-ahead (DIFF-17): a Gortex edit's before
//! side read at the assistant message that asks for it, taken by its claim
//! at `tool_call`, waited for when still reading, dropped once a call of a
//! sequential batch has run, and never used for other files.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pi_gortex_runtime::diff::{
    edit_candidates, snapshot_all_in, Boundary, EditClaims, PrefetchUse, PrefetchWaiter, Snapshots,
    ToolCall, MAX_PREFETCHES,
};
use serde_json::{json, Value};

mod common;

fn repo() -> common::DiffRepo {
    common::diff_repo(&[("a.txt", "one\n"), ("b.txt", "bee\n")])
}

const EDIT: &str = "mcp__gortex__edit";

fn edit_of(path: &str) -> Value {
    json!({"operation": "file", "path": path})
}

fn call<'a>(id: &'a str, input: &'a Value) -> ToolCall<'a> {
    ToolCall {
        tool_call_id: id,
        tool_name: EDIT,
        input,
        parent_tool_call_id: None,
    }
}

/// The message's read-ahead of `input`'s files, read at once (what the
/// addon's blocking job does), with its answer handed to the claims.
fn read_ahead(w: &mut EditClaims, id: &str, input: &Value, cwd: &Path) -> Option<PrefetchWaiter> {
    let read = begin(w, id, input, cwd);
    w.finish_prefetch(id, read_now(&read))
}

/// What the addon's read-ahead job reads: the files within the cwd's boundary.
fn read_now((paths, cwd): &(Vec<PathBuf>, PathBuf)) -> Snapshots {
    snapshot_all_in(paths, &Boundary::for_cwd(cwd))
}

/// The message's read-ahead begun, its read still to come: what to read.
fn begin(w: &mut EditClaims, id: &str, input: &Value, cwd: &Path) -> (Vec<PathBuf>, PathBuf) {
    w.begin_prefetch(id, EDIT, input, cwd, edit_candidates)
        .expect("an edit naming files is read ahead")
}

/// The call's claim at `tool_call`, then its before side asked of the
/// read-ahead with a waiter that notes whether it ran.
fn claim(
    w: &mut EditClaims,
    id: &str,
    input: &Value,
    cwd: &Path,
) -> (PrefetchUse, Arc<AtomicBool>) {
    let ticket = w
        .begin_tool_call(call(id, input), true, cwd, edit_candidates)
        .expect("a Gortex edit naming files is claimed");
    let ran = Arc::new(AtomicBool::new(false));
    let noted = ran.clone();
    let waiter = move || Box::new(move || noted.store(true, Ordering::SeqCst)) as PrefetchWaiter;
    (w.use_prefetch(ticket, waiter), ran)
}

/// The claim's diff once the file has become `after`: `-before +after` lines.
fn diff_after(w: &mut EditClaims, id: &str, file: &Path, after: &str, cwd: &Path) -> String {
    fs::write(file, after).unwrap();
    let pending = w
        .take_result(id, false)
        .expect("a claim with its before side");
    let read = pending.after_reader()();
    let details = pending.finish(&read, &w.shell, cwd);
    details.diff.unwrap_or_default()
}

#[test]
fn a_claim_takes_the_before_side_read_at_the_assistant_message() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = edit_of("a.txt");
    assert!(
        read_ahead(&mut w, "e1", &input, &r.cwd).is_none(),
        "no claim waits yet"
    );
    // Changed after the read-ahead, before the claim: the claim keeps what was read ahead.
    fs::write(r.cwd.join("a.txt"), "mid\n").unwrap();
    let (used, ran) = claim(&mut w, "e1", &input, &r.cwd);
    assert!(matches!(used, PrefetchUse::Completed));
    assert!(!ran.load(Ordering::SeqCst), "nothing to wait for");
    let diff = diff_after(&mut w, "e1", &r.cwd.join("a.txt"), "two\n", &r.cwd);
    assert_eq!(diff, "-1 one\n+1 two");
}

#[test]
fn a_claim_made_while_reading_ahead_waits_for_that_read() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = edit_of("a.txt");
    let read = begin(&mut w, "e1", &input, &r.cwd);
    let (used, ran) = claim(&mut w, "e1", &input, &r.cwd);
    assert!(matches!(used, PrefetchUse::Waiting));
    // The read-ahead completes the claim and hands the waiter back.
    let waiter = w.finish_prefetch("e1", read_now(&read));
    waiter.expect("the waiter")();
    assert!(ran.load(Ordering::SeqCst));
    let diff = diff_after(&mut w, "e1", &r.cwd.join("a.txt"), "two\n", &r.cwd);
    assert_eq!(diff, "-1 one\n+1 two");
}

#[test]
fn once_a_call_of_a_sequential_batch_has_run_the_next_claim_reads_its_files_again() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = edit_of("a.txt");
    read_ahead(&mut w, "e2", &input, &r.cwd);
    // The batch's first call (say, a shell command) runs and changes the file.
    fs::write(r.cwd.join("a.txt"), "mid\n").unwrap();
    w.on_tool_execution_end("b1");
    let (PrefetchUse::Missing(ticket), _) = claim(&mut w, "e2", &input, &r.cwd) else {
        panic!("the read-ahead must be dropped once a call has run");
    };
    let before = ticket.before_reader()();
    w.complete_claim(ticket, before);
    let diff = diff_after(&mut w, "e2", &r.cwd.join("a.txt"), "two\n", &r.cwd);
    assert_eq!(diff, "-1 mid\n+1 two", "not the read-ahead's `one`");
}

#[test]
fn a_tool_result_of_another_call_drops_unclaimed_read_aheads_but_not_a_waiting_claim() {
    let r = repo();
    let mut w = EditClaims::new();
    let (a, b) = (edit_of("a.txt"), edit_of("b.txt"));
    let read = begin(&mut w, "e1", &a, &r.cwd);
    read_ahead(&mut w, "e2", &b, &r.cwd);
    assert!(matches!(
        claim(&mut w, "e1", &a, &r.cwd).0,
        PrefetchUse::Waiting
    ));
    w.drop_unclaimed_prefetches();
    // e1's claim still gets its read-ahead; e2's was dropped.
    let waiter = w.finish_prefetch("e1", read_now(&read));
    assert!(waiter.is_some(), "the waiting claim kept its read-ahead");
    assert!(matches!(
        claim(&mut w, "e2", &b, &r.cwd).0,
        PrefetchUse::Missing(_)
    ));
}

#[test]
fn a_read_ahead_of_other_files_than_the_claim_names_is_not_used() {
    let r = repo();
    let mut w = EditClaims::new();
    // The message named a.txt; the call Pi prepared names b.txt (its arguments were rewritten).
    read_ahead(&mut w, "e1", &edit_of("a.txt"), &r.cwd);
    let used = claim(&mut w, "e1", &edit_of("b.txt"), &r.cwd).0;
    assert!(matches!(used, PrefetchUse::Missing(_)));
}

#[test]
fn a_turn_start_drops_read_aheads_and_a_waiting_claims_waiter_unrun() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = edit_of("a.txt");
    let read = begin(&mut w, "e1", &input, &r.cwd);
    let ticket = w
        .begin_tool_call(call("e1", &input), true, &r.cwd, edit_candidates)
        .unwrap();
    let dropped = Arc::new(AtomicBool::new(false));
    struct NoteDrop(Arc<AtomicBool>);
    impl Drop for NoteDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let guard = NoteDrop(dropped.clone());
    let waiter = move || Box::new(move || drop(guard)) as PrefetchWaiter;
    assert!(matches!(
        w.use_prefetch(ticket, waiter),
        PrefetchUse::Waiting
    ));
    w.clear();
    assert!(
        dropped.load(Ordering::SeqCst),
        "the waiter is dropped, so its promise settles"
    );
    let late: Snapshots = read_now(&read);
    assert!(
        w.finish_prefetch("e1", late).is_none(),
        "a late read finds nothing to complete"
    );
}

#[test]
fn a_call_that_cannot_edit_or_names_no_file_is_not_read_ahead() {
    let r = repo();
    let mut w = EditClaims::new();
    let search = json!({"operation": "symbols", "query": "x"});
    let mut ahead = |id: &str, tool: &str, input: &Value| {
        w.begin_prefetch(id, tool, input, &r.cwd, edit_candidates)
            .is_some()
    };
    assert!(!ahead("s1", "mcp__gortex__search", &search));
    assert!(!ahead("e1", EDIT, &json!({"operation": "file"})));
    assert!(
        !ahead("e2", "edit", &edit_of("a.txt")),
        "Pi's own edit claims at tool_call only"
    );
}

#[test]
fn a_message_asking_for_many_edits_reads_ahead_a_bounded_number() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = edit_of("a.txt");
    let begun = (0..MAX_PREFETCHES + 4)
        .filter(|i| {
            w.begin_prefetch(&format!("e{i}"), EDIT, &input, &r.cwd, edit_candidates)
                .is_some()
        })
        .count();
    assert_eq!(
        begun, MAX_PREFETCHES,
        "the rest read at their own tool_call"
    );
    // A claim beyond the bound reads its files as without a read-ahead.
    let id = format!("e{}", MAX_PREFETCHES + 1);
    assert!(matches!(
        claim(&mut w, &id, &input, &r.cwd).0,
        PrefetchUse::Missing(_)
    ));
}

#[test]
fn a_read_ahead_whose_read_could_not_start_is_withdrawn_so_the_claim_reads_itself() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = edit_of("a.txt");
    begin(&mut w, "e1", &input, &r.cwd);
    // No runtime to read on: the addon withdraws it, or the claim would wait forever.
    w.drop_prefetch("e1");
    assert!(matches!(
        claim(&mut w, "e1", &input, &r.cwd).0,
        PrefetchUse::Missing(_)
    ));
}

#[test]
fn a_claim_of_the_read_ahead_input_names_its_files_without_judging_them_again() {
    let r = repo();
    let mut w = EditClaims::new();
    let input = edit_of("a.txt");
    read_ahead(&mut w, "e1", &input, &r.cwd);
    let judged = std::cell::Cell::new(0);
    let counted = |bare: &str, input: &Value, cwd: &Path| {
        judged.set(judged.get() + 1);
        edit_candidates(bare, input, cwd)
    };
    let ticket = w
        .begin_tool_call(call("e1", &input), true, &r.cwd, counted)
        .expect("claimed");
    assert_eq!(
        judged.get(),
        0,
        "the read-ahead's files, judged at the message"
    );
    assert_eq!(ticket.paths(), [r.cwd.join("a.txt")]);
    // Another input (Pi rewrote the arguments) is judged anew, and so is a call with no read-ahead.
    read_ahead(&mut w, "e2", &input, &r.cwd);
    w.begin_tool_call(call("e2", &edit_of("b.txt")), true, &r.cwd, counted);
    w.begin_tool_call(call("e3", &input), true, &r.cwd, counted);
    assert_eq!(judged.get(), 2);
}
