//! What one import of the extension module holds and what one instance (one
//! factory call) holds. Pi re-imports the module on `/reload`; the instances
//! of one import (`/new`, resume, fork) share its client slot, tool registry,
//! edit tracking and status record.
//!
//! Each scope has one lock over what changes in it ([`ModuleLocked`],
//! [`InstanceLocked`]); neither is ever taken while the other is held, and
//! neither across a read, a child process or an await, so a lock costs a
//! call only its few assignments.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use super::session::latches::InstanceLatches;
use super::session::readiness::ReadinessBarrier;
use super::status::{ConnectionState, HookStats, HookTally};
use crate::config::ResolvedConfig;
use crate::diff::{self, Boundary, EditClaims, EditDetails, PendingCompare};
use crate::hook::{HookEvent, HookLimits, HookRun, SpareCall, SpareSlot};
use crate::mcp::own_client::OwnClient;
use crate::platform::local_dir::LocalDir;
use crate::version::{readiness_from_briefing, Readiness};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::sync::lock;

/// A first turn parked on the readiness barrier: a one-shot, opened once
/// with whether the session became ready, from whichever thread releases it
/// (the binding's end of the turn's answer).
pub struct Parked(super::Reply<bool>);

impl Parked {
    /// A parked turn that runs `open` when released.
    pub fn new(open: impl FnOnce(bool) + Send + 'static) -> Self {
        Parked(Box::new(open))
    }

    /// Releases the turn: `ready` when its session start ended, `false` at its cap.
    pub fn open(self, ready: bool) {
        (self.0)(ready)
    }
}

impl std::fmt::Debug for Parked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Parked")
    }
}

/// The Rust-side state of one factory call: what the factory fixed, and
/// behind the one lock everything that changes between Pi events.
#[derive(Debug)]
pub struct InstanceState {
    /// The factory's resolution with the project sidecar honoured: what the
    /// native registration was made from.
    trusted: Arc<ResolvedConfig>,
    /// The same resolution with the project sidecar left out.
    untrusted: Arc<ResolvedConfig>,
    /// The session cwd the factory saw: the children's working directory,
    /// so they never inherit whatever the host's cwd is later.
    pub cwd: std::path::PathBuf,
    /// The session's warm hook process (HOOK-18), ended with the session. A
    /// child's start and end happen in it, so it keeps its own lock, which
    /// is never taken under this state's.
    pub hook_spare: Arc<SpareSlot>,
    /// What changes, taken for one statement or one short block, never
    /// across a read, a child process or an await.
    locked: Mutex<InstanceLocked>,
}

/// What one instance changes between Pi events, behind [`InstanceState`]'s lock.
#[derive(Debug)]
pub struct InstanceLocked {
    /// The configuration in effect: the factory's, narrowed to
    /// `untrusted` while the host reports the project untrusted.
    pub config: Arc<ResolvedConfig>,
    /// The session latches.
    pub latches: InstanceLatches,
    /// The first turn's readiness barrier, armed here, when the factory
    /// resolves the instance's configuration: before any handler is
    /// registered. A parked turn is its answer's one-shot.
    pub readiness: ReadinessBarrier<Parked>,
}

/// The state one import of the extension module shares between its instances.
#[derive(Default)]
pub struct ModuleState {
    /// The id of the next instance of this import.
    next_instance: std::sync::atomic::AtomicU32,
    /// Whether the host's tool API takes MCP metadata, learned at factory time.
    takes_tool_metadata: std::sync::atomic::AtomicBool,
    /// What changes, taken for one statement or one short block, never
    /// across a read, a child process or an await.
    locked: Mutex<ModuleLocked>,
}

