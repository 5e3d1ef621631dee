//! The tool events. `tool_call`: the hook's read discipline first, when it
//! is in effect (a block ends the call there), then a native edit's claim
//! and the before side of its files. `tool_result`: that edit's diff, and
//! the hold of a `tools_search` until its promoted tools are listed. The
//! assistant message's `message_end` reads an edit's files ahead; the end of
//! a call, a turn or a run releases what the calls held.
//!
//! Each method decides from the ids first and reads the rest of the event
//! only when the call needs it: most calls are neither edits nor searches.
//! Every path fails open: a fault costs the diff or the hook's answer, never
//! the call.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use pi_gortex_schema::host::{
    ToolCallAction, ToolCallEvent, ToolResultAction, ToolResultEvent, ToolWait,
};
use pi_gortex_schema::mcp::ToolsSearchResult;
use serde_json::Value;

use super::session::latches;
use super::status::HookTally;
use super::{guard, Answer, Extension, InstanceState, ModuleState, Reply};
use crate::config::ResolvedConfig;
use crate::diff::snapshot::{race_time_limit, SkipReason};
use crate::diff::{self, ClaimTicket, PrefetchUse, PrefetchWaiter, Snapshots, ToolCall};
use crate::hook::{self, EnvelopeContext, SpareCall};
use crate::native;
use crate::savings::{self, ReadKind};

/// How often a changed session's record is written before its end, so a
/// crash loses at most this much.
const STATS_INTERVAL_MS: i64 = 60_000;

/// What a `tool_call` is first decided from: its ids alone.
#[derive(Debug, Clone, Copy)]
pub struct ToolCallIds<'a> {
    pub tool_call_id: &'a str,
    pub tool_name: &'a str,
    /// Set for a code-mode sub-call; those are never claimed.
    pub parent_tool_call_id: Option<&'a str>,
}

/// What a `tool_result` is first decided from.
#[derive(Debug, Clone, Copy)]
pub struct ResultIds<'a> {
    pub tool_call_id: &'a str,
    pub tool_name: &'a str,
    pub is_error: bool,
}

/// One planned call of an assistant message, as the read-ahead reads it.
#[derive(Debug, Clone)]
pub struct PlannedCall {
    pub tool_call_id: String,
    pub tool_name: String,
    pub arguments: Value,
}

/// Called once a claim's before side is stored (or was never needed).
type Done = Box<dyn FnOnce() + Send>;

/// A call's hook exchange under way, and when it began.
struct Judging {
    started: Instant,
    call: SpareCall,
}

impl Extension {
    /// `tool_call`. `event` (the whole event with its session context) is
    /// read only when the hook judges the call or the call claims files.
    pub fn tool_call(
        &self,
        ids: ToolCallIds<'_>,
        event: impl FnOnce() -> Option<ToolCallEvent>,
    ) -> Answer<ToolCallAction> {
        let enforcing = self.instance().map(|me| (me.config(), me));
        let Some((config, me)) = enforcing.filter(|(config, _)| config.enforce) else {
            if !self.may_claim(ids) {
                return Answer::Now(ToolCallAction::None);
            }
            let Some(event) = event() else {
                return Answer::Now(ToolCallAction::None);
            };
            let this = self.clone();
            return Answer::Later(Box::new(move |reply| {
                this.claim(&event, Box::new(move || reply(ToolCallAction::None)));
            }));
        };
        let Some(event) = event() else {
            return Answer::Now(ToolCallAction::None);
        };
        let this = self.clone();
        // The envelope goes to the hook from Pi's thread (a warm spare
        // decides while the pool thread that waits for its answer wakes);
        // the wait blocks a pool thread, never Pi's. The claim follows on
        // that thread, so the answer wakes Pi once.
        Answer::Later(Box::new(move |reply| {
            let judging =
                guard::guard_sync(|| None, || Some(this.begin_judging(&me, &config, &event)));
            tokio::task::spawn_blocking(move || {
                this.judge_then_claim(&me, &config, event, judging, reply);
            });
        }))
    }

