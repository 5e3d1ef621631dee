//! A child together with every process it starts, stopped and killed as one,
//! so a wrapper script's program never outlives its owner.
//!
//! Unix: the child leads its own process group, which is signalled as a
//! group (a terminal's Ctrl+C, sent to the host's group, does not reach it).
//! Windows: the child starts suspended inside a job object that kills every
//! process in it when its last handle closes, so the tree dies even when the
//! host itself is killed; it gets its own console process group, which
//! Ctrl+C in the host's console does not reach.

use std::process::ExitStatus;

use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

pub use imp::{detach, ChildTree};

impl ChildTree {
    /// The child's stdin, once.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.child_mut().stdin.take()
    }

    /// The child's stdout, once.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child_mut().stdout.take()
    }

    /// The child's stderr, once.
    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child_mut().stderr.take()
    }

    /// The child's exit status if it has exited (the child alone, not the
    /// processes it started).
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.child_mut().try_wait()
    }

    /// Waits for the child itself to exit (not for the processes it started,
    /// which [`ChildTree::kill`] takes care of).
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.child_mut().wait().await
    }
}

#[cfg(unix)]
mod imp {
    use super::Command;

    /// A spawned child leading its own process group (killed on drop).
    #[derive(Debug)]
    pub struct ChildTree {
        child: tokio::process::Child,
        /// The group id (the child's pid), kept after the child is reaped:
        /// it cannot be reused while a member of the group is alive.
        group: Option<libc::pid_t>,
    }

    impl ChildTree {
        /// Spawns `command` as the leader of a new process group.
        pub fn spawn(mut command: Command) -> std::io::Result<Self> {
            command.process_group(0).kill_on_drop(true);
            let child = command.spawn()?;
            let group = child.id().and_then(|pid| libc::pid_t::try_from(pid).ok());
            Ok(Self { child, group })
        }

        pub(super) fn child_mut(&mut self) -> &mut tokio::process::Child {
            &mut self.child
        }

        /// The child's OS process id.
        pub fn id(&self) -> Option<u32> {
            self.group.and_then(|pid| u32::try_from(pid).ok())
        }

        /// Asks the whole tree to stop (SIGTERM to the group).
        pub fn terminate(&self) {
            self.signal_group(libc::SIGTERM);
        }

        /// Kills the whole tree now (SIGKILL to the group and the child).
        pub fn kill(&mut self) {
            self.signal_group(libc::SIGKILL);
            let _ = self.child.start_kill();
        }

        fn signal_group(&self, signal: libc::c_int) {
            if let Some(group) = self.group {
                // SAFETY: kill(2) with a negative pid signals a process
                // group; it touches no memory of ours.
                unsafe {
                    libc::kill(-group, signal);
                }
            }
        }
    }

    /// Makes `command` independent of the host: its own process group, so
    /// neither a terminal's signals nor the host's exit reach it.
    pub fn detach(command: &mut Command) {
        command.process_group(0);
    }
}

