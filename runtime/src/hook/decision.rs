//! Reading the hook's stdout into a decision, and a decision into what the
//! extension does.
//!
//! Reading is lenient per field (a wrong-typed field is ignored, only JSON
//! `true` blocks) but strict per document (anything but an object is a
//! failure, which the caller turns into the empty decision).

use crate::json_type::json_type;
use pi_gortex_schema::host::{SteerMessage, SteerMessageCustomType, ToolCallAction};
use serde_json::{Map, Value};

use super::{HookDecision, HookFailure};

/// HOOK-10 fallback reason when a block carries none.
pub const FALLBACK_BLOCK_REASON: &str = "[Gortex] blocked: prefer graph tools.";

/// The empty decision `{}`: do nothing.
pub fn empty_decision() -> HookDecision {
    HookDecision {
        block: None,
        reason: None,
        additional_context: None,
        orientation: None,
    }
}

/// Parses the hook's stdout. Blank output, invalid JSON and
/// non-object JSON are failures; wrong-typed fields are dropped.
pub fn parse_decision(stdout: &[u8]) -> Result<HookDecision, HookFailure> {
    let text = stdout.trim_ascii();
    if text.is_empty() {
        return Err(HookFailure::EmptyOutput);
    }
    let value: Value = serde_json::from_slice(text).map_err(|error| HookFailure::InvalidJson {
        message: error.to_string(),
    })?;
    match value {
        Value::Object(object) => Ok(decision_from_object(&object)),
        other => Err(HookFailure::NotAnObject {
            found: json_type(&other).to_string(),
        }),
    }
}

/// Keeps each field only when it has the type WIRE-15 gives it.
fn decision_from_object(object: &Map<String, Value>) -> HookDecision {
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_string);
    HookDecision {
        block: object.get("block").and_then(Value::as_bool),
        reason: text("reason"),
        additional_context: text("additional_context"),
        orientation: text("orientation"),
    }
}

/// What a `tool_call` decision asks the extension to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookOutcome {
    /// Return `{"block":true,"reason":…}` to Pi.
    Block {
        /// The decision's reason, or [`FALLBACK_BLOCK_REASON`].
        reason: String,
    },
    /// Send the text as a `steer` message.
    Steer {
        /// The decision's `additional_context`.
        text: String,
    },
    /// Let the call proceed untouched.
    None,
}

/// Block wins over guidance; `orientation` is ignored here.
pub fn outcome(decision: &HookDecision) -> HookOutcome {
    if decision.block == Some(true) {
        let reason = decision
            .reason
            .as_deref()
            .filter(|reason| !reason.is_empty())
            .unwrap_or(FALLBACK_BLOCK_REASON);
        return HookOutcome::Block {
            reason: reason.to_string(),
        };
    }
    match prompt_guidance(decision) {
        Some(text) => HookOutcome::Steer {
            text: text.to_string(),
        },
        None => HookOutcome::None,
    }
}

/// The action a `tool_call`'s decision asks of Pi: a block with its reason,
/// guidance as a steer, or nothing.
pub fn tool_call_action(decision: &HookDecision) -> ToolCallAction {
    match outcome(decision) {
        HookOutcome::Block { reason } => ToolCallAction::Block { reason },
        HookOutcome::Steer { text } => ToolCallAction::Steer {
            message: steer_message(text),
        },
        HookOutcome::None => ToolCallAction::None,
    }
}

/// The visible `gortex` message Pi delivers as a steer.
pub fn steer_message(text: String) -> SteerMessage {
    SteerMessage {
        custom_type: SteerMessageCustomType::Gortex,
        content: text,
        display: true,
    }
}

/// The non-empty `additional_context` of a `prompt` decision.
pub fn prompt_guidance(decision: &HookDecision) -> Option<&str> {
    decision
        .additional_context
        .as_deref()
        .filter(|text| !text.is_empty())
}

/// The non-empty `orientation` of a `session_start` decision.
pub fn orientation(decision: &HookDecision) -> Option<&str> {
    decision
        .orientation
        .as_deref()
        .filter(|text| !text.is_empty())
}