    fn judge_then_claim(
        &self,
        me: &InstanceState,
        config: &ResolvedConfig,
        event: ToolCallEvent,
        judging: Option<Judging>,
        reply: Reply<ToolCallAction>,
    ) {
        let judge = || judging.map_or(ToolCallAction::None, |judging| self.judge(me, judging));
        let action = guard::guard_sync(|| ToolCallAction::None, judge);
        let blocked = match action {
            ToolCallAction::Block { .. } => Some(true),
            ToolCallAction::Steer { .. } => Some(false),
            ToolCallAction::None => None,
        };
        // Counted before the answer, so `/gortex` after the call includes it; only a
        // blocked or guided read is sized, which most calls are not.
        if let Some(blocked) = blocked.filter(|_| config.stats) {
            guard::guard_sync(|| (), || self.count_raw_read(&event, blocked));
        }
        self.answer_then_claim(action, &event, reply);
        // The next spare starts after the answer is on its way to Pi.
        guard::guard_sync(|| (), || me.refill_hook_spare(config));
        // The crash-safe interval's record, also after the answer.
        guard::guard_sync(|| (), || self.record_stats(STATS_INTERVAL_MS));
    }

    fn answer_then_claim(
        &self,
        action: ToolCallAction,
        event: &ToolCallEvent,
        reply: Reply<ToolCallAction>,
    ) {
        if matches!(action, ToolCallAction::Block { .. }) {
            return reply(action);
        }
        let ids = ToolCallIds {
            tool_call_id: &event.tool_call_id,
            tool_name: &event.tool_name,
            parent_tool_call_id: event.parent_tool_call_id.as_deref(),
        };
        if !self.may_claim(ids) {
            return reply(action);
        }
        self.claim(event, Box::new(move || reply(action)));
    }

    /// Begins the hook's exchange for one call: its envelope, handed over.
    fn begin_judging(
        &self,
        me: &InstanceState,
        config: &ResolvedConfig,
        event: &ToolCallEvent,
    ) -> Judging {
        let started = Instant::now();
        let context = EnvelopeContext {
            cwd: event.cwd.clone(),
            session_id: event.session_id.clone(),
        };
        // The own client's registry tells a graph tool from Pi's own.
        let daemon_name = self.module.daemon_name(&event.tool_name);
        let envelope =
            hook::envelope_for_tool_call(&event.tool_name, &event.input, &context, |_| {
                daemon_name.as_deref()
            });
        Judging {
            started,
            call: me.begin_hook(config, &envelope),
        }
    }

    /// The hook's answer for one call, recorded for `/gortex`.
    fn judge(&self, me: &InstanceState, judging: Judging) -> ToolCallAction {
        let run = me.finish_hook(judging.call);
        let action = hook::tool_call_action(&run.decision);
        let tally = match action {
            ToolCallAction::Block { .. } => HookTally::Block,
            ToolCallAction::Steer { .. } => HookTally::Steer,
            ToolCallAction::None => HookTally::None,
        };
        self.module
            .lock()
            .status
            .record_hook(tally, judging.started.elapsed());
        action
    }

    /// A raw read the hook blocked (kept out) or guided and let run (SAVE-1).
    fn count_raw_read(&self, event: &ToolCallEvent, blocked: bool) {
        let Some(kind) = ReadKind::of_tool(&event.tool_name) else {
            return;
        };
        let bytes = match kind {
            ReadKind::Read => savings::read_bytes(&event.input, Path::new(&event.cwd)),
            _ => None,
        };
        let mut locked = self.module.lock();
        let record = &mut locked.status;
        if record.session_id.is_none() && !event.session_id.is_empty() {
            record.session_id = Some(event.session_id.clone());
        }
        match blocked {
            true => record.savings.record_blocked(kind, bytes),
            false => record.savings.record_allowed(bytes),
        }
    }

    /// Whether `tool_name` is a graph tool: native, or one the own client registered.
    fn is_graph_tool(&self, tool_name: &str) -> bool {
        native::bare_tool_name(tool_name).is_some() || self.module.daemon_name(tool_name).is_some()
    }

    /// Whether this session counts what the graph saved (`stats`).
    fn counts_savings(&self) -> bool {
        self.instance().is_some_and(|me| me.config().stats)
    }

    /// Tracks a shell call; true when the call may claim files: on the
    /// native path, Pi's own edit or write, or a Gortex tool whose name can
    /// edit (a search or a read never does, so its arguments stay unread).
    fn may_claim(&self, ids: ToolCallIds<'_>) -> bool {
        let native = self.is_native();
        self.module
            .lock()
            .edits
            .shell
            .on_tool_call(ids.tool_name, ids.tool_call_id);
        native
            && ids.parent_tool_call_id.is_none()
            && (matches!(ids.tool_name, "edit" | "write")
                || native::bare_tool_name(ids.tool_name).is_some_and(diff::classify::may_edit))
    }

