//! The warm spare (HOOK-18): one `gortex hook` process per session, started
//! ahead of the next hook event and waiting on its stdin.
//!
//! Gortex's hook does nothing that depends on the call before it has read
//! all of stdin, so a process started early answers as one started at the
//! call, and the call no longer waits for the binary's start-up. An event
//! takes the spare and hands it the envelope on the caller's thread
//! ([`SpareSlot::begin`]); the answer is waited for elsewhere under the
//! ordinary limits ([`SpareSlot::finish`]); a new spare is started after the
//! answer, off the critical path.
//!
//! A spare is used only while what it was started with still holds: the
//! argv (binary and posture), the binary's file on disk, the environment and
//! the working directory, and only while younger than [`SPARE_MAX_AGE`];
//! otherwise the call spawns fresh and the spare is ended. One that died or
//! refuses its stdin costs a fresh spawn within the same call. The slot holds
//! at most one spare, and ending the slot (or dropping it) kills and reaps
//! it with whatever it started.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use super::exchange::{begin, Begun, Warm};
use super::{HookEvent, HookFailure, HookLimits, HookRun};
use crate::sync::lock;

/// How long a spare may wait before it is replaced: a bound on whatever
/// the hook reads at start-up going stale (its configuration, the daemon).
pub const SPARE_MAX_AGE: Duration = Duration::from_secs(60);

/// What a spare was started with; a call whose own differ spawns fresh.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SpareKey {
    argv: Vec<String>,
    /// The binary's size and modification time, so an upgrade in place
    /// is not answered by the old program.
    binary: Option<(u64, Option<SystemTime>)>,
    environment: u64,
    cwd: Option<PathBuf>,
}

impl SpareKey {
    /// The key a spawn of `argv` would have now.
    fn now(argv: &[String]) -> Self {
        let binary = argv
            .first()
            .and_then(|program| std::fs::metadata(program).ok())
            .map(|meta| (meta.len(), meta.modified().ok()));
        let mut hasher = DefaultHasher::new();
        for (name, value) in std::env::vars_os() {
            name.hash(&mut hasher);
            value.hash(&mut hasher);
        }
        SpareKey {
            argv: argv.to_vec(),
            binary,
            environment: hasher.finish(),
            cwd: std::env::current_dir().ok(),
        }
    }
}

#[derive(Debug)]
struct Spare {
    key: SpareKey,
    born: Instant,
    warm: Warm,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Empty,
    /// A spare is being started outside the lock; nobody else starts one.
    Starting,
    Ready(Box<Spare>),
    /// A spare that did not fit its call waits to be ended; nobody starts one.
    Ending,
    /// The session ended: no spare is started again.
    Closed,
}

/// Counts of what the slot did, for `/gortex`-style reporting and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpareCounts {
    /// Spares started.
    pub started: usize,
    /// Events answered on a spare.
    pub used: usize,
    /// Spares ended unused: stale, mismatched, or the session's end.
    pub ended: usize,
    /// Spare processes alive now (started, neither used nor ended).
    pub alive: usize,
    /// The most spare processes alive at once.
    pub peak: usize,
    /// Start attempts that failed; a refill makes two before it goes
    /// without a spare (the events then spawn fresh).
    pub failed: usize,
}

/// A hook event's exchange begun on a slot ([`SpareSlot::begin`]), ended by
/// [`SpareSlot::finish`].
#[derive(Debug)]
pub struct SpareCall {
    begun: Begun,
    unfit: Option<Box<Spare>>,
}

/// One session's spare slot.
#[derive(Debug)]
pub struct SpareSlot {
    state: Mutex<State>,
    max_age: Duration,
    started: AtomicUsize,
    used: AtomicUsize,
    ended: AtomicUsize,
    alive: AtomicUsize,
    peak: AtomicUsize,
    failed: AtomicUsize,
    last_failure: Mutex<Option<HookFailure>>,
}

impl Default for SpareSlot {
    fn default() -> Self {
        Self::with_max_age(SPARE_MAX_AGE)
    }
}

impl SpareSlot {
    /// A slot whose spares are replaced once older than `max_age`.
    pub fn with_max_age(max_age: Duration) -> Self {
        SpareSlot {
            state: Mutex::default(),
            max_age,
            started: AtomicUsize::new(0),
            used: AtomicUsize::new(0),
            ended: AtomicUsize::new(0),
            alive: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            last_failure: Mutex::new(None),
        }
    }

    /// Runs the hook for `event` on the spare when it fits `argv` (else a
    /// fresh spawn), blocking the calling thread; the default limits.
    pub fn run_blocking(&self, argv: &[String], event: &HookEvent) -> HookRun {
        self.finish(self.begin(true, argv, event, HookLimits::default()))
    }

