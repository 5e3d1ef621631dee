//! The event-driven side of diffs: shell overlap (DIFF-15) and, on the
//! native MCP path, claims, contested paths and cleanup.
//!
//! Both are plain state machines: the glue feeds them Pi's `tool_call`,
//! `tool_result`, `tool_execution_end` and clearing (`turn_start`, `agent_end`,
//! `session_shutdown`) events in the order Pi
//! emits them, and they answer what to do. The only I/O is reading the
//! candidate files, and even that can be supplied from outside
//! ([`EditClaims::take_result`] + [`PendingCompare::finish`]).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use pi_gortex_schema::edit_details::EditDetails;
use serde_json::Value;

use super::outcome::{apply_shell_overlap, compare_entries, edit_details};
use super::paths::{resolve_pi_path, Boundary};
use super::snapshot::{
    skipped_all, snapshot_all_in, snapshot_all_timed, SkipReason, Snapshots, SNAPSHOT_TIME_LIMIT,
};

/// Tool names whose calls run shell commands.
pub const SHELL_TOOLS: [&str; 2] = ["bash", "powershell"];

/// Shell tracking: which shell calls run now, and how many ever started.
#[derive(Debug, Default, Clone)]
pub struct ShellTracker {
    running: HashSet<String>,
    seen: u64,
}

/// A diff window, opened just before the *before* snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShellWindow {
    running_at_open: bool,
    seen_at_open: u64,
}

impl ShellTracker {
    /// `tool_call`: a shell call starts (sub-calls included).
    pub fn on_tool_call(&mut self, tool_name: &str, tool_call_id: &str) {
        if SHELL_TOOLS.contains(&tool_name) {
            self.running.insert(tool_call_id.to_owned());
            self.seen = self.seen.wrapping_add(1);
        }
    }

    /// `tool_execution_end`: the call is over.
    pub fn on_tool_execution_end(&mut self, tool_call_id: &str) {
        self.running.remove(tool_call_id);
    }

    /// Clearing (`turn_start` / `agent_end` / `session_shutdown`):
    /// forget the running set.
    pub fn clear(&mut self) {
        self.running.clear();
    }

    /// Whether any shell call is running.
    pub fn is_running(&self) -> bool {
        !self.running.is_empty()
    }

    /// Opens a diff window.
    pub fn open_window(&self) -> ShellWindow {
        ShellWindow {
            running_at_open: self.is_running(),
            seen_at_open: self.seen,
        }
    }

    /// Closes a window: overlapped when a shell call ran at opening, runs
    /// now, or started in between.
    pub fn overlapped(&self, window: ShellWindow) -> bool {
        window.running_at_open || self.is_running() || self.seen != window.seen_at_open
    }
}

/// An in-flight call that names files.
#[derive(Debug, Clone)]
struct Claim {
    paths: BTreeSet<PathBuf>,
    /// Set for Gortex edits only; Pi's own edit/write claim without one.
    before: Option<(ShellWindow, Snapshots)>,
    /// The session boundary the files are re-checked against when read.
    boundary: Option<Boundary>,
    /// Path -> ids of the claims that contest it.
    contested: BTreeMap<PathBuf, HashSet<String>>,
    /// The call reached `tool_result`, so it ran.
    ran: bool,
}

/// A Gortex edit claimed at `tool_call` whose files still have to be read.
#[derive(Debug, Clone)]
pub struct ClaimTicket {
    tool_call_id: String,
    paths: Vec<PathBuf>,
    window: ShellWindow,
    boundary: Boundary,
    /// The cwd `boundary` comes from, which a read-ahead is matched on.
    cwd: PathBuf,
}

impl ClaimTicket {
    /// The candidate files to snapshot.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The cwd the candidates were resolved in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The before side of the claim, read within its boundary and
    /// the snapshot time limit, outside any lock on the claims.
    pub async fn read_before(&self) -> Snapshots {
        snapshot_all_timed(
            self.paths.clone(),
            self.boundary.clone(),
            SNAPSHOT_TIME_LIMIT,
        )
        .await
    }

