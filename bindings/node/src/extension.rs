//! The `Extension` class: one per factory call, one method per Pi event,
//! each a single crossing into `pi_gortex_runtime::extension`. A method
//! reads from Pi's event object only the fields its decision needs (most
//! calls need their ids alone) and answers `null` when there is nothing to
//! apply, so a call that needs nothing makes no promise.

use std::ffi::CStr;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::{Array, Function, JsObjectValue, Object, PromiseRaw};
use napi::Env;
use napi_derive::napi;
use pi_gortex_runtime::extension::{
    self as core, lock, Answer, PlannedCall, Reply, ResultIds, ToolCallIds,
};
use serde::Serialize;
use serde_json::Value;

use crate::boundary::{to_js, ToolCallAction, ToolCallEvent, WatchResultAction, WatchToolResult};
use crate::{generation, guard, settle, status};

/// A method's answer: `null`, or a promise of the action to apply.
type Maybe<'env> = napi::Result<Option<PromiseRaw<'env, Value>>>;

#[napi]
pub struct Extension {
    core: core::Extension,
}

#[napi]
impl Extension {
    /// The instance `instance` of the module import `generation`.
    #[napi(constructor)]
    pub fn new(generation: u32, instance: u32) -> Self {
        Extension {
            core: core::Extension::new(generation::get(generation), instance),
        }
    }

    /// `tool_call`: the hook's verdict and a native edit's before side.
    /// `place` answers the call's cwd and session id; it is called only
    /// when the decision needs them, so a call decided from its ids alone
    /// costs Pi no lookup.
    #[napi(
        ts_args_type = "event: object, place: () => [cwd: string, sessionId: string]",
        ts_return_type = "Promise<host.ToolCallAction> | null"
    )]
    pub fn tool_call<'env>(
        &self,
        env: &'env Env,
        event: Object<'env>,
        place: Function<'env, (), Vec<String>>,
    ) -> Maybe<'env> {
        let answer = guard::guard_sync(
            || Answer::Now(ToolCallAction::None),
            || {
                let (id, name) = (text(&event, c"toolCallId"), text(&event, c"toolName"));
                // Only a string is a parent id; anything else reads as none.
                let parent = event
                    .get_c_named_property_unchecked::<Option<String>>(c"parentToolCallId")
                    .unwrap_or_default();
                let ids = ToolCallIds {
                    tool_call_id: &id,
                    tool_name: &name,
                    parent_tool_call_id: parent.as_deref(),
                };
                self.core.tool_call(ids, || {
                    let mut place = place.call(()).ok()?.into_iter();
                    let (cwd, session_id) = (place.next()?, place.next().unwrap_or_default());
                    Some(ToolCallEvent {
                        input: field(&event, c"input")
                            .unwrap_or_else(|| Value::Object(Default::default())),
                        tool_call_id: id.clone(),
                        tool_name: name.clone(),
                        parent_tool_call_id: parent.clone(),
                        cwd,
                        session_id,
                    })
                })
            },
        );
        promised(env, answer, |action| matches!(action, ToolCallAction::None))
    }

    /// `tool_result`: a claimed edit's diff in `details`, or the wait for
    /// the tools a `tools_search` promoted. `cwd` is called only when the
    /// result is one the core acts on.
    #[napi(
        ts_args_type = "event: object, cwd: () => string",
        ts_return_type = "Promise<host.WatchResultAction> | null"
    )]
    pub fn tool_result<'env>(
        &self,
        env: &'env Env,
        event: Object<'env>,
        cwd: Function<'env, (), String>,
    ) -> Maybe<'env> {
        let answer = guard::guard_sync(
            || Answer::Now(WatchResultAction::default()),
            || {
                let (id, name) = (text(&event, c"toolCallId"), text(&event, c"toolName"));
                let is_error = truthy(field(&event, c"isError"));
                let ids = ResultIds {
                    tool_call_id: &id,
                    tool_name: &name,
                    is_error,
                };
                self.core.tool_result(ids, || {
                    let cwd = cwd.call(()).ok()?;
                    Some(WatchToolResult {
                        details: field(&event, c"details"),
                        text: Some(result_text(field(&event, c"content"))),
                        tool_call_id: id.clone(),
                        tool_name: name.clone(),
                        is_error,
                        cwd,
                    })
                })
            },
        );
        promised(env, answer, |action| {
            *action == WatchResultAction::default()
        })
    }

    /// `message_end`: an assistant message's planned native edits are read
    /// ahead; only an edit's arguments are read from the message.
    #[napi(ts_args_type = "event: object, cwd: string")]
    pub fn message_end(&self, event: Object<'_>, cwd: String) {
        guard::guard_sync(
            || (),
            || {
                let calls = planned_calls(&self.core, &event).unwrap_or_default();
                if let Answer::Later(start) = self.core.message_end(calls, cwd) {
                    settle::within_runtime(|| start(Box::new(|()| ())));
                }
            },
        )
    }

    /// `tool_execution_end`.
    #[napi(ts_args_type = "event: object")]
    pub fn tool_execution_end(&self, event: Object<'_>) {
        guard::guard_sync(
            || (),
            || self.core.tool_execution_end(&text(&event, c"toolCallId")),
        )
    }

    /// `turn_start`.
    #[napi]
    pub fn turn_start(&self) {
        guard::guard_sync(|| (), || self.core.clear_calls())
    }

    /// `agent_end`.
    #[napi]
    pub fn agent_end(&self) {
        guard::guard_sync(|| (), || self.core.clear_calls())
    }

    /// `session_compact`: the next turn briefs again.
    #[napi]
    pub fn session_compact(&self) {
        guard::guard_sync(
            || (),
            || {
                if let Some(me) = self.core.instance() {
                    core::lock(&me.latches).on_compact();
                }
            },
        )
    }

    /// Readiness at a turn's start: while the daemon reports indexing, the
    /// session hook is asked again off the turn; resolves true when the
    /// readiness changed.
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn refresh_readiness<'env>(&self, env: &'env Env, cwd: String) -> settle::Promised<'env> {
        status::refresh_readiness(env, self.core.module().clone(), self.core.id(), cwd)
    }

    /// `/gortex` and `/gortex doctor`: the core picks the command and words the reply.
    #[napi(
        ts_args_type = "command: host.GortexCommand",
        ts_return_type = "Promise<host.CommandReply>"
    )]
    pub fn gortex_command<'env>(&self, env: &'env Env, command: Value) -> settle::Promised<'env> {
        let (module, instance) = (self.core.module().clone(), self.core.id());
        settle::spawn_promise(env, status::gortex_command(module, instance, command))
    }

    /// `session_shutdown`: the calls are cleared and this instance's own
    /// client, if it holds the slot, is stopped (another's is left alone).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn session_shutdown<'env>(&self, env: &'env Env) -> settle::Promised<'env> {
        guard::guard_sync(|| (), || self.core.clear_calls());
        let core = self.core.clone();
        settle::spawn_promise(env, async move {
            guard::guard_async(|| (), core.stop_own_client()).await;
            Value::Null
        })
    }
}

