//! Pi's two renderings of a line diff (DIFF-13), byte for byte:
//! `generateDiffString` (numbered display lines with 4 context lines and
//! `...` for skipped context) and `generateUnifiedPatch` (jsdiff's
//! `createTwoFilesPatch` with file headers only).

use super::budget::estimate_interned;
use super::engine::{self, split_count, DiffAbort, Part, PartKind};

/// Context lines Pi uses for both outputs.
pub const CONTEXT_LINES: usize = 4;

/// What `generateDiffString` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayDiff {
    pub diff: String,
    pub first_changed_line: Option<u64>,
}

/// Both renderings of one change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub display: DisplayDiff,
    pub patch: String,
}

/// One computed line diff: the tokens of both sides and jsdiff's parts.
pub struct LineDiff<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
    parts: Vec<Part>,
}

impl<'a> LineDiff<'a> {
    /// Runs jsdiff's `diffLines(old, new)` with a step limit.
    pub fn compute(
        old_text: &'a str,
        new_text: &'a str,
        step_limit: u64,
    ) -> Result<Self, DiffAbort> {
        Self::compute_within(old_text, new_text, u64::MAX, step_limit)
    }

    /// [`LineDiff::compute`] after the DIFF-12 estimate, which must not
    /// exceed `max_work` (`u64::MAX`: no estimate is made).
    pub fn compute_within(
        old_text: &'a str,
        new_text: &'a str,
        max_work: u64,
        step_limit: u64,
    ) -> Result<Self, DiffAbort> {
        let old = engine::tokenize(old_text);
        let new = engine::tokenize(new_text);
        let ids = engine::intern(&old, &new);
        if max_work != u64::MAX {
            let estimate = estimate_interned(&ids, split_count(&old), split_count(&new));
            if estimate > max_work {
                return Err(DiffAbort::OverBudget { estimate });
            }
        }
        let parts = engine::diff_ids(&ids.old, &ids.new, step_limit)?;
        Ok(LineDiff { old, new, parts })
    }

    /// The parts, in order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// What `generateDiffString(old, new)` returns.
    pub fn display(&self) -> DisplayDiff {
        display_diff(self, CONTEXT_LINES)
    }

    /// What `generateUnifiedPatch(path, old, new)` returns.
    pub fn patch(&self, path: &str) -> String {
        unified_patch(self, path, CONTEXT_LINES)
    }

    /// The tokens of a part, from the side jsdiff takes its value from
    /// (`new` for equal and added parts, `old` for removed ones).
    fn tokens(&self, part: &Part) -> &[&'a str] {
        let (side, start) = match part.kind {
            PartKind::Removed => (&self.old, part.old_start),
            PartKind::Equal | PartKind::Added => (&self.new, part.new_start),
        };
        side.get(start..start + part.count).unwrap_or(&[])
    }
}

/// Diffs `old` against `new` once and renders both of Pi's outputs, with
/// `path` in the patch headers.
pub fn render(path: &str, old: &str, new: &str, step_limit: u64) -> Result<Rendered, DiffAbort> {
    let diff = LineDiff::compute(old, new, step_limit)?;
    Ok(Rendered {
        display: diff.display(),
        patch: diff.patch(path),
    })
}

/// `generateDiffString(old, new)` on its own.
#[cfg(any(test, feature = "test-support"))]
pub fn generate_diff_string(
    old: &str,
    new: &str,
    step_limit: u64,
) -> Result<DisplayDiff, DiffAbort> {
    Ok(LineDiff::compute(old, new, step_limit)?.display())
}

/// `generateUnifiedPatch(path, old, new)` on its own.
#[cfg(any(test, feature = "test-support"))]
pub fn generate_unified_patch(
    path: &str,
    old: &str,
    new: &str,
    step_limit: u64,
) -> Result<String, DiffAbort> {
    Ok(LineDiff::compute(old, new, step_limit)?.patch(path))
}

/// A token without its final `\n`: one element of jsdiff's
/// `part.value.split("\n")` after the trailing empty string is dropped.
fn line_text(token: &str) -> &str {
    token.strip_suffix('\n').unwrap_or(token)
}

/// Builds Pi's display lines: `formatDisplayDiff` in `edit-diff.js`.
struct DisplayWriter {
    out: String,
    lines: usize,
    width: usize,
}

impl DisplayWriter {
    fn line(&mut self, sign: char, number: usize, text: &str) {
        if self.lines > 0 {
            self.out.push('\n');
        }
        self.lines += 1;
        self.out.push(sign);
        let digits = number.to_string();
        for _ in digits.len()..self.width {
            self.out.push(' ');
        }
        self.out.push_str(&digits);
        self.out.push(' ');
        self.out.push_str(text);
    }

    /// Unchanged lines, numbered by the old file; both counters advance.
    fn context(&mut self, tokens: &[&str], old_line: &mut usize, new_line: &mut usize) {
        for token in tokens {
            self.line(' ', *old_line, line_text(token));
            *old_line += 1;
            *new_line += 1;
        }
    }

    fn skip_marker(&mut self) {
        if self.lines > 0 {
            self.out.push('\n');
        }
        self.lines += 1;
        self.out.push(' ');
        for _ in 0..self.width {
            self.out.push(' ');
        }
        self.out.push_str(" ...");
    }
}

