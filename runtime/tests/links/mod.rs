//! A symbolic link made the same way on every platform, for the tests of
//! links that lead out of the session or the project.

#![allow(dead_code)]

use std::path::Path;

/// Makes `link` point at `target` (relative targets are read from the link's
/// directory, as the OS reads them).
#[cfg(unix)]
pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// Makes `link` point at `target`: a directory link when the target is a
/// directory, a file link otherwise (also for a target that does not exist).
#[cfg(windows)]
pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> std::io::Result<()> {
    let (target, link) = (target.as_ref(), link.as_ref());
    let resolved = link
        .parent()
        .map_or(target.to_path_buf(), |dir| dir.join(target));
    if resolved.is_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}
