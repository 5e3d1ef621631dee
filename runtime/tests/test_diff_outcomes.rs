//! DIFF-10, DIFF-11, DIFF-12, DIFF-14, DIFF-19 (merge) and DIFF-21: what a
//! before/after pair of snapshots produces, and how entries become
//! `EditDetails`.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pi_gortex_runtime::diff::budget::{work_estimate, MAX_DIFF_WORK};
use pi_gortex_runtime::diff::outcome::{
    compare, edit_details, file_outcome, invisible_change_note, merge_details, note_entry,
    text_diff, NOTE_TOO_LARGE,
};
use pi_gortex_runtime::diff::snapshot::{classify_bytes, SkipReason, Snapshot, Snapshots};
use pi_gortex_runtime::diff::FileDiff;
use serde_json::json;

fn text(raw: &str) -> Snapshot {
    classify_bytes(raw.as_bytes().to_vec(), None, None)
}

fn skipped(reason: SkipReason, size: u64, secs: u64) -> Snapshot {
    Snapshot::Skipped {
        reason,
        size: Some(size),
        mtime: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)),
    }
}

fn note(entry: Option<FileDiff>) -> Option<String> {
    entry.and_then(|e| {
        assert!(
            e.diff.is_empty() && e.patch.is_empty(),
            "a note has no diff"
        );
        e.note
    })
}

#[test]
fn skipped_sides_give_the_after_reason_else_the_before_reason() {
    let over = skipped(SkipReason::OverOneMib, 2_000_000, 1);
    let binary = skipped(SkipReason::Binary, 10, 2);
    assert_eq!(
        note(file_outcome("a", &text("x"), &binary)).as_deref(),
        Some("not diffed: binary file")
    );
    assert_eq!(
        note(file_outcome("a", &over, &text("x"))).as_deref(),
        Some("not diffed: over 1 MiB")
    );
    assert_eq!(
        note(file_outcome("a", &over, &binary)).as_deref(),
        Some("not diffed: binary file")
    );
    let silent = skipped(SkipReason::Silent, 1, 1);
    assert_eq!(
        note(file_outcome("a", &over, &silent)).as_deref(),
        Some("not diffed: over 1 MiB")
    );
    assert_eq!(
        file_outcome("a", &text("x"), &silent),
        None,
        "silent reasons emit nothing"
    );
    assert_eq!(
        note(file_outcome("a", &Snapshot::Missing, &over)).as_deref(),
        Some("not diffed: over 1 MiB")
    );
}

#[test]
fn an_unchanged_skipped_file_emits_nothing() {
    let over = skipped(SkipReason::OverOneMib, 2_000_000, 1);
    assert_eq!(file_outcome("a", &over, &over.clone()), None);
    let touched = skipped(SkipReason::OverOneMib, 2_000_000, 9);
    assert!(
        file_outcome("a", &over, &touched).is_some(),
        "mtime changed"
    );
}

