//! Paths as Pi's Node reads them on this platform (DIFF-14, DIFF-17): the
//! `~` forms and shell paths Pi's `normalizePath` accepts, `path.join`, `fileURLToPath`, and whether two path components
//! are the same for `path.relative`. A claim or a shown path must name the
//! file the way Pi's own tool names it, or an edit is diffed twice or not at all.
//!
//! Unix: `~/`, case-sensitive names. Windows: `~/` and `~\`, Git Bash / MSYS / Cygwin / WSL drive paths (`/c/x`, `/mnt/c/x`) as
//! `C:\x`, `file:///C:/x` as `C:\x`, and names compared case-insensitively,
//! as Node's `path.win32` compares them.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf, MAIN_SEPARATOR_STR};

pub use imp::{same_component, shell_path, tilde_rest};

/// Lexical normalization: drops `.` and resolves `..` without touching the
/// file system (`..` at the root stays at the root).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                // `..` cancels a normal component, stays at the root, and
                // piles up at the start of a relative path.
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else if !out.has_root() {
                    out.push(component);
                }
            }
            Component::Normal(name) => push_name(&mut out, name),
            other => out.push(other),
        }
    }
    out
}

/// Appends one name below `out`. On Windows a name such as `C:` after the
/// start of a path reads as a drive, and `PathBuf::push` would let it replace
/// everything before it.
fn push_name(out: &mut PathBuf, name: &OsStr) {
    let reads_as_drive = matches!(
        Path::new(name).components().next(),
        Some(Component::Prefix(_))
    );
    if !reads_as_drive || out.as_os_str().is_empty() {
        out.push(name);
        return;
    }
    let mut text = std::mem::take(out).into_os_string();
    if !ends_with_separator(&text) {
        text.push(MAIN_SEPARATOR_STR);
    }
    text.push(name);
    *out = PathBuf::from(text);
}

fn ends_with_separator(text: &OsStr) -> bool {
    text.as_encoded_bytes()
        .last()
        .is_some_and(|&byte| std::path::is_separator(char::from(byte)))
}

/// Node's `path.join(home, rest)` for a `~/rest` name: `rest` stays below
/// `home` even when it starts with a separator, `.` and `..` resolve
/// lexically, and a trailing separator is kept. An empty home joins nothing
/// (the name is `rest` alone, `.` when that is empty), as `path.join` skips it.
pub fn join_home(home: &Path, rest: &str) -> PathBuf {
    let mut joined = home.as_os_str().to_owned();
    if !joined.is_empty() {
        joined.push(MAIN_SEPARATOR_STR);
    }
    joined.push(rest);
    let mut out = normalize(Path::new(&joined)).into_os_string();
    if out.is_empty() {
        out.push(".");
    }
    if rest.ends_with(std::path::is_separator) && !ends_with_separator(&out) {
        out.push(MAIN_SEPARATOR_STR);
    }
    PathBuf::from(out)
}

/// Node's `fileURLToPath` for a `file://` URL: the host must be empty or
/// `localhost` (a Windows host names a UNC share), the path is
/// percent-decoded, and an encoded separator is refused. `None` where Node
/// throws (Pi's tool then fails without writing).
pub fn file_url_path(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("file://")?;
    let (host, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    };
    let lower = path.to_ascii_lowercase();
    if lower.contains("%2f") || (cfg!(windows) && lower.contains("%5c")) {
        return None;
    }
    let decoded = percent_decode(path)?;
    imp::file_url_to_path(host, &decoded)
}

/// `decodeURIComponent` of a URL path: `None` for a malformed escape or
/// bytes that are not UTF-8, where Node throws.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// How many leading components two paths share, compared as Node compares them.
pub fn shared_prefix_len(a: &[Component<'_>], b: &[Component<'_>]) -> usize {
    a.iter()
        .zip(b)
        .take_while(|(x, y)| same_component(x, y))
        .count()
}

#[cfg(unix)]
mod imp {
    use std::borrow::Cow;
    use std::path::{Component, PathBuf};

    /// The rest of a `~/...` name.
    pub fn tilde_rest(name: &str) -> Option<&str> {
        name.strip_prefix("~/")
    }

    /// Shell paths need no translation on Unix.
    pub fn shell_path(name: &str) -> Cow<'_, str> {
        Cow::Borrowed(name)
    }

    pub fn same_component(a: &Component<'_>, b: &Component<'_>) -> bool {
        a == b
    }

    pub(super) fn file_url_to_path(host: &str, path: &str) -> Option<PathBuf> {
        (host.is_empty() || host.eq_ignore_ascii_case("localhost")).then(|| PathBuf::from(path))
    }
}

#[cfg(windows)]
mod imp {
    use std::borrow::Cow;
    use std::path::{Component, PathBuf};

    /// The rest of a `~/...` or `~\...` name.
    pub fn tilde_rest(name: &str) -> Option<&str> {
        name.strip_prefix("~/").or_else(|| name.strip_prefix("~\\"))
    }

    /// Pi's `normalizeWindowsShellPath`: `/c`, `/c/x`, `/mnt/c/x` and
    /// `/cygdrive/c/x` become `C:\`, `C:\x`; anything else is kept.
    pub fn shell_path(name: &str) -> Cow<'_, str> {
        if !name.starts_with('/') || name.starts_with("//") || name.contains('\\') {
            return Cow::Borrowed(name);
        }
        let body = &name[1..];
        let body = body
            .strip_prefix("mnt/")
            .or_else(|| body.strip_prefix("cygdrive/"))
            .unwrap_or(body);
        let mut chars = body.chars();
        let Some(drive) = chars.next().filter(char::is_ascii_alphabetic) else {
            return Cow::Borrowed(name);
        };
        let rest = chars.as_str();
        let suffix = match rest.strip_prefix('/') {
            Some(suffix) => suffix,
            None if rest.is_empty() => "",
            None => return Cow::Borrowed(name),
        };
        Cow::Owned(format!(
            "{}:\\{}",
            drive.to_ascii_uppercase(),
            suffix.replace('/', "\\")
        ))
    }

    /// `path.win32.relative` compares lower-cased paths.
    pub fn same_component(a: &Component<'_>, b: &Component<'_>) -> bool {
        let text = |c: &Component<'_>| c.as_os_str().to_string_lossy().to_lowercase();
        a == b || text(a) == text(b)
    }

    pub(super) fn file_url_to_path(host: &str, path: &str) -> Option<PathBuf> {
        let path = path.replace('/', "\\");
        if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
            return Some(PathBuf::from(format!("\\\\{host}{path}")));
        }
        // `\C:\x`: a drive letter and a colon, else Node refuses the URL.
        let bytes = path.as_bytes();
        let drive = bytes.len() >= 3 && bytes[1].is_ascii_alphabetic() && bytes[2] == b':';
        drive.then(|| PathBuf::from(&path[1..]))
    }
}
