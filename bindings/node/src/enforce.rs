//! Read discipline on `tool_call` (HOOK-4..14): one envelope to the hook,
//! its decision turned into a `ToolCallAction`. Never throws (HOOK-16).

use std::time::Instant;

use napi::Env;
use napi_derive::napi;

use pi_gortex_runtime::hook::{self, EnvelopeContext, HookOutcome};
use pi_gortex_runtime::instance;
use pi_gortex_runtime::status::HookTally;
use serde_json::Value;

use crate::boundary::{from_js, to_js, ToolCallAction, ToolCallEvent};
use crate::settle::Promised;
use crate::{generation, guard};

/// Runs the hook for one tool call and returns `ToolCallAction`.
///
/// The hook's exchange blocks one of the runtime's blocking threads (HOOK-2:
/// never Pi's); the call goes from Pi's thread straight to that thread and
/// its answer straight back, with no runtime worker in between, so the
/// cost inside Pi stays near a bare spawn-and-wait of the hook.
#[napi(
    ts_args_type = "generation: number, instance: number, event: host.ToolCallEvent",
    ts_return_type = "Promise<host.ToolCallAction>"
)]
pub fn enforce_tool_call(env: &Env, generation: u32, instance: u32, event: Value) -> Promised<'_> {
    crate::settle::spawn_blocking_promise(env, move || {
        guard::guard_sync(
            || to_js(&ToolCallAction::None),
            || enforce(generation, instance, event),
        )
    })
}

/// HOOK-4..14 for one call, on a blocking thread.
fn enforce(generation: u32, instance: u32, event: Value) -> Value {
    let state = generation::get(generation);
    let (Some(event), Some(config)) = (from_js::<ToolCallEvent>(event), state.config(instance))
    else {
        return to_js(&ToolCallAction::None);
    };
    // CFG-19: registered when either resolution enforces; judged only while
    // the one in effect does.
    if !config.enforce {
        return to_js(&ToolCallAction::None);
    }
    let context = EnvelopeContext {
        cwd: event.cwd.clone(),
        session_id: event.session_id.clone(),
    };
    // HOOK-5/6: the own client's registry names graph tools.
    let daemon_name = state.daemon_name(&event.tool_name);
    let envelope = hook::envelope_for_tool_call(&event.tool_name, &event.input, &context, |_| {
        daemon_name.as_deref()
    });
    let started = Instant::now();
    let run = hook::run_blocking(&config.hook_argv, &envelope);
    let (action, tally) = match hook::outcome(&run.decision) {
        HookOutcome::Block { reason } => (ToolCallAction::Block { reason }, HookTally::Block),
        HookOutcome::Steer { text } => (
            ToolCallAction::Steer {
                message: instance::steer_message(text),
            },
            HookTally::Steer,
        ),
        HookOutcome::None => (ToolCallAction::None, HookTally::None),
    };
    // STAT-2: the session's hook calls, blocks and latency for /gortex.
    state.status().record_hook(tally, started.elapsed());
    to_js(&action)
}
