//! DIFF-13: the display diff and patch formats, on the spec's examples and
//! on the jsdiff behaviours the parity corpus exercises at scale.

use pi_gortex_runtime::diff::engine::{diff_lines, tokenize, DiffAbort, PartKind};
use pi_gortex_runtime::diff::format::{generate_diff_string, generate_unified_patch, render};

const NO_LIMIT: u64 = u64::MAX;

#[test]
fn spec_example_one_replaced_line() {
    let d = generate_diff_string("a\nb\n", "a\nc\n", NO_LIMIT).unwrap();
    assert_eq!(d.diff, " 1 a\n-2 b\n+2 c");
    assert_eq!(d.first_changed_line, Some(2));
    assert_eq!(
        generate_unified_patch("f.txt", "a\nb\n", "a\nc\n", NO_LIMIT).unwrap(),
        "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    );
}

#[test]
fn spec_example_skipped_context_and_number_width() {
    let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
    let new = old.replace("l10\n", "X\n");
    let d = generate_diff_string(&old, &new, NO_LIMIT).unwrap();
    assert_eq!(
        d.diff,
        "    ...\n  6 l6\n  7 l7\n  8 l8\n  9 l9\n-10 l10\n+10 X\n 11 l11\n 12 l12\n 13 l13\n 14 l14\n    ..."
    );
    assert_eq!(d.first_changed_line, Some(10));
}

#[test]
fn no_change_gives_an_empty_diff_and_a_header_only_patch() {
    let d = generate_diff_string("same\n", "same\n", NO_LIMIT).unwrap();
    assert_eq!(d.diff, "");
    assert_eq!(d.first_changed_line, None);
    assert_eq!(
        generate_unified_patch("p", "same\n", "same\n", NO_LIMIT).unwrap(),
        "--- p\n+++ p\n"
    );
}

#[test]
fn missing_final_newline_is_marked_in_the_patch() {
    let r = render("f", "a\nb", "a\nc", NO_LIMIT).unwrap();
    assert_eq!(r.display.diff, " 1 a\n-2 b\n+2 c");
    assert_eq!(
        r.patch,
        "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    );
}

#[test]
fn ties_follow_jsdiff_prefix_first_then_removal_before_insertion() {
    // jsdiff keeps the common prefix, so a duplicated line is the second one.
    let parts = diff_lines("a\na\n", "a\n", NO_LIMIT).unwrap();
    let kinds: Vec<_> = parts.iter().map(|p| (p.kind, p.count)).collect();
    assert_eq!(kinds, [(PartKind::Equal, 1), (PartKind::Removed, 1)]);
    // With nothing in common, all removals come before all insertions.
    let parts = diff_lines("a\nb\nc\n", "x\ny\n", NO_LIMIT).unwrap();
    let kinds: Vec<_> = parts.iter().map(|p| (p.kind, p.count)).collect();
    assert_eq!(kinds, [(PartKind::Removed, 3), (PartKind::Added, 2)]);
}

#[test]
fn tokens_keep_their_newlines() {
    assert_eq!(tokenize("a\r\nb\n\nc"), ["a\r\n", "b\n", "\n", "c"]);
    assert!(tokenize("").is_empty());
}

#[test]
fn the_step_limit_aborts_instead_of_returning_another_diff() {
    let old: String = (0..3000).map(|i| format!("o{i}\n")).collect();
    let new: String = (0..3000).map(|i| format!("n{i}\n")).collect();
    assert_eq!(
        diff_lines(&old, &new, 1000),
        Err(DiffAbort::StepLimit { limit: 1000 })
    );
    assert!(diff_lines(&old, &new, NO_LIMIT).is_ok());
}
