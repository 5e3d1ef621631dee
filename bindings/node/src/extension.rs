//! The classes the glue holds: `Module`, one per import of the entry module,
//! and `Extension`, one per factory call, with one method per Pi event, each
//! a single crossing into `pi_gortex_runtime::extension`. A method reads only
//! the event fields its decision needs and answers `null` when there is
//! nothing to apply, so a call that needs nothing makes no promise.

use std::ffi::CStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use napi::bindgen_prelude::{
    Array, FromNapiValue, Function, JsObjectValue, JsValue, Object, Unknown,
};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status, ValueType, JSON};
use napi_derive::napi;
use pi_gortex_runtime::extension::{
    self as core, Answer, ModuleState, PlannedCall, ResultIds, ToolCallIds,
};
use pi_gortex_runtime::sync::lock;
use serde::Serialize;
use serde_json::{json, Value};

use crate::boundary::{
    from_js, guarded_answer, to_js, SessionAction, ToolCallAction, ToolCallEvent, ToolResultAction,
    ToolResultEvent, TurnPlanTurn,
};
use crate::settle::{self, Promised};
use pi_gortex_runtime::extension::guard;

/// A weak thread-safe callback into JS (`T` in, `R` back): it never keeps Node alive.
type Callback<T, R> = ThreadsafeFunction<T, R, T, Status, false, true>;
type WeakCallback = Callback<Value, ()>;

/// Pi's tool names, and the way to show a footer worded with them.
type FooterCallbacks = (core::ToolNames, Callback<String, ()>);

/// One import of the entry module: the state its instances share (the own
/// client's slot, the tool registry, the edit tracking, the status record).
/// index.ts makes one per import, so `/reload` starts fresh while `/new`
/// and resume share it.
#[napi]
pub struct Module {
    state: Arc<ModuleState>,
}

#[napi]
#[allow(clippy::new_without_default)] // JavaScript constructs it; Rust never does.
impl Module {
    #[napi(constructor)]
    pub fn new() -> Self {
        let state = guard::guard_sync(Arc::default, ModuleState::new_import);
        Module { state }
    }
}

/// A method's answer: `null`, or a promise of the action to apply; a tool
/// event's may also be the action itself, known before the method returned.
type Maybe<'env> = napi::Result<Option<Object<'env>>>;
type Answered<'env> = napi::Result<Option<Unknown<'env>>>;

#[napi]
pub struct Extension {
    core: core::Extension,
}

#[napi]
impl Extension {
    /// A new instance of the import `module`.
    #[napi(constructor)]
    pub fn new(module: &Module) -> Self {
        Extension {
            core: core::Extension::new(module.state.clone()),
        }
    }