    /// The before side's read, to run on a thread that may block: for a
    /// caller that runs it as a blocking-pool job and keeps the snapshot time
    /// limit outside it (the extension core's `read_before`). It owns copies of the
    /// paths and the boundary, so the ticket itself stays with the caller.
    pub fn before_reader(&self) -> impl FnOnce() -> Snapshots + Send + 'static {
        let (paths, boundary) = (self.paths.clone(), self.boundary.clone());
        move || snapshot_all_in(&paths, &boundary)
    }

    /// The before side of a read that did not finish (`TimedOut`,
    /// within the time limit; `Silent`, it panicked): every path skipped.
    pub fn before_skipped(&self, reason: SkipReason) -> Snapshots {
        skipped_all(self.paths.iter().cloned(), reason)
    }
}

/// A `tool_call` event, as far as the diff rules read it.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    pub tool_call_id: &'a str,
    pub tool_name: &'a str,
    pub input: &'a Value,
    /// Set for sub-calls (code mode); those are not claimed.
    pub parent_tool_call_id: Option<&'a str>,
}

/// DIFF-17..20 for the native MCP path, plus the shell tracker both paths
/// share (the own-client flow uses [`EditClaims::shell`] directly).
#[derive(Debug, Default)]
pub struct EditClaims {
    pub shell: ShellTracker,
    claims: HashMap<String, Claim>,
    /// Before sides read ahead, by tool call id (see [`EditClaims::begin_prefetch`]).
    prefetches: HashMap<String, Prefetch>,
}

/// Read-aheads kept at once: a message asking for more edits reads the rest
/// at their own `tool_call`s, so one message never starts an unbounded
/// number of concurrent reads (each file up to 1 MiB) on the blocking pool.
pub const MAX_PREFETCHES: usize = 16;

/// What a claim waiting on a read-ahead runs once the read has completed
/// it: the addon settles the `tool_call`'s promise. Dropped unrun (the
/// read-ahead was cleared), it must still let the call go on.
pub type PrefetchWaiter = Box<dyn FnOnce() + Send>;

/// A before side read ahead, at the assistant message that asked for the
/// call, so that the call's `tool_call` rarely waits for a read.
struct Prefetch {
    paths: Vec<PathBuf>,
    /// The planned tool and arguments the paths come from: a claim of the
    /// same tool with the same input from the same cwd names the same files.
    tool_name: String,
    input: Value,
    /// The cwd the read's boundary comes from (`Boundary::for_cwd`, computed
    /// by the read itself, off Pi's thread).
    cwd: PathBuf,
    state: PrefetchState,
}

enum PrefetchState {
    /// The read is under way; a claim made meanwhile waits for it.
    Reading(Option<(ClaimTicket, PrefetchWaiter)>),
    /// The read finished before any claim took it.
    Read(Snapshots),
}

impl std::fmt::Debug for Prefetch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            PrefetchState::Reading(None) => "reading",
            PrefetchState::Reading(Some(_)) => "reading, claimed",
            PrefetchState::Read(_) => "read",
        };
        f.debug_struct("Prefetch")
            .field("paths", &self.paths)
            .field("state", &state)
            .finish()
    }
}

/// How a claim's before side came from a read-ahead.
#[derive(Debug)]
pub enum PrefetchUse {
    /// The read-ahead had finished: the claim is complete.
    Completed,
    /// The read-ahead is still reading: it completes the claim and runs the waiter.
    Waiting,
    /// No usable read-ahead: the claim's files must be read now.
    Missing(ClaimTicket),
}

/// What a `tool_result` needs to finish its diff: the before side, the
/// paths to read again, and the shell window.
#[derive(Debug, Clone)]
pub struct PendingCompare {
    before: Snapshots,
    window: ShellWindow,
    boundary: Boundary,
}

