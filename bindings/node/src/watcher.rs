//! Edit diffs on both paths (DIFF-15..22) and the native `tools_search`
//! hold (NAT-15): the generation's watcher (shell tracker and native
//! claims), the own-client snapshot window, and their exports. Snapshots
//! read files, so they run on tokio's blocking pool, never on the Node
//! event loop; a native edit's reads are blocking-pool jobs that settle
//! their promise themselves (`settle::settle_blocking_within`). Every entry
//! point fails open (DIFF-22).

use std::path::Path;

use napi::bindgen_prelude::{FromNapiValue, JsValue, Unknown};
use napi::Env;
use napi_derive::napi;
use pi_gortex_runtime::diff::snapshot::SkipReason;
use pi_gortex_runtime::diff::{self, PrefetchUse, PrefetchWaiter, ToolCall};
use pi_gortex_runtime::{instance, native};
use pi_gortex_schema::mcp::ToolsSearchResult;
use serde_json::Value;

use crate::boundary::{from_js, object, to_js, ToolCallEvent, WatchResultAction, WatchToolResult};
use crate::settle::{PromiseSettler, Promised};
use crate::state::lock;
use crate::{generation, guard};

/// NAT-15: the native daemon tool whose result is held.
fn is_tools_search(pi_name: &str) -> bool {
    native::bare_tool_name(pi_name) == Some("tools_search")
}

/// DIFF-16 step 1 for the glue's locks: the candidate files of an own-client
/// call, `[]` when it is not an edit.
///
/// `args` stays a JavaScript value until the name says the tool can edit:
/// most calls are not edits, and converting their arguments would be the
/// larger part of this per-call check.
#[napi(ts_args_type = "generation: number, name: string, args: unknown, cwd: string")]
pub fn edit_candidates(
    env: &Env,
    generation: u32,
    name: String,
    args: Unknown<'_>,
    cwd: String,
) -> Vec<String> {
    guard::guard_sync(Vec::new, || {
        let state = generation::get(generation);
        let Some(daemon) = state.daemon_name(&name) else {
            return Vec::new();
        };
        if !diff::classify::may_edit(&daemon) {
            return Vec::new();
        }
        // SAFETY: `args` is a live value of this call's `env`.
        let Ok(args) = (unsafe { Value::from_napi_value(env.raw(), args.raw()) }) else {
            return Vec::new();
        };
        diff::edit_candidates(&daemon, &args, Path::new(&cwd))
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    })
}

/// DIFF-15/17 `tool_call`, the per-call fast path: decided from the name
/// and ids alone (no arguments cross napi). Tracks shell calls; returns true
/// when the call may claim files (Pi's own edit/write, or a native Gortex
/// tool whose name can edit), and the glue then calls `watchEdit`.
#[napi]
pub fn watch_tool_call(
    generation: u32,
    instance: u32,
    tool_call_id: String,
    tool_name: String,
    parent_tool_call_id: Option<String>,
) -> bool {
    guard::guard_sync(
        || false,
        || {
            let state = generation::get(generation);
            let native = state.is_native(instance);
            lock(&state.watcher().native)
                .shell
                .on_tool_call(&tool_name, &tool_call_id);
            // A native Gortex tool whose name can never edit (DIFF-2:
            // `search`, `read`, ...) claims nothing, so its arguments need
            // not cross napi; most calls are not edits.
            native
                && parent_tool_call_id.is_none()
                && (matches!(tool_name.as_str(), "edit" | "write")
                    || native::bare_tool_name(&tool_name).is_some_and(diff::classify::may_edit))
        },
    )
}

