//! From raw names to the files a call may write (DIFF-7, DIFF-8, DIFF-14).
//!
//! Gortex names files relative to the repo root and sometimes prefixes them
//! with the repo name, so each name is tried against the cwd and the repo
//! root, with and without its first segment. A candidate that does not exist
//! is harmless: it simply never changes.
//!
//! Security (improvement over 0.4.0): a candidate that resolves outside both
//! the cwd and the repo root is dropped, with symlinks followed. A tool call
//! can name any path, and the extension must never read what the session does
//! not work on (say `../../etc/shadow`, or a symlink in the repo that points
//! at `~/.ssh`).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::platform::{home, node_path};

/// DIFF-7 cache: cwd -> repo root. Cleared at session start (SES rules),
/// because a `/new` may follow a `git init`.
fn repo_root_cache() -> &'static Mutex<HashMap<PathBuf, PathBuf>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, PathBuf>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// cwd -> the session's roots in both forms, kept and cleared with the repo
/// root they include: every edit judges its candidates against them.
fn session_roots_cache() -> &'static Mutex<HashMap<PathBuf, Arc<[Root]>>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<[Root]>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Forgets every cached repo root (and the session roots made of them).
pub fn clear_repo_root_cache() {
    crate::sync::lock(repo_root_cache()).clear();
    crate::sync::lock(session_roots_cache()).clear();
}

/// The nearest directory at or above `cwd` that contains `.git`,
/// else `cwd`. Not cached.
pub fn find_repo_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

/// DIFF-7 with the per-cwd cache.
pub fn repo_root(cwd: &Path) -> PathBuf {
    let mut cache = crate::sync::lock(repo_root_cache());
    if let Some(root) = cache.get(cwd) {
        return root.clone();
    }
    let root = find_repo_root(cwd);
    cache.insert(cwd.to_path_buf(), root.clone());
    root
}

pub use crate::platform::node_path::normalize;

/// DIFF-8 without the security rule: every place a raw name may denote.
pub fn resolve_name(raw: &str, cwd: &Path, root: &Path) -> Vec<PathBuf> {
    if raw.is_empty() {
        return Vec::new();
    }
    if Path::new(raw).is_absolute() {
        return vec![normalize(Path::new(raw))];
    }
    let name = raw.replace('\\', "/");
    let mut variants = vec![name.as_str()];
    if let Some(slash) = name.find('/') {
        if slash > 0 {
            variants.push(&name[slash + 1..]);
        }
    }
    let mut out = Vec::new();
    for base in [cwd, root] {
        for variant in &variants {
            out.push(normalize(&base.join(variant)));
        }
    }
    out
}

/// Symlinks followed at most when judging where a path points.
const MAX_LINK_HOPS: usize = 40;

/// Where a path really points: the canonical form of its longest existing
/// ancestor, with the rest appended. A file that does not exist yet (a new
/// file) is judged by the directory it would be created in, and a dangling
/// symlink by where it points (a write through it lands there), not by
/// where the link itself lies.
pub fn real_location(path: &Path) -> Option<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match located(&path)? {
            Located::Real(real) => return Some(real),
            Located::Dangling(target) => path = target,
        }
    }
    None
}

enum Located {
    Real(PathBuf),
    /// The longest existing ancestor is a symlink whose target does not
    /// exist: this is the target, with the rest of the path appended.
    Dangling(PathBuf),
}

fn located(path: &Path) -> Option<Located> {
    let mut existing = path;
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        match std::fs::canonicalize(existing) {
            Ok(mut real) => {
                for part in rest.iter().rev() {
                    real.push(part);
                }
                return Some(Located::Real(normalize(&real)));
            }
            Err(_) => {
                if let Ok(target) = std::fs::read_link(existing) {
                    let mut target = existing.parent()?.join(target);
                    for part in rest.iter().rev() {
                        target.push(part);
                    }
                    return Some(Located::Dangling(normalize(&target)));
                }
                rest.push(existing.file_name()?);
                existing = existing.parent()?;
            }
        }
    }
}

/// The directories the session works on, in real form.
#[derive(Debug, Clone)]
pub struct Boundary {
    roots: Roots,
    unrestricted: bool,
}