    /// Resolves the configuration the factory sees from `cwd` and keeps it
    /// with the instance; arms its readiness barrier.
    #[napi(ts_return_type = "Promise<host.HostConfig>")]
    pub fn resolve_config<'env>(&self, env: &'env Env, cwd: String) -> Promised<'env> {
        let core = self.core.clone();
        settle::spawn_promise(env, async move {
            let failed = || to_js(&core::fallback_config());
            guard::guard_async(failed, async { to_js(&core.resolve_config(cwd).await) }).await
        })
    }

    /// The path at factory time: native or the own client.
    #[napi(
        ts_args_type = "request: host.PathRequest",
        ts_return_type = "host.PathChoice"
    )]
    pub fn choose_path(&self, request: Value) -> Value {
        let failed = || core::own_path("internal_error");
        guarded_answer(failed, || self.core.choose_path(from_js(request)))
    }

    /// `registerMcpServer` threw `reason`.
    #[napi]
    pub fn refuse_native(&self, reason: String) {
        guard::guard_sync(|| (), || self.core.refuse_native(reason))
    }

    /// `session_start`, in one call: `apply` receives each step the glue
    /// applies in Pi (at once; for the own client also when it started, and
    /// at each later listing that changes the tools). The session's ticket
    /// on the readiness barrier goes back after the last step was applied,
    /// so a first turn parked on it sees the tools registered. `null` when
    /// no own client starts; else a promise of its start.
    #[napi(
        ts_args_type = "begin: host.SessionBegin, piTools: Array<string> | null, apply: (action: host.SessionAction) => void",
        ts_return_type = "Promise<void> | null"
    )]
    pub fn session_start<'env>(
        &self,
        env: &'env Env,
        begin: Value,
        pi_tools: Option<Vec<String>>,
        apply: Function<'env, Value, ()>,
    ) -> Maybe<'env> {
        let core = self.core.clone();
        let opening = core.session_opening(from_js(begin), pi_tools.as_deref());
        let _ = apply.call(to_js(&opening.action));
        let ticket = opening.ticket;
        if !opening.start {
            release(core.end_session(ticket));
            return Ok(None);
        }
        let apply: Arc<WeakCallback> =
            Arc::new(apply.build_threadsafe_function().weak::<true>().build()?);
        let (settler, promise) = settle::promise_of(env, false)?;
        settle::spawn(async move {
            let listing = apply.clone();
            let on_listing = move |action: SessionAction| {
                listing.call(to_js(&action), ThreadsafeFunctionCallMode::NonBlocking);
            };
            let action = core.start_session(pi_tools.as_deref(), on_listing).await;
            let ending = core.clone();
            let applied = move |_: napi::Result<()>, env: Env| {
                release(ending.end_session(ticket));
                settler.resolve_now(&env, Value::Null);
                Ok(())
            };
            let mode = ThreadsafeFunctionCallMode::NonBlocking;
            if apply.call_with_return_value(to_js(&action), mode, applied) != Status::Ok {
                // Pi is going away: the parked turns are answered off its thread.
                release(core.end_session(ticket));
            }
        });
        Ok(Some(promise))
    }

    /// `before_agent_start`, planned here before any await; `null` when the
    /// turn has nothing to do. Else a promise of its action: a first turn
    /// waits (capped, holding the loop only once that wait ended) for the
    /// `session_start` that registers the tools, on the native path for Pi's
    /// tools (`toolNames`), then runs the hook; `entries` is read only when
    /// the plan needs the context. While the daemon reports indexing, the
    /// session hook is asked again off the turn and `showFooter` (null
    /// without a UI) gets the new footer.
    #[napi(
        ts_args_type = "event: host.TurnEvent, place: [cwd: string, sessionId: string], entries: () => host.ContextEntry[] | undefined, toolNames: () => string[] | undefined, showFooter: ((footer: string) => void) | null",
        ts_return_type = "Promise<host.TurnAction> | null"
    )]
    pub fn before_agent_start<'env>(
        &self,
        env: &'env Env,
        event: Value,
        place: Vec<String>,
        entries: Function<'env, (), Option<Value>>,
        tool_names: Function<'env, (), Option<Vec<String>>>,
        show_footer: Option<Function<'env, String, ()>>,
    ) -> Maybe<'env> {
        let core = self.core.clone();
        let mut place = place.into_iter();
        let cwd = place.next().unwrap_or_default();
        let session_id = place.next().unwrap_or_default();
        if guard::guard_sync(|| false, || core.refresh_due()) {
            let show = match &show_footer {
                Some(show) => Some((
                    names_reader(&tool_names)?,
                    show.build_threadsafe_function().weak::<true>().build()?,
                )),
                None => None,
            };
            refresh_footer(core.clone(), cwd.clone(), show);
        }
        let plan = guard::guard_sync(core::no_turn, || core.plan_turn(from_js(event)));
        if plan.turn == TurnPlanTurn::None {
            return Ok(None);
        }
        let context_entries = match plan.read_context {
            true => entries.call(()).ok().flatten().and_then(from_js),
            false => None,
        };
        let wait = plan.ready_wait_ms;
        let turn = core::PlannedTurn {
            plan,
            cwd,
            session_id,
            context_entries,
            has_ui: show_footer.is_some(),
        };
        // Weak while the turn waits for readiness, like the capped timer it replaces.
        let (answer, promise) = settle::promise_of(env, wait.is_some())?;
        let names = names_reader(&tool_names)?;
        let (open, opened) = tokio::sync::oneshot::channel();
        // Opened on Pi's thread (a release), the turn holds the loop at once.
        let holder = answer.holder();
        let gate = core::Parked::new(move |ready| {
            holder.hold();
            let _ = open.send(ready);
        });
        let parked = match wait {
            Some(cap) => core
                .park_turn(gate)
                .map(|(me, id)| (me, id, Duration::from_millis(cap.into()))),
            None => Err(gate),
        };
        let parked = match parked {
            Ok(parked) => Some(parked),
            // Not waiting: ready at once, on Pi's thread.
            Err(gate) => {
                gate.open(true);
                None
            }
        };
        settle::spawn(async move {
            if let Some((me, id, cap)) = parked {
                settle::spawn(async move {
                    if let Some(gate) = core::Extension::expire_turn(me, id, cap).await {
                        gate.open(false);
                    }
                });
            }
            let ready = opened.await.unwrap_or(false);
            let failed = || to_js(&core::no_turn_action());
            let finished = core.finish_turn(turn, ready, || names(), guard::take_recorded);
            let action = guard::guard_async(failed, async { to_js(&finished.await) }).await;
            answer.settle(action);
        });
        Ok(Some(promise))
    }

    /// Executes one own-client tool call. Never rejects: a failure is
    /// `{ok:false, text}` for the glue to throw. `onProgress` receives the
    /// text of each (throttled) progress notification of the call.
    #[napi(
        ts_args_type = "request: host.ToolExecuteRequest, onProgress?: (text: string) => void",
        ts_return_type = "Promise<host.ToolExecuteResult>"
    )]
    pub fn execute_tool<'env>(
        &self,
        env: &'env Env,
        request: Value,
        on_progress: Option<WeakCallback>,
    ) -> Promised<'env> {
        let failed = || core::failed_execution("gortex: internal error".into());
        let execution = guard::guard_sync(
            || core::Execution::Done(failed()),
            || {
                let progress = on_progress.map(|on_progress| {
                    core::progress_handler(move |text| {
                        on_progress
                            .call(Value::String(text), ThreadsafeFunctionCallMode::NonBlocking);
                    })
                });
                self.core.begin_execution(from_js(request), progress)
            },
        );
        settle::spawn_promise(env, async move {
            let internal_error = || to_js(&failed());
            guard::guard_async(internal_error, async { to_js(&execution.finish().await) }).await
        })
    }

    /// The glue's locks: the candidate files of an own-client call, `[]`
    /// when it is not an edit. `args` stays a JavaScript value until the
    /// name says the tool can edit.
    #[napi(ts_args_type = "name: string, args: unknown, cwd: string")]
    pub fn edit_candidates(
        &self,
        env: &Env,
        name: String,
        args: Unknown<'_>,
        cwd: String,
    ) -> Vec<String> {
        guard::guard_sync(Vec::new, || {
            let args = || env.from_js_value::<Value, _>(args).ok();
            self.core.edit_candidates(&name, args, &cwd)
        })
    }

    /// Pi aborted the call with this id.
    #[napi]
    pub fn abort_call(&self, call_id: String) {
        guard::guard_sync(|| (), || self.core.abort_call(call_id))
    }

    /// `tool_call`: the hook's verdict and a native edit's before side.
    /// `place` answers the call's cwd and session id; it is called only
    /// when the decision needs them, so a call decided from its ids alone
    /// costs Pi no lookup.
    #[napi(
        ts_args_type = "event: object, place: () => [cwd: string, sessionId: string]",
        ts_return_type = "host.ToolCallAction | Promise<host.ToolCallAction> | null"
    )]
    pub fn tool_call<'env>(
        &self,
        env: &'env Env,
        event: Object<'env>,
        place: Function<'env, (), Vec<String>>,
    ) -> Answered<'env> {
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
                        input: field(&event, c"input").ok()?.unwrap_or(json!({})),
                        tool_call_id: id.clone(),
                        tool_name: name.clone(),
                        parent_tool_call_id: parent.clone(),
                        cwd,
                        session_id,
                    })
                })
            },
        );
        answered(env, answer, |action| matches!(action, ToolCallAction::None))
    }

    /// `tool_result`: a claimed edit's diff in `details`, or a
    /// `tools_search` held until Pi lists the tools it promoted. `cwd` is
    /// called only when the result is one the core acts on, `toolNames`
    /// only while a search is held.
    #[napi(
        ts_args_type = "event: object, cwd: () => string, toolNames: () => string[] | undefined",
        ts_return_type = "host.ToolResultAction | Promise<host.ToolResultAction> | null"
    )]
    pub fn tool_result<'env>(
        &self,
        env: &'env Env,
        event: Object<'env>,
        cwd: Function<'env, (), String>,
        tool_names: Function<'env, (), Option<Vec<String>>>,
    ) -> Answered<'env> {
        let answer = guard::guard_sync(
            || Answer::Now(ToolResultAction::default()),
            || {
                let (id, name) = (text(&event, c"toolCallId"), text(&event, c"toolName"));
                let is_error = core::truthy(field(&event, c"isError").ok().flatten());
                let ids = ResultIds {
                    tool_call_id: &id,
                    tool_name: &name,
                    is_error,
                };
                let reads_text = self.core.reads_result_text(&name);
                let event = || {
                    Some(ToolResultEvent {
                        details: field(&event, c"details").ok().flatten(),
                        text: reads_text
                            .then(|| core::result_text(field(&event, c"content").ok().flatten())),
                        tool_call_id: id.clone(),
                        tool_name: name.clone(),
                        is_error,
                        cwd: cwd.call(()).ok()?,
                    })
                };
                self.core
                    .tool_result(ids, event, || names_reader(&tool_names).ok())
            },
        );
        let nothing = ToolResultAction::default();
        answered(env, answer, |action| *action == nothing)
    }

    /// `message_end`: an assistant message's planned native edits are read
    /// ahead; only an edit's arguments are read from the message.
    #[napi(ts_args_type = "event: object, cwd: string")]
    pub fn message_end(&self, event: Object<'_>, cwd: String) {
        let read_ahead = || {
            let calls = planned_calls(&self.core, &event).unwrap_or_default();
            let within = |start: Box<dyn FnOnce() + '_>| settle::within_runtime(start);
            self.core.message_end(calls, cwd).start(within, |()| ());
        };
        guard::guard_sync(|| (), read_ahead)
    }

    /// `tool_execution_end`.
    #[napi(ts_args_type = "event: object")]
    pub fn tool_execution_end(&self, event: Object<'_>) {
        let ended = || self.core.tool_execution_end(&text(&event, c"toolCallId"));
        guard::guard_sync(|| (), ended)
    }

    /// `turn_start` and `agent_end`: the calls' claims are cleared.
    #[napi]
    pub fn clear_calls(&self) {
        guard::guard_sync(|| (), || self.core.clear_calls())
    }

    /// `session_compact`: the next turn briefs again.
    #[napi]
    pub fn session_compact(&self) {
        guard::guard_sync(|| (), || self.core.session_compact())
    }

    /// `/gortex` and `/gortex doctor`: the core picks the command and words the reply.
    #[napi(
        ts_args_type = "command: host.GortexCommand",
        ts_return_type = "Promise<host.CommandReply>"
    )]
    pub fn gortex_command<'env>(&self, env: &'env Env, command: Value) -> Promised<'env> {
        let core = self.core.clone();
        let command = from_js(command);
        settle::spawn_promise(env, async move {
            let failed = || {
                to_js(&pi_gortex_runtime::extension::status::status_reply(
                    core::unavailable(),
                ))
            };
            let Some(command) = command else {
                return failed();
            };
            guard::guard_async(failed, async { to_js(&core.gortex_command(command).await) }).await
        })
    }

    /// `session_shutdown`: the calls cleared, the hook's spare ended, and this
    /// instance's own client stopped if it holds the slot (another's is not).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn session_shutdown<'env>(&self, env: &'env Env) -> Promised<'env> {
        guard::guard_sync(|| (), || self.core.clear_calls());
        let core = self.core.clone();
        settle::spawn_promise(env, async move {
            guard::guard_async(|| (), core.session_shutdown()).await;
            Value::Null
        })
    }
}

