//! Every rule ID the repository cites (in code, tests, schemas, generated types and docs) has an
//! entry in `docs/rules.md`, so a maintainer who clones the repository can look up any `HOOK-10`
//! or `NAT-15` without the original spec. The areas are read from the rulebook's own headings
//! (`## HOOK: …`), so a new area is checked as soon as it is added there.

use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen sits one level below the repository root")
        .to_path_buf()
}

const RULEBOOK: &str = "docs/rules.md";

/// Areas (`HOOK`, `NAT`, …) named by the rulebook's `## AREA: title` headings.
fn areas(rulebook: &str) -> Vec<String> {
    let heading = Regex::new(r"(?m)^## ([A-Z][A-Z0-9]*): ").unwrap();
    heading
        .captures_iter(rulebook)
        .map(|c| c[1].to_string())
        .collect()
}

/// IDs defined by entries of the form `- **AREA-N Title.** …`, with how often each is defined.
fn defined(rulebook: &str) -> BTreeMap<String, usize> {
    let entry = Regex::new(r"(?m)^- \*\*([A-Z][A-Z0-9]*-[0-9]+)\b").unwrap();
    let mut ids = BTreeMap::new();
    for c in entry.captures_iter(rulebook) {
        *ids.entry(c[1].to_string()).or_insert(0) += 1;
    }
    ids
}

fn citation_regex(areas: &[String]) -> Regex {
    Regex::new(&format!(r"\b(?:{})-[0-9]+\b", areas.join("|"))).unwrap()
}

/// Files the repository holds (tracked, plus new files not ignored), minus the rulebook itself,
/// the installed Pi hosts and the binary fuzz corpora.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let out = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .expect("git is needed to list the repository's files");
    assert!(out.status.success(), "git ls-files failed");
    out.stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|p| {
            p != RULEBOOK && !p.starts_with("tests/hosts/") && !p.starts_with("runtime/fuzz/corpus")
        })
        .map(|p| root.join(p))
        .filter(|p| p.is_file())
        .collect()
}

/// Cited ID -> the first file that cites it.
fn cited(root: &Path, citation: &Regex) -> BTreeMap<String, String> {
    let mut ids = BTreeMap::new();
    for path in repository_files(root) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for m in citation.find_iter(&text) {
            ids.entry(m.as_str().to_string()).or_insert_with(|| {
                path.strip_prefix(root)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
            });
        }
    }
    ids
}

#[test]
fn every_cited_rule_id_has_an_entry_in_the_rulebook() {
    let root = repo_root();
    let rulebook = std::fs::read_to_string(root.join(RULEBOOK)).expect("docs/rules.md exists");
    let areas = areas(&rulebook);
    assert!(areas.len() >= 10, "rulebook headings not found: {areas:?}");
    let defined = defined(&rulebook);
    let citations = cited(&root, &citation_regex(&areas));
    assert!(
        citations.len() > 100,
        "suspiciously few citations found ({}): is the scan reading the repository?",
        citations.len()
    );
    let missing: Vec<String> = citations
        .iter()
        .filter(|(id, _)| !defined.contains_key(*id))
        .map(|(id, file)| format!("{id} (cited in {file})"))
        .collect();
    assert!(
        missing.is_empty(),
        "rule IDs cited without an entry in {RULEBOOK}:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn each_rule_id_is_defined_once_under_its_own_area() {
    let rulebook = std::fs::read_to_string(repo_root().join(RULEBOOK)).unwrap();
    let areas: BTreeSet<String> = areas(&rulebook).into_iter().collect();
    let defined = defined(&rulebook);
    let duplicated: Vec<&String> = defined
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(id, _)| id)
        .collect();
    assert!(
        duplicated.is_empty(),
        "defined more than once: {duplicated:?}"
    );
    let homeless: Vec<&String> = defined
        .keys()
        .filter(|id| !areas.contains(id.split('-').next().unwrap()))
        .collect();
    assert!(
        homeless.is_empty(),
        "entries without an area heading: {homeless:?}"
    );
}
