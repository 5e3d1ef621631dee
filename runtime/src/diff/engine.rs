//! The line diff itself: jsdiff 8.0.4 `diffLines`, reproduced exactly.
//!
//! Pi draws edit diffs from jsdiff's output, and DIFF-13 requires ours to be
//! byte-identical. jsdiff runs the forward greedy form of Myers' algorithm
//! with its own tie rules (prefer the furthest-reaching predecessor, removal
//! on equal reach) and its own edge pruning (`minDiagonalToConsider` /
//! `maxDiagonalToConsider`). `similar`'s algorithms place ambiguous
//! insertions and deletions elsewhere: fed the same line tokens and
//! rendered by format.rs, its Myers (divide and conquer, middle snake)
//! differed from Pi on 73 of 454 parity pairs, Patience on 78, LCS on 245.
//! So the search here is jsdiff's own, over interned lines: each distinct
//! line gets a `u32` id, and the search compares integers, not strings.
//!
//! jsdiff keeps a linked list of change objects per path. We keep a trace
//! instead: for every edit length `d`, the furthest old position reached on
//! each diagonal visited, with one bit for the step taken (4 bytes a visit).
//! A path at `(d, k)` always extends a path written at `d - 1` on `k +- 1`
//! (the visited diagonals of one round form a contiguous range of one
//! parity, and pruning moves the range edges by one per round), so the
//! winning path is recovered by walking the trace backwards.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use rustc_hash::FxHasher;

/// What a run of lines is in the edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// Lines present on both sides.
    Equal,
    /// Lines only in the new text.
    Added,
    /// Lines only in the old text.
    Removed,
}

/// One jsdiff change object: `count` consecutive tokens of one kind.
///
/// `old_start` / `new_start` are the token indices where the run begins on
/// each side (an added run consumes no old tokens, and vice versa).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub kind: PartKind,
    pub old_start: usize,
    pub new_start: usize,
    pub count: usize,
}

/// Why a diff was not computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DiffAbort {
    /// The search exceeded the step limit it was given.
    #[error("the line diff needed more than {limit} steps")]
    StepLimit { limit: u64 },
    /// The DIFF-12 estimate is over the budget it was given.
    #[error("work estimate {estimate} is over the budget")]
    OverBudget { estimate: u64 },
    /// The texts have more lines than the 32-bit indices can address.
    #[error("too many lines to diff: {lines}")]
    TooManyLines { lines: usize },
}

/// Splits a text into jsdiff line tokens: each line keeps its `\n`, and a
/// final line without one is a token of its own. Empty text has no tokens.
///
/// jsdiff splits on `/(\n|\r\n)/` and glues each separator to the line
/// before it, which is the same as cutting after every `\n`.
pub fn tokenize(text: &str) -> Vec<&str> {
    let mut tokens = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        tokens.push(&text[start..=end]);
        start = end + 1;
    }
    if start < text.len() {
        tokens.push(&text[start..]);
    }
    tokens
}

/// `text.split("\n").length` for the text these tokens came from: one per
/// `\n`, plus one.
pub fn split_count(tokens: &[&str]) -> usize {
    match tokens.last() {
        Some(last) if !last.ends_with('\n') => tokens.len(),
        _ => tokens.len() + 1,
    }
}

/// Lines of both sides as ids that are equal exactly when the tokens are.
///
/// A line's *piece* is its text without the `\n` (what JS `split("\n")`
/// yields); its id is `piece * 2 + 1` for a last line without `\n` and
/// `piece * 2` otherwise, so one hashing pass serves both the diff (which
/// compares tokens) and the DIFF-12 estimate (which compares pieces).
#[derive(Debug, Default)]
pub struct Interned {
    pub old: Vec<u32>,
    pub new: Vec<u32>,
    /// Number of distinct pieces.
    pub pieces: usize,
    /// The piece id of the empty string.
    pub empty_piece: u32,
}

/// Maps the tokens of both sides to ids.
pub fn intern<'a>(old: &[&'a str], new: &[&'a str]) -> Interned {
    let mut table: HashMap<&'a str, u32, BuildHasherDefault<FxHasher>> =
        HashMap::with_capacity_and_hasher(old.len() + new.len(), Default::default());
    let mut piece_id = |piece: &'a str| -> u32 {
        let next = table.len() as u32;
        *table.entry(piece).or_insert(next)
    };
    let mut id_of = |token: &'a str| -> u32 {
        match token.strip_suffix('\n') {
            Some(piece) => piece_id(piece) << 1,
            None => piece_id(token) << 1 | 1,
        }
    };
    let old_ids = old.iter().map(|t| id_of(t)).collect();
    let new_ids = new.iter().map(|t| id_of(t)).collect();
    let empty_piece = piece_id("");
    Interned {
        old: old_ids,
        new: new_ids,
        pieces: table.len(),
        empty_piece,
    }
}