/// The readiness refresh of a turn: when the readiness changed, the new
/// footer, worded with Pi's tool names, goes to `show`.
fn refresh_footer(core: core::Extension, cwd: String, show: Option<FooterCallbacks>) {
    settle::spawn(async move {
        let (names, show) = show.unzip();
        let names = names.map(|names| names());
        if let (Some(footer), Some(show)) = (core.refresh_footer(&cwd, names).await, show) {
            show.call(footer, ThreadsafeFunctionCallMode::NonBlocking);
        }
    });
}

/// Pi's tool names, read on Pi's thread from any thread; the callback never
/// keeps Node alive.
fn names_reader(
    tool_names: &Function<'_, (), Option<Vec<String>>>,
) -> napi::Result<core::ToolNames> {
    let names = Arc::new(
        tool_names
            .build_threadsafe_function()
            .weak::<true>()
            .build()?,
    );
    Ok(Arc::new(move || {
        let names = names.clone();
        Box::pin(async move { names.call_async(()).await.ok().flatten() })
    }))
}

/// Releases the first turns parked on a ticket.
fn release(turns: Vec<core::Parked>) {
    guard::guard_sync(|| (), || turns.into_iter().for_each(|t| t.open(true)))
}

/// `null` for an answer that says to do nothing; the value itself when it is known before
/// the method returns (no promise, no hop); else a promise of it, settled when the work replies.
fn answered<'env, T: Serialize + Send + 'static>(
    env: &'env Env,
    answer: Answer<T>,
    nothing: impl Fn(&T) -> bool,
) -> Answered<'env> {
    // The promise once it is made (`Ok`), or a reply that came before it.
    let slot: Arc<Mutex<Result<settle::PromiseSettler, Option<T>>>> =
        Arc::new(Mutex::new(Err(None)));
    let replying = slot.clone();
    let later = move |value: T| {
        let mut slot = lock(&replying);
        match std::mem::replace(&mut *slot, Err(None)) {
            Ok(settler) => settler.settle(to_js(&value)),
            Err(_) => *slot = Err(Some(value)),
        }
    };
    let within = |start: Box<dyn FnOnce() + '_>| {
        settle::within_runtime(|| guard::guard_sync(|| (), start));
    };
    match answer.start(within, later) {
        Some(value) if nothing(&value) => return Ok(None),
        Some(value) => return parsed(env, &value).map(Some),
        None => {}
    }
    let (settler, promise) = settle::promise_of(env, false)?;
    let mut slot = lock(&slot);
    match std::mem::replace(&mut *slot, Err(None)) {
        Err(Some(value)) => settler.resolve_now(env, to_js(&value)),
        _ => *slot = Ok(settler),
    }
    Ok(Some(promise.to_unknown()))
}

