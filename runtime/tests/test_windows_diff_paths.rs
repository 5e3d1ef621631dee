//! DIFF-10/14/17 as Pi shows them on Windows: a CRLF file is diffed on its
//! LF-normalized text, as Pi's edit tool diffs it (every platform); shown
//! paths use `\` and compare case-insensitively like `path.win32.relative`,
//! and Pi's own edit names resolve the way its `resolveToCwd` resolves them
//! there (`\` separators, Git Bash drive paths, `~\`, `file:///C:/`).
//! Run under wine by `make test-windows`.

use std::fs;
use std::path::Path;

use pi_gortex_runtime::diff::{compare, snapshot_all, EditDetails};

const BEFORE: &str = "fn a() {}\nfn b() {}\nfn c() {}\n";
const AFTER: &str = "fn a() {}\nfn b2() {}\nfn c() {}\n";

/// The details of rewriting `cwd/src/<name>` from `before` to `after`.
fn edit(cwd: &Path, name: &str, before: &str, after: &str) -> EditDetails {
    let file = cwd.join("src").join(name);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, before).unwrap();
    let paths = vec![file.clone()];
    let old = snapshot_all(&paths);
    fs::write(&file, after).unwrap();
    compare(&old, &snapshot_all(&paths), cwd)
}

#[test]
fn a_crlf_file_is_diffed_on_its_lf_text_like_pi_edit() {
    let tmp = tempfile::tempdir().unwrap();
    let crlf = |text: &str| text.replace('\n', "\r\n");
    let lf = edit(tmp.path(), "lf.rs", BEFORE, AFTER);
    let windows = edit(tmp.path(), "crlf.rs", &crlf(BEFORE), &crlf(AFTER));
    // Pi's generateEditDiff on the normalized texts (formatDisplayDiff's numbered lines).
    let expected = " 1 fn a() {}\n-2 fn b() {}\n+2 fn b2() {}\n 3 fn c() {}";
    assert_eq!(windows.diff.as_deref(), Some(expected));
    assert_eq!(windows.diff, lf.diff);
    assert_eq!(windows.first_changed_line.map(|line| line.get()), Some(2));
    let entry = &windows.diffs.as_ref().unwrap()[0];
    let shown = Path::new("src").join("crlf.rs");
    assert_eq!(
        entry.path,
        shown.to_string_lossy(),
        "`\\` on Windows, `/` elsewhere"
    );
    assert!(
        !entry.patch.contains('\r'),
        "no CR in the patch: {:?}",
        entry.patch
    );
    assert!(entry
        .patch
        .starts_with(&format!("--- {}\n+++ {}\n", entry.path, entry.path)));
}

#[test]
fn a_crlf_file_whose_endings_alone_change_gets_the_line_ending_note() {
    let tmp = tempfile::tempdir().unwrap();
    let details = edit(tmp.path(), "eol.rs", &BEFORE.replace('\n', "\r\n"), BEFORE);
    let entry = &details.diffs.as_ref().unwrap()[0];
    assert!(entry.diff.is_empty());
    assert_eq!(entry.note.as_deref(), Some("line endings CRLF -> LF"));
}

#[cfg(windows)]
mod windows {
    use super::*;
    use std::path::PathBuf;

    use pi_gortex_runtime::diff::paths::{candidates, display_path, normalize, resolve_pi_path};

    fn cwd() -> PathBuf {
        PathBuf::from(r"C:\w\repo")
    }