/// jsdiff's `diffLines(old, new)` as a list of parts, in order.
#[cfg(any(test, feature = "test-support"))]
pub fn diff_lines(old: &str, new: &str, step_limit: u64) -> Result<Vec<Part>, DiffAbort> {
    let old_tokens = tokenize(old);
    let new_tokens = tokenize(new);
    let ids = intern(&old_tokens, &new_tokens);
    diff_ids(&ids.old, &ids.new, step_limit)
}

/// The step bit of a trace entry: set when the step inserted a line.
const ADDED_FLAG: u32 = 1 << 31;
/// An empty slot of the frontier (jsdiff's `undefined`).
const NO_PATH: i32 = i32::MIN;

/// The trace of the search: per edit length, the first diagonal visited and
/// the entries of the visits, `k = first, first + 2, ...`.
#[derive(Default)]
struct Trace {
    entries: Vec<u32>,
    /// (first diagonal, start of its entries in `entries`) per edit length.
    rounds: Vec<(i64, usize)>,
}

impl Trace {
    /// The entry of the visit to diagonal `k` at edit length `d`.
    fn entry(&self, d: usize, k: i64) -> Option<u32> {
        let &(first, start) = self.rounds.get(d)?;
        let end = self.rounds.get(d + 1).map_or(self.entries.len(), |r| r.1);
        let offset = usize::try_from(k - first).ok()?;
        if offset % 2 != 0 {
            return None;
        }
        let i = start + offset / 2;
        (i < end).then(|| self.entries[i])
    }
}

/// The greedy search over interned token ids, mirroring jsdiff's
/// `diffWithOptionsObj` / `execEditLength` / `extractCommon` statement by
/// statement (without `maxEditLength`, timeout or callbacks, which Pi does
/// not use). `step_limit` bounds the work (diagonal visits plus snake
/// comparisons); jsdiff has no such bound, so reaching it aborts instead of
/// returning a different diff.
pub fn diff_ids(old: &[u32], new: &[u32], step_limit: u64) -> Result<Vec<Part>, DiffAbort> {
    let old_len = old.len() as i64;
    let new_len = new.len() as i64;
    if old.len() + new.len() >= (i32::MAX / 2) as usize {
        return Err(DiffAbort::TooManyLines {
            lines: old.len() + new.len(),
        });
    }
    let mut steps: u64 = 0;
    let mut trace = Trace::default();

    // Seed (edit length 0): the common prefix on diagonal 0.
    let prefix = common_run(old, new, 0, 0);
    steps += prefix as u64;
    trace.rounds.push((0, 0));
    trace.entries.push(prefix as u32);
    if prefix as i64 >= old_len && prefix as i64 >= new_len {
        return Ok(build_parts(&trace, 0, 0, old.len(), new.len()));
    }

    // jsdiff's `bestPath` as the old position per diagonal, `NO_PATH` for
    // `undefined`. Diagonal k lives at index k + shift. Only diagonals in
    // [-M, N] can hold a path; one spare slot each side lets the visits of
    // the range edges read their neighbours without checks. Visits beyond
    // the spare slots could only prune empty slots, so they are skipped.
    let shift = new_len + 2;
    let mut best: Vec<i32> = vec![NO_PATH; (old_len + new_len + 5) as usize];
    best[shift as usize] = prefix as i32 - 1;
    let lowest_visit = -(new_len + 1);
    let highest_visit = old_len + 1;

    // Once a path touches the right (bottom) edge on diagonal k, no
    // diagonal above (below) it is worth extending: jsdiff's pruning.
    let mut min_diagonal = i64::MIN;
    let mut max_diagonal = i64::MAX;
    for edit_length in 1..=old_len + new_len {
        let first = min_diagonal.max(-edit_length).max(lowest_visit);
        let last = max_diagonal.min(edit_length).min(highest_visit);
        // Keep the parity of the round when the clamp moved the start.
        let first = if (first + edit_length) % 2 != 0 {
            first + 1
        } else {
            first
        };
        trace.rounds.push((first, trace.entries.len()));
        if last >= first {
            trace.entries.reserve(((last - first) / 2 + 1) as usize);
        }
        let mut k = first;
        while k <= last {
            steps += 1;
            let at = (k + shift) as usize;
            let remove_path = best[at - 1];
            let add_path = best[at + 1];
            if remove_path != NO_PATH {
                best[at - 1] = NO_PATH;
            }
            // Each predecessor is usable when its step stays in the grid.
            let can_add = add_path != NO_PATH && {
                let new_pos = add_path as i64 - k;
                0 <= new_pos && new_pos < new_len
            };
            let can_remove = remove_path != NO_PATH && (remove_path as i64) + 1 < old_len;
            let (base_old_pos, added) = if can_add && (!can_remove || remove_path < add_path) {
                (add_path as i64, true)
            } else if can_remove {
                (remove_path as i64 + 1, false)
            } else {
                best[at] = NO_PATH;
                trace.entries.push(0);
                k += 2;
                continue;
            };
            let snake = common_run(
                old,
                new,
                (base_old_pos + 1) as usize,
                (base_old_pos - k + 1) as usize,
            );
            steps += snake as u64;
            let old_pos = base_old_pos + snake as i64;
            let new_pos = old_pos - k;
            trace
                .entries
                .push((old_pos + 1) as u32 | if added { ADDED_FLAG } else { 0 });
            if old_pos + 1 >= old_len && new_pos + 1 >= new_len {
                return Ok(build_parts(
                    &trace,
                    edit_length as usize,
                    k,
                    old.len(),
                    new.len(),
                ));
            }
            best[at] = old_pos as i32;
            if old_pos + 1 >= old_len {
                max_diagonal = max_diagonal.min(k - 1);
            }
            if new_pos + 1 >= new_len {
                min_diagonal = min_diagonal.max(k + 1);
            }
            k += 2;
        }
        if steps > step_limit {
            return Err(DiffAbort::StepLimit { limit: step_limit });
        }
    }
    // jsdiff always finishes within N + M edits; reaching here would mean a
    // logic error, which must not panic.
    Err(DiffAbort::StepLimit { limit: step_limit })
}

