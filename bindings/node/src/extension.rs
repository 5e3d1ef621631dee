//! The classes the glue holds: `Module`, one per import of the entry module,
//! and `Extension`, one per factory call, with one method per Pi event, each
//! a single crossing into `pi_gortex_runtime::extension`: the method converts
//! what Pi handed it and settles the runtime's answer (`settle::answer`).

use std::ffi::CStr;
use std::sync::Arc;

use napi::bindgen_prelude::{
    Array, FromNapiValue, Function, JsObjectValue, JsValue, JsValuesTupleIntoVec, Object, Unknown,
};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status, ValueType};
use napi_derive::napi;
use pi_gortex_runtime::extension::{self as core, guard, Answer, ModuleState, PiObject, TurnReads};
use serde_json::Value;

use crate::boundary::ToolResultAction;
use crate::boundary::{from_js, json, to_js, ContextEntry, ToolCallAction};
use crate::settle::{self, Answered};

/// A weak thread-safe callback into JS (`T` in, `R` back): it never keeps Node alive.
type Callback<T, R> = ThreadsafeFunction<T, R, T, Status, false, true>;
const NON_BLOCKING: ThreadsafeFunctionCallMode = ThreadsafeFunctionCallMode::NonBlocking;

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
    pub fn resolve_config<'env>(&self, env: &'env Env, cwd: String) -> Answered<'env> {
        let core = self.core.clone();
        let resolving = async move { core.resolve_config(cwd).await };
        let failed = core::fallback_config;
        settle::answer(env, failed, || Answer::spawn(failed, resolving), None)
    }

    /// The path at factory time: native or the own client.
    #[napi(
        ts_args_type = "request: host.PathRequest",
        ts_return_type = "host.PathChoice"
    )]
    pub fn choose_path<'env>(&self, env: &'env Env, request: Value) -> Answered<'env> {
        let choose = || Answer::Now(self.core.choose_path(from_js(request)));
        settle::answer(
            env,
            || core::own_path("internal_error"),
            choose,
            Some(|_| false),
        )
    }

    /// `registerMcpServer` threw `reason`.
    #[napi]
    pub fn refuse_native(&self, reason: String) {
        guard::guard_sync(|| (), || self.core.refuse_native(reason))
    }

    /// `session_start`, in one call: `apply` receives each step the glue
    /// applies in Pi (at once; for the own client also when it started, and
    /// at each later listing that changes the tools). `null` when no own
    /// client starts; else a promise of its start.
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
    ) -> Answered<'env> {
        let applier = applier(&apply)?;
        let now = |action| drop(apply.call(to_js(&action)));
        let start = || {
            self.core
                .session_start(from_js(begin), pi_tools, now, applier)
        };
        settle::answer(env, || (), start, Some(|_| true))
    }

    /// `before_agent_start`: `null` when the turn has nothing to do, else a
    /// promise of its action. `entries` is read only when the plan needs the
    /// context, `toolNames` (Pi's tools) when the turn waits for them or
    /// words a footer; `showFooter` is null without a UI.
    #[napi(
        ts_args_type = "event: host.TurnEvent, place: [cwd: string, sessionId: string], entries: () => host.ContextEntry[] | undefined, toolNames: () => string[] | undefined, showFooter: ((footer: string) => void) | null",
        ts_return_type = "Promise<host.TurnAction> | null"
    )]
    pub fn before_agent_start<'env>(
        &self,
        env: &'env Env,
        event: Value,
        place: (String, String),
        entries: Function<'env, (), Option<Value>>,
        tool_names: Callback<(), Option<Vec<String>>>,
        show_footer: Option<Callback<String, ()>>,
    ) -> Answered<'env> {
        let reads = turn_reads(place, &entries, tool_names, show_footer);
        let start = || self.core.before_agent_start(from_js(event), reads);
        settle::answer(env, || None, start, Some(Option::is_none))
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
        on_progress: Option<Callback<String, ()>>,
    ) -> Answered<'env> {
        let on_progress = on_progress.map(|f| move |text| _ = f.call(text, NON_BLOCKING));
        let failed = || core::failed_execution("gortex: internal error".into());
        let start = || self.core.execute_tool(from_js(request), on_progress);
        settle::answer(env, failed, start, None)
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
        place: Function<'env, (), (String, String)>,
    ) -> Answered<'env> {
        let call = || self.core.pi_tool_call(&Pi(event), || place.call(()).ok());
        let nothing = |a: &_| matches!(a, ToolCallAction::None);
        settle::answer(env, || ToolCallAction::None, call, Some(nothing))
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
        let names = || callback(&tool_names).ok().map(names_of);
        let result = || {
            self.core
                .pi_tool_result(&Pi(event), || cwd.call(()).ok(), names)
        };
        let nothing = |a: &_| *a == ToolResultAction::default();
        settle::answer(env, ToolResultAction::default, result, Some(nothing))
    }

    /// `message_end`: an assistant message's planned native edits are read
    /// ahead; only an edit's arguments are read from the message.
    #[napi(ts_args_type = "event: object, cwd: string")]
    pub fn message_end(&self, env: &Env, event: Object<'_>, cwd: String) {
        let read_ahead = || self.core.pi_message_end(&Pi(event), cwd);
        let _ = settle::answer(env, || (), read_ahead, Some(|_| true));
    }

    /// `tool_execution_end`.
    #[napi(ts_args_type = "event: object")]
    pub fn tool_execution_end(&self, event: Object<'_>) {
        let ended = || self.core.tool_execution_end(&Pi(event).text(c"toolCallId"));
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
    pub fn gortex_command<'env>(&self, env: &'env Env, command: Value) -> Answered<'env> {
        let core = self.core.clone();
        let failed = || pi_gortex_runtime::extension::status::status_reply(core::unavailable());
        let reply =
            |command| Answer::spawn(failed, async move { core.gortex_command(command).await });
        let start = || from_js(command).map_or(Answer::Now(failed()), reply);
        settle::answer(env, failed, start, None)
    }

    /// `session_shutdown`: the calls cleared, the hook's spare ended, and this
    /// instance's own client stopped if it holds the slot (another's is not).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn session_shutdown<'env>(&self, env: &'env Env) -> Answered<'env> {
        guard::guard_sync(|| (), || self.core.clear_calls());
        let core = self.core.clone();
        let stopping = async move { core.session_shutdown().await };
        settle::answer(env, || (), || Answer::spawn(|| (), stopping), None)
    }
}