    /// Begins the hook's exchange for `event` without blocking: on the
    /// spare when `spare` is allowed and it fits `argv`, else (by
    /// [`SpareSlot::finish`]) on a fresh spawn. A spare that does not fit
    /// is ended by [`SpareSlot::finish`], after the answer; until then no
    /// other is started.
    pub fn begin(
        &self,
        spare: bool,
        argv: &[String],
        event: &HookEvent,
        limits: HookLimits,
    ) -> SpareCall {
        let (warm, unfit) = self.take(spare, argv);
        SpareCall {
            begun: begin(warm, argv, event, limits),
            unfit,
        }
    }

    /// Ends what [`SpareSlot::begin`] began, blocking the calling thread for
    /// the exchange; then ends a spare that did not fit.
    pub fn finish(&self, call: SpareCall) -> HookRun {
        let run = call.begun.finish();
        if let Some(unfit) = call.unfit {
            self.end(unfit);
            let mut state = lock(&self.state);
            if matches!(*state, State::Ending) {
                *state = State::Empty;
            }
        }
        run
    }

    /// Takes the waiting spare for a call of `argv`: its process when
    /// `spare` is allowed and it fits (counted as used under the lock, so a
    /// refill never sees two alive), else the spare itself, to be ended.
    fn take(&self, spare: bool, argv: &[String]) -> (Option<Warm>, Option<Box<Spare>>) {
        let mut state = lock(&self.state);
        if !matches!(*state, State::Ready(_)) {
            return (None, None);
        }
        let State::Ready(taken) = std::mem::replace(&mut *state, State::Ending) else {
            return (None, None);
        };
        if spare && taken.key == SpareKey::now(argv) && taken.born.elapsed() < self.max_age {
            *state = State::Empty;
            self.used.fetch_add(1, Ordering::Relaxed);
            self.gone();
            return (Some(taken.warm), None);
        }
        (None, Some(taken))
    }

    /// Starts a spare for `argv` when the slot has none (and is not ended).
    /// Blocks the calling thread for the spawn; call it after the answer.
    pub fn refill(&self, argv: &[String]) {
        {
            let mut state = lock(&self.state);
            if !matches!(*state, State::Empty) {
                return;
            }
            *state = State::Starting;
        }
        let key = SpareKey::now(argv);
        self.born();
        // A second attempt, off the event's path: a start can fail once for a
        // reason that passes (under wine, CreateProcess now and then answers
        // ERROR_INTERNAL_ERROR when the new process dies in its start-up).
        let spawned = self.attempt(argv).or_else(|()| self.attempt(argv));
        let spare = match spawned {
            Ok(warm) => Spare {
                key,
                born: Instant::now(),
                warm,
            },
            Err(()) => {
                // Fail open: no spare; the next event spawns as it would without.
                self.gone();
                let mut state = lock(&self.state);
                if matches!(*state, State::Starting) {
                    *state = State::Empty;
                }
                return;
            }
        };
        let mut state = lock(&self.state);
        if matches!(*state, State::Starting) {
            *state = State::Ready(Box::new(spare));
            return;
        }
        // Closed while it started.
        drop(state);
        self.end(spare);
    }

    /// One start of a spare; a failure is counted and kept.
    fn attempt(&self, argv: &[String]) -> Result<Warm, ()> {
        Warm::spawn(argv).map_err(|failure| {
            self.failed.fetch_add(1, Ordering::Relaxed);
            *lock(&self.last_failure) = Some(failure);
        })
    }

    /// Ends the spare and starts none again: the session is over.
    pub fn close(&self) {
        let previous = std::mem::replace(&mut *lock(&self.state), State::Closed);
        if let State::Ready(spare) = previous {
            self.end(spare);
        }
    }

    /// The spare's process id, when one is waiting.
    pub fn spare_id(&self) -> Option<u32> {
        match &*lock(&self.state) {
            State::Ready(spare) => spare.warm.id(),
            _ => None,
        }
    }

    /// What the slot did so far.
    pub fn counts(&self) -> SpareCounts {
        SpareCounts {
            started: self.started.load(Ordering::Relaxed),
            used: self.used.load(Ordering::Relaxed),
            ended: self.ended.load(Ordering::Relaxed),
            alive: self.alive.load(Ordering::Relaxed),
            peak: self.peak.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
        }
    }

    /// Why the last spare that could not be started failed, if one did.
    pub fn last_failure(&self) -> Option<HookFailure> {
        lock(&self.last_failure).clone()
    }

    fn born(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
        let alive = self.alive.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak.fetch_max(alive, Ordering::Relaxed);
    }

    fn gone(&self) {
        self.alive.fetch_sub(1, Ordering::Relaxed);
    }

    fn end(&self, spare: impl Into<Box<Spare>>) {
        let spare: Box<Spare> = spare.into();
        drop(spare);
        self.ended.fetch_add(1, Ordering::Relaxed);
        self.gone();
    }
}

impl Drop for SpareSlot {
    fn drop(&mut self) {
        self.close();
    }
}
