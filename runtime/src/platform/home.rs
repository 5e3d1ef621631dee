//! The home directory `~` stands for: the one Node's `os.homedir()` gives Pi
//! (libuv's `uv_os_homedir`). The hook envelope, the edit claim and the
//! configuration all ask here, so a `~` names one file for all three.
//!
//! Unix: `HOME` as it is, even empty, else the passwd entry's directory;
//! `USERPROFILE` never counts. Windows: `USERPROFILE`, else the profile
//! directory of the process's user; `HOME` never counts (Git Bash and MSYS set
//! one of their own).

use std::ffi::OsString;
use std::path::PathBuf;

/// The home directory of this process as `os.homedir()` would find it now;
/// `None` where `os.homedir()` throws (Pi's tools then fail before writing).
pub fn home_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name);
    if cfg!(windows) {
        windows_home(var, account_home)
    } else {
        unix_home(var, account_home)
    }
}

/// libuv's Unix rule over `var` (an environment lookup): `HOME` when set, an
/// empty value included (Node then joins `~/x` to `x`), else `account()`.
pub fn unix_home(
    var: impl Fn(&str) -> Option<OsString>,
    account: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    var("HOME").map(PathBuf::from).or_else(account)
}

/// libuv's Windows rule over `var`: `USERPROFILE` when set, else `account()`.
/// A value shorter than three bytes fails in libuv, so `os.homedir()` throws.
pub fn windows_home(
    var: impl Fn(&str) -> Option<OsString>,
    account: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    match var("USERPROFILE") {
        Some(value) => (value.len() >= 3).then(|| PathBuf::from(value)),
        None => account(),
    }
}

/// The account's own home directory, asked only when the variable is unset:
/// std then reads the passwd entry (Unix) or the user's profile directory
/// (Windows), as libuv does.
fn account_home() -> Option<PathBuf> {
    // Deprecated before Rust 1.87; from 1.85 (the MSRV) it no longer reads `HOME` on Windows.
    #[allow(deprecated)]
    std::env::home_dir()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn account() -> Option<PathBuf> {
        Some(PathBuf::from("/account"))
    }

    #[test]
    fn unix_reads_home_as_it_is_and_never_userprofile() {
        let home = |pairs: &[(&str, &str)]| unix_home(lookup(pairs), account);
        assert_eq!(home(&[("HOME", "/h")]), Some("/h".into()));
        assert_eq!(
            home(&[("HOME", "/h"), ("USERPROFILE", "/u")]),
            Some("/h".into())
        );
        assert_eq!(
            home(&[("HOME", ""), ("USERPROFILE", "/u")]),
            Some("".into())
        );
        assert_eq!(home(&[("HOME", " /h ")]), Some(" /h ".into()));
        assert_eq!(home(&[("USERPROFILE", "/u")]), account());
        assert_eq!(home(&[]), account());
    }

    #[test]
    fn windows_reads_userprofile_and_never_home() {
        let home = |pairs: &[(&str, &str)]| windows_home(lookup(pairs), account);
        assert_eq!(home(&[("USERPROFILE", r"C:\u")]), Some(r"C:\u".into()));
        assert_eq!(
            home(&[("USERPROFILE", r"C:\u"), ("HOME", "/h")]),
            Some(r"C:\u".into())
        );
        assert_eq!(home(&[("HOME", "/h")]), account());
        assert_eq!(home(&[]), account());
        // libuv refuses a value under three bytes; the account is not asked then.
        assert_eq!(home(&[("USERPROFILE", ""), ("HOME", "/h")]), None);
        assert_eq!(home(&[("USERPROFILE", "C:")]), None);
        assert_eq!(home(&[("USERPROFILE", r"C:\")]), Some(r"C:\".into()));
    }
}