/// What one import changes between Pi events, behind [`ModuleState`]'s lock.
#[derive(Default)]
pub struct ModuleLocked {
    /// The trust notices this import gave (one per folder, not
    /// one per session: `/new` makes a new session, not a new import).
    trust_noticed: HashSet<String>,
    /// The start error of a failed start, reported once on the first turn.
    start_error: Option<String>,
    /// The model's line about a skewed daemon version, delivered once with
    /// the first-turn text.
    version_warning: Option<String>,
    /// The tool registry: registered Pi name to daemon name.
    registry: HashMap<String, String>,
    /// Daemon names of every tool registered by this import, so a relisted
    /// (re-activated) tool re-enters the registry.
    known: HashMap<String, String>,
    /// The own client's slot.
    pub client: ClientSlot,
    /// The own client's in-flight executions by Pi tool call id, for aborts.
    pub aborts: HashMap<String, CancellationToken>,
    /// The shell tracker and the native edits' claims.
    pub edits: EditClaims,
    /// What the footer status and `/gortex` report.
    pub status: StatusRecord,
    /// The last session folder a read was made in, and whether its files may be read on the
    /// host's thread (learned off it, by the first read there).
    local_dir: Option<(PathBuf, Option<Arc<LocalDir>>)>,
}

impl InstanceState {
    pub(super) fn new(
        trusted: Arc<ResolvedConfig>,
        untrusted: Arc<ResolvedConfig>,
        cwd: PathBuf,
    ) -> Self {
        InstanceState {
            locked: Mutex::new(InstanceLocked {
                config: trusted.clone(),
                latches: InstanceLatches::default(),
                readiness: ReadinessBarrier::default(),
            }),
            trusted,
            untrusted,
            cwd,
            hook_spare: Arc::default(),
        }
    }

    /// What changes between events, locked.
    pub fn lock(&self) -> MutexGuard<'_, InstanceLocked> {
        lock(&self.locked)
    }

    /// The configuration in effect.
    pub fn config(&self) -> Arc<ResolvedConfig> {
        self.lock().config.clone()
    }

    /// The resolution the factory acted on (the native registration).
    pub fn config_at_load(&self) -> Arc<ResolvedConfig> {
        self.trusted.clone()
    }

    /// Puts the resolution for the host's trust answer in effect
    /// and returns it.
    pub fn apply_trust(&self, trusted: bool) -> Arc<ResolvedConfig> {
        let chosen = if trusted {
            self.trusted.clone()
        } else {
            self.untrusted.clone()
        };
        self.lock().config = chosen.clone();
        chosen
    }

    /// Begins the hook's exchange for one event without blocking, on the
    /// session's spare when HOOK-18 applies under `config` (a spare that
    /// does not is ended after the answer).
    pub fn begin_hook(&self, config: &ResolvedConfig, event: &HookEvent) -> SpareCall {
        begin_on(&self.hook_spare, config, event)
    }

    /// Ends [`InstanceState::begin_hook`]'s exchange, blocking the calling
    /// thread.
    pub fn finish_hook(&self, call: SpareCall) -> HookRun {
        self.hook_spare.finish(call)
    }

    /// The hook's exchange for one event, finished on tokio's blocking
    /// pool, with the spare's refill started there after the answer.
    pub async fn run_hook(&self, config: &Arc<ResolvedConfig>, event: HookEvent) -> HookRun {
        let call = self.begin_hook(config, &event);
        let (slot, config) = (self.hook_spare.clone(), config.clone());
        let run = tokio::task::spawn_blocking(move || {
            let run = slot.finish(call);
            (run, slot, config)
        })
        .await;
        match run {
            Ok((run, slot, config)) => {
                tokio::task::spawn_blocking(move || refill_on(&slot, &config));
                run
            }
            Err(error) => HookRun {
                decision: crate::hook::empty_decision(),
                failure: Some(crate::hook::HookFailure::Io {
                    error: error.to_string(),
                }),
                latency: std::time::Duration::ZERO,
            },
        }
    }

    /// Starts the session's next spare when HOOK-18 applies under `config`.
    /// Blocks the calling thread for one spawn: call it after an answer.
    pub fn refill_hook_spare(&self, config: &ResolvedConfig) {
        refill_on(&self.hook_spare, config);
    }
}

fn begin_on(slot: &SpareSlot, config: &ResolvedConfig, event: &HookEvent) -> SpareCall {
    let limits = HookLimits::default();
    slot.begin(spare_applies(config), &config.hook_argv, event, limits)
}

fn refill_on(slot: &SpareSlot, config: &ResolvedConfig) {
    if spare_applies(config) {
        slot.refill(&config.hook_argv);
    }
}

