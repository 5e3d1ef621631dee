//! The session exports (SES-3..15, HOOK-15, NAT-5/6/9/10, FAIL-4): the
//! instance's latches decide synchronously what `session_start` and
//! `before_agent_start` do; the instance's readiness barrier holds a first
//! turn until the `session_start` that registers the tools has ended; the
//! async part runs the session hook and builds the hidden message.

use std::time::Duration;

use napi::Env;
use napi_derive::napi;
use pi_gortex_runtime::config;
use pi_gortex_runtime::hook::{self, EnvelopeContext};
use pi_gortex_runtime::instance;
use pi_gortex_runtime::readiness;
use pi_gortex_runtime::session::{self, FirstTurn};
use serde_json::Value;

use crate::boundary::{
    from_js, guarded_answer, hidden_message, to_js, SessionBegin, SessionPlan, ToolWait, TurnEvent,
    TurnPlan, TurnPlanTurn, TurnRequest, TurnResult,
};
use crate::settle::{self, Promised};
use crate::{generation, guard};
use pi_gortex_runtime::extension::{lock, InstanceState, ModuleState};

/// What the glue does when the core cannot answer: nothing more.
fn no_session() -> SessionPlan {
    SessionPlan {
        notices: Vec::new(),
        withdraw_server: false,
        start_own_client: false,
    }
}

fn no_result() -> TurnResult {
    TurnResult {
        message: None,
        notices: Vec::new(),
    }
}

fn no_turn() -> TurnPlan {
    TurnPlan {
        turn: TurnPlanTurn::None,
        prompt: None,
        compacted: false,
        read_context: false,
        ready_wait_ms: None,
        native_wait: None,
    }
}

/// A `session_start` begins on the readiness barrier (adopting the
/// epoch a turn is parked on, else arming a fresh one). The glue hands the
/// ticket back to `closeSession` on every exit path; 0 when there is no
/// instance.
#[napi]
pub fn open_session(generation: u32, instance: u32) -> u32 {
    guard::guard_sync(
        || 0,
        || {
            let me = generation::get(generation).instance(instance);
            me.map_or(0, |me| lock(&me.readiness).begin_session())
        },
    )
}

/// The `session_start` with `ticket` ended. Releases the turns
/// parked on its epoch, here on Pi's thread, unless a newer `session_start`
/// adopted that epoch.
#[napi]
pub fn close_session(env: &Env, generation: u32, instance: u32, ticket: u32) {
    guard::guard_sync(
        || (),
        || {
            let Some(me) = generation::get(generation).instance(instance) else {
                return;
            };
            let released = lock(&me.readiness).end_session(ticket);
            for turn in released {
                turn.resolve_now(env, true);
            }
        },
    )
}

/// A first turn waits for readiness, for at most `capMs` (the
/// plan's `readyWaitMs`): true when the `session_start` it waits for ended
/// in time, false at the cap. The promise is weak, so a parked turn never
/// keeps the host alive; a release resolves it on Pi's thread.
#[napi(ts_return_type = "Promise<boolean>")]
pub fn await_ready(env: &Env, generation: u32, instance: u32, cap_ms: u32) -> Promised<'_> {
    let (turn, promise) = settle::weak_promise(env)?;
    guard::guard_sync(
        || (),
        || {
            let Some(me) = generation::get(generation).instance(instance) else {
                return turn.resolve_now(env, true);
            };
            let id = match lock(&me.readiness).park(turn) {
                Ok(id) => id,
                Err(turn) => return turn.resolve_now(env, true),
            };
            let cap = Duration::from_millis(cap_ms.into());
            settle::spawn(async move {
                if let Some(turn) = readiness::expire(&me.readiness, id, cap).await {
                    turn.settle(false);
                }
            });
        },
    );
    Ok(promise)
}

/// The plan of a session start, with the configuration notice: what this
/// `session_start` does. Clears the bridge error and version warning.
#[napi(
    ts_args_type = "generation: number, instance: number, begin: host.SessionBegin",
    ts_return_type = "host.SessionPlan"
)]
pub fn begin_session(generation: u32, instance: u32, begin: Value) -> Value {
    guarded_answer(no_session, || {
        let state = generation::get(generation);
        state.take_bridge_error();
        state.take_version_warning();
        state.status().begin_session();
        let (Some(begin), Some(me)) = (from_js::<SessionBegin>(begin), state.instance(instance))
        else {
            return no_session();
        };
        // A Pi without the trust API keeps the factory's config.
        let config = match begin.project_trusted {
            Some(trusted) => me.apply_trust(trusted),
            None => me.config(),
        };
        let holds = config::native_registration_holds(&me.config_at_load(), &config);
        let warnings: Vec<String> = config.warnings.iter().map(|w| w.to_string()).collect();
        // A turn parked on the epoch this start adopted is its first.
        let parked_turn = lock(&me.readiness).has_parked_turn();
        let mut latches = lock(&me.latches);
        let withdraw = latches.leave_stale_native(holds);
        let mut plan = latches.begin_session(parked_turn, begin.commands.as_deref(), &warnings);
        drop(latches);
        plan.withdraw_server |= withdraw;
        if config.project_ignored {
            let notice = config::untrusted_project_notice(&config.sidecars.project);
            if state.first_trust_notice(&notice) {
                plan.notices.push(notice);
            }
        }
        plan
    })
}

