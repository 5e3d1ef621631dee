//! The diff engine (DIFF-9..13) on arbitrary pairs of files.
//!
//! Input: two bytes choosing where to cut, then the bytes of both files.
//! Both sides go through the production path (DIFF-9 classification, then
//! the DIFF-10 outcome) which must not panic. The engine is then checked
//! against properties that do not depend on how it searches: its parts
//! rebuild both texts exactly and consume each side in order, and the
//! unified patch carries exactly one `-` line per removed line and one `+`
//! line per added line; a display diff is empty exactly when the texts are
//! equal line for line.

use pi_gortex_runtime::diff::budget::{within_budget, work_estimate, MAX_DIFF_STEPS};
use pi_gortex_runtime::diff::engine::{diff_lines, tokenize, PartKind};
use pi_gortex_runtime::diff::format::render;
use pi_gortex_runtime::diff::outcome::{file_outcome, invisible_change_note};
use pi_gortex_runtime::diff::snapshot::{classify_bytes, normalize_text};

/// Rebuilds both sides from the parts and checks they match the inputs.
fn check_parts(old: &str, new: &str) {
    let Ok(parts) = diff_lines(old, new, MAX_DIFF_STEPS) else {
        return;
    };
    let (old_tokens, new_tokens) = (tokenize(old), tokenize(new));
    let (mut old_at, mut new_at) = (0, 0);
    for part in &parts {
        assert!(part.count > 0, "no empty parts");
        assert_eq!(part.old_start, old_at, "old side consumed in order");
        assert_eq!(part.new_start, new_at, "new side consumed in order");
        match part.kind {
            PartKind::Equal => {
                let a = &old_tokens[old_at..old_at + part.count];
                let b = &new_tokens[new_at..new_at + part.count];
                assert_eq!(a, b, "equal parts are equal");
                old_at += part.count;
                new_at += part.count;
            }
            PartKind::Removed => old_at += part.count,
            PartKind::Added => new_at += part.count,
        }
    }
    assert_eq!(old_at, old_tokens.len(), "old rebuilt");
    assert_eq!(new_at, new_tokens.len(), "new rebuilt");

    let Ok(rendered) = render("f.txt", old, new, MAX_DIFF_STEPS) else {
        return;
    };
    let count = |kind| -> usize {
        parts
            .iter()
            .filter(|part| part.kind == kind)
            .map(|part| part.count)
            .sum()
    };
    let body: Vec<&str> = rendered.patch.split('\n').skip(2).collect();
    assert!(rendered.patch.starts_with("--- f.txt\n+++ f.txt\n"));
    let lines_with = |prefix: char| body.iter().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(lines_with('-'), count(PartKind::Removed), "patch removals");
    assert_eq!(lines_with('+'), count(PartKind::Added), "patch additions");
    let changed = count(PartKind::Removed) + count(PartKind::Added) > 0;
    assert_eq!(!rendered.display.diff.is_empty(), changed, "display diff");
    assert_eq!(rendered.display.first_changed_line.is_some(), changed);
}

/// Diffs the two files cut out of `data`.
pub fn run(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let files = &data[2..];
    let cut = usize::from(u16::from_le_bytes([data[0], data[1]])) % (files.len() + 1);
    let (old_raw, new_raw) = files.split_at(cut);

    let before = classify_bytes(old_raw.to_vec(), Some(old_raw.len() as u64), None);
    let after = classify_bytes(new_raw.to_vec(), Some(new_raw.len() as u64), None);
    if let Some(entry) = file_outcome("f.txt", &before, &after) {
        assert_eq!(entry.path, "f.txt");
        assert!(
            entry.note.is_some() == entry.diff.is_empty(),
            "a note or a diff"
        );
    }
    let _ = invisible_change_note(old_raw, new_raw);

    let old = normalize_text(&String::from_utf8_lossy(old_raw));
    let new = normalize_text(&String::from_utf8_lossy(new_raw));
    let _ = work_estimate(&old, &new);
    if within_budget(&old, &new) {
        check_parts(&old, &new);
    }
}
