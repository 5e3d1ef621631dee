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
mod own_client;
mod pi_events;
mod report;
pub mod session;
mod session_events;
mod state;
pub mod status;
mod tool_events;

use std::sync::{Arc, Mutex, OnceLock};

use crate::config::ResolvedConfig;
pub use crate::guard;
use crate::sync::lock;

pub use execute::{failed_execution, progress_handler, Execution};
pub use own_client::catalogue_update;
pub use pi_events::PiObject;
pub use report::unavailable;
pub use session::{
    catalogue_action, fallback_config, no_action, no_result, no_session, no_turn, no_turn_action,
    own_path, PlannedTurn, SessionOpening,
};
pub use session_events::{Applier, ShowFooter, TurnReads};
pub use state::{
    ClientSlot, InstanceLocked, InstanceState, ModuleLocked, ModuleState, OwnWindow, Parked,
    SlotEntry, StatusRecord,
};
pub use tool_events::{result_text, truthy, PlannedCall, ResultIds, ToolCallIds, ToolNames};

/// The way an answer goes back to Pi's thread; called once, from any thread.
/// Dropped uncalled, the binding answers its fail-open value.
pub type Reply<T> = Box<dyn FnOnce(T) + Send>;

/// Makes a parked answer hold the host open from now on; called at most
/// once, from any thread.
pub type Hold = Box<dyn FnOnce() + Send>;

/// How a binding settles an answer given after its start returned: the
/// reply, and the hold of a parked answer.
pub type Settler<T> = (Reply<T>, Hold);

/// An event's answer: known now, or started later with the way back.
pub enum Answer<T> {
    /// Decided on the caller's thread.
    Now(T),
    /// Needs work off Pi's thread. The binding runs the closure inside its
    /// tokio runtime (it may spawn there) and passes the reply; the closure
    /// may also reply before it returns.
    Later(Box<dyn FnOnce(Reply<T>) + Send>),
    /// Like [`Answer::Later`], for a wait that must not keep the host alive
    /// (a first turn parked on readiness, a capped wait like an unref'd
    /// timer) until the closure calls its [`Hold`].
    Parked(Box<dyn FnOnce(Reply<T>, Hold) + Send>),
}

/// An answer while it starts: a reply or hold given before the binding's
/// settler exists is kept for it.
struct Starting<T> {
    starting: bool,
    value: Option<T>,
    held: bool,
    settler: Option<Settler<T>>,
}

