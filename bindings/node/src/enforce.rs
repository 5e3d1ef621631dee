//! Read discipline on `tool_call` (HOOK-4..14): one envelope to the hook,
//! its decision turned into a `ToolCallAction`. Never throws (HOOK-16).

use napi_derive::napi;
use std::time::Instant;

use pi_gortex_runtime::hook::{self, EnvelopeContext, HookOutcome};
use pi_gortex_runtime::instance;
use pi_gortex_runtime::status::HookTally;
use serde_json::Value;

use crate::boundary::{from_js, to_js, ToolCallAction, ToolCallEvent};
use crate::{generation, guard};

/// Runs the hook for one tool call and returns `ToolCallAction`.
#[napi(
    ts_args_type = "generation: number, instance: number, event: host.ToolCallEvent",
    ts_return_type = "Promise<host.ToolCallAction>"
)]
pub async fn enforce_tool_call(generation: u32, instance: u32, event: Value) -> Value {
    guard::guard_async(|| to_js(&ToolCallAction::None), async move {
        let state = generation::get(generation);
        let (Some(event), Some(config)) = (from_js::<ToolCallEvent>(event), state.config(instance))
        else {
            return to_js(&ToolCallAction::None);
        };
        // CFG-19: registered when either resolution enforces; judged only
        // while the one in effect does.
        if !config.enforce {
            return to_js(&ToolCallAction::None);
        }
        let context = EnvelopeContext {
            cwd: event.cwd.clone(),
            session_id: event.session_id.clone(),
        };
        // HOOK-5/6: the own client's registry names graph tools.
        let daemon_name = state.daemon_name(&event.tool_name);
        let envelope =
            hook::envelope_for_tool_call(&event.tool_name, &event.input, &context, |_| {
                daemon_name.as_deref()
            });
        let started = Instant::now();
        let run = hook::run(&config.hook_argv, &envelope).await;
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
    })
    .await
}
