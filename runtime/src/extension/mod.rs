//! The extension as Rust sees it: one [`Extension`] per factory call, with
//! one method per Pi event it handles. Each method takes the event in its
//! boundary shape and answers one action that says everything the glue
//! applies, so an event crosses the language boundary once.
//!
//! State shared by the instances of one import of the extension module
//! lives in [`ModuleState`]; what one factory call keeps lives in
//! [`InstanceState`].
//!
//! An answer that needs a file read or a child process is [`Answer::Later`]:
//! the binding starts it inside its async runtime and hands it the way back
//! to Pi's thread. Everything decided from the event alone is
//! [`Answer::Now`], with no thread hop.

pub mod call_line;
mod execute;
pub mod guard;
mod own_client;
mod report;
pub mod session;
mod state;
pub mod status;
mod tool_events;

use std::sync::{Arc, Mutex, OnceLock};

use crate::config::ResolvedConfig;
use crate::sync::lock;

pub use execute::{failed_execution, progress_handler, Execution};
pub use own_client::catalogue_update;
pub use report::unavailable;
pub use session::{
    catalogue_action, fallback_config, no_action, no_result, no_session, no_turn, no_turn_action,
    own_path, PlannedTurn, SessionOpening,
};
pub use state::{
    ClientSlot, InstanceLocked, InstanceState, ModuleLocked, ModuleState, OwnWindow, Parked,
    SlotEntry, StatusRecord,
};
pub use tool_events::{result_text, truthy, PlannedCall, ResultIds, ToolCallIds, ToolNames};

/// The way an answer goes back to Pi's thread; called once, from any thread.
/// Dropped uncalled, the binding answers its fail-open value.
pub type Reply<T> = Box<dyn FnOnce(T) + Send>;

/// An event's answer: known now, or started later with the way back.
pub enum Answer<T> {
    /// Decided on the caller's thread.
    Now(T),
    /// Needs work off Pi's thread. The binding runs the closure inside its
    /// tokio runtime (it may spawn there) and passes the reply; the closure
    /// may also reply before it returns.
    Later(Box<dyn FnOnce(Reply<T>) + Send>),
}

impl<T: Send + 'static> Answer<T> {
    /// Starts the answer; `within` runs the start (the binding's runtime
    /// context, its panic guard). A value known before this returns is
    /// returned, for the caller to apply on its own thread with no hop;
    /// one that comes later goes to `later`, from any thread.
    pub fn start(
        self,
        within: impl FnOnce(Box<dyn FnOnce() + '_>),
        later: impl FnOnce(T) + Send + 'static,
    ) -> Option<T> {
        let start = match self {
            Answer::Now(value) => return Some(value),
            Answer::Later(start) => start,
        };
        // While starting, a reply is kept for the caller; after, it goes on.
        let slot = Arc::new(Mutex::new((true, None, Some(later))));
        let replying = slot.clone();
        let reply: Reply<T> = Box::new(move |value| {
            let mut slot = lock(&replying);
            if slot.0 {
                slot.1 = Some(value);
            } else if let Some(later) = slot.2.take() {
                drop(slot);
                later(value);
            }
        });
        within(Box::new(move || start(reply)));
        let mut slot = lock(&slot);
        slot.0 = false;
        slot.1.take()
    }
}

impl<T> std::fmt::Debug for Answer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Answer::Now(_) => "Answer::Now",
            Answer::Later(_) => "Answer::Later",
        })
    }
}

/// One factory call of the extension: its import's shared state, its own
/// state once the factory resolved its configuration, and the id its import
/// knows it by (the own client's slot records which instance occupies it).
#[derive(Clone)]
pub struct Extension {
    module: Arc<ModuleState>,
    id: u32,
    state: Arc<OnceLock<Arc<InstanceState>>>,
}

impl Extension {
    /// A new instance of the import whose state is `module`.
    pub fn new(module: Arc<ModuleState>) -> Self {
        let id = module.next_instance_id();
        Extension {
            module,
            id,
            state: Arc::default(),
        }
    }

    /// Records the instance's two resolutions (with and without the project
    /// sidecar) and its session cwd; the first is in effect until a session
    /// start reports the project untrusted. Only the first call counts.
    pub fn set_config(
        &self,
        trusted: Arc<ResolvedConfig>,
        untrusted: Arc<ResolvedConfig>,
        cwd: std::path::PathBuf,
    ) {
        let _ = self
            .state
            .set(Arc::new(InstanceState::new(trusted, untrusted, cwd)));
    }

    /// The import's shared state.
    pub fn module(&self) -> &Arc<ModuleState> {
        &self.module
    }

    /// This instance's id among its import's instances.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// This instance's state, once the factory resolved its configuration.
    pub fn instance(&self) -> Option<Arc<InstanceState>> {
        self.state.get().cloned()
    }

    /// `session_compact`: the next turn briefs again.
    pub fn session_compact(&self) {
        if let Some(me) = self.instance() {
            me.lock().latches.on_compact();
        }
    }

