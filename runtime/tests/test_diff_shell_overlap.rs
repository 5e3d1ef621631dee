//! DIFF-15: a diff window that overlaps a shell call is replaced by notes.

use pi_gortex_runtime::diff::outcome::{apply_shell_overlap, note_entry, NOTE_SHELL_OVERLAP};
use pi_gortex_runtime::diff::ShellTracker;

#[test]
fn only_bash_and_powershell_are_tracked() {
    let mut shell = ShellTracker::default();
    shell.on_tool_call("read", "r1");
    shell.on_tool_call("mcp__gortex__edit", "g1");
    assert!(!shell.is_running());
    shell.on_tool_call("bash", "b1");
    assert!(shell.is_running());
    shell.on_tool_execution_end("b1");
    shell.on_tool_call("powershell", "p1");
    assert!(shell.is_running());
}

#[test]
fn a_window_overlaps_when_a_shell_ran_at_open_at_close_or_in_between() {
    let mut shell = ShellTracker::default();
    let quiet = shell.open_window();
    assert!(!shell.overlapped(quiet));

    // Running at opening, finished by closing.
    shell.on_tool_call("bash", "b1");
    let at_open = shell.open_window();
    shell.on_tool_execution_end("b1");
    assert!(shell.overlapped(at_open));

    // Started and ended in between: the counter moved.
    let between = shell.open_window();
    shell.on_tool_call("bash", "b2");
    shell.on_tool_execution_end("b2");
    assert!(shell.overlapped(between));

    // Running at closing.
    let at_close = shell.open_window();
    assert!(!shell.overlapped(at_close));
    shell.on_tool_call("powershell", "p1");
    assert!(shell.overlapped(at_close));
    shell.on_tool_execution_end("p1");

    // Clearing (turn_end) forgets running calls but not that one started.
    shell.on_tool_call("bash", "b3");
    shell.clear();
    let after_clear = shell.open_window();
    assert!(!shell.overlapped(after_clear));
}

#[test]
fn overlapped_entries_all_become_the_shell_note() {
    let mut diffed = note_entry("a.ts", "x");
    diffed.note = None;
    diffed.diff = "-1 a\n+1 b".into();
    diffed.patch = "--- a.ts\n".into();
    let entries = vec![diffed, note_entry("b.ts", "not diffed: binary file")];
    let replaced = apply_shell_overlap(entries.clone(), true);
    assert_eq!(replaced.len(), 2);
    for (entry, path) in replaced.iter().zip(["a.ts", "b.ts"]) {
        assert_eq!(entry.path, path);
        assert_eq!((entry.diff.as_str(), entry.patch.as_str()), ("", ""));
        assert_eq!(entry.note.as_deref(), Some(NOTE_SHELL_OVERLAP));
    }
    assert_eq!(
        NOTE_SHELL_OVERLAP,
        "not diffed: a shell command ran at the same time"
    );
    assert_eq!(apply_shell_overlap(entries.clone(), false), entries);
}