fn display_diff(view: &LineDiff<'_>, context: usize) -> DisplayDiff {
    let width = split_count(&view.old)
        .max(split_count(&view.new))
        .to_string()
        .len();
    let mut w = DisplayWriter {
        out: String::new(),
        lines: 0,
        width,
    };
    let mut old_line = 1usize;
    let mut new_line = 1usize;
    let mut last_was_change = false;
    let mut first_changed_line: Option<u64> = None;
    let parts = view.parts.as_slice();
    for (i, part) in parts.iter().enumerate() {
        let raw = view.tokens(part);
        if part.kind != PartKind::Equal {
            first_changed_line.get_or_insert(new_line as u64);
            for token in raw {
                if part.kind == PartKind::Added {
                    w.line('+', new_line, line_text(token));
                    new_line += 1;
                } else {
                    w.line('-', old_line, line_text(token));
                    old_line += 1;
                }
            }
            last_was_change = true;
            continue;
        }
        let next_is_change = parts.get(i + 1).is_some_and(|p| p.kind != PartKind::Equal);
        match (last_was_change, next_is_change) {
            (true, true) => {
                if raw.len() <= context * 2 {
                    w.context(raw, &mut old_line, &mut new_line);
                } else {
                    let skipped = raw.len() - 2 * context;
                    w.context(&raw[..context], &mut old_line, &mut new_line);
                    w.skip_marker();
                    old_line += skipped;
                    new_line += skipped;
                    w.context(&raw[raw.len() - context..], &mut old_line, &mut new_line);
                }
            }
            (true, false) => {
                let shown = raw.len().min(context);
                w.context(&raw[..shown], &mut old_line, &mut new_line);
                let skipped = raw.len() - shown;
                if skipped > 0 {
                    w.skip_marker();
                    old_line += skipped;
                    new_line += skipped;
                }
            }
            (false, true) => {
                let skipped = raw.len().saturating_sub(context);
                if skipped > 0 {
                    w.skip_marker();
                    old_line += skipped;
                    new_line += skipped;
                }
                w.context(&raw[skipped..], &mut old_line, &mut new_line);
            }
            (false, false) => {
                old_line += raw.len();
                new_line += raw.len();
            }
        }
        last_was_change = false;
    }
    DisplayDiff {
        diff: w.out,
        first_changed_line,
    }
}

/// One hunk before formatting; `lines` still carry their `\n`.
struct Hunk<'a> {
    old_start: usize,
    old_lines: usize,
    new_start: usize,
    new_lines: usize,
    lines: Vec<(char, &'a str)>,
}

/// jsdiff's `structuredPatch` (context 4) followed by `formatPatch` with
/// `FILE_HEADERS_ONLY`.
fn unified_patch(view: &LineDiff<'_>, path: &str, context: usize) -> String {
    let hunks = build_hunks(view, context);
    let mut out = String::new();
    out.push_str("--- ");
    out.push_str(path);
    out.push_str("\n+++ ");
    out.push_str(path);
    out.push('\n');
    for hunk in hunks {
        // Unified diff quirk kept by jsdiff: an empty side starts one lower.
        let old_start = if hunk.old_lines == 0 {
            hunk.old_start as i64 - 1
        } else {
            hunk.old_start as i64
        };
        let new_start = if hunk.new_lines == 0 {
            hunk.new_start as i64 - 1
        } else {
            hunk.new_start as i64
        };
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            old_start, hunk.old_lines, new_start, hunk.new_lines
        ));
        for (sign, token) in hunk.lines {
            out.push(sign);
            match token.strip_suffix('\n') {
                Some(text) => {
                    out.push_str(text);
                    out.push('\n');
                }
                None => {
                    out.push_str(token);
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

fn build_hunks<'a>(view: &LineDiff<'a>, context: usize) -> Vec<Hunk<'a>> {
    let parts = view.parts.as_slice();
    let mut hunks = Vec::new();
    // `open` is jsdiff's non-zero oldRangeStart: a hunk is being built.
    let mut open: Option<Hunk<'a>> = None;
    let mut old_line = 1usize;
    let mut new_line = 1usize;
    // jsdiff appends an empty sentinel part; `i < diff.length - 2` means
    // "not the last real part".
    for (i, part) in parts.iter().enumerate() {
        let lines = view.tokens(part);
        if part.kind != PartKind::Equal {
            let hunk = open.get_or_insert_with(|| {
                let prev = i
                    .checked_sub(1)
                    .map(|j| view.tokens(&parts[j]))
                    .unwrap_or(&[]);
                let lead = &prev[prev.len().saturating_sub(context)..];
                Hunk {
                    old_start: old_line - lead.len(),
                    old_lines: 0,
                    new_start: new_line - lead.len(),
                    new_lines: 0,
                    lines: lead.iter().map(|t| (' ', *t)).collect(),
                }
            });
            let sign = if part.kind == PartKind::Added {
                '+'
            } else {
                '-'
            };
            hunk.lines.extend(lines.iter().map(|t| (sign, *t)));
            if part.kind == PartKind::Added {
                new_line += lines.len();
            } else {
                old_line += lines.len();
            }
            continue;
        }
        if let Some(mut hunk) = open.take() {
            let is_last = i + 1 >= parts.len();
            if lines.len() <= context * 2 && !is_last {
                hunk.lines.extend(lines.iter().map(|t| (' ', *t)));
                open = Some(hunk);
            } else {
                let tail = lines.len().min(context);
                hunk.lines.extend(lines[..tail].iter().map(|t| (' ', *t)));
                hunk.old_lines = old_line - hunk.old_start + tail;
                hunk.new_lines = new_line - hunk.new_start + tail;
                hunks.push(hunk);
            }
        }
        old_line += lines.len();
        new_line += lines.len();
    }
    // The sentinel: an empty equal part that closes a trailing hunk.
    if let Some(mut hunk) = open.take() {
        hunk.old_lines = old_line - hunk.old_start;
        hunk.new_lines = new_line - hunk.new_start;
        hunks.push(hunk);
    }
    hunks
}
