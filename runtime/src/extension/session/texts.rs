//! What the model is told on a session's first turn and after a
//! compaction, as pure functions.
//!
//! When each text is due is decided by the instance's latches
//! ([`super::latches`]); the start error and the version warning are the
//! import's, taken once reported. This module decides only which text the
//! model gets. The texts are exact: tests compare them verbatim.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::version::{skew_warning, version_from_briefing, SkewWarning};

/// Part 1 when the own client failed: `<error>` is the start error.
pub fn start_error_text(start_error: &str) -> String {
    format!(
        "[Gortex] graph tools are unavailable this session ({start_error}). Tell the user to run /reload to retry the connection."
    )
}

/// Part 1 when the turn began before the tools were registered.
pub const STILL_REGISTERING_TEXT: &str = "[Gortex] graph tools were still registering when this turn began, so a tool named below may not be callable yet. If one is missing, say so and tell the user to retry, or to run /reload if it stays missing. Don't fall back to native tools.";

/// The joiner of first-turn parts.
pub const PART_JOINER: &str = "\n\n";

/// The `customType` of every message the extension adds.
pub const MESSAGE_CUSTOM_TYPE: &str = "gortex";

/// What the first turn knows when it assembles its message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FirstTurn<'a> {
    /// The start error, if the own client failed (cleared once reported).
    pub start_error: Option<&'a str>,
    /// Whether the readiness wait succeeded.
    pub ready: bool,
    /// The pending version warning's model text, cleared after.
    pub version_warning: Option<&'a str>,
    /// The session hook's `orientation` (the latches keep it either way).
    pub orientation: Option<&'a str>,
    /// Whether a briefing already sits in the context.
    pub briefing_in_context: bool,
    /// Guidance for this prompt, joined after the orientation.
    pub prompt_context: Option<&'a str>,
}

/// The hidden `gortex` message, the `message` of
/// `before_agent_start`'s return value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HiddenMessage {
    /// Always `gortex`.
    pub custom_type: String,
    /// The joined text.
    pub content: String,
    /// Always false: the message stays out of the transcript.
    pub display: bool,
    /// `{briefing}`.
    pub details: MessageDetails,
}

/// `details` of the hidden message, generated from `schema/pi.schema.json`.
pub use pi_gortex_schema::pi::GortexMessageDetails as MessageDetails;

impl HiddenMessage {
    /// A hidden `gortex` message.
    pub fn new(content: String, briefing: bool) -> Self {
        Self {
            custom_type: MESSAGE_CUSTOM_TYPE.to_string(),
            content,
            display: false,
            details: MessageDetails { briefing },
        }
    }
}

/// A non-empty text, or `None`.
fn non_empty(text: Option<&str>) -> Option<&str> {
    text.filter(|text| !text.is_empty())
}

/// The first-turn message, or `None` when there are no parts.
///
/// Order: start-error text (else, when not ready, the still-registering
/// text), the version warning, the orientation unless a briefing is already
/// in context, then HOOK-15 prompt guidance; joined with `\n\n`.
pub fn first_turn_message(turn: &FirstTurn<'_>) -> Option<HiddenMessage> {
    let mut parts: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(4);
    if let Some(error) = turn.start_error {
        parts.push(start_error_text(error).into());
    } else if !turn.ready {
        parts.push(STILL_REGISTERING_TEXT.into());
    }
    if let Some(warning) = non_empty(turn.version_warning) {
        parts.push(warning.into());
    }
    let orientation = non_empty(turn.orientation).filter(|_| !turn.briefing_in_context);
    if let Some(orientation) = orientation {
        parts.push(orientation.into());
    }
    if let Some(guidance) = non_empty(turn.prompt_context) {
        parts.push(guidance.into());
    }
    if parts.is_empty() {
        return None;
    }
    Some(HiddenMessage::new(
        parts.join(PART_JOINER),
        orientation.is_some(),
    ))
}

/// As text only (the content of [`first_turn_message`]).
#[cfg(any(test, feature = "test-support"))]
pub fn first_turn_text(turn: &FirstTurn<'_>) -> Option<String> {
    first_turn_message(turn).map(|message| message.content)
}

/// Whether `buildContextEntries()` holds a briefing: an entry with
/// `type` `custom_message`, `customType` `gortex` and `details.briefing`
/// exactly `true`. Anything that is not an array of such entries (Pi could
/// not tell) means no.
pub fn briefing_in_context(entries: &Value) -> bool {
    let Some(entries) = entries.as_array() else {
        return false;
    };
    entries.iter().any(|entry| {
        entry.get("type").and_then(Value::as_str) == Some("custom_message")
            && entry.get("customType").and_then(Value::as_str) == Some(MESSAGE_CUSTOM_TYPE)
            && entry.pointer("/details/briefing") == Some(&Value::Bool(true))
    })
}

/// The message a turn after compaction returns, if any. The compaction
/// latch is cleared whatever this returns; the hook is not run again and
/// warnings are not repeated.
pub fn compaction_resend(
    compacted: bool,
    cached_briefing: Option<&str>,
    briefing_in_context: bool,
) -> Option<HiddenMessage> {
    if !compacted || briefing_in_context {
        return None;
    }
    non_empty(cached_briefing).map(|briefing| HiddenMessage::new(briefing.to_string(), true))
}

/// The skew report the native path derives from the
/// briefing's readiness line (protocol never checked), or `None`.
pub fn skew_from_briefing(orientation: &str) -> Option<SkewWarning> {
    let version = version_from_briefing(orientation);
    if version.is_empty() {
        return None;
    }
    skew_warning(&version, "")
}
