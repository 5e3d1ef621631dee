//! How much diffing one file may cost (DIFF-12).
//!
//! Pi's extension capped jsdiff at an estimate of 2,000,000 so one diff took
//! about 0.1 s on the event loop. Our engine (engine.rs) computes the same
//! diff one to two orders of magnitude faster, so the cap is raised, in two
//! layers:
//!
//! - [`MAX_DIFF_WORK`]: the spec's estimate `(a+b) x (a+b - 2 shared)`,
//!   checked before diffing. It is a poor predictor of the real cost (a
//!   1 MiB file with 2,000 scattered edits estimates at ~2e8 yet diffs in
//!   ~35 ms, a 5,000-line rewrite estimates at ~9e7 and needs ~250 ms), so
//!   it only turns away changes that could never finish in time; it admits
//!   scattered edits of files under 1 MiB (2,000 edits in 1 MiB estimate
//!   at ~2e8).
//! - [`MAX_DIFF_STEPS`]: the real guard. The search counts its diagonal
//!   visits and compared lines and gives up past this many, which on the
//!   development machine (2 cores shared with builds) is about 100 ms in the
//!   most expensive shape (a rewrite of a 1 MiB file, where every step is a
//!   visit): 8,000,000 steps measured 105-140 ms there, hence 6,500,000.
//!   For scale: 2,000 scattered edits in 1 MiB take ~3.6 million steps
//!   (~30 ms); a 5,000-line rewrite takes ~22 million (~300 ms) and gets
//!   the note.
//!
//! Either way the file gets `not diffed: change too large to diff quickly`
//! instead of a diff; what is diffed is identical to Pi's output.
//! Measured with `cargo bench --bench diff_engine` (case `at_step_limit`).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use rustc_hash::FxHasher;

/// Estimate above which a file is not diffed (spec default: 2,000,000).
pub const MAX_DIFF_WORK: u64 = 500_000_000;

/// Search steps after which the diff is abandoned (about 100 ms).
pub const MAX_DIFF_STEPS: u64 = 6_500_000;

/// DIFF-12: split each text on `\n` (as JS `split` does, so a trailing
/// newline gives a final empty line), count the multiset intersection of
/// the two line lists, and return `(a+b) x (a+b - 2 shared)`.
pub fn work_estimate(old: &str, new: &str) -> u64 {
    let a = count_pieces(old);
    let b = count_pieces(new);
    let total = (a + b) as u64;
    total.saturating_mul(total - 2 * shared_lines(old, new) as u64)
}

/// Whether the estimate is within [`MAX_DIFF_WORK`], without computing the
/// shared lines when the bound alone decides.
pub fn within_budget(old: &str, new: &str) -> bool {
    let total = (count_pieces(old) + count_pieces(new)) as u64;
    // The estimate cannot exceed total^2.
    if total.saturating_mul(total) <= MAX_DIFF_WORK {
        return true;
    }
    let shared = shared_lines(old, new) as u64;
    total.saturating_mul(total - 2 * shared) <= MAX_DIFF_WORK
}

/// `text.split("\n").length`.
fn count_pieces(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1
}

/// Size of the multiset intersection of `old.split("\n")` and
/// `new.split("\n")`.
fn shared_lines(old: &str, new: &str) -> usize {
    let mut counts: HashMap<&str, usize, BuildHasherDefault<FxHasher>> = HashMap::default();
    for line in old.split('\n') {
        *counts.entry(line).or_insert(0) += 1;
    }
    let mut shared = 0;
    for line in new.split('\n') {
        if let Some(n) = counts.get_mut(line) {
            if *n > 0 {
                *n -= 1;
                shared += 1;
            }
        }
    }
    shared
}