/// DIFF-17 claim of a call `watchToolCall` flagged: Pi's own edit/write, or
/// a native Gortex edit (its candidates computed once, here). Returns true
/// when that claim still needs its before snapshot (`watchSnapshot`).
#[napi(ts_args_type = "generation: number, instance: number, event: host.ToolCallEvent")]
pub fn watch_edit(generation: u32, instance: u32, event: Value) -> bool {
    guard::guard_sync(
        || false,
        || {
            let Some(event) = from_js::<ToolCallEvent>(event) else {
                return false;
            };
            let state = generation::get(generation);
            let call = ToolCall {
                tool_call_id: &event.tool_call_id,
                tool_name: &event.tool_name,
                input: &event.input,
                parent_tool_call_id: event.parent_tool_call_id.as_deref(),
            };
            let native = state.is_native(instance);
            let ticket = lock(&state.watcher().native).begin_tool_call(
                call,
                native,
                Path::new(&event.cwd),
                diff::edit_candidates,
            );
            let Some(ticket) = ticket else {
                return false;
            };
            lock(&state.watcher().tickets).insert(event.tool_call_id, ticket);
            true
        },
    )
}

/// DIFF-17 for a native Gortex edit: the before snapshot of the claim made
/// by `watchEdit`, read on the blocking pool with no lock held.
///
/// Settled through `settle`, which is cheaper per call than a napi-rs promise.
///
/// The read is a blocking-pool job that settles the promise itself, with the
/// DIFF-23 limit kept by a timer beside it: one thread hop each way instead
/// of two, on the path of every native edit; a read that runs
/// out of time leaves the claim with time-limit skips, as before.
///
/// A before side read ahead at the assistant message (`prefetchEdit`) is
/// used when it names the same files: already read, the promise is resolved
/// at once; still reading, it settles when that read completes the claim.
#[napi(ts_return_type = "Promise<void>")]
pub fn watch_snapshot(env: &Env, generation: u32, tool_call_id: String) -> Promised<'_> {
    let (settler, promise) = crate::settle::promise(env)?;
    let mut settler = Some(settler);
    let ticket = guard::guard_sync(
        || None,
        || {
            let state = generation::get(generation);
            let ticket = lock(&state.watcher().tickets).remove(&tool_call_id)?;
            let waiter = || -> PrefetchWaiter {
                let settler = settler.take();
                Box::new(move || {
                    if let Some(settler) = settler {
                        settler.settle(Value::Null);
                    }
                })
            };
            let used = lock(&state.watcher().native).use_prefetch(ticket, waiter);
            match used {
                PrefetchUse::Missing(ticket) => Some(ticket),
                PrefetchUse::Completed | PrefetchUse::Waiting => None,
            }
        },
    );
    // Taken by a waiter, the settler is settled when the read-ahead is done.
    let Some(settler) = settler else {
        return Ok(promise);
    };
    let Some(ticket) = ticket else {
        settler.resolve_now(env, Value::Null);
        return Ok(promise);
    };
    read_before(settler, generation, ticket);
    Ok(promise)
}

/// The before side of a claim read now, on a blocking thread under the
/// DIFF-23 limit, completing the claim and then settling its promise.
fn read_before(settler: PromiseSettler, generation: u32, ticket: diff::ClaimTicket) {
    let read = ticket.before_reader();
    read_then(settler, read, Value::Null, move |read| {
        let before = read_or_skipped(read, |reason| ticket.before_skipped(reason));
        let state = generation::get(generation);
        lock(&state.watcher().native).complete_claim(ticket, before);
        Value::Null
    });
}

/// `read` on a blocking thread under the DIFF-23 limit, then `finish` with
/// its answer (`None`: out of time; `Some(None)`: it panicked), settling
/// `settler` with `finish`'s value, or `fallback` if `finish` panics.
fn read_then(
    settler: PromiseSettler,
    read: impl FnOnce() -> diff::Snapshots + Send + 'static,
    fallback: Value,
    finish: impl FnOnce(Option<Option<diff::Snapshots>>) -> Value + Send + 'static,
) {
    crate::settle::settle_blocking_within(
        settler,
        diff::SNAPSHOT_TIME_LIMIT,
        move || guard::guard_sync(|| None, || Some(read())),
        move |read| guard::guard_sync(|| fallback, || finish(read)),
    );
}

