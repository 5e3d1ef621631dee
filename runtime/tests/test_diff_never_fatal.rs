//! DIFF-22: diff code never panics on arbitrary input, and the engine's
//! edit script always rebuilds the new text from the old one.

use std::path::{Component, Path};

use pi_gortex_runtime::diff::engine::{diff_lines, tokenize, PartKind};
use pi_gortex_runtime::diff::format::render;
use pi_gortex_runtime::diff::{edit_candidates, merge_details, EditDetails};
use serde_json::{json, Value};

/// xorshift64*: deterministic pseudo-random input without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn random_text(rng: &mut Rng) -> String {
    const PIECES: [&str; 12] = [
        "a", "b", "\n", "\r\n", "\r", "", " ", "\u{feff}", "é", "🙂", "::", "\\",
    ];
    (0..rng.below(40))
        .map(|_| PIECES[rng.below(PIECES.len() as u64) as usize])
        .collect()
}

fn random_json(rng: &mut Rng, depth: u32) -> Value {
    const KEYS: [&str; 16] = [
        "path",
        "file",
        "id",
        "symbol",
        "changes",
        "edits",
        "target",
        "operation",
        "dry_run",
        "options",
        "arguments",
        "source",
        "content",
        "match",
        "destination",
        "symbol_id",
    ];
    match rng.below(if depth > 3 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 1),
        2 => json!(rng.below(1000)),
        3 => json!(random_text(rng)),
        4 => json!(["../..", "/etc/passwd", "a::b", "[{\"path\":\"x\"}]"][rng.below(4) as usize]),
        5 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_json(rng, depth + 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(6))
                .map(|_| {
                    (
                        KEYS[rng.below(KEYS.len() as u64) as usize].to_owned(),
                        random_json(rng, depth + 1),
                    )
                })
                .collect(),
        ),
    }
}

#[test]
fn classification_and_candidates_survive_arbitrary_arguments() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Absolute on this platform: on Windows a path without a drive is relative to the current one.
    let cwd = Path::new(if cfg!(windows) {
        "C:/nonexistent/session/cwd"
    } else {
        "/nonexistent/session/cwd"
    });
    let mut edits_with_candidates = 0;
    for _ in 0..3000 {
        let args = random_json(&mut rng, 0);
        assert_eq!(
            edit_candidates("search", &args, cwd),
            None,
            "search is never an edit"
        );
        for tool in ["edit", "edit_file", "batch_edit"] {
            let Some(candidates) = edit_candidates(tool, &args, cwd) else {
                continue;
            };
            edits_with_candidates += usize::from(!candidates.is_empty());
            // DIFF-8: sorted, de-duplicated, absolute, normalized and never
            // outside the session's directory, whatever the model sent.
            assert!(candidates.windows(2).all(|w| w[0] < w[1]), "{candidates:?}");
            for path in &candidates {
                assert!(path.is_absolute(), "{path:?} from {args}");
                assert!(
                    !path
                        .components()
                        .any(|c| matches!(c, Component::ParentDir | Component::CurDir)),
                    "{path:?} from {args}"
                );
                assert!(
                    path.starts_with(cwd),
                    "{path:?} escapes {cwd:?} from {args}"
                );
            }
        }
        // DIFF-19: our keys win, every other key of an object survives.
        let merged = merge_details(&args, &EditDetails::default());
        let merged = merged.as_object().expect("always an object");
        if let Value::Object(existing) = &args {
            for (key, value) in existing {
                if !["diff", "firstChangedLine", "patch", "diffs"].contains(&key.as_str()) {
                    assert_eq!(merged.get(key), Some(value), "{key} lost from {args}");
                }
            }
        }
    }
    assert!(
        edits_with_candidates > 100,
        "the generator reaches real candidates ({edits_with_candidates})"
    );
}

#[test]
fn the_edit_script_rebuilds_the_new_text_for_arbitrary_texts() {
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let old = random_text(&mut rng);
        let new = random_text(&mut rng);
        let parts = diff_lines(&old, &new, u64::MAX).expect("no limit");
        let (old_tokens, new_tokens) = (tokenize(&old), tokenize(&new));
        let mut rebuilt_old = String::new();
        let mut rebuilt_new = String::new();
        for part in &parts {
            assert!(part.count > 0);
            match part.kind {
                PartKind::Equal => {
                    let o = &old_tokens[part.old_start..part.old_start + part.count];
                    let n = &new_tokens[part.new_start..part.new_start + part.count];
                    assert_eq!(o, n);
                    rebuilt_old.extend(o.iter().copied());
                    rebuilt_new.extend(n.iter().copied());
                }
                PartKind::Removed => rebuilt_old.extend(
                    old_tokens[part.old_start..part.old_start + part.count]
                        .iter()
                        .copied(),
                ),
                PartKind::Added => rebuilt_new.extend(
                    new_tokens[part.new_start..part.new_start + part.count]
                        .iter()
                        .copied(),
                ),
            }
        }
        assert_eq!(
            (rebuilt_old.as_str(), rebuilt_new.as_str()),
            (old.as_str(), new.as_str())
        );
        let rendered = render("p", &old, &new, u64::MAX).unwrap();
        assert_eq!(rendered.display.diff.is_empty(), old == new);
    }
}