    /// Claims the call's files and stores their before side, from a
    /// read-ahead when one has them, else read now; `done` runs after.
    fn claim(&self, event: &ToolCallEvent, done: Done) {
        let call = ToolCall {
            tool_call_id: &event.tool_call_id,
            tool_name: &event.tool_name,
            input: &event.input,
            parent_tool_call_id: event.parent_tool_call_id.as_deref(),
        };
        let native = self.is_native();
        let ticket = self.module.lock().edits.begin_tool_call(
            call,
            native,
            Path::new(&event.cwd),
            diff::edit_candidates,
        );
        let Some(ticket) = ticket else {
            return done();
        };
        let mut done = Some(done);
        let waiter = || -> PrefetchWaiter {
            let done = done.take();
            Box::new(move || {
                if let Some(done) = done {
                    done();
                }
            })
        };
        let used = self.module.lock().edits.use_prefetch(ticket, waiter);
        // Taken by the waiter, `done` runs when the read-ahead completes the claim.
        let Some(done) = done else {
            return;
        };
        match used {
            PrefetchUse::Missing(ticket) => read_before(self.module.clone(), ticket, done),
            PrefetchUse::Completed | PrefetchUse::Waiting => done(),
        }
    }

    /// `message_end` of an assistant message: the files of the native edits
    /// it plans are read now, before any call of its batch runs.
    pub fn message_end(&self, calls: Vec<PlannedCall>, cwd: String) -> Answer<()> {
        if calls.is_empty() || !self.is_native() {
            return Answer::Now(());
        }
        let module = self.module.clone();
        Answer::Later(Box::new(move |reply| {
            for call in calls {
                read_ahead(&module, call, Path::new(&cwd));
            }
            reply(());
        }))
    }

    /// Whether an assistant message's planned call is read ahead, from its
    /// name alone: the binding reads its arguments only then.
    pub fn reads_ahead(&self, tool_name: &str) -> bool {
        native::bare_tool_name(tool_name).is_some_and(diff::classify::may_edit)
    }

    /// Whether a result's text is read, from its tool's name alone: only a
    /// native `tools_search` is decided from it, so an edit's text stays unread.
    pub fn reads_result_text(&self, tool_name: &str) -> bool {
        is_tools_search(tool_name) || (self.counts_savings() && self.is_graph_tool(tool_name))
    }

    /// `tool_result`. `event` (the result's text, details and cwd) is read
    /// only for a claimed edit that succeeded, a native `tools_search` or a
    /// graph answer to count; `tool_names` only for a search that promoted
    /// tools, whose answer then comes once Pi lists them (or the wait's
    /// budget ran out). While `stats` is on, the answer also carries the
    /// footer when the net it shows changed (a graph answer, or a read
    /// blocked since the last result), and once per session the warning that
    /// the stats file could not be written.
    pub fn tool_result(
        &self,
        ids: ResultIds<'_>,
        event: impl FnOnce() -> Option<ToolResultEvent>,
        tool_names: impl FnOnce() -> Option<ToolNames>,
    ) -> Answer<ToolResultAction> {
        let answer = self.result_action(ids, event, tool_names);
        if !self.counts_savings() {
            return answer;
        }
        let footer = guard::guard_sync(|| None, || self.footer_update());
        let notice = guard::guard_sync(|| None, || self.module.lock().status.take_stats_notice());
        if footer.is_none() && notice.is_none() {
            return answer;
        }
        let with_savings = move |mut action: ToolResultAction| {
            action.footer = footer;
            action.notice = notice;
            action
        };
        match answer {
            Answer::Now(action) => Answer::Now(with_savings(action)),
            Answer::Later(start) => Answer::Later(Box::new(move |reply| {
                start(Box::new(move |action| reply(with_savings(action))))
            })),
            Answer::Parked(start) => Answer::Parked(Box::new(move |reply, hold| {
                start(Box::new(move |action| reply(with_savings(action))), hold)
            })),
        }
    }

