//! The process's own stdin and stdout as unbuffered `File`s (`Stdin` buffers on its own, and the
//! `split` faults need exact control of each write).

use std::fs::File;
use std::mem::ManuallyDrop;

pub enum Stream {
    Stdin,
    Stdout,
}

/// Never closed: the stream belongs to the process.
#[cfg(unix)]
pub fn raw_file(stream: Stream) -> ManuallyDrop<File> {
    use std::os::unix::io::FromRawFd;
    let fd = match stream {
        Stream::Stdin => 0,
        Stream::Stdout => 1,
    };
    // SAFETY: fds 0 and 1 are open for the whole life of the process and ManuallyDrop never closes
    // them.
    ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })
}

/// A duplicate of the stream's handle (never closed either: it lives as long as the process).
#[cfg(windows)]
pub fn raw_file(stream: Stream) -> ManuallyDrop<File> {
    use std::os::windows::io::AsHandle;
    let handle = match stream {
        Stream::Stdin => std::io::stdin().as_handle().try_clone_to_owned(),
        Stream::Stdout => std::io::stdout().as_handle().try_clone_to_owned(),
    };
    ManuallyDrop::new(File::from(handle.expect("the process's standard stream")))
}
