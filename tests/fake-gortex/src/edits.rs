//! Edits that really write files (FAKE-5), so diff tests observe real changes.

use serde_json::Value;

pub struct EditReply {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
}

/// Applies an edit call; `None` when the call is not an edit.
pub fn apply_call(_name: &str, _args: &Value) -> Option<EditReply> {
    None
}