/// `null` for an answer that says to do nothing; else a promise of it,
/// resolved at once when it is known before the method returns.
fn promised<'env, T: Serialize + Send + 'static>(
    env: &'env Env,
    answer: Answer<T>,
    nothing: impl Fn(&T) -> bool,
) -> Maybe<'env> {
    let start = match answer {
        Answer::Now(value) if nothing(&value) => return Ok(None),
        Answer::Now(value) => return settle::resolved(env, to_js(&value)).map(Some),
        Answer::Later(start) => start,
    };
    let (settler, promise) = settle::promise(env)?;
    let slot = Arc::new(Mutex::new(Slot {
        starting: true,
        early: None,
        settler: Some(settler),
    }));
    let replying = slot.clone();
    let reply: Reply<T> = Box::new(move |value| {
        let value = to_js(&value);
        let mut slot = lock(&replying);
        if slot.starting {
            slot.early = Some(value);
        } else if let Some(settler) = slot.settler.take() {
            drop(slot);
            settler.settle(value);
        }
    });
    settle::within_runtime(|| guard::guard_sync(|| (), || start(reply)));
    let mut slot = lock(&slot);
    slot.starting = false;
    let early = slot
        .early
        .take()
        .and_then(|value| Some((value, slot.settler.take()?)));
    drop(slot);
    if let Some((value, settler)) = early {
        settler.resolve_now(env, value);
    }
    Ok(Some(promise))
}

/// A promise's end while its work starts: an answer given before the
/// method returns is resolved on Pi's thread, with no hop through the
/// channel. Dropped unanswered, the settler answers `null`.
struct Slot {
    starting: bool,
    early: Option<Value>,
    settler: Option<settle::PromiseSettler>,
}

/// A field of a Pi object as JSON; `None` when absent or unreadable.
fn field(object: &Object<'_>, name: &CStr) -> Option<Value> {
    match object.get_c_named_property_unchecked::<Value>(name) {
        Ok(Value::Null) | Err(_) => None,
        Ok(value) => Some(value),
    }
}

/// A field as JavaScript's `String(value ?? "")` reads an id.
fn text(object: &Object<'_>, name: &CStr) -> String {
    // The common case, a string, without building a JSON value first.
    if let Ok(Some(text)) = object.get_c_named_property_unchecked::<Option<String>>(name) {
        return text;
    }
    match field(object, name) {
        Some(Value::String(text)) => text,
        Some(Value::Number(number)) => number.to_string(),
        Some(Value::Bool(flag)) => flag.to_string(),
        _ => String::new(),
    }
}

/// JavaScript's truthiness, for the flags Pi sets.
fn truthy(value: Option<Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => flag,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Some(Value::String(text)) => !text.is_empty(),
        Some(_) => true,
    }
}

/// The text parts of a result's content, joined by newlines.
fn result_text(content: Option<Value>) -> String {
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

/// The tool calls of an assistant message the read-ahead wants, with their arguments.
fn planned_calls(core: &core::Extension, event: &Object<'_>) -> Option<Vec<PlannedCall>> {
    let message = event
        .get_c_named_property::<Option<Object>>(c"message")
        .ok()??;
    if text(&message, c"role") != "assistant" {
        return None;
    }
    let content = message.get_c_named_property::<Array>(c"content").ok()?;
    let mut calls = Vec::new();
    for index in 0..content.len() {
        let Ok(Some(block)) = content.get::<Object>(index) else {
            continue;
        };
        if text(&block, c"type") != "toolCall" {
            continue;
        }
        let tool_name = text(&block, c"name");
        if !core.reads_ahead(&tool_name) {
            continue;
        }
        calls.push(PlannedCall {
            tool_call_id: text(&block, c"id"),
            tool_name,
            arguments: field(&block, c"arguments").unwrap_or(Value::Null),
        });
    }
    Some(calls)
}