    fn result_action(
        &self,
        ids: ResultIds<'_>,
        event: impl FnOnce() -> Option<ToolResultEvent>,
        tool_names: impl FnOnce() -> Option<ToolNames>,
    ) -> Answer<ToolResultAction> {
        let native = self.is_native();
        let mut event = Some(event);
        // A graph answer's size is what the model received (SAVE-1).
        let mut fetched = None;
        if self.counts_savings() && self.is_graph_tool(ids.tool_name) {
            let read = event.take().and_then(|event| event());
            if let Some(text) = read.as_ref().and_then(|read| read.text.as_deref()) {
                self.module.lock().status.savings.record_graph_answer(text);
            }
            fetched = Some(read);
        }
        {
            let mut locked = self.module.lock();
            let edits = &mut locked.edits;
            // A call of the batch has run: a file read ahead may have changed.
            edits.drop_unclaimed_prefetches();
            let search = is_tools_search(ids.tool_name) && !ids.is_error && native;
            if !search {
                if !edits.has_claim(ids.tool_call_id) {
                    return Answer::Now(ToolResultAction::default());
                }
                if ids.is_error {
                    edits.take_result(ids.tool_call_id, true);
                    return Answer::Now(ToolResultAction::default());
                }
            }
        }
        let event = match (fetched, event) {
            (Some(read), _) => read,
            (None, Some(event)) => event(),
            (None, None) => None,
        };
        let Some(event) = event else {
            return Answer::Now(ToolResultAction::default());
        };
        let action = ToolResultAction::default();
        if is_tools_search(&event.tool_name) && !event.is_error {
            let promoted = promoted_tools(event.text.as_deref().unwrap_or(""));
            let names = (!promoted.is_empty()).then(tool_names).flatten();
            if let Some(names) = names {
                return held_for(latches::promotion_wait(promoted), names, action);
            }
        }
        let pending = self
            .module
            .lock()
            .edits
            .take_result(&event.tool_call_id, event.is_error);
        let Some(pending) = pending else {
            return Answer::Now(action);
        };
        let module = self.module.clone();
        Answer::Later(Box::new(move |reply| {
            let read = pending.after_reader();
            let paths = pending.paths();
            read_files(
                &module.clone(),
                Path::new(&event.cwd.clone()),
                &paths,
                read,
                move |read| {
                    let after = read_or_skipped(read, |reason| pending.after_skipped(reason));
                    let finished = guard::guard_sync(ToolResultAction::default, || {
                        finish_result(&module, action, pending, event, &after)
                    });
                    reply(finished);
                },
            );
        }))
    }

    /// `tool_execution_end`: a shell call has ended.
    pub fn tool_execution_end(&self, tool_call_id: &str) {
        self.module.lock().edits.on_tool_execution_end(tool_call_id);
    }

    /// `turn_start`, `agent_end` and `session_shutdown`: the calls' claims
    /// and read-aheads are dropped (Pi has no `turn_end` handler of ours:
    /// with one, it builds the whole context twice per turn).
    pub fn clear_calls(&self) {
        self.module.lock().edits.clear();
    }
}

/// Reads Pi's tool names, on Pi's thread, from any thread.
pub type ToolNames =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Option<Vec<String>>> + Send>> + Send + Sync>;

/// `action`, answered once Pi's tool names satisfy `wait` or its budget ran
/// out: the result reaches the model only when its promoted tools can be called.
fn held_for(
    wait: ToolWait,
    names: ToolNames,
    action: ToolResultAction,
) -> Answer<ToolResultAction> {
    Answer::Later(Box::new(move |reply| {
        tokio::spawn(async move {
            latches::wait_for_tools(&wait, || names()).await;
            reply(action);
        });
    }))
}

/// `paths`, read on Pi's thread when the session folder's files can be (a missing or small
/// regular file beneath it, no symlink, no other mount); else `read` runs on a pool thread
/// within the time limit (DIFF-23) and learns the folder for the reads after it. `done` gets
/// what [`race_time_limit`] gives: `None` past the limit, `Some(None)` when the read panicked.
fn read_files(
    module: &Arc<ModuleState>,
    cwd: &Path,
    paths: &[PathBuf],
    read: impl FnOnce() -> Snapshots + Send + 'static,
    done: impl FnOnce(Option<Option<Snapshots>>) + Send + 'static,
) {
    let cwd = diff::paths::normalize(cwd);
    let local = module.local_dir(&cwd);
    let now = local.and_then(|local| {
        guard::guard_sync(
            || None,
            || diff::snapshot::snapshot_all_local(paths, &local),
        )
    });
    if let Some(snapshots) = now {
        return done(Some(Some(snapshots)));
    }
    let learner = module.clone();
    let work = move || {
        let read = guard::guard_sync(|| None, || Some(read()));
        guard::guard_sync(|| (), || learner.learn_local_dir(&cwd));
        read
    };
    race_time_limit(diff::SNAPSHOT_TIME_LIMIT, work, done);
}