/// A read's snapshots, or every file skipped: `Silent` when the read
/// panicked, `TimedOut` when it ran past the DIFF-23 limit.
fn read_or_skipped(
    read: Option<Option<diff::Snapshots>>,
    skipped: impl FnOnce(SkipReason) -> diff::Snapshots,
) -> diff::Snapshots {
    match read {
        Some(Some(snapshots)) => snapshots,
        Some(None) => skipped(SkipReason::Silent),
        None => skipped(SkipReason::TimedOut),
    }
}

/// Read-ahead: at an assistant message's `message_end` (native
/// path only), a Gortex edit the message asks for gets its before side read
/// now, before any call of the batch runs, so that its `tool_call` finds it
/// ready (`watchSnapshot`). Decided from the name first: `args` crosses
/// napi only for a tool whose name can edit.
#[napi(
    ts_args_type = "generation: number, instance: number, toolCallId: string, toolName: string, args: unknown, cwd: string"
)]
pub fn prefetch_edit(
    env: &Env,
    generation: u32,
    instance: u32,
    tool_call_id: String,
    tool_name: String,
    args: Unknown<'_>,
    cwd: String,
) {
    guard::guard_sync(
        || (),
        || {
            let state = generation::get(generation);
            let may_edit = native::bare_tool_name(&tool_name).is_some_and(diff::classify::may_edit);
            if !may_edit || !state.is_native(instance) {
                return;
            }
            // SAFETY: `args` is a live value of this call's `env`.
            let Ok(args) = (unsafe { Value::from_napi_value(env.raw(), args.raw()) }) else {
                return;
            };
            let begun = lock(&state.watcher().native).begin_prefetch(
                &tool_call_id,
                &tool_name,
                &args,
                Path::new(&cwd),
                diff::edit_candidates,
            );
            let Some((paths, cwd)) = begun else {
                return;
            };
            // The boundary's canonicalizing and repo-root walk run with the read, off Pi's thread.
            let read = {
                let paths = paths.clone();
                move || {
                    let read = || diff::snapshot_all_in(&paths, &diff::Boundary::for_cwd(&cwd));
                    guard::guard_sync(|| None, || Some(read()))
                }
            };
            let id = tool_call_id.clone();
            let finish = move |read: Option<Option<diff::Snapshots>>| {
                let before = read_or_skipped(read, |reason| {
                    diff::snapshot::skipped_all(paths.clone(), reason)
                });
                let state = generation::get(generation);
                let waiter = lock(&state.watcher().native).finish_prefetch(&tool_call_id, before);
                if let Some(waiter) = waiter {
                    waiter();
                }
            };
            let started = crate::settle::within_runtime(|| {
                diff::snapshot::race_time_limit(diff::SNAPSHOT_TIME_LIMIT, read, move |r| {
                    guard::guard_sync(|| (), || finish(r))
                })
            });
            // A read that may never come must not be waited for: the claim reads itself.
            if !started {
                lock(&state.watcher().native).drop_prefetch(&id);
            }
        },
    )
}

/// DIFF-19/NAT-15 `tool_result`, the per-call fast path: decided from the
/// name and ids alone (no result text crosses napi). True only for a native
/// `tools_search` success and a claimed edit that succeeded; the glue then
/// awaits `watchToolResult`. A failed claimed edit is settled here.
#[napi]
pub fn result_needs_work(
    generation: u32,
    instance: u32,
    tool_call_id: String,
    tool_name: String,
    is_error: bool,
) -> bool {
    guard::guard_sync(
        || false,
        || {
            let state = generation::get(generation);
            let mut watcher = lock(&state.watcher().native);
            // A call of the batch has run: a file read ahead may have changed.
            watcher.drop_unclaimed_prefetches();
            if is_tools_search(&tool_name) && !is_error && state.is_native(instance) {
                return true;
            }
            if !watcher.has_claim(&tool_call_id) {
                return false;
            }
            if is_error {
                watcher.take_result(&tool_call_id, true);
                return false;
            }
            true
        },
    )
}

/// NAT-15: the `promoted` names of a `tools_search` result text, read as the
/// schema's `ToolsSearchResult`. A payload that does not match gives no names,
/// so the result is simply not held (fail open).
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

