//! The hook: read discipline over `gortex hook --agent=pi` (HOOK-*).
//!
//! - [`normalize`]: Pi tool call -> envelope.
//! - [`exchange`]: one run of the hook, begun and finished, with its limits.
//! - [`decision`]: stdout -> decision -> typed outcome.
//! - [`failure`]: why a run failed open.
//! - [`spare`]: the session's warm hook process (HOOK-18).

pub mod decision;
pub mod exchange;
pub mod failure;
pub mod normalize;
pub mod spare;

pub use decision::{
    empty_decision, orientation, outcome, parse_decision, prompt_guidance, steer_message,
    tool_call_action, HookOutcome, FALLBACK_BLOCK_REASON,
};
pub use exchange::{begin, run_blocking, Begun, Warm};
pub use exchange::{run, run_with_limits, HookLimits, HookRun, HOOK_STDOUT_CAP, HOOK_TIMEOUT};
pub use failure::HookFailure;
pub use normalize::{
    canonical_tool_name, classify_tool, envelope_for_prompt, envelope_for_session_start,
    envelope_for_tool_call, normalize_tool_input, strip_native_prefix, EnvelopeContext, ToolKind,
};
pub use spare::{SpareCall, SpareCounts, SpareSlot, SPARE_MAX_AGE};

/// The wire types, generated from `schema/hook.schema.json`.
pub use pi_gortex_schema::hook::{HookDecision, HookEvent};