impl PendingCompare {
    /// The own client's before side, read under Pi's file locks: the shell
    /// window is already open; reads the before side within `boundary` and
    /// the snapshot time limit.
    pub async fn open(paths: Vec<PathBuf>, window: ShellWindow, boundary: Boundary) -> Self {
        let before = snapshot_all_timed(paths, boundary.clone(), SNAPSHOT_TIME_LIMIT).await;
        PendingCompare {
            before,
            window,
            boundary,
        }
    }

    /// The after side of DIFF-16 step 7 and DIFF-19 step 3: the same paths,
    /// read again within the same boundary and time limit.
    pub async fn read_after(&self) -> Snapshots {
        snapshot_all_timed(self.paths(), self.boundary.clone(), SNAPSHOT_TIME_LIMIT).await
    }

    /// The after side's read, to run on a thread that may block (see
    /// [`ClaimTicket::before_reader`]).
    pub fn after_reader(&self) -> impl FnOnce() -> Snapshots + Send + 'static {
        let (paths, boundary) = (self.paths(), self.boundary.clone());
        move || snapshot_all_in(&paths, &boundary)
    }

    /// The after side of a read that did not finish (see
    /// [`ClaimTicket::before_skipped`]).
    pub fn after_skipped(&self, reason: SkipReason) -> Snapshots {
        skipped_all(self.paths(), reason)
    }

    /// The boundary to read the after side within, checked again at open.
    pub fn boundary(&self) -> &Boundary {
        &self.boundary
    }

    /// The paths to snapshot again.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.before.keys().cloned().collect()
    }

    /// The after side supplied: compare, then apply the shell overlap.
    pub fn finish(self, after: &Snapshots, shell: &ShellTracker, cwd: &Path) -> EditDetails {
        let entries = compare_entries(&self.before, after, cwd);
        edit_details(apply_shell_overlap(entries, shell.overlapped(self.window)))
    }
}

impl EditClaims {
    pub fn new() -> Self {
        Self::default()
    }

    /// The native claim without file reads: shell tracking, Pi's own claims, and for
    /// a Gortex edit the claim itself with its shell window opened. Returns
    /// the ticket whose paths must be snapshotted next (then
    /// [`EditClaims::complete_claim`]); `None` when nothing is to read.
    pub fn begin_tool_call(
        &mut self,
        call: ToolCall<'_>,
        native: bool,
        cwd: &Path,
        candidates: impl Fn(&str, &Value, &Path) -> Option<Vec<PathBuf>>,
    ) -> Option<ClaimTicket> {
        self.shell.on_tool_call(call.tool_name, call.tool_call_id);
        if !native || call.parent_tool_call_id.is_some() {
            return None;
        }
        if matches!(call.tool_name, "edit" | "write") {
            if let Some(path) = call.input.get("path").and_then(Value::as_str) {
                let resolved = resolve_pi_path(path, cwd);
                self.claim(call.tool_call_id, BTreeSet::from([resolved]), None);
            }
            return None;
        }
        let bare = crate::native::bare_tool_name(call.tool_name)?;
        // Read ahead from the same input and cwd: no call has run since its
        // files were judged (a result drops every read-ahead not yet claimed).
        let planned = self
            .prefetches
            .get(call.tool_call_id)
            .filter(|p| p.tool_name == call.tool_name && p.input == *call.input && p.cwd == cwd)
            .map(|prefetch| prefetch.paths.clone());
        let paths = planned
            .or_else(|| candidates(bare, call.input, cwd))
            .filter(|p| !p.is_empty())?;
        let window = self.shell.open_window();
        self.claim(call.tool_call_id, paths.iter().cloned().collect(), None);
        Some(ClaimTicket {
            tool_call_id: call.tool_call_id.to_owned(),
            paths,
            window,
            boundary: Boundary::for_cwd(cwd),
            cwd: cwd.to_path_buf(),
        })
    }

