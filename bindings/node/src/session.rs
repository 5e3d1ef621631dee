//! First-turn and later-turn work of `before_agent_start` (SES-10..15,
//! HOOK-15, NAT-10): the session hook, the hidden message, compaction re-send.

use napi_derive::napi;
use pi_gortex_runtime::hook::{self, EnvelopeContext};
use pi_gortex_runtime::session::{self, FirstTurn};
use serde_json::Value;

use crate::boundary::{
    from_js, hidden_message, to_js, FirstTurnRequest, FirstTurnResult, LaterTurnRequest,
    LaterTurnResult,
};
use crate::{generation, guard};

/// HOOK-15: the prompt guidance for this turn, when prompt context is on.
async fn prompt_guidance(
    argv: &[String],
    enabled: bool,
    prompt: Option<&str>,
    context: &EnvelopeContext,
) -> Option<String> {
    if !enabled {
        return None;
    }
    let envelope = hook::envelope_for_prompt(prompt?, context)?;
    let run = hook::run(argv, &envelope).await;
    hook::prompt_guidance(&run.decision).map(str::to_string)
}

/// SES-12/13 (+NAT-10, HOOK-15): runs the session hook once and assembles the
/// hidden message. Takes (clears) the generation's bridge error and version
/// warning (FAIL-5).
#[napi(
    ts_args_type = "generation: number, instance: number, request: host.FirstTurnRequest",
    ts_return_type = "Promise<host.FirstTurnResult>"
)]
pub async fn first_turn(generation: u32, instance: u32, request: Value) -> Value {
    guard::guard_async(|| to_js(&FirstTurnResult::default()), async move {
        let state = generation::get(generation);
        let (Some(request), Some(config)) =
            (from_js::<FirstTurnRequest>(request), state.config(instance))
        else {
            return to_js(&FirstTurnResult::default());
        };
        let run = hook::run(
            &config.hook_argv,
            &hook::envelope_for_session_start(&request.cwd),
        )
        .await;
        let orientation = hook::orientation(&run.decision).map(str::to_string);
        let mut user_warning = None;
        let mut version_warning = state.take_version_warning();
        if request.native {
            if let Some(skew) = orientation.as_deref().and_then(session::skew_from_briefing) {
                user_warning = Some(skew.user_text);
                version_warning = Some(skew.model_text);
            }
        }
        let context = EnvelopeContext {
            cwd: request.cwd.clone(),
            session_id: request.session_id.clone(),
        };
        let guidance = prompt_guidance(
            &config.hook_argv,
            config.prompt_context,
            request.prompt.as_deref(),
            &context,
        )
        .await;
        let bridge_error = state.take_bridge_error();
        let message = session::first_turn_message(&FirstTurn {
            bridge_error: bridge_error.as_deref(),
            ready: request.ready,
            version_warning: version_warning.as_deref(),
            orientation: orientation.as_deref(),
            briefing_in_context: request.briefing_in_context,
            prompt_context: guidance.as_deref(),
        });
        to_js(&FirstTurnResult {
            message: message.map(hidden_message),
            briefing: orientation,
            user_warning,
        })
    })
    .await
}

/// SES-15 (+HOOK-15): what a later turn returns.
#[napi(
    ts_args_type = "generation: number, instance: number, request: host.LaterTurnRequest",
    ts_return_type = "Promise<host.LaterTurnResult>"
)]
pub async fn later_turn(generation: u32, instance: u32, request: Value) -> Value {
    guard::guard_async(|| to_js(&LaterTurnResult::default()), async move {
        let state = generation::get(generation);
        let (Some(request), Some(config)) =
            (from_js::<LaterTurnRequest>(request), state.config(instance))
        else {
            return to_js(&LaterTurnResult::default());
        };
        let resend = session::compaction_resend(
            request.compacted,
            request.briefing.as_deref(),
            request.briefing_in_context,
        );
        let context = EnvelopeContext {
            cwd: request.cwd.clone(),
            session_id: request.session_id.clone(),
        };
        let guidance = prompt_guidance(
            &config.hook_argv,
            config.prompt_context,
            request.prompt.as_deref(),
            &context,
        )
        .await;
        let message = match (resend, guidance) {
            (Some(mut message), Some(guidance)) => {
                message.content =
                    format!("{}{}{}", message.content, session::PART_JOINER, guidance);
                Some(message)
            }
            (Some(message), None) => Some(message),
            (None, Some(guidance)) => Some(session::HiddenMessage::new(guidance, false)),
            (None, None) => None,
        };
        to_js(&LaterTurnResult {
            message: message.map(hidden_message),
        })
    })
    .await
}

/// SES-14: whether `buildContextEntries()` (projected to `ContextEntry`)
/// holds a briefing.
#[napi(ts_args_type = "entries: host.ContextEntry[]")]
pub fn briefing_in_context(entries: Value) -> bool {
    guard::guard_sync(|| false, || session::briefing_in_context(&entries))
}

/// SES-6: clears the bridge error and the version warning at the start of
/// every `session_start`.
#[napi]
pub fn begin_session(generation: u32) {
    guard::guard_sync(
        || (),
        || {
            let state = generation::get(generation);
            state.take_bridge_error();
            state.take_version_warning();
        },
    )
}