/// A root as the session names it and as it really is (symlinks resolved).
#[derive(Debug)]
struct Root {
    named: PathBuf,
    real: PathBuf,
}

/// A boundary's roots: known, or the cwd they come from, resolved at the
/// first [`Boundary::contains`] (on the thread that reads; a read that needs
/// no boundary, one beneath a local session folder, never resolves them).
/// Clones share the resolved roots.
#[derive(Debug, Clone)]
enum Roots {
    Known(Arc<[Root]>),
    OfCwd(PathBuf, Arc<OnceLock<Arc<[Root]>>>),
}

impl Boundary {
    /// The cwd and the repo root in real form, judged as candidates are, so
    /// that a directory that does not exist yet still shares their form (on
    /// Windows a canonical path carries the `\\?\` prefix). Only
    /// absolute directories count: a relative or empty cwd would make the
    /// boundary a prefix of every path (`""` starts every path), so it
    /// contains nothing instead.
    pub fn new(cwd: &Path, root: &Path) -> Self {
        Boundary {
            roots: Roots::Known(real_roots(cwd, root)),
            unrestricted: false,
        }
    }

    /// The session boundary of `cwd`: the cwd and its repo root, resolved
    /// when first needed.
    pub fn for_cwd(cwd: &Path) -> Self {
        Boundary {
            roots: Roots::OfCwd(normalize(cwd), Arc::default()),
            unrestricted: false,
        }
    }

    /// No boundary: for `pi-gortex diff`, whose files the user names.
    pub fn unrestricted() -> Self {
        Boundary {
            roots: Roots::Known(Arc::new([])),
            unrestricted: true,
        }
    }

    /// Whether `path` (symlinks followed) is inside one of the roots.
    pub fn contains(&self, path: &Path) -> bool {
        if self.unrestricted || self.walk_places(path) {
            return true;
        }
        match real_location(path) {
            Some(real) => self.roots().iter().any(|root| real.starts_with(&root.real)),
            None => false,
        }
    }

    /// Whether the cheap walk alone places `path` inside a root: it lies
    /// lexically beneath one with no part below the root a symlink. `false`
    /// is no verdict; [`Boundary::contains`] then resolves the whole path.
    pub fn walk_places(&self, path: &Path) -> bool {
        self.roots().iter().any(|root| lies_beneath(root, path))
    }

    fn roots(&self) -> &[Root] {
        match &self.roots {
            Roots::Known(roots) => roots,
            Roots::OfCwd(cwd, roots) => roots.get_or_init(|| session_roots(cwd)),
        }
    }
}

/// Whether `path` lies lexically beneath `root` with no part below the root a
/// symlink: then it really lies beneath the root's real form, learnt with one
/// `lstat` per existing part (a full resolution reads every link of the whole
/// path). `false` sends the path to [`real_location`]: a symlink, a `..`, or a
/// part that is not a directory. Beneath a part that does not exist nothing
/// exists, so the parts after it are not looked at.
fn lies_beneath(root: &Root, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(&root.named) else {
        return false;
    };
    let mut real = root.real.clone();
    for part in rest.components() {
        let Component::Normal(name) = part else {
            return false;
        };
        real.push(name);
        match std::fs::symlink_metadata(&real) {
            Ok(meta) if meta.file_type().is_symlink() => return false,
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return rest
                    .components()
                    .all(|part| matches!(part, Component::Normal(_)));
            }
            Err(_) => return false,
        }
    }
    true
}

/// The real forms of the absolute ones of `cwd` and `root`; one resolution
/// when they are the same directory (a cwd outside any repository).
fn real_roots(cwd: &Path, root: &Path) -> Arc<[Root]> {
    let dirs = if cwd == root {
        vec![cwd]
    } else {
        vec![cwd, root]
    };
    dirs.into_iter()
        .filter(|dir| dir.is_absolute())
        .map(|dir| Root {
            named: normalize(dir),
            real: real_location(dir).unwrap_or_else(|| normalize(dir)),
        })
        .collect()
}