/// HOOK-18: a spare only when the hook runs on tool calls, the user has not
/// opted out, and the hook's binary is an absolute path to a file (one that
/// cannot run would only fail once more per event).
fn spare_applies(config: &ResolvedConfig) -> bool {
    config.enforce
        && config.hook_prespawn
        && config
            .hook_argv
            .first()
            .is_some_and(|program| Path::new(program).is_absolute() && Path::new(program).is_file())
}

impl ModuleState {
    /// The state of a new import of the entry module; the repo-root cache of
    /// candidate paths belongs to the import too, so it starts empty.
    pub fn new_import() -> Arc<Self> {
        crate::diff::paths::clear_repo_root_cache();
        Arc::default()
    }

    /// Records what the host's tool API takes; every instance of an import shares one host.
    pub fn set_takes_tool_metadata(&self, takes: bool) {
        self.takes_tool_metadata
            .store(takes, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether registrations may carry MCP metadata.
    pub fn takes_tool_metadata(&self) -> bool {
        self.takes_tool_metadata
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// What changes between events, locked.
    pub fn lock(&self) -> MutexGuard<'_, ModuleLocked> {
        lock(&self.locked)
    }

    /// `cwd` as a folder whose files may be read on the host's thread, when a read off it has
    /// learned so.
    pub fn local_dir(&self, cwd: &Path) -> Option<Arc<LocalDir>> {
        match &self.lock().local_dir {
            Some((dir, local)) if dir == cwd => local.clone(),
            _ => None,
        }
    }

    /// Learns whether `cwd`'s files may be read on the host's thread. It reads `cwd`'s file
    /// system, which may wait, so it runs off that thread.
    pub fn learn_local_dir(&self, cwd: &Path) {
        if matches!(&self.lock().local_dir, Some((dir, _)) if dir == cwd) {
            return;
        }
        // Opened unlocked: it reads the file system.
        let local = LocalDir::open(cwd).map(Arc::new);
        self.lock().local_dir = Some((cwd.to_path_buf(), local));
    }

    /// The shell window opened and the before side
    /// read. `None` when the call is not an edit with candidates.
    pub async fn open_own_window(&self, name: &str, args: &Value, cwd: &str) -> Option<OwnWindow> {
        let daemon = self.daemon_name(name)?;
        let cwd = PathBuf::from(cwd);
        let paths = diff::edit_candidates(&daemon, args, &cwd).filter(|p| !p.is_empty())?;
        let window = self.lock().edits.shell.open_window();
        let pending = PendingCompare::open(paths, window, Boundary::for_cwd(&cwd)).await;
        Some(OwnWindow { cwd, pending })
    }

    /// The after side read and compared; a path a shell call touched in the
    /// window gets no diff.
    pub async fn close_own_window(&self, window: OwnWindow) -> EditDetails {
        let after = window.pending.read_after().await;
        // The shell set is copied out so the comparison runs unlocked.
        let shell = self.lock().edits.shell.clone();
        window.pending.finish(&after, &shell, &window.cwd)
    }

    /// True the first time this import gives `notice`.
    pub fn first_trust_notice(&self, notice: &str) -> bool {
        self.lock().trust_noticed.insert(notice.to_string())
    }

    /// A process-unique id for one more instance of this import.
    pub(super) fn next_instance_id(&self) -> u32 {
        self.next_instance.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Takes the start error (cleared once reported).
    pub fn take_start_error(&self) -> Option<String> {
        self.lock().start_error.take()
    }

    /// Records the start error of a failed start.
    pub fn set_start_error(&self, error: String) {
        self.lock().start_error = Some(error);
    }

    /// Takes the pending version warning (cleared once reported).
    pub fn take_version_warning(&self) -> Option<String> {
        self.lock().version_warning.take()
    }

    /// Records the version warning of a skewed handshake.
    pub fn set_version_warning(&self, warning: String) {
        self.lock().version_warning = Some(warning);
    }

    /// The daemon name of a registered tool, also what the diff
    /// code classifies an own-client edit by.
    pub fn daemon_name(&self, registered: &str) -> Option<String> {
        self.lock().registry.get(registered).cloned()
    }

    /// The tool registry as (Pi name, daemon name) pairs.
    pub fn registry_entries(&self) -> Vec<(String, String)> {
        self.lock()
            .registry
            .iter()
            .map(|(pi, daemon)| (pi.clone(), daemon.clone()))
            .collect()
    }

    /// Empties the registry when a new client starts.
    pub fn clear_registry(&self) {
        self.lock().registry.clear();
    }

    /// Applies one listing's changes to the registry:
    /// registered tools enter it, withdrawn ones leave, re-activated ones
    /// come back under the daemon name they were registered with.
    pub fn update_registry(
        &self,
        register: &[(String, String)],
        deactivate: &[String],
        activate: &[String],
    ) {
        // The daemon names are known first, then the registry changes in
        // the listing's order.
        let locked = &mut *self.lock();
        for (name, daemon) in register {
            locked.known.insert(name.clone(), daemon.clone());
        }
        let revived: Vec<(String, String)> = activate
            .iter()
            .filter_map(|name| Some((name.clone(), locked.known.get(name)?.clone())))
            .collect();
        for (name, daemon) in register {
            locked.registry.insert(name.clone(), daemon.clone());
        }
        for name in deactivate {
            locked.registry.remove(name);
        }
        locked.registry.extend(revived);
    }
}

#[cfg(test)]
impl ModuleState {
    /// Registers `(Pi name, daemon name)` pairs as one first listing would.
    pub(crate) fn register_for_test(&self, pairs: &[(&str, &str)]) {
        let register: Vec<(String, String)> = pairs
            .iter()
            .map(|(pi, daemon)| (pi.to_string(), daemon.to_string()))
            .collect();
        self.update_registry(&register, &[], &[]);
    }
}

/// The client slot's entry: the instance that occupies it, its client and the
/// slot's generation.
#[derive(Clone)]
pub struct SlotEntry {
    pub instance_id: u32,
    pub own_client: OwnClient,
    /// The slot's generation at this occupation, so a superseded start can tell.
    pub generation: u64,
}

/// The import's one client slot. Every change is one step under the
/// import's lock: a start occupies the slot and takes out its predecessor
/// together, so an older start still stopping its predecessor can never
/// displace a newer one.
#[derive(Default)]
pub struct ClientSlot {
    entry: Option<SlotEntry>,
    next_generation: u64,
}

impl ClientSlot {
    /// Occupies the slot for `instance_id`; returns its generation and the entry it
    /// displaced, which the caller stops.
    pub fn occupy(&mut self, instance_id: u32, own_client: OwnClient) -> (u64, Option<SlotEntry>) {
        let generation = self.next_generation;
        self.next_generation += 1;
        let entry = SlotEntry {
            instance_id,
            own_client,
            generation,
        };
        (generation, self.entry.replace(entry))
    }

    /// True while the slot is still at `generation`.
    pub fn holds(&self, generation: u64) -> bool {
        self.entry
            .as_ref()
            .is_some_and(|entry| entry.generation == generation)
    }

    /// Takes the entry out if the slot is still at `generation`.
    pub fn release(&mut self, generation: u64) -> Option<SlotEntry> {
        self.entry.as_ref().filter(|e| e.generation == generation)?;
        self.entry.take()
    }

    /// Takes the entry out if `instance_id` occupies it.
    pub fn take_for(&mut self, instance_id: u32) -> Option<SlotEntry> {
        self.entry
            .as_ref()
            .filter(|e| e.instance_id == instance_id)?;
        self.entry.take()
    }

    /// The own client in the slot, if any.
    pub fn own_client(&self) -> Option<OwnClient> {
        self.entry.as_ref().map(|e| e.own_client.clone())
    }
}

/// What the events saw, per import.
#[derive(Debug, Default)]
pub struct StatusRecord {
    /// `None` until a start or a first turn said otherwise.
    pub state: Option<ConnectionState>,
    /// The daemon's version, from the handshake or the briefing.
    pub daemon_version: Option<String>,
    /// What the last session briefing said about the index.
    pub readiness: Option<Readiness>,
    /// A readiness refresh is running: at most one at a time.
    pub refreshing: bool,
    /// The last own client failure; unlike the model's start error it is not cleared
    /// when reported, only when a new session starts.
    pub last_error: Option<String>,
    /// Pi names registered by the first listing; later ones are promoted.
    pub initial_tools: HashSet<String>,
    /// This session's hook calls.
    pub hook: HookStats,
    /// What the graph saved this session (SAVE-1).
    pub savings: crate::savings::Savings,
    /// The session's id as Pi's events name it, for the stats record.
    pub session_id: Option<String>,
    /// When this session started, in milliseconds since the epoch.
    pub started_ms: Option<i64>,
    /// What the stats file last received, and when (SAVE-4).
    pub recorded: Option<(crate::savings::Savings, i64)>,
    /// Why the stats file could not be written this session; shown in `/gortex`.
    pub stats_error: Option<String>,
    /// The user was warned of `stats_error`: once per session, not per write.
    pub stats_error_told: bool,
    /// Pi's tool names and the net (`−9.7k tok`) the last footer was worded
    /// with; `None` until a footer was shown, so a session without a UI never
    /// words one.
    pub footer_shown: Option<(Vec<String>, Option<String>)>,
}

impl StatusRecord {
    /// A new session starts a fresh tally and forgets the last error.
    pub fn reset_for_session(&mut self) {
        self.hook = HookStats::default();
        self.savings = crate::savings::Savings::default();
        self.started_ms = Some(crate::stats::now_ms());
        self.recorded = None;
        self.last_error = None;
        self.stats_error = None;
        self.stats_error_told = false;
    }

    /// The warning that this session's stats record could not be written,
    /// the first time it is asked for after a failure; after that `None`.
    pub fn take_stats_notice(&mut self) -> Option<String> {
        let error = self
            .stats_error
            .as_deref()
            .filter(|_| !self.stats_error_told)?;
        let notice = crate::stats::failure_notice(error);
        self.stats_error_told = true;
        Some(notice)
    }

    /// The own client is starting.
    pub fn record_connecting(&mut self) {
        self.state = Some(ConnectionState::Connecting);
    }

    /// The own client started: its version and first registrations.
    pub fn record_started(&mut self, version: &str, tools: &[String]) {
        self.state = Some(ConnectionState::Connected);
        self.daemon_version = Some(version.to_string()).filter(|v| !v.is_empty());
        self.initial_tools = tools.iter().cloned().collect();
    }

    /// The own client failed with `error`.
    pub fn record_down(&mut self, error: String) {
        self.state = Some(ConnectionState::Down);
        self.last_error = Some(error);
    }

    /// The native first turn: the version from the briefing, and
    /// whether Pi's tools appeared.
    pub fn record_native_first_turn(&mut self, version: Option<String>, ready: bool) {
        if let Some(version) = version.filter(|v| !v.is_empty()) {
            self.daemon_version = Some(version);
        }
        if !ready {
            self.state = Some(ConnectionState::Down);
            self.last_error =
                Some("Pi's MCP did not list any gortex tool within 5 s of the first turn".into());
        }
    }

    /// The readiness a session briefing reported; a briefing
    /// without a known readiness line leaves the last one in place.
    pub fn record_briefing(&mut self, orientation: Option<&str>) {
        if let Some(readiness) = orientation.and_then(readiness_from_briefing) {
            self.readiness = Some(readiness);
        }
    }

    /// Claims a readiness refresh, due only while the last briefing
    /// reported indexing and no other refresh runs.
    pub fn begin_refresh(&mut self) -> bool {
        let due = self.readiness.is_some_and(Readiness::is_indexing) && !self.refreshing;
        self.refreshing |= due;
        due
    }

    /// A refresh ended with this briefing; true when the readiness changed.
    pub fn end_refresh(&mut self, orientation: Option<&str>) -> bool {
        self.refreshing = false;
        let before = self.readiness;
        self.record_briefing(orientation);
        self.readiness != before
    }

    /// One hook call for a tool call, with its outcome and duration.
    pub fn record_hook(&mut self, tally: HookTally, elapsed: std::time::Duration) {
        self.hook.record(tally, elapsed);
    }
}

/// An own-client snapshot window opened before a call:
/// the runtime's pending comparison and the cwd its paths are shown against.
pub struct OwnWindow {
    cwd: PathBuf,
    pending: PendingCompare,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::own_client::OwnClientConfig;

    fn own_client() -> OwnClient {
        OwnClient::new(OwnClientConfig::new("gortex"))
    }

    #[test]
    fn an_older_start_cannot_displace_a_newer_one() {
        let mut slot = ClientSlot::default();
        // Instance 1's start occupies the slot, then awaits its predecessor's
        // stop; meanwhile the newer instance 2 occupies it and takes 1's entry out.
        let (older, _) = slot.occupy(1, own_client());
        let (newer, displaced) = slot.occupy(2, own_client());
        assert_eq!(displaced.map(|e| e.instance_id), Some(1));
        // When the older start resumes it finds itself superseded and
        // has no step that could put its own client back.
        assert!(!slot.holds(older));
        assert!(slot.release(older).is_none());
        assert!(slot.take_for(1).is_none());
        assert!(slot.holds(newer));
        assert_eq!(slot.take_for(2).map(|e| e.generation), Some(newer));
    }

    #[test]
    fn the_registry_maps_pi_names_to_daemon_names_and_a_relisted_tool_comes_back() {
        let module = ModuleState::default();
        module.register_for_test(&[("gortex_edit", "edit"), ("search", "search")]);
        assert_eq!(module.daemon_name("gortex_edit").as_deref(), Some("edit"));
        assert_eq!(
            module.daemon_name("edit"),
            None,
            "Pi's own edit is not ours"
        );
        let mut entries = module.registry_entries();
        entries.sort();
        let entries: Vec<(&str, &str)> = entries
            .iter()
            .map(|(pi, daemon)| (pi.as_str(), daemon.as_str()))
            .collect();
        assert_eq!(entries, [("gortex_edit", "edit"), ("search", "search")]);
        // Withdrawn, then listed again: it returns under the daemon name it had.
        module.update_registry(&[], &["gortex_edit".into()], &[]);
        assert_eq!(module.daemon_name("gortex_edit"), None);
        module.update_registry(&[], &[], &["gortex_edit".into(), "never_known".into()]);
        assert_eq!(module.daemon_name("gortex_edit").as_deref(), Some("edit"));
        assert_eq!(module.daemon_name("never_known"), None);
        module.clear_registry();
        assert!(module.registry_entries().is_empty());
    }

    #[test]
    fn a_new_import_finds_the_repo_root_afresh() {
        use crate::diff::paths::repo_root;
        let tmp = tempfile::tempdir().unwrap();
        let plain = std::fs::canonicalize(tmp.path()).unwrap().join("plain");
        let dir = plain.join("sub");
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(repo_root(&dir), dir, "no .git above: the cwd itself");
        std::fs::create_dir_all(plain.join(".git")).unwrap();
        assert_eq!(repo_root(&dir), dir, "cached for this import");
        let _next = ModuleState::new_import();
        assert_eq!(repo_root(&dir), plain, "read again by the next import");
    }

    #[test]
    fn the_imports_one_time_values_are_given_once() {
        let module = ModuleState::default();
        assert!(module.first_trust_notice("folder a"));
        assert!(!module.first_trust_notice("folder a"), "once per folder");
        assert!(module.first_trust_notice("folder b"));
        assert_eq!(module.take_version_warning(), None);
        module.set_version_warning("skewed".into());
        assert_eq!(module.take_version_warning().as_deref(), Some("skewed"));
        assert_eq!(module.take_version_warning(), None, "cleared once reported");
        assert!(!module.takes_tool_metadata());
        module.set_takes_tool_metadata(true);
        assert!(module.takes_tool_metadata());
        module.set_takes_tool_metadata(false);
        assert!(!module.takes_tool_metadata());
        assert_eq!(
            (module.next_instance_id(), module.next_instance_id()),
            (1, 2)
        );
    }

    #[test]
    fn the_slot_hands_out_its_own_client_until_released() {
        let mut slot = ClientSlot::default();
        assert!(slot.own_client().is_none());
        let (generation, _) = slot.occupy(1, own_client());
        assert!(slot.own_client().is_some());
        assert!(slot.release(generation).is_some());
        assert!(slot.own_client().is_none());
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        let mut stats = HookStats::default();
        assert_eq!(stats.median(), None);
        for (tally, n) in [
            (HookTally::None, 30),
            (HookTally::Block, 10),
            (HookTally::Steer, 20),
        ] {
            stats.record(tally, std::time::Duration::from_millis(n));
        }
        assert_eq!(stats.median(), Some(std::time::Duration::from_millis(20)));
        stats.record(HookTally::None, std::time::Duration::from_millis(40));
        assert_eq!(stats.median(), Some(std::time::Duration::from_millis(25)));
        assert_eq!((stats.calls, stats.blocks, stats.steers), (4, 1, 1));
    }

    #[test]
    fn the_status_record_follows_the_sessions_own_client() {
        let mut record = StatusRecord::default();
        record.record_connecting();
        assert_eq!(record.state, Some(ConnectionState::Connecting));
        record.record_started("", &["search".into()]);
        assert_eq!(record.state, Some(ConnectionState::Connected));
        assert_eq!(record.daemon_version, None, "an empty version is none");
        assert!(record.initial_tools.contains("search"));
        record.record_started("0.64.4", &[]);
        assert_eq!(record.daemon_version.as_deref(), Some("0.64.4"));
        record.record_hook(HookTally::Block, std::time::Duration::from_millis(1));
        record.record_down("gone".into());
        record.reset_for_session();
        assert_eq!(record.hook.calls, 0, "a fresh tally per session");
        assert_eq!(record.last_error, None);

        let mut native = StatusRecord::default();
        native.record_native_first_turn(Some(String::new()), true);
        assert_eq!((native.state, native.daemon_version.clone()), (None, None));
        native.record_native_first_turn(Some("0.65.0".into()), false);
        assert_eq!(native.daemon_version.as_deref(), Some("0.65.0"));
        assert_eq!(native.state, Some(ConnectionState::Down));
        assert!(native.last_error.as_deref().unwrap().contains("within 5 s"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_is_read_on_the_hosts_thread_only_once_learned_and_only_that_folder() {
        let dir = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let module = ModuleState::default();
        assert!(module.local_dir(dir.path()).is_none(), "not learned yet");
        module.learn_local_dir(dir.path());
        if LocalDir::open(dir.path()).is_none() {
            eprintln!("no openat2 or no local file system here");
            return;
        }
        assert!(module.local_dir(dir.path()).is_some());
        assert!(module.local_dir(other.path()).is_none(), "another folder");
        module.learn_local_dir(other.path());
        assert!(
            module.local_dir(dir.path()).is_none(),
            "the last folder only"
        );
        assert!(module.local_dir(other.path()).is_some());
    }

    #[tokio::test]
    async fn an_own_client_edit_gets_its_window_and_a_search_none() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.go"), "hello\n").unwrap();
        let module = ModuleState::default();
        module.register_for_test(&[("gortex_edit", "edit"), ("search", "search")]);
        let cwd = dir.path().to_string_lossy().into_owned();
        let args = serde_json::json!({"operation": "file", "target": {"file": "main.go"}, "match": "hello", "replacement": "howdy"});
        assert!(module
            .open_own_window("search", &args, &cwd)
            .await
            .is_none());
        assert!(module
            .open_own_window("unregistered", &args, &cwd)
            .await
            .is_none());
        let window = module
            .open_own_window("gortex_edit", &args, &cwd)
            .await
            .unwrap();
        std::fs::write(dir.path().join("main.go"), "howdy\n").unwrap();
        let details = module.close_own_window(window).await;
        let diffs = details.diffs.expect("the edit's diff");
        assert_eq!(diffs.len(), 1);
    }

    #[test]
    fn stat_4_a_refresh_is_due_only_while_indexing_and_one_at_a_time() {
        let warming =
            "## Gortex Session Orientation\n\n⏳ Gortex daemon warming up (v0.64.4, 3s elapsed).";
        let ready = "## Gortex Session Orientation\n\n✓ Gortex daemon ready (v0.64.4, uptime 5s).";
        let mut record = StatusRecord::default();
        assert!(!record.begin_refresh(), "nothing reported yet");
        record.record_briefing(Some(ready));
        assert!(!record.begin_refresh(), "ready: no cost");
        record.record_briefing(Some(warming));
        assert!(record.begin_refresh());
        assert!(!record.begin_refresh(), "one at a time");
        assert!(!record.end_refresh(Some(warming)), "unchanged");
        assert!(record.begin_refresh());
        assert!(!record.end_refresh(Some("no readiness line")), "kept");
        assert_eq!(record.readiness, Some(Readiness::Warming));
        assert!(record.begin_refresh());
        assert!(record.end_refresh(Some(ready)), "cleared");
        assert!(!record.begin_refresh(), "ready: nothing more is asked");
    }
}