    /// `session_shutdown`: the hook's spare is ended (killed and reaped on
    /// the blocking pool) and no other is started; then the own client stops.
    pub async fn session_shutdown(&self) {
        if let Some(me) = self.instance() {
            let slot = me.hook_spare.clone();
            let this = self.clone();
            let _ = tokio::task::spawn_blocking(move || {
                slot.close();
                caught(|| (), || this.record_stats(0));
            })
            .await;
        }
        self.stop_own_client().await;
    }

    /// Appends this session's record to the stats file (SAVE-4) when it
    /// changed and the last write is at least `interval_ms` old; blocking, so
    /// it runs on a pool thread. A failure costs the record, told in `/gortex`.
    pub fn record_stats(&self, interval_ms: i64) {
        let Some(me) = self.instance() else {
            return;
        };
        let config = me.config();
        if !config.stats {
            return;
        }
        let now = crate::stats::now_ms();
        let record = {
            let mut locked = self.module.lock();
            let status = &mut locked.status;
            let due = match &status.recorded {
                Some((saved, at)) => *saved != status.savings && now - at >= interval_ms,
                None => !status.savings.is_empty(),
            };
            if !due {
                return;
            }
            status.recorded = Some((status.savings.clone(), now));
            let started = *status.started_ms.get_or_insert(now);
            let id = format!(
                "{}:{}:{}:{started}",
                status.session_id.as_deref().unwrap_or("session"),
                std::process::id(),
                self.id
            );
            crate::stats::record(&id, &me.cwd.to_string_lossy(), started, &status.savings)
        };
        let path = crate::stats::file_path(&config.agent_dir);
        if let Err(error) = crate::stats::append(&path, &record) {
            let mut locked = self.module.lock();
            let status = &mut locked.status;
            if status.stats_error.is_none() {
                status.stats_error = Some(format!("{}: {error}", path.display()));
            }
        }
    }

    /// `session_shutdown`'s stop: the own client, if this instance holds
    /// the slot; a client another instance started is left alone.
    pub async fn stop_own_client(&self) {
        let owned = self.module.lock().client.take_for(self.id);
        if let Some(entry) = owned {
            entry.own_client.stop().await;
        }
    }

    /// Whether this instance took the native path.
    fn is_native(&self) -> bool {
        self.instance().is_some_and(|me| me.lock().latches.native)
    }
}

/// Runs `work`, answering `fallback()` if it panics. The binding's panic
/// hook records the message; here it only must not cross a thread's edge.
fn caught<T>(fallback: impl FnOnce() -> T, work: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|_| fallback())
}

/// An instance of a fresh import resolved in `dir` from `env`, its resolution then changed by
/// `adjust`, with the latches of the native path or of the own client: the tests' one way to
/// make the object a factory call makes.
#[cfg(test)]
pub(crate) fn test_instance(
    dir: &std::path::Path,
    env: &[(&str, &str)],
    native: bool,
    adjust: impl FnOnce(&mut ResolvedConfig),
) -> Extension {
    let inputs = crate::config::ConfigInputs {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        cwd: dir.to_path_buf(),
        home: dir.join("no-home"),
    };
    let mut resolved = crate::config::resolve(&inputs);
    // The hook-channel tests run with the spare on and off (HOOK-18): the
    // test process's own variable chooses when the test's env does not.
    if let Some(on) = std::env::var("GORTEX_HOOK_PRESPAWN")
        .ok()
        .and_then(|raw| crate::config::env_bool(&raw))
    {
        resolved.hook_prespawn = on;
    }
    adjust(&mut resolved);
    let resolved = Arc::new(resolved);
    let extension = Extension::new(Arc::new(ModuleState::default()));
    extension.set_config(resolved.clone(), resolved, dir.to_path_buf());
    extension.instance().unwrap().lock().latches = session::latches::InstanceLatches::new(native);
    extension
}

#[cfg(test)]
mod tests {
    use super::*;

    fn later_to(sent: &Arc<Mutex<Vec<u8>>>) -> impl FnOnce(u8) + Send + 'static {
        let sent = sent.clone();
        move |value| lock(&sent).push(value)
    }

    #[test]
    fn a_reply_given_while_starting_is_returned_one_given_after_goes_on() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let run = |start: Box<dyn FnOnce() + '_>| start();
        assert_eq!(Answer::Now(1).start(run, later_to(&sent)), Some(1));
        let early = Answer::Later(Box::new(|reply: Reply<u8>| reply(2)));
        assert_eq!(early.start(run, later_to(&sent)), Some(2));
        assert!(lock(&sent).is_empty(), "an early reply is the caller's");
        let kept = Arc::new(Mutex::new(None));
        let keeping = kept.clone();
        let late = Answer::Later(Box::new(move |reply: Reply<u8>| {
            *lock(&keeping) = Some(reply)
        }));
        assert_eq!(late.start(run, later_to(&sent)), None);
        let reply = lock(&kept).take().expect("the start kept its reply");
        reply(3);
        assert_eq!(*lock(&sent), vec![3]);
    }
}