/// The roots of [`Boundary::for_cwd`]: a cwd and its repo root, resolved
/// once per session.
fn session_roots(cwd: &Path) -> Arc<[Root]> {
    if !cwd.is_absolute() {
        return real_roots(cwd, cwd);
    }
    if let Some(roots) = crate::sync::lock(session_roots_cache()).get(cwd) {
        return Arc::clone(roots);
    }
    let roots = real_roots(cwd, &repo_root(cwd));
    crate::sync::lock(session_roots_cache()).insert(cwd.to_path_buf(), Arc::clone(&roots));
    roots
}

/// The candidate files of a list of raw names, de-duplicated,
/// sorted, and without any that resolve outside the cwd and the repo root.
/// A relative or empty cwd gives none.
pub fn candidates(raw_names: &[String], cwd: &Path) -> Vec<PathBuf> {
    let cwd = normalize(cwd);
    if !cwd.is_absolute() {
        return Vec::new();
    }
    let root = repo_root(&cwd);
    let boundary = Boundary {
        roots: Roots::Known(session_roots(&cwd)),
        unrestricted: false,
    };
    let mut out: Vec<PathBuf> = raw_names
        .iter()
        .flat_map(|raw| resolve_name(raw, &cwd, &root))
        .collect();
    out.sort();
    out.dedup();
    out.retain(|candidate| boundary.contains(candidate));
    out
}

/// Pi's `resolveToCwd(path, cwd)` for its own tools: [`expand_pi_path`] with
/// the home directory `os.homedir()` gives now, resolved against `cwd`. A
/// claim must name the same file as Pi's tool writes.
pub fn resolve_pi_path(raw: &str, cwd: &Path) -> PathBuf {
    normalize(&cwd.join(expand_pi_path(raw, home::home_dir().as_deref())))
}

/// Pi's `expandPath`, the reading every tool of Pi gives the path it is
/// handed: Unicode spaces become plain spaces, one leading `@` is dropped, on
/// Windows a shell drive path (`/c/x`) becomes `C:\x`, `~` and `~/...`
/// (`~\...` on Windows) expand to `home` as `path.join` joins them, and a
/// `file://` URL becomes its path as `fileURLToPath` gives it. A relative
/// name stays relative. Without a home (`os.homedir()` throws, and so does
/// Pi's tool) `~` stays as written.
pub fn expand_pi_path(raw: &str, home: Option<&Path>) -> PathBuf {
    // JS /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/
    let unicode_space = |c: char| {
        matches!(
            c,
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
        )
    };
    let spaced: String = raw
        .chars()
        .map(|c| if unicode_space(c) { ' ' } else { c })
        .collect();
    let name = spaced.strip_prefix('@').unwrap_or(&spaced);
    let name = node_path::shell_path(name);
    if let Some(home) = home {
        if name == "~" && home.as_os_str().is_empty() {
            // Pi's tools resolve an empty home to the working directory.
            return PathBuf::from(".");
        }
        if name == "~" {
            return home.to_path_buf();
        }
        if let Some(rest) = node_path::tilde_rest(&name) {
            return node_path::join_home(home, rest);
        }
    }
    if let Some(rest) = name.strip_prefix("file://") {
        // A URL Node refuses makes Pi's tool fail without writing; its path
        // part is claimed then, which is harmless.
        return node_path::file_url_path(&name).unwrap_or_else(|| PathBuf::from(rest));
    }
    PathBuf::from(name.as_ref())
}

/// `path` relative to `cwd` (with `..` where needed), or the
/// absolute path when the relative form is empty.
pub fn display_path(path: &Path, cwd: &Path) -> String {
    let path = normalize(path);
    let cwd = normalize(cwd);
    let relative = relative_to(&path, &cwd);
    if relative.as_os_str().is_empty() {
        path.to_string_lossy().into_owned()
    } else {
        relative.to_string_lossy().into_owned()
    }
}

/// Node's `path.relative(from, to)` for normalized absolute paths.
fn relative_to(path: &Path, from: &Path) -> PathBuf {
    let target: Vec<Component> = path.components().collect();
    let base: Vec<Component> = from.components().collect();
    let shared = node_path::shared_prefix_len(&target, &base);
    let mut out = PathBuf::new();
    for _ in shared..base.len() {
        out.push("..");
    }
    for component in &target[shared..] {
        out.push(component);
    }
    out
}