#[cfg(windows)]
#[cfg_attr(mutants, mutants::skip)] // not compiled on Linux, where mutants run
mod imp {
    use std::io;
    use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};

    use windows::Win32::Foundation::{CloseHandle, HANDLE};
    use windows::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
    };
    use windows::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    };
    use windows::Win32::System::Threading::{
        OpenThread, ResumeThread, CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW, CREATE_SUSPENDED,
        THREAD_SUSPEND_RESUME,
    };

    use super::Command;

    /// A spawned child inside a job object that kills every process in it
    /// when the job's handle closes: on drop, or when the host dies and the
    /// system closes its handles.
    #[derive(Debug)]
    pub struct ChildTree {
        child: tokio::process::Child,
        job: Job,
        id: Option<u32>,
    }

    impl ChildTree {
        /// Spawns `command` suspended, puts it in a new kill-on-close job
        /// object, then lets it run, so nothing it starts escapes the job.
        pub fn spawn(mut command: Command) -> io::Result<Self> {
            // The job first: when it cannot be made, nothing is started.
            let job = Job::kill_on_close().map_err(step("job object"))?;
            command.creation_flags((CREATE_NEW_PROCESS_GROUP | CREATE_SUSPENDED).0);
            command.kill_on_drop(true);
            let mut child = command.spawn()?;
            let id = child.id();
            let started = child
                .raw_handle()
                .ok_or_else(|| io::Error::other("the child has no process handle"))
                .and_then(|process| job.assign(HANDLE(process)).map_err(step("job assignment")))
                .and_then(|()| resume(id));
            if let Err(error) = started {
                let _ = child.start_kill();
                return Err(error);
            }
            Ok(Self { child, job, id })
        }

        pub(super) fn child_mut(&mut self) -> &mut tokio::process::Child {
            &mut self.child
        }

        /// The child's OS process id.
        pub fn id(&self) -> Option<u32> {
            self.id
        }

        /// Windows has no stop request a child without a console of its own
        /// can receive; closing its stdin, which every caller does first, is
        /// the request, and [`ChildTree::kill`] follows after the grace.
        pub fn terminate(&self) {}

        /// Kills every process in the job now.
        pub fn kill(&mut self) {
            self.job.terminate();
            let _ = self.child.start_kill();
        }
    }

    /// Names the step of a spawn an error came from, keeping its kind.
    fn step(what: &'static str) -> impl Fn(io::Error) -> io::Error {
        move |error| io::Error::new(error.kind(), format!("{what}: {error}"))
    }

    /// A job object handle; closing it (drop) kills what is in the job.
    #[derive(Debug)]
    struct Job(OwnedHandle);

    impl Job {
        fn kill_on_close() -> io::Result<Self> {
            // SAFETY: no name and default security; the returned handle is
            // owned here alone (not inheritable) and closed by OwnedHandle.
            let job = unsafe { CreateJobObjectW(None, None) }.map_err(io::Error::other)?;
            // SAFETY: `job` is a valid job handle just created.
            let job = Job(unsafe { OwnedHandle::from_raw_handle(job.0) });
            let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
            limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
            // SAFETY: the pointer and size describe `limits`, alive for the call.
            unsafe {
                SetInformationJobObject(
                    job.handle(),
                    JobObjectExtendedLimitInformation,
                    std::ptr::from_ref(&limits).cast(),
                    std::mem::size_of_val(&limits) as u32,
                )
            }
            .map_err(io::Error::other)?;
            Ok(job)
        }

        fn handle(&self) -> HANDLE {
            HANDLE(self.0.as_raw_handle())
        }

        fn assign(&self, process: HANDLE) -> io::Result<()> {
            // SAFETY: both handles are valid for the duration of the call.
            unsafe { AssignProcessToJobObject(self.handle(), process) }.map_err(io::Error::other)
        }

        fn terminate(&self) {
            // SAFETY: a valid job handle; a job already empty is no error.
            let _ = unsafe { TerminateJobObject(self.handle(), 1) };
        }
    }

    /// Resumes the threads of a process started suspended (its main thread):
    /// std hands out no thread handle, so they are found by a thread snapshot.
    fn resume(pid: Option<u32>) -> io::Result<()> {
        let pid = pid.ok_or_else(|| io::Error::other("the child has no process id"))?;
        // SAFETY: a snapshot of the system's threads, closed below.
        let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) }
            .map_err(|error| step("thread snapshot")(io::Error::other(error)))?;
        let mut entry = THREADENTRY32 {
            dwSize: std::mem::size_of::<THREADENTRY32>() as u32,
            ..Default::default()
        };
        let mut result = Ok(());
        let mut resumed = 0usize;
        // SAFETY: `entry` is a THREADENTRY32 with its size set, as the API asks.
        let mut next = unsafe { Thread32First(snapshot, &mut entry) };
        while next.is_ok() && result.is_ok() {
            if entry.th32OwnerProcessID == pid {
                result = resume_thread(entry.th32ThreadID);
                resumed += 1;
            }
            // SAFETY: as above.
            next = unsafe { Thread32Next(snapshot, &mut entry) };
        }
        // SAFETY: the snapshot handle is ours and closed once.
        let _ = unsafe { CloseHandle(snapshot) };
        result?;
        if resumed == 0 {
            // A child left suspended would never answer: a failed start instead.
            return Err(io::Error::other(format!(
                "thread snapshot: no thread of process {pid} to resume"
            )));
        }
        Ok(())
    }

    fn resume_thread(thread_id: u32) -> io::Result<()> {
        // SAFETY: a thread handle of ours, closed below.
        let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, false, thread_id) }
            .map_err(|error| step("opening the child's thread")(io::Error::other(error)))?;
        // SAFETY: a valid thread handle with THREAD_SUSPEND_RESUME.
        let resumed = unsafe { ResumeThread(thread) };
        // Read before CloseHandle, which may overwrite the thread's last error.
        let failed = (resumed == u32::MAX).then(io::Error::last_os_error);
        // SAFETY: closed once.
        let _ = unsafe { CloseHandle(thread) };
        match failed {
            Some(error) => Err(step("resuming the child's thread")(error)),
            None => Ok(()),
        }
    }

    /// Makes `command` independent of the host: no console window, its own
    /// console process group (so the host's Ctrl+C does not reach it), and
    /// outside any job of ours.
    pub fn detach(command: &mut Command) {
        command.creation_flags((CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW).0);
    }
}
