//! Edit diffs on both paths (DIFF-15..22): the shell tracker, the native
//! watcher over `tool_call`/`tool_result`/`tool_execution_end`/`turn_end`,
//! and the own-client snapshot window. Every entry point fails open: a diff
//! problem never fails the call or throws (DIFF-22).

use serde_json::Value;

use crate::state::GenerationState;

/// The watcher state of one generation (SES-1: the shell tracker and the
/// pending claims). Filled in when the runtime's watcher lands.
#[derive(Default)]
pub struct WatcherState {}

/// An own-client snapshot window opened before a call (DIFF-16 steps 3-4).
pub struct OwnWindow {}

/// DIFF-16 steps 3-4. `None` when nothing is snapshotted.
pub async fn open_own_window(
    _state: &GenerationState,
    _name: &str,
    _args: &Value,
    _cwd: &str,
) -> Option<OwnWindow> {
    None
}

/// DIFF-16 step 7: `EditDetails`, `{}` when nothing changed.
pub async fn close_own_window(_state: &GenerationState, _window: OwnWindow) -> Value {
    Value::Object(Default::default())
}