/// DIFF-19 `tool_result` (and NAT-15): `WatchResultAction`.
#[napi(
    ts_args_type = "generation: number, event: host.WatchToolResult",
    ts_return_type = "Promise<host.WatchResultAction>"
)]
///
/// Decided on Pi's thread up to the after side's read: a `tools_search` (or
/// an edit whose claim has nothing to compare) resolves at once, with no
/// thread hop; an edit's read and comparison run as one blocking-pool job
/// that settles the promise itself, under the DIFF-23 limit.
pub fn watch_tool_result(env: &Env, generation: u32, event: Value) -> Promised<'_> {
    let started = guard::guard_sync(|| None, || begin_tool_result(generation, event));
    let Some((action, compare)) = started else {
        return crate::settle::resolved(env, to_js(&WatchResultAction::default()));
    };
    let Some(compare) = compare else {
        return crate::settle::resolved(env, to_js(&action));
    };
    let (settler, promise) = crate::settle::promise(env)?;
    let read = compare.pending.after_reader();
    let fallback = to_js(&WatchResultAction::default());
    read_then(settler, read, fallback, move |read| {
        let after = read_or_skipped(read, |reason| compare.pending.after_skipped(reason));
        to_js(&finish_tool_result(generation, action, compare, &after))
    });
    Ok(promise)
}

/// What a claimed edit's `tool_result` still has to compare once its after
/// side is read.
struct Compare {
    pending: diff::PendingCompare,
    cwd: String,
    details: Option<Value>,
}

/// DIFF-19 steps 1-2 and NAT-15, on Pi's thread: the `tools_search` hold and
/// the claim taken. `None` for an event that does not match the schema.
fn begin_tool_result(
    generation: u32,
    event: Value,
) -> Option<(WatchResultAction, Option<Compare>)> {
    let event = from_js::<WatchToolResult>(event)?;
    let state = generation::get(generation);
    let mut action = WatchResultAction::default();
    if is_tools_search(&event.tool_name) && !event.is_error {
        let promoted = promoted_tools(event.text.as_deref().unwrap_or(""));
        action.await_tools = (!promoted.is_empty()).then(|| instance::promotion_wait(promoted));
    }
    let pending = lock(&state.watcher().native).take_result(&event.tool_call_id, event.is_error);
    let compare = pending.map(|pending| Compare {
        pending,
        cwd: event.cwd,
        details: event.details,
    });
    Some((action, compare))
}

/// DIFF-19 step 3: compare with the after side, apply DIFF-15, merge the
/// `EditDetails` into Pi's own `details`.
fn finish_tool_result(
    generation: u32,
    mut action: WatchResultAction,
    compare: Compare,
    after: &diff::Snapshots,
) -> WatchResultAction {
    let state = generation::get(generation);
    // The shell set is copied out so the comparison runs unlocked.
    let shell = lock(&state.watcher().native).shell.clone();
    let details = compare
        .pending
        .finish(after, &shell, Path::new(&compare.cwd));
    if details.diffs.is_some() {
        let existing = compare.details.unwrap_or(Value::Null);
        action.details = Some(object(diff::merge_details(&existing, &details)));
    }
    action
}

/// DIFF-20 `tool_execution_end`.
#[napi]
pub fn watch_tool_end(generation: u32, tool_call_id: String) {
    guard::guard_sync(
        || (),
        || {
            let state = generation::get(generation);
            lock(&state.watcher().native).on_tool_execution_end(&tool_call_id);
        },
    )
}

/// DIFF-20 clearing: `turn_start`, `agent_end` and `session_shutdown`
/// (no `turn_end` handler: decision 006).
#[napi]
pub fn watch_reset(generation: u32) {
    guard::guard_sync(
        || (),
        || {
            let state = generation::get(generation);
            lock(&state.watcher().native).on_turn_end();
            lock(&state.watcher().tickets).clear();
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nat_15_reads_promoted_names() {
        let text = r#"{"query":"select:find_usages","promoted":["find_usages",""],"tools":[]}"#;
        assert_eq!(
            promoted_tools(text),
            vec!["mcp__gortex__find_usages".to_string()]
        );
        assert!(promoted_tools("not json").is_empty());
    }
}