/// Length of the run of equal ids starting at old index `o`, new index `n`.
#[inline]
fn common_run(old: &[u32], new: &[u32], o: usize, n: usize) -> usize {
    let (mut i, mut j) = (o, n);
    while i < old.len() && j < new.len() && old[i] == new[j] {
        i += 1;
        j += 1;
    }
    i - o
}

/// Walks the winning path back through the trace and turns it into
/// jsdiff's change objects: consecutive steps of one kind merge into one
/// part unless a snake separates them (jsdiff's `addToPath`), and each
/// snake is one equal part (`extractCommon`).
fn build_parts(trace: &Trace, d: usize, k: i64, old_len: usize, new_len: usize) -> Vec<Part> {
    // (step: Some(added) or None for the seed, snake length after it).
    let mut steps: Vec<(Option<bool>, usize)> = Vec::with_capacity(d + 1);
    let (mut d, mut k) = (d, k);
    while let Some(entry) = trace.entry(d, k) {
        let x_end = (entry & !ADDED_FLAG) as usize;
        if d == 0 {
            steps.push((None, x_end));
            break;
        }
        let added = entry & ADDED_FLAG != 0;
        let parent_k = if added { k + 1 } else { k - 1 };
        let parent_x = trace
            .entry(d - 1, parent_k)
            .map_or(0, |e| (e & !ADDED_FLAG) as usize);
        let after_step = parent_x + usize::from(!added);
        steps.push((Some(added), x_end.saturating_sub(after_step)));
        d -= 1;
        k = parent_k;
    }
    steps.reverse();

    let mut parts: Vec<Part> = Vec::new();
    let (mut o, mut n) = (0usize, 0usize);
    for (step, snake) in steps {
        if let Some(added) = step {
            let kind = if added {
                PartKind::Added
            } else {
                PartKind::Removed
            };
            match parts.last_mut() {
                Some(p) if p.kind == kind => p.count += 1,
                _ => parts.push(Part {
                    kind,
                    old_start: o,
                    new_start: n,
                    count: 1,
                }),
            }
            if added {
                n += 1;
            } else {
                o += 1;
            }
        }
        if snake > 0 {
            parts.push(Part {
                kind: PartKind::Equal,
                old_start: o,
                new_start: n,
                count: snake,
            });
            o += snake;
            n += snake;
        }
    }
    debug_assert!(o == old_len && n == new_len);
    parts
}