/// The global `JSON`: a nested value crosses in one call each way, not one per property.
fn json(env: &Env) -> napi::Result<JSON<'_>> {
    env.get_global()?.get_named_property_unchecked("JSON")
}

/// A boundary value made by one `JSON.parse` of its text.
fn parsed<'env>(env: &'env Env, value: &impl Serialize) -> napi::Result<Unknown<'env>> {
    let json = json(env)?;
    let parse: Function<String, Unknown> = json.get_named_property_unchecked("parse")?;
    parse.apply(json, serde_json::to_string(value)?)
}

/// A field of a Pi object as JSON (an object via `JSON.stringify`): `None` if absent, an error
/// if it cannot be read (it throws).
fn field(object: &Object<'_>, name: &CStr) -> napi::Result<Option<Value>> {
    let value: Unknown = object.get_c_named_property_unchecked(name)?;
    let value = if value.get_type()? == ValueType::Object {
        let env = Env::from(object.value().env);
        serde_json::from_str(&json(&env)?.stringify(value)?)?
    } else {
        Value::from_unknown(value)?
    };
    Ok((!value.is_null()).then_some(value))
}

/// A field as JavaScript's `String(value ?? "")` reads an id.
fn text(object: &Object<'_>, name: &CStr) -> String {
    // The common case, a string, without building a JSON value first.
    if let Ok(Some(text)) = object.get_c_named_property_unchecked::<Option<String>>(name) {
        return text;
    }
    match field(object, name).ok().flatten() {
        Some(Value::String(text)) => text,
        Some(value @ (Value::Number(_) | Value::Bool(_))) => value.to_string(),
        _ => String::new(),
    }
}

/// The tool calls of an assistant message that the read-ahead wants and that carry arguments.
fn planned_calls(core: &core::Extension, event: &Object<'_>) -> Option<Vec<PlannedCall>> {
    let message = event
        .get_c_named_property::<Option<Object>>(c"message")
        .ok()??;
    if text(&message, c"role") != "assistant" {
        return None;
    }
    let content = message.get_c_named_property::<Array>(c"content").ok()?;
    let calls = (0..content.len())
        .filter_map(|index| content.get::<Object>(index).ok().flatten())
        .filter(|block| text(block, c"type") == "toolCall")
        .map(|block| (text(&block, c"name"), block))
        .filter(|(tool_name, _)| core.reads_ahead(tool_name))
        .filter_map(|(tool_name, block)| {
            Some(PlannedCall {
                tool_call_id: text(&block, c"id"),
                tool_name,
                arguments: field(&block, c"arguments").ok()??,
            })
        })
        .collect();
    Some(calls)
}