/// The plan of one `before_agent_start`, taken
/// before any await so two concurrent first turns cannot both run.
#[napi(
    ts_args_type = "generation: number, instance: number, event: host.TurnEvent",
    ts_return_type = "host.TurnPlan"
)]
pub fn plan_turn(generation: u32, instance: u32, event: Value) -> Value {
    guarded_answer(no_turn, || {
        let me = generation::get(generation).instance(instance);
        let (Some(event), Some(me)) = (from_js::<TurnEvent>(event), me) else {
            return no_turn();
        };
        let (prompt, message_type) = (event.prompt.as_deref(), event.message_type.as_deref());
        let mut latches = lock(&me.latches);
        latches.plan_turn(me.config().prompt_context, prompt, message_type)
    })
}

/// Whether Pi's tool names satisfy a wait.
#[napi(ts_args_type = "wait: host.ToolWait, names: Array<string>")]
pub fn tools_ready(wait: Value, names: Vec<String>) -> bool {
    guard::guard_sync(
        || true,
        || from_js::<ToolWait>(wait).is_none_or(|wait| instance::tools_ready(&wait, &names)),
    )
}

/// The warning for panics caught since the last call, once per session.
#[napi]
pub fn panic_notice(generation: u32, instance: u32) -> Option<String> {
    guard::guard_sync(
        || None,
        || {
            let panics = guard::take_recorded();
            let me = generation::get(generation).instance(instance)?;
            let notice = lock(&me.latches).panic_notice(&panics);
            notice
        },
    )
}

/// The prompt guidance for this turn, when the plan carries a prompt.
async fn prompt_guidance(
    argv: &[String],
    prompt: Option<&str>,
    context: &EnvelopeContext,
) -> Option<String> {
    let envelope = hook::envelope_for_prompt(prompt?, context)?;
    let run = hook::run(argv, &envelope).await;
    hook::prompt_guidance(&run.decision).map(str::to_string)
}

/// Runs the session hook once and assembles the hidden
/// message. Takes (clears) the generation's bridge error and version warning
/// and caches the briefing.
async fn first_turn(
    state: &ModuleState,
    me: &InstanceState,
    request: &TurnRequest,
    briefing_in_context: bool,
) -> TurnResult {
    let config = me.config();
    let argv = &config.hook_argv;
    let run = hook::run(argv, &hook::envelope_for_session_start(&request.cwd)).await;
    let orientation = hook::orientation(&run.decision).map(str::to_string);
    let mut notices = Vec::new();
    let mut version_warning = state.take_version_warning();
    state.status().record_briefing(orientation.as_deref());
    if lock(&me.latches).is_native() {
        let version = orientation
            .as_deref()
            .map(pi_gortex_runtime::version::version_from_briefing);
        state
            .status()
            .record_native_first_turn(version, request.ready);
    }
    if lock(&me.latches).is_native() {
        if let Some(skew) = orientation.as_deref().and_then(session::skew_from_briefing) {
            notices.push(skew.user_text);
            version_warning = Some(skew.model_text);
        }
    }
    let guidance = prompt_guidance(argv, request.plan.prompt.as_deref(), &context(request)).await;
    let bridge_error = state.take_bridge_error();
    let message = session::first_turn_message(&FirstTurn {
        bridge_error: bridge_error.as_deref(),
        ready: request.ready,
        version_warning: version_warning.as_deref(),
        orientation: orientation.as_deref(),
        briefing_in_context,
        prompt_context: guidance.as_deref(),
    });
    lock(&me.latches).set_briefing(orientation);
    TurnResult {
        message: message.map(hidden_message),
        notices,
    }
}

/// The compaction re-send and the prompt guidance.
async fn later_turn(me: &InstanceState, request: &TurnRequest, in_context: bool) -> TurnResult {
    let briefing = lock(&me.latches).briefing().map(str::to_string);
    let resend =
        session::compaction_resend(request.plan.compacted, briefing.as_deref(), in_context);
    let config = me.config();
    let argv = &config.hook_argv;
    let guidance = prompt_guidance(argv, request.plan.prompt.as_deref(), &context(request)).await;
    TurnResult {
        message: instance::later_turn_message(resend, guidance).map(hidden_message),
        notices: Vec::new(),
    }
}

fn context(request: &TurnRequest) -> EnvelopeContext {
    EnvelopeContext {
        cwd: request.cwd.clone(),
        session_id: request.session_id.clone(),
    }
}

/// The async half of a planned turn: `TurnResult`.
#[napi(
    ts_args_type = "generation: number, instance: number, request: host.TurnRequest",
    ts_return_type = "Promise<host.TurnResult>"
)]
pub async fn run_turn(generation: u32, instance: u32, request: Value) -> Value {
    guard::guard_async(|| to_js(&no_result()), async move {
        let state = generation::get(generation);
        let (Some(request), Some(me)) = (from_js::<TurnRequest>(request), state.instance(instance))
        else {
            return to_js(&no_result());
        };
        // Only read when the plan asked for the entries.
        let entries = request
            .context_entries
            .as_ref()
            .map(to_js)
            .unwrap_or(Value::Null);
        let in_context = session::briefing_in_context(&entries);
        let result = match request.plan.turn {
            TurnPlanTurn::First => first_turn(&state, &me, &request, in_context).await,
            TurnPlanTurn::Later => later_turn(&me, &request, in_context).await,
            TurnPlanTurn::None => no_result(),
        };
        to_js(&result)
    })
    .await
}
