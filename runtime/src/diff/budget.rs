//! How much diffing one file may cost (DIFF-12).
//!
//! Pi's extension capped jsdiff at an estimate of 2,000,000 so one diff took
//! about 0.1 s on the event loop. Our engine (engine.rs) computes the same
//! diff one to two orders of magnitude faster, so the cap is raised, in two
//! layers:
//!
//! - [`MAX_DIFF_WORK`]: the spec's estimate `(a+b) x (a+b - 2 shared)`,
//!   checked before diffing. It predicts the real cost poorly (scattered
//!   edits estimate high and diff fast, a rewrite the other way round), so it
//!   only turns away changes that could never finish in time; it admits
//!   scattered edits of files under 1 MiB.
//! - [`MAX_DIFF_STEPS`]: the real guard. The search counts its diagonal
//!   visits and compared lines and gives up past this many, which is about
//!   100 ms for the most expensive shape, a rewrite of a ~1 MiB file.
//!
//! Either way the file gets `not diffed: change too large to diff quickly`
//! instead of a diff; what is diffed is identical to Pi's output. The step
//! limit's cost is measured by `cargo bench --bench diff_engine` (case
//! `at_step_limit`; docs/benchmarks.md).

use super::engine::{intern, split_count, tokenize, Interned};

/// Estimate above which a file is not diffed (spec default: 2,000,000).
pub const MAX_DIFF_WORK: u64 = 500_000_000;

/// Search steps after which the diff is abandoned (about 100 ms).
pub const MAX_DIFF_STEPS: u64 = 6_500_000;

/// Split each text on `\n` (as JS `split` does, so a trailing
/// newline gives a final empty line), count the multiset intersection of
/// the two line lists, and return `(a+b) x (a+b - 2 shared)`.
pub fn work_estimate(old: &str, new: &str) -> u64 {
    let (old_tokens, new_tokens) = (tokenize(old), tokenize(new));
    let ids = intern(&old_tokens, &new_tokens);
    estimate_interned(&ids, split_count(&old_tokens), split_count(&new_tokens))
}

/// Whether the estimate is within [`MAX_DIFF_WORK`].
#[cfg(any(test, feature = "test-support"))]
pub fn within_budget(old: &str, new: &str) -> bool {
    work_estimate(old, new) <= MAX_DIFF_WORK
}

/// The DIFF-12 estimate from interned lines, where `old_split` and
/// `new_split` are the `split("\n")` lengths ([`split_count`]): a side
/// with one more piece than tokens ends with the empty piece.
pub fn estimate_interned(ids: &Interned, old_split: usize, new_split: usize) -> u64 {
    let total = (old_split + new_split) as u64;
    total.saturating_mul(total.saturating_sub(2 * shared_pieces(ids, old_split, new_split)))
}

/// Size of the multiset intersection of the two piece lists.
fn shared_pieces(ids: &Interned, old_split: usize, new_split: usize) -> u64 {
    let mut counts = vec![0u32; ids.pieces];
    let empty = ids.empty_piece as usize;
    let mut count_in = |piece: usize| {
        if let Some(c) = counts.get_mut(piece) {
            *c += 1;
        }
    };
    ids.old.iter().for_each(|&id| count_in((id >> 1) as usize));
    if old_split > ids.old.len() {
        count_in(empty);
    }
    let mut shared = 0u64;
    let mut take = |piece: usize| {
        if let Some(c) = counts.get_mut(piece).filter(|c| **c > 0) {
            *c -= 1;
            shared += 1;
        }
    };
    ids.new.iter().for_each(|&id| take((id >> 1) as usize));
    if new_split > ids.new.len() {
        take(empty);
    }
    shared
}