    /// Read-ahead, step 1: at the assistant message that asks for
    /// a native Gortex edit, before any call of its batch runs, its files
    /// can be read already, so that its `tool_call` finds the before side
    /// ready instead of waiting for a thread to read it. The files are the
    /// ones its claim will name (`candidates`, from the message's
    /// arguments, read within `Boundary::for_cwd(cwd)`). Returns the files
    /// and the cwd to read them within,
    /// or `None` when the call is no native Gortex edit, names no file, is
    /// already read ahead, or [`MAX_PREFETCHES`] are held; the read's answer goes to
    /// [`EditClaims::finish_prefetch`].
    pub fn begin_prefetch(
        &mut self,
        tool_call_id: &str,
        tool_name: &str,
        input: &Value,
        cwd: &Path,
        candidates: impl Fn(&str, &Value, &Path) -> Option<Vec<PathBuf>>,
    ) -> Option<(Vec<PathBuf>, PathBuf)> {
        if self.prefetches.len() >= MAX_PREFETCHES || self.prefetches.contains_key(tool_call_id) {
            return None;
        }
        let bare = crate::native::bare_tool_name(tool_name)?;
        let paths = candidates(bare, input, cwd).filter(|p| !p.is_empty())?;
        let prefetch = Prefetch {
            paths: paths.clone(),
            tool_name: tool_name.to_owned(),
            input: input.clone(),
            cwd: cwd.to_path_buf(),
            state: PrefetchState::Reading(None),
        };
        self.prefetches.insert(tool_call_id.to_owned(), prefetch);
        Some((paths, cwd.to_path_buf()))
    }

    /// Read-ahead, step 2: the read's answer. A claim already waiting is
    /// completed with it and its waiter handed back, to run once the
    /// claims are unlocked; otherwise the answer is kept for the claim. A
    /// read-ahead cleared meanwhile drops the answer.
    pub fn finish_prefetch(
        &mut self,
        tool_call_id: &str,
        before: Snapshots,
    ) -> Option<PrefetchWaiter> {
        let prefetch = self.prefetches.get_mut(tool_call_id)?;
        let PrefetchState::Reading(waiting) = &mut prefetch.state else {
            return None;
        };
        let Some((ticket, waiter)) = waiting.take() else {
            prefetch.state = PrefetchState::Read(before);
            return None;
        };
        self.prefetches.remove(tool_call_id);
        self.complete_claim(ticket, before);
        Some(waiter)
    }

    /// Read-ahead, step 3, at the claim's `tool_call`: the before side from
    /// the read-ahead of the same files from the same cwd, if any
    /// (`waiter` is made only when the claim has to wait for it).
    pub fn use_prefetch(
        &mut self,
        ticket: ClaimTicket,
        waiter: impl FnOnce() -> PrefetchWaiter,
    ) -> PrefetchUse {
        let Some(prefetch) = self.prefetches.remove(&ticket.tool_call_id) else {
            return PrefetchUse::Missing(ticket);
        };
        if prefetch.paths != ticket.paths || prefetch.cwd != ticket.cwd {
            return PrefetchUse::Missing(ticket);
        }
        match prefetch.state {
            PrefetchState::Read(before) => {
                self.complete_claim(ticket, before);
                PrefetchUse::Completed
            }
            PrefetchState::Reading(None) => {
                let id = ticket.tool_call_id.clone();
                let state = PrefetchState::Reading(Some((ticket, waiter())));
                self.prefetches.insert(id, Prefetch { state, ..prefetch });
                PrefetchUse::Waiting
            }
            PrefetchState::Reading(Some(_)) => PrefetchUse::Missing(ticket),
        }
    }

    /// Read-ahead withdrawn before any claim could wait for it: its read
    /// could not be started, so the claim must read its files itself.
    pub fn drop_prefetch(&mut self, tool_call_id: &str) {
        self.prefetches.remove(tool_call_id);
    }

