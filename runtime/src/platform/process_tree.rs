//! A child together with every process it starts, stopped and killed as one
//! (MCP-15, HOOK-2): a wrapper script's program never outlives its owner.
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
    use process_wrap::tokio::{
        CreationFlags, JobObject, KillOnDrop, TokioChildWrapper, TokioCommandWrap,
    };
    use windows::Win32::System::Threading::{CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW};

    use super::Command;

    /// A spawned child inside a job object that kills every process in it
    /// when the job's handle closes (on drop, or when the host dies).
    #[derive(Debug)]
    pub struct ChildTree {
        tree: Box<dyn TokioChildWrapper>,
        id: Option<u32>,
    }

    impl ChildTree {
        /// Spawns `command` suspended, puts it in a new kill-on-close job
        /// object, then lets it run, so nothing it starts escapes the job.
        pub fn spawn(command: Command) -> std::io::Result<Self> {
            let mut wrap = TokioCommandWrap::from(command);
            // CreationFlags first: the job object adds CREATE_SUSPENDED to it.
            wrap.wrap(CreationFlags(CREATE_NEW_PROCESS_GROUP))
                .wrap(JobObject)
                .wrap(KillOnDrop);
            let tree = wrap.spawn()?;
            let id = tree.id();
            Ok(Self { tree, id })
        }

        pub(super) fn child_mut(&mut self) -> &mut tokio::process::Child {
            self.tree.inner_mut()
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
            let _ = self.tree.start_kill();
        }
    }

    /// Makes `command` independent of the host: no console window, its own
    /// console process group (so the host's Ctrl+C does not reach it), and
    /// outside any job of ours.
    pub fn detach(command: &mut Command) {
        command.creation_flags((CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW).0);
    }
}