/// The before side of a claim (see [`read_files`]).
fn read_before(module: Arc<ModuleState>, ticket: ClaimTicket, done: Done) {
    let read = ticket.before_reader();
    let (cwd, paths) = (ticket.cwd().to_path_buf(), ticket.paths().to_vec());
    read_files(&module.clone(), &cwd, &paths, read, move |read| {
        guard::guard_sync(
            || (),
            || {
                let before = read_or_skipped(read, |reason| ticket.before_skipped(reason));
                module.lock().edits.complete_claim(ticket, before);
            },
        );
        done();
    });
}

/// One planned edit's files, read ahead; the answer completes the claim
/// that may already wait for it.
fn read_ahead(module: &Arc<ModuleState>, call: PlannedCall, cwd: &Path) {
    let begun = module.lock().edits.begin_prefetch(
        &call.tool_call_id,
        &call.tool_name,
        &call.arguments,
        cwd,
        diff::edit_candidates,
    );
    let Some((paths, cwd)) = begun else {
        return;
    };
    // Off Pi's thread, the boundary's canonicalizing and repo-root walk run with the read.
    let read = {
        let (paths, cwd) = (paths.clone(), cwd.clone());
        move || diff::snapshot_all_in(&paths, &diff::Boundary::for_cwd(&cwd))
    };
    let reader = module.clone();
    let module = module.clone();
    read_files(&reader, &cwd, &paths.clone(), read, move |read| {
        let before = read_or_skipped(read, |reason| {
            diff::snapshot::skipped_all(paths.clone(), reason)
        });
        let waiter = guard::guard_sync(
            || None,
            || {
                module
                    .lock()
                    .edits
                    .finish_prefetch(&call.tool_call_id, before)
            },
        );
        if let Some(waiter) = waiter {
            waiter();
        }
    });
}

/// A read's snapshots, or every file skipped: `Silent` when the read
/// panicked, `TimedOut` when it ran past the time limit.
fn read_or_skipped(
    read: Option<Option<Snapshots>>,
    skipped: impl FnOnce(SkipReason) -> Snapshots,
) -> Snapshots {
    match read {
        Some(Some(snapshots)) => snapshots,
        Some(None) => skipped(SkipReason::Silent),
        None => skipped(SkipReason::TimedOut),
    }
}

/// The diff of a claimed edit, merged into the details Pi already has.
fn finish_result(
    module: &ModuleState,
    mut action: ToolResultAction,
    pending: diff::PendingCompare,
    event: ToolResultEvent,
    after: &Snapshots,
) -> ToolResultAction {
    // The shell set is copied out so the comparison runs unlocked.
    let shell = module.lock().edits.shell.clone();
    let details = pending.finish(after, &shell, Path::new(&event.cwd));
    if details.diffs.is_some() {
        let existing = event.details.unwrap_or(Value::Null);
        action.details = Some(object(diff::merge_details(&existing, &details)));
    }
    action
}

/// A JSON object, or an empty one for anything else.
pub(super) fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

/// The native daemon tool whose result is held until its promotions are listed.
fn is_tools_search(pi_name: &str) -> bool {
    native::bare_tool_name(pi_name) == Some("tools_search")
}

/// The `promoted` names of a `tools_search` result text. A payload that does
/// not match the schema gives no names, so the result is simply not held.
fn promoted_tools(text: &str) -> Vec<String> {
    serde_json::from_str::<ToolsSearchResult>(text.trim())
        .ok()
        .and_then(|payload| payload.promoted)
        .unwrap_or_default()
        .iter()
        .filter(|name| !name.is_empty())
        .map(|name| native::native_tool_name(name))
        .collect()
}

/// JavaScript's truthiness, for the flags Pi sets.
pub fn truthy(value: Option<Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => flag,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Some(Value::String(text)) => !text.is_empty(),
        Some(_) => true,
    }
}

/// The text parts of a result's content, joined by newlines.
pub fn result_text(content: Option<Value>) -> String {
    let Some(Value::Array(items)) = content else {
        return String::new();
    };
    let texts: Vec<&str> = items
        .iter()
        .filter(|item| item["type"] == "text")
        .filter_map(|item| item["text"].as_str())
        .collect();
    texts.join("\n")
}

#[cfg(test)]
mod tests;
