//! Files that can be read on the host's own thread without waiting on anything but a local disk:
//! those beneath a directory on a local disk file system, reached without a symlink and without
//! crossing into another mount, so no network or FUSE server stands between the open and its
//! answer. Linux has the open for it (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//! RESOLVE_NO_XDEV`); elsewhere no directory qualifies and every read stays on the blocking pool.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// A directory whose files may be opened and read on the host's thread.
#[derive(Debug)]
pub struct LocalDir {
    path: PathBuf,
    #[cfg(target_os = "linux")]
    fd: std::os::fd::OwnedFd,
}

impl LocalDir {
    /// The path it was opened as; files are named relative to it.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::*;
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;

    /// `statfs` magic numbers of local disk and memory file systems: ext2/3/4, XFS, Btrfs,
    /// tmpfs, ramfs, overlayfs, F2FS, ZFS, bcachefs. Anything else (NFS, SMB, FUSE, 9p, ...) may
    /// wait on a server.
    const LOCAL_MAGICS: [u64; 9] = [
        0xEF53,
        0x5846_5342,
        0x9123_683E,
        0x0102_1994,
        0x8584_58F6,
        0x794C_7630,
        0xF2F5_2010,
        0x2FC1_2FC1,
        0xCA45_1A4E,
    ];

    /// Whether a `statfs` type names a local file system (the field's width and sign vary by
    /// target; the magic is its low 32 bits).
    pub fn is_local_magic(f_type: u64) -> bool {
        LOCAL_MAGICS.contains(&(f_type & 0xFFFF_FFFF))
    }

    impl LocalDir {
        /// `dir`, when it is a directory on a local file system and `openat2` works here (a
        /// kernel before 5.6, a seccomp filter or qemu-user may refuse it: `dir` itself is opened
        /// through it once to tell). It reads `dir`'s file system, which may wait: call it off
        /// the host's thread.
        pub fn open(dir: &Path) -> Option<LocalDir> {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
                .open(dir)
                .ok()?;
            // SAFETY: an all-zero statfs is a valid value to be overwritten.
            let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
            // SAFETY: a valid descriptor and a statfs slot of ours.
            if unsafe { libc::fstatfs(file.as_raw_fd(), &mut stat) } != 0 {
                return None;
            }
            #[allow(clippy::unnecessary_cast)]
            let f_type = stat.f_type as i64 as u64;
            let local = is_local_magic(f_type).then(|| LocalDir {
                path: dir.to_path_buf(),
                fd: OwnedFd::from(file),
            })?;
            local.open_beneath(Path::new(".")).ok()?;
            Some(local)
        }

        /// Opens `relative` beneath this directory for reading, never through a symlink or into
        /// another mount, and without blocking on a FIFO. Refused resolutions (`ELOOP`,
        /// `EXDEV`), an old kernel (`ENOSYS`) and every other failure are errors; a missing file
        /// is `NotFound`.
        pub fn open_beneath(&self, relative: &Path) -> io::Result<File> {
            let name = CString::new(relative.as_os_str().as_bytes())?;
            // SAFETY: an all-zero open_how is valid (no flags); the fields are set below.
            let mut how: libc::open_how = unsafe { std::mem::zeroed() };
            how.flags =
                (libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY) as u64;
            how.resolve = libc::RESOLVE_BENEATH
                | libc::RESOLVE_NO_SYMLINKS
                | libc::RESOLVE_NO_XDEV
                | libc::RESOLVE_NO_MAGICLINKS;
            // SAFETY: openat2 reads the name and `how` (its size passed) and returns a new
            // descriptor or -1; nothing of ours is kept.
            let fd = unsafe {
                libc::syscall(
                    libc::SYS_openat2,
                    self.fd.as_raw_fd(),
                    name.as_ptr(),
                    &how as *const libc::open_how,
                    std::mem::size_of::<libc::open_how>(),
                )
            };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: a descriptor openat2 just returned, owned by nobody else.
            Ok(unsafe { File::from_raw_fd(fd as i32) })
        }
    }
}

#[cfg(not(target_os = "linux"))]
impl LocalDir {
    /// No directory qualifies here: every read stays on the blocking pool.
    pub fn open(_dir: &Path) -> Option<LocalDir> {
        None
    }

    /// Never reached: no `LocalDir` exists on this platform.
    pub fn open_beneath(&self, _relative: &Path) -> io::Result<File> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::linux::is_local_magic;
    use super::*;

    #[test]
    fn local_magics_are_recognised_in_any_sign_or_width() {
        assert!(is_local_magic(0xEF53));
        assert!(is_local_magic(0x794C_7630));
        // A 32-bit signed field sign-extended to 64 bits.
        assert!(is_local_magic(0x9123_683E_u32 as i32 as i64 as u64));
        assert!(!is_local_magic(0x6969), "NFS");
        assert!(!is_local_magic(0x6573_5546), "FUSE");
        assert!(!is_local_magic(0x0102_1997), "9p");
    }

    #[test]
    fn a_file_beneath_opens_and_a_symlink_or_an_escape_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(root.join("sub/a.txt"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("dirlink")).unwrap();
        let Some(local) = LocalDir::open(&root) else {
            eprintln!("the temp dir is not on a local file system here: nothing to check");
            return;
        };
        assert!(local.open_beneath(Path::new("sub/a.txt")).is_ok());
        let missing = local.open_beneath(Path::new("sub/none")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert!(
            local.open_beneath(Path::new("link")).is_err(),
            "a final symlink"
        );
        assert!(
            local.open_beneath(Path::new("dirlink/a.txt")).is_err(),
            "a symlinked folder"
        );
        assert!(local.open_beneath(Path::new("../x")).is_err(), "an escape");
        assert!(
            local.open_beneath(&root.join("sub/a.txt")).is_err(),
            "an absolute name"
        );
    }

    #[test]
    fn a_fifo_opens_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let fifo =
            std::ffi::CString::new(root.join("fifo").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path of ours.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let Some(local) = LocalDir::open(&root) else {
            return;
        };
        let file = local.open_beneath(Path::new("fifo")).unwrap();
        assert!(!file.metadata().unwrap().is_file());
    }
}