/// A JavaScript function as a weak thread-safe callback: it never keeps Node alive.
fn callback<T: JsValuesTupleIntoVec + 'static, R: FromNapiValue + 'static>(
    f: &Function<'_, T, R>,
) -> napi::Result<Callback<T, R>> {
    f.build_threadsafe_function().weak::<true>().build()
}

/// Pi's tool names, read on Pi's thread from any thread.
fn names_of(names: Callback<(), Option<Vec<String>>>) -> core::ToolNames {
    let names = Arc::new(names);
    Arc::new(move || {
        let names = names.clone();
        Box::pin(async move { names.call_async(()).await.ok().flatten() })
    })
}

/// What a turn reads of Pi besides its event.
fn turn_reads<'a>(
    (cwd, session_id): (String, String),
    entries: &'a Function<'_, (), Option<Value>>,
    tool_names: Callback<(), Option<Vec<String>>>,
    show_footer: Option<Callback<String, ()>>,
) -> TurnReads<impl FnOnce() -> Option<Vec<ContextEntry>> + 'a> {
    let show = |f: Callback<String, ()>| Arc::new(move |text| _ = f.call(text, NON_BLOCKING));
    TurnReads {
        cwd,
        session_id,
        entries: || entries.call(()).ok().flatten().and_then(from_js),
        tool_names: names_of(tool_names),
        show_footer: show_footer.map(|f| show(f) as core::ShowFooter),
    }
}

/// A session step applied in Pi from any thread, then `then` on Pi's thread.
fn applier(apply: &Function<'_, Value, ()>) -> napi::Result<core::Applier> {
    let apply = callback(apply)?;
    Ok(Arc::new(move |action, then| {
        let (action, mode) = (to_js(&action), NON_BLOCKING);
        let status = match then {
            None => apply.call(action, mode),
            Some(then) => apply.call_with_return_value(action, mode, |_, _| {
                then();
                Ok(())
            }),
        };
        status == Status::Ok
    }))
}

/// One of Pi's objects, read one field at a time.
struct Pi<'env>(Object<'env>);

impl PiObject for Pi<'_> {
    fn string(&self, name: &CStr) -> Option<String> {
        self.0.get_c_named_property_unchecked(name).ok()?
    }

    /// An object via one `JSON.stringify`, not one crossing per property.
    fn read(&self, name: &CStr) -> Option<Option<Value>> {
        let value: Unknown = self.0.get_c_named_property_unchecked(name).ok()?;
        let value = match value.get_type().ok()? {
            ValueType::Object => {
                let env = Env::from(self.0.value().env);
                serde_json::from_str(&json(&env).ok()?.stringify(value).ok()?).ok()?
            }
            _ => Value::from_unknown(value).ok()?,
        };
        Some((!value.is_null()).then_some(value))
    }

    fn object(&self, name: &CStr) -> Option<Self> {
        self.0
            .get_c_named_property::<Option<Object>>(name)
            .ok()?
            .map(Pi)
    }

    fn objects(&self, name: &CStr) -> Vec<Self> {
        let Ok(items) = self.0.get_c_named_property::<Array>(name) else {
            return Vec::new();
        };
        let item = |index| items.get::<Object>(index).ok().flatten().map(Pi);
        (0..items.len()).filter_map(item).collect()
    }
}
