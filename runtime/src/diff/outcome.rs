//! From two snapshots to `FileDiff` entries and `EditDetails`.

use std::num::NonZeroU32;
use std::path::Path;

use pi_gortex_schema::edit_details::{EditDetails, FileDiff};
use serde_json::{Map, Value};

use super::budget::{MAX_DIFF_STEPS, MAX_DIFF_WORK};
use super::format::LineDiff;
use super::paths::display_path;
use super::snapshot::{Snapshot, Snapshots};

/// Note texts, exact.
pub const NOTE_TOO_LARGE: &str = "not diffed: change too large to diff quickly";
pub const NOTE_SHELL_OVERLAP: &str = "not diffed: a shell command ran at the same time";
const NOTE_PREFIX: &str = "not diffed: ";

/// An entry that carries a note instead of a diff.
pub fn note_entry(path: &str, note: &str) -> FileDiff {
    FileDiff {
        path: path.to_owned(),
        diff: String::new(),
        patch: String::new(),
        first_changed_line: None,
        note: Some(note.to_owned()),
    }
}

/// DIFF-10 for one file shown as `display`: a diff, a note, or nothing.
pub fn file_outcome(display: &str, before: &Snapshot, after: &Snapshot) -> Option<FileDiff> {
    if let Some(note) = skipped_note(before, after) {
        return note.map(|n| note_entry(display, &n));
    }
    let (old, new) = (before.normalized()?, after.normalized()?);
    if old == new {
        return match (before, after) {
            (Snapshot::Text { raw: a, .. }, Snapshot::Text { raw: b, .. }) => {
                invisible_change_note(a, b).map(|n| note_entry(display, &n))
            }
            _ => None,
        };
    }
    text_diff(display, old, new)
}

/// The diff of two different texts, or the budget note.
pub fn text_diff(display: &str, old: &str, new: &str) -> Option<FileDiff> {
    let Ok(diff) = LineDiff::compute_within(old, new, MAX_DIFF_WORK, MAX_DIFF_STEPS) else {
        return Some(note_entry(display, NOTE_TOO_LARGE));
    };
    let shown = diff.display();
    if shown.diff.is_empty() {
        return None;
    }
    Some(FileDiff {
        path: display.to_owned(),
        patch: diff.patch(display),
        diff: shown.diff,
        first_changed_line: shown
            .first_changed_line
            // The schema's line numbers are uint32; a line past that is simply not named.
            .and_then(|line| u32::try_from(line).ok())
            .and_then(NonZeroU32::new),
        note: None,
    })
}

/// The skipped-file rule, checked first. `None`: neither side is skipped, go on comparing.
/// `Some(None)`: emit nothing. `Some(Some(note))`: emit the note.
fn skipped_note(before: &Snapshot, after: &Snapshot) -> Option<Option<String>> {
    let reason_of = |s: &Snapshot| match s {
        Snapshot::Skipped { reason, .. } => Some(reason.text()),
        _ => None,
    };
    let (reason_before, reason_after) = (reason_of(before), reason_of(after));
    if reason_before.is_none() && reason_after.is_none() {
        return None;
    }
    let reason = reason_after
        .filter(|r| !r.is_empty())
        .or(reason_before)
        .unwrap_or("");
    let unchanged = matches!(
        (before, after),
        (
            Snapshot::Skipped { size: s1, mtime: m1, .. },
            Snapshot::Skipped { size: s2, mtime: m2, .. },
        ) if s1.is_some() && s1 == s2 && m1 == m2
    );
    if reason.is_empty() || unchanged {
        return Some(None);
    }
    Some(Some(format!("{NOTE_PREFIX}{reason}")))
}

/// What changed when the normalized texts are equal.
pub fn invisible_change_note(before: &[u8], after: &[u8]) -> Option<String> {
    if before == after {
        return None;
    }
    let crlf = |raw: &[u8]| memchr::memmem::find(raw, b"\r\n").is_some();
    let bom = |raw: &[u8]| raw.starts_with(b"\xEF\xBB\xBF");
    let mut parts = Vec::new();
    match (crlf(before), crlf(after)) {
        (true, false) => parts.push("line endings CRLF -> LF"),
        (false, true) => parts.push("line endings LF -> CRLF"),
        _ => {}
    }
    match (bom(before), bom(after)) {
        (false, true) => parts.push("byte order mark added"),
        (true, false) => parts.push("byte order mark removed"),
        _ => {}
    }
    if parts.is_empty() {
        return Some("line endings changed".to_owned());
    }
    Some(parts.join(", "))
}

/// DIFF-10 over every path of `before` (paths only in `after` are
/// ignored: they were never candidates), shown relative to `cwd`.
pub fn compare_entries(before: &Snapshots, after: &Snapshots, cwd: &Path) -> Vec<FileDiff> {
    before
        .iter()
        .filter_map(|(path, old)| {
            let new = after.get(path)?;
            file_outcome(&display_path(path, cwd), old, new)
        })
        .collect()
}

/// The `EditDetails` of a change.
pub fn compare(before: &Snapshots, after: &Snapshots, cwd: &Path) -> EditDetails {
    edit_details(compare_entries(before, after, cwd))
}

/// Every entry becomes the shell-overlap note.
pub fn apply_shell_overlap(entries: Vec<FileDiff>, overlapped: bool) -> Vec<FileDiff> {
    if !overlapped {
        return entries;
    }
    entries
        .into_iter()
        .map(|e| note_entry(&e.path, NOTE_SHELL_OVERLAP))
        .collect()
}

/// Shapes the entries as Pi's edit details.
pub fn edit_details(entries: Vec<FileDiff>) -> EditDetails {
    if entries.is_empty() {
        return EditDetails::default();
    }
    let patch: String = entries.iter().map(|e| e.patch.as_str()).collect();
    let single = match entries.as_slice() {
        [only] if !only.diff.is_empty() => Some((only.diff.clone(), only.first_changed_line)),
        _ => None,
    };
    EditDetails {
        diff: single.as_ref().map(|(d, _)| d.clone()),
        first_changed_line: single.and_then(|(_, line)| line),
        patch: (!patch.is_empty()).then_some(patch),
        diffs: Some(entries),
    }
}

/// `{...existing when an object, ...details}`. Pi's own
/// fields (`"server":"gortex"`...) are kept; ours win on a clash.
pub fn merge_details(existing: &Value, details: &EditDetails) -> Value {
    let mut merged = match existing {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if let Ok(Value::Object(ours)) = serde_json::to_value(details) {
        for (key, value) in ours {
            merged.insert(key, value);
        }
    }
    Value::Object(merged)
}