    /// Read-ahead, invalidation: once any call of the batch has run (its
    /// `tool_result` or `tool_execution_end`), a file read ahead may have
    /// changed, so every read-ahead no claim has taken yet is dropped; the
    /// next claim reads its files at its own `tool_call`, as without one.
    /// (Pi prepares a parallel batch whole before running it, so only a
    /// sequential batch gets here with read-aheads left.)
    pub fn drop_unclaimed_prefetches(&mut self) {
        if self.prefetches.is_empty() {
            return;
        }
        self.prefetches
            .retain(|_, p| matches!(p.state, PrefetchState::Reading(Some(_))));
    }

    /// Stores the before snapshot of a claim begun by
    /// [`EditClaims::begin_tool_call`]. A claim dropped meanwhile (by
    /// a clearing event) stays dropped.
    pub fn complete_claim(&mut self, ticket: ClaimTicket, before: Snapshots) {
        if let Some(claim) = self.claims.get_mut(&ticket.tool_call_id) {
            claim.before = Some((ticket.window, before));
            claim.boundary = Some(ticket.boundary);
        }
    }

    /// Registers a claim and marks shared paths contested both ways.
    fn claim(
        &mut self,
        id: &str,
        paths: BTreeSet<PathBuf>,
        before: Option<(ShellWindow, Snapshots)>,
    ) {
        let mut mine = Claim {
            paths,
            before,
            boundary: None,
            contested: BTreeMap::new(),
            ran: false,
        };
        for (other_id, other) in self.claims.iter_mut() {
            if other_id == id {
                continue;
            }
            for path in mine.paths.intersection(&other.paths) {
                other
                    .contested
                    .entry(path.clone())
                    .or_default()
                    .insert(id.to_owned());
                mine.contested
                    .entry(path.clone())
                    .or_default()
                    .insert(other_id.clone());
            }
        }
        self.claims.insert(id.to_owned(), mine);
    }

    /// Takes the pending snapshot out. `None` when there
    /// is nothing to diff (no claim, no snapshot, or an error result).
    /// Contested paths are left out of the comparison.
    pub fn take_result(&mut self, tool_call_id: &str, is_error: bool) -> Option<PendingCompare> {
        let claim = self.claims.get_mut(tool_call_id)?;
        claim.ran = true;
        let (window, mut before) = claim.before.take()?;
        if is_error {
            return None;
        }
        before.retain(|path, _| claim.contested.get(path).is_none_or(|ids| ids.is_empty()));
        let boundary = claim.boundary.clone()?;
        Some(PendingCompare {
            before,
            window,
            boundary,
        })
    }

    /// At `tool_execution_end`: releases the call. A call that never
    /// reached `tool_result` never ran, so it stops contesting.
    pub fn on_tool_execution_end(&mut self, tool_call_id: &str) {
        self.shell.on_tool_execution_end(tool_call_id);
        self.drop_unclaimed_prefetches();
        let Some(claim) = self.claims.remove(tool_call_id) else {
            return;
        };
        if claim.ran {
            return;
        }
        for other in self.claims.values_mut() {
            for ids in other.contested.values_mut() {
                ids.remove(tool_call_id);
            }
        }
    }

    /// Clearing (`turn_start` / `agent_end` / `session_shutdown`;
    /// 0.4.0 cleared on `turn_end`, see decision 006): drops every claim and
    /// the shell set.
    pub fn clear(&mut self) {
        self.claims.clear();
        self.shell.clear();
        // A waiter dropped here lets its call go on (its claim is gone too).
        self.prefetches.clear();
    }

    /// Whether a call holds a claim (for tests and diagnostics).
    pub fn has_claim(&self, tool_call_id: &str) -> bool {
        self.claims.contains_key(tool_call_id)
    }

    /// The paths of a claim that are contested (for tests and diagnostics).
    #[cfg(any(test, feature = "test-support"))]
    pub fn contested_paths(&self, tool_call_id: &str) -> Vec<PathBuf> {
        self.claims
            .get(tool_call_id)
            .map(|c| {
                c.contested
                    .iter()
                    .filter(|(_, ids)| !ids.is_empty())
                    .map(|(p, _)| p.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}