#[test]
fn missing_and_new_and_deleted_files() {
    assert_eq!(
        file_outcome("a", &Snapshot::Missing, &Snapshot::Missing),
        None
    );
    let created = file_outcome("new.txt", &Snapshot::Missing, &text("a\nb\n")).unwrap();
    assert_eq!(created.diff, "+1 a\n+2 b");
    assert_eq!(
        created.patch,
        "--- new.txt\n+++ new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    );
    assert_eq!(created.first_changed_line, NonZeroU32::new(1));
    let deleted = file_outcome("old.txt", &text("a\n"), &Snapshot::Missing).unwrap();
    assert_eq!(deleted.diff, "-1 a");
    assert_eq!(
        file_outcome("e", &text(""), &Snapshot::Missing),
        None,
        "empty to missing"
    );
}

#[test]
fn equal_normalized_texts_note_only_invisible_changes() {
    assert_eq!(file_outcome("a", &text("a\nb\n"), &text("a\nb\n")), None);
    assert_eq!(
        note(file_outcome("a", &text("a\r\nb\r\n"), &text("a\nb\n"))).as_deref(),
        Some("line endings CRLF -> LF")
    );
    assert_eq!(
        note(file_outcome(
            "a",
            &text("a\nb\n"),
            &text("\u{feff}a\r\nb\r\n")
        ))
        .as_deref(),
        Some("line endings LF -> CRLF, byte order mark added")
    );
    assert_eq!(
        note(file_outcome("a", &text("\u{feff}a\n"), &text("a\n"))).as_deref(),
        Some("byte order mark removed")
    );
    // Both sides CRLF, but in different places: only the style is compared.
    assert_eq!(
        note(file_outcome("a", &text("a\r\nb\n"), &text("a\nb\r\n"))).as_deref(),
        Some("line endings changed")
    );
    // Missing vs empty text is not an invisible change.
    assert_eq!(file_outcome("a", &Snapshot::Missing, &text("")), None);
    assert_eq!(invisible_change_note(b"x", b"x"), None);
}

#[test]
fn a_changed_text_diffs_on_normalized_content() {
    let entry = file_outcome("f.txt", &text("a\r\nb\r\n"), &text("a\nc\n")).unwrap();
    assert_eq!(entry.diff, " 1 a\n-2 b\n+2 c");
    assert_eq!(
        entry.patch,
        "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    );
    assert_eq!(entry.first_changed_line, NonZeroU32::new(2));
    assert_eq!(entry.note, None);
}

#[test]
fn work_estimate_follows_the_spec_formula() {
    // "a\nb\n".split("\n") = [a, b, ""], "a\nc\n" -> [a, c, ""]: shared 2.
    assert_eq!(work_estimate("a\nb\n", "a\nc\n"), 6 * (6 - 4));
    assert_eq!(
        work_estimate("", ""),
        0,
        "[\"\"] and [\"\"] share their only line"
    );
    assert_eq!(work_estimate("x\nx\nx", "x"), 4 * (4 - 2));
}

#[test]
fn changes_over_the_budget_get_the_too_large_note() {
    // 30,000 distinct lines replaced by 30,000 others: estimate 3.6e9.
    let old: String = (0..30_000).map(|i| format!("old {i}\n")).collect();
    let new: String = (0..30_000).map(|i| format!("new {i}\n")).collect();
    assert!(work_estimate(&old, &new) > MAX_DIFF_WORK);
    let entry = text_diff("big.txt", &old, &new).unwrap();
    assert_eq!(entry.note.as_deref(), Some(NOTE_TOO_LARGE));
    assert_eq!(
        NOTE_TOO_LARGE,
        "not diffed: change too large to diff quickly"
    );
}

#[test]
fn two_thousand_scattered_edits_in_a_one_mib_file_are_diffed_not_refused() {
    // Benchmark case (c): far above the spec's 2,000,000 estimate.
    let mut old: Vec<String> = Vec::new();
    let mut size = 0;
    while size < 1_000_000 {
        let line = format!(
            "    let value_{} = compute({});",
            old.len(),
            old.len() * 7919 % 100_003
        );
        size += line.len() + 1;
        old.push(line);
    }
    let mut new = old.clone();
    let step = new.len() / 2000;
    for e in (0..2000).rev() {
        let at = e * step + step / 2;
        match e % 3 {
            0 => new[at] = format!("    edited({e});"),
            1 => new.insert(at, format!("    inserted({e});")),
            _ => {
                new.remove(at);
            }
        }
    }
    let (old, new) = (old.join("\n") + "\n", new.join("\n") + "\n");
    assert!(old.len() < 1_048_576 && work_estimate(&old, &new) > 100_000_000);
    let entry = text_diff("large.txt", &old, &new).unwrap();
    assert_eq!(entry.note, None, "diffed, not refused");
    assert_eq!(
        entry.diff.lines().filter(|l| l.starts_with('+')).count(),
        1334
    );
    assert_eq!(
        entry.diff.lines().filter(|l| l.starts_with('-')).count(),
        1333
    );
}

#[test]
fn compare_shows_paths_relative_to_cwd() {
    let cwd = PathBuf::from("/w/repo");
    let mut before = Snapshots::new();
    let mut after = Snapshots::new();
    before.insert(cwd.join("src/a.ts"), text("one\n"));
    after.insert(cwd.join("src/a.ts"), text("two\n"));
    before.insert(cwd.join("same.ts"), text("x\n"));
    after.insert(cwd.join("same.ts"), text("x\n"));
    let details = compare(&before, &after, &cwd);
    let diffs = details.diffs.unwrap();
    assert_eq!(diffs.len(), 1);
    // `path.relative` writes this platform's separator (`src\\a.ts` on Windows).
    let shown = Path::new("src").join("a.ts").display().to_string();
    assert_eq!(diffs[0].path, shown);
    assert!(diffs[0]
        .patch
        .starts_with(&format!("--- {shown}\n+++ {shown}\n")));
}

#[test]
fn edit_details_shape_follows_the_number_of_entries() {
    assert_eq!(
        serde_json::to_value(edit_details(vec![])).unwrap(),
        json!({})
    );

    let one = file_outcome("a.ts", &text("one\ntwo\n"), &text("one\nTWO\n")).unwrap();
    let single = serde_json::to_value(edit_details(vec![one.clone()])).unwrap();
    assert_eq!(single["diff"], json!(one.diff));
    assert_eq!(single["firstChangedLine"], json!(2));
    assert_eq!(single["patch"], json!(one.patch));
    assert_eq!(single["diffs"].as_array().unwrap().len(), 1);

    let noted = note_entry("b.ts", "not diffed: binary file");
    let only_note = serde_json::to_value(edit_details(vec![noted.clone()])).unwrap();
    assert_eq!(
        only_note,
        json!({"diffs": [{"path": "b.ts", "diff": "", "patch": "", "note": "not diffed: binary file"}]})
    );

    let two = serde_json::to_value(edit_details(vec![one.clone(), noted])).unwrap();
    assert!(two.get("diff").is_none() && two.get("firstChangedLine").is_none());
    assert_eq!(two["patch"], json!(one.patch));
    for value in [single, only_note, two] {
        pi_gortex_schema::validate("EditDetails", &value)
            .unwrap_or_else(|e| panic!("{value}: {e:?}"));
    }
}

#[test]
fn merge_keeps_pi_fields_and_adds_ours() {
    let entry = file_outcome("a.ts", &text("a\n"), &text("b\n")).unwrap();
    let details = edit_details(vec![entry]);
    let merged = merge_details(
        &json!({"server": "gortex", "tool": "edit", "diff": "old"}),
        &details,
    );
    assert_eq!(merged["server"], json!("gortex"));
    assert_eq!(merged["tool"], json!("edit"));
    assert_eq!(merged["diff"], json!("-1 a\n+1 b"));
    assert!(merged["diffs"].is_array());
    let from_null = merge_details(&json!(null), &details);
    assert_eq!(from_null, serde_json::to_value(&details).unwrap());
}

/// DIFF-12 computed the plain way: JS `split("\n")` and a multiset.
fn split_estimate(old: &str, new: &str) -> u64 {
    let mut counts = std::collections::HashMap::new();
    for line in old.split('\n') {
        *counts.entry(line).or_insert(0u64) += 1;
    }
    let mut shared = 0;
    for line in new.split('\n') {
        if let Some(n) = counts.get_mut(line).filter(|n| **n > 0) {
            *n -= 1;
            shared += 1;
        }
    }
    let total = (old.split('\n').count() + new.split('\n').count()) as u64;
    total * (total - 2 * shared)
}

#[test]
fn work_estimate_matches_a_plain_split_count() {
    let pieces = ["a", "b", "\n", "\n", "\r\n", "", "a\n", "b\n"];
    let mut seed = 0x1234_5678_u64;
    let mut pick = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for _ in 0..2000 {
        let old: String = (0..pick() % 12)
            .map(|_| pieces[pick() % pieces.len()])
            .collect();
        let new: String = (0..pick() % 12)
            .map(|_| pieces[pick() % pieces.len()])
            .collect();
        assert_eq!(
            work_estimate(&old, &new),
            split_estimate(&old, &new),
            "{old:?} -> {new:?}"
        );
    }
}

#[test]
fn a_rewrite_past_the_step_limit_gets_the_note_though_its_estimate_fits() {
    // 5,000 lines replaced by 5,000 others: estimate ~1e8, within
    // MAX_DIFF_WORK, but the search needs ~25 million steps.
    let old: String = (0..5000).map(|i| format!("before {i}\n")).collect();
    let new: String = (0..5000).map(|i| format!("after {i}\n")).collect();
    assert!(work_estimate(&old, &new) <= MAX_DIFF_WORK);
    let entry = text_diff("rewrite.txt", &old, &new).unwrap();
    assert_eq!(entry.note.as_deref(), Some(NOTE_TOO_LARGE));
    // A smaller rewrite is diffed.
    let old: String = (0..500).map(|i| format!("before {i}\n")).collect();
    let new: String = (0..500).map(|i| format!("after {i}\n")).collect();
    assert_eq!(text_diff("small.txt", &old, &new).unwrap().note, None);
}