    #[test]
    fn pi_own_edit_names_resolve_like_resolve_to_cwd_on_windows() {
        let cwd = cwd();
        let at = |p: &str| PathBuf::from(p);
        assert_eq!(resolve_pi_path("src/a.ts", &cwd), at(r"C:\w\repo\src\a.ts"));
        assert_eq!(
            resolve_pi_path(r"src\a.ts", &cwd),
            at(r"C:\w\repo\src\a.ts")
        );
        assert_eq!(
            resolve_pi_path(r"..\other\b.ts", &cwd),
            at(r"C:\w\other\b.ts")
        );
        assert_eq!(resolve_pi_path(r"D:\x\c.ts", &cwd), at(r"D:\x\c.ts"));
        // Rooted without a drive: the cwd's drive, as path.win32.resolve gives it.
        assert_eq!(resolve_pi_path("/abs/c.ts", &cwd), at(r"C:\abs\c.ts"));
        // normalizeWindowsShellPath: Git Bash, WSL and Cygwin drive paths.
        assert_eq!(resolve_pi_path("/d/proj/e.ts", &cwd), at(r"D:\proj\e.ts"));
        assert_eq!(
            resolve_pi_path("/mnt/c/Users/u/f.ts", &cwd),
            at(r"C:\Users\u\f.ts")
        );
        assert_eq!(resolve_pi_path("/cygdrive/e/g.ts", &cwd), at(r"E:\g.ts"));
        // fileURLToPath: the drive, `\` and percent-decoding.
        assert_eq!(
            resolve_pi_path("file:///C:/w/My%20Docs/h.ts", &cwd),
            at(r"C:\w\My Docs\h.ts")
        );
        assert_eq!(
            resolve_pi_path("file://server/share/i.ts", &cwd),
            at(r"\\server\share\i.ts")
        );
        let home = std::env::var_os("USERPROFILE").filter(|h| !h.is_empty());
        if let Some(home) = home {
            let home = PathBuf::from(home);
            assert_eq!(resolve_pi_path(r"~\j.ts", &cwd), home.join("j.ts"));
            assert_eq!(resolve_pi_path("~/k.ts", &cwd), home.join("k.ts"));
            assert_eq!(resolve_pi_path("~", &cwd), home);
        }
    }

    #[test]
    fn shown_paths_are_relative_with_backslashes_and_case_insensitive_like_path_win32_relative() {
        let cwd = cwd();
        assert_eq!(
            display_path(Path::new(r"C:\w\repo\src\a.ts"), &cwd),
            r"src\a.ts"
        );
        // path.win32.relative('c:\\w\\repo', 'C:\\W\\Repo\\src\\a.ts') === 'src\\a.ts'
        assert_eq!(
            display_path(Path::new(r"C:\W\Repo\src\a.ts"), Path::new(r"c:\w\repo")),
            r"src\a.ts"
        );
        assert_eq!(
            display_path(Path::new(r"C:\w\other\b.ts"), &cwd),
            r"..\other\b.ts"
        );
        assert_eq!(display_path(Path::new(r"D:\x\c.ts"), &cwd), r"D:\x\c.ts");
    }

    #[test]
    fn gortex_names_with_backslashes_or_slashes_are_the_same_candidate() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().to_path_buf();
        fs::create_dir_all(cwd.join("src")).unwrap();
        fs::write(cwd.join("src").join("a.ts"), "x\r\n").unwrap();
        let slash = candidates(&["src/a.ts".to_owned()], &cwd);
        let backslash = candidates(&[r"src\a.ts".to_owned()], &cwd);
        assert!(slash.contains(&cwd.join("src").join("a.ts")), "{slash:?}");
        assert_eq!(slash, backslash);
    }

    #[test]
    fn a_drive_name_after_the_start_never_replaces_the_path() {
        // `PathBuf::push("C:")` would drop what came before and leave the drive-relative `C:x`,
        // which resolves against the drive's own working directory.
        assert_eq!(
            normalize(Path::new(r"\..\?\C:\x")),
            PathBuf::from(r"\?\C:\x")
        );
        assert_eq!(
            normalize(Path::new(r"C:\w\D:\y")),
            PathBuf::from(r"C:\w\D:\y")
        );
        assert_eq!(normalize(Path::new(r"C:x\..\y")), PathBuf::from(r"C:y"));
    }
}