impl<T: Send + 'static> Answer<T> {
    /// The value of `work`, run on the binding's runtime under the panic
    /// guard; `fallback` answers a panic.
    pub fn spawn(
        fallback: impl FnOnce() -> T + Send + 'static,
        work: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Self {
        Answer::Later(Box::new(move |reply| {
            tokio::spawn(async move { reply(guard::guard_async(fallback, work).await) });
        }))
    }

    /// Starts the answer; `within` runs the start (the binding's runtime
    /// context, its panic guard). A value known before this returns is
    /// returned, for the caller to apply on its own thread with no hop.
    /// Else `settler` makes the way back (on the caller's thread, before any
    /// later reply can arrive), told whether the answer is parked and not
    /// yet held.
    pub fn start(
        self,
        within: impl FnOnce(Box<dyn FnOnce() + '_>),
        settler: impl FnOnce(bool) -> Option<Settler<T>>,
    ) -> Option<T> {
        type Start<T> = Box<dyn FnOnce(Reply<T>, Hold) + Send>;
        let (start, parked): (Start<T>, bool) = match self {
            Answer::Now(value) => return Some(value),
            Answer::Later(start) => (Box::new(move |reply, _| start(reply)), false),
            Answer::Parked(start) => (start, true),
        };
        let slot = Arc::new(Mutex::new(Starting {
            starting: true,
            value: None,
            held: false,
            settler: None,
        }));
        let (replying, holding) = (slot.clone(), slot.clone());
        let reply: Reply<T> = Box::new(move |value| {
            let mut slot = lock(&replying);
            match slot.settler.take() {
                Some((reply, _)) => {
                    drop(slot);
                    reply(value);
                }
                None if slot.starting => slot.value = Some(value),
                None => {}
            }
        });
        let hold: Hold = Box::new(move || {
            let mut slot = lock(&holding);
            slot.held = true;
            if let Some((reply, hold)) = slot.settler.take() {
                slot.settler = Some((reply, Box::new(|| ())));
                drop(slot);
                hold();
            }
        });
        within(Box::new(move || start(reply, hold)));
        let mut slot = lock(&slot);
        slot.starting = false;
        if let Some(value) = slot.value.take() {
            return Some(value);
        }
        slot.settler = settler(parked && !slot.held);
        None
    }
}

impl<T> std::fmt::Debug for Answer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Answer::Now(_) => "Answer::Now",
            Answer::Later(_) => "Answer::Later",
            Answer::Parked(_) => "Answer::Parked",
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
                guard::guard_sync(|| (), || this.record_stats(0));
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

    /// A settler that records the replies in `sent` and whether it was
    /// made weak, and counts its holds.
    fn settler_to(
        sent: &Arc<Mutex<Vec<u8>>>,
        weak: &Arc<Mutex<Vec<bool>>>,
    ) -> impl FnOnce(bool) -> Option<Settler<u8>> {
        let (sent, weak) = (sent.clone(), weak.clone());
        move |made_weak| {
            lock(&weak).push(made_weak);
            let held = weak.clone();
            let reply: Reply<u8> = Box::new(move |value| lock(&sent).push(value));
            let hold: Hold = Box::new(move || lock(&held).push(false));
            Some((reply, hold))
        }
    }

    fn run(start: Box<dyn FnOnce() + '_>) {
        start()
    }

    #[test]
    fn a_reply_given_while_starting_is_returned_one_given_after_goes_to_the_settler() {
        let (sent, weak) = (Arc::default(), Arc::default());
        assert_eq!(Answer::Now(1).start(run, settler_to(&sent, &weak)), Some(1));
        let early = Answer::Later(Box::new(|reply: Reply<u8>| reply(2)));
        assert_eq!(early.start(run, settler_to(&sent, &weak)), Some(2));
        assert!(lock(&sent).is_empty(), "an early reply is the caller's");
        assert!(lock(&weak).is_empty(), "no settler is made for it");
        let kept = Arc::new(Mutex::new(None));
        let keeping = kept.clone();
        let late = Answer::Later(Box::new(move |reply: Reply<u8>| {
            *lock(&keeping) = Some(reply)
        }));
        assert_eq!(late.start(run, settler_to(&sent, &weak)), None);
        let reply = lock(&kept).take().expect("the start kept its reply");
        reply(3);
        assert_eq!(*lock(&sent), vec![3]);
        assert_eq!(*lock(&weak), vec![false], "a later answer holds at once");
    }

    #[test]
    fn a_parked_answer_is_weak_until_held_and_a_hold_while_starting_makes_it_strong() {
        let (sent, weak) = (Arc::default(), Arc::default());
        let kept = Arc::new(Mutex::new(None));
        let keeping = kept.clone();
        let parked = Answer::Parked(Box::new(move |reply: Reply<u8>, hold: Hold| {
            *lock(&keeping) = Some((reply, hold))
        }));
        assert_eq!(parked.start(run, settler_to(&sent, &weak)), None);
        assert_eq!(*lock(&weak), vec![true], "made weak");
        let (reply, hold) = lock(&kept).take().expect("the start kept both");
        hold();
        assert_eq!(
            *lock(&weak),
            vec![true, false],
            "the hold reached the settler"
        );
        reply(4);
        assert_eq!(*lock(&sent), vec![4]);

        let (sent, weak) = (Arc::default(), Arc::default());
        let kept = Arc::new(Mutex::new(None));
        let keeping = kept.clone();
        let held = Answer::Parked(Box::new(move |reply: Reply<u8>, hold: Hold| {
            hold();
            *lock(&keeping) = Some(reply)
        }));
        assert_eq!(held.start(run, settler_to(&sent, &weak)), None);
        assert_eq!(
            *lock(&weak),
            vec![false],
            "held before the settler: made strong"
        );
    }
}
