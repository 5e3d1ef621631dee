//! Pi's tool events and messages as Pi shapes them (`toolCallId`, an
//! assistant message's `toolCall` blocks), read here field by field through
//! [`PiObject`]: the binding converts one field when asked, so a call decided
//! from its ids alone converts nothing else.

use std::ffi::CStr;

use pi_gortex_schema::host::{ToolCallAction, ToolCallEvent, ToolResultAction, ToolResultEvent};
use serde_json::{json, Value};

use super::{
    result_text, truthy, Answer, Extension, PlannedCall, ResultIds, ToolCallIds, ToolNames,
};

/// One of Pi's objects, read one field at a time.
pub trait PiObject: Sized {
    /// A string field; `None` when absent or not a string.
    fn string(&self, name: &CStr) -> Option<String>;
    /// A field as JSON: `Some(None)` when absent or `null`, `None` when it
    /// cannot be read (it throws).
    fn read(&self, name: &CStr) -> Option<Option<Value>>;
    /// An object field.
    fn object(&self, name: &CStr) -> Option<Self>;
    /// The objects of an array field.
    fn objects(&self, name: &CStr) -> Vec<Self>;

    /// A field as JSON; `None` when absent, `null` or unreadable.
    fn json(&self, name: &CStr) -> Option<Value> {
        self.read(name).flatten()
    }

    /// A field as JavaScript's `String(value ?? "")` reads an id.
    fn text(&self, name: &CStr) -> String {
        if let Some(text) = self.string(name) {
            return text;
        }
        match self.json(name) {
            Some(value @ (Value::Number(_) | Value::Bool(_))) => value.to_string(),
            _ => String::new(),
        }
    }
}

impl Extension {
    /// `tool_call` from Pi's event; `place` (cwd and session id) is called
    /// only when the decision needs the whole event.
    pub fn pi_tool_call(
        &self,
        event: &impl PiObject,
        place: impl FnOnce() -> Option<(String, String)>,
    ) -> Answer<ToolCallAction> {
        let (id, name) = (event.text(c"toolCallId"), event.text(c"toolName"));
        // Only a string is a parent id; anything else reads as none.
        let parent = event.string(c"parentToolCallId");
        let ids = ToolCallIds {
            tool_call_id: &id,
            tool_name: &name,
            parent_tool_call_id: parent.as_deref(),
        };
        self.tool_call(ids, || {
            let (cwd, session_id) = place()?;
            Some(ToolCallEvent {
                // Input that cannot be read leaves the hook nothing to judge.
                input: event.read(c"input")?.unwrap_or(json!({})),
                tool_call_id: id.clone(),
                tool_name: name.clone(),
                parent_tool_call_id: parent.clone(),
                cwd,
                session_id,
            })
        })
    }

    /// `tool_result` from Pi's event; `cwd` is called only for a result the
    /// core acts on, `tool_names` only while a search is held.
    pub fn pi_tool_result(
        &self,
        event: &impl PiObject,
        cwd: impl FnOnce() -> Option<String>,
        tool_names: impl FnOnce() -> Option<ToolNames>,
    ) -> Answer<ToolResultAction> {
        let (id, name) = (event.text(c"toolCallId"), event.text(c"toolName"));
        let is_error = truthy(event.json(c"isError"));
        let ids = ResultIds {
            tool_call_id: &id,
            tool_name: &name,
            is_error,
        };
        let reads_text = self.reads_result_text(&name);
        let result = || {
            Some(ToolResultEvent {
                details: event.json(c"details"),
                text: reads_text.then(|| result_text(event.json(c"content"))),
                tool_call_id: id.clone(),
                tool_name: name.clone(),
                is_error,
                cwd: cwd()?,
            })
        };
        self.tool_result(ids, result, tool_names)
    }

    /// `message_end`: an assistant message's planned native edits are read
    /// ahead; only an edit's arguments are read from the message.
    pub fn pi_message_end(&self, event: &impl PiObject, cwd: String) -> Answer<()> {
        self.message_end(planned_calls(self, event).unwrap_or_default(), cwd)
    }
}

/// The tool calls of an assistant message that the read-ahead wants and that carry arguments.
fn planned_calls(core: &Extension, event: &impl PiObject) -> Option<Vec<PlannedCall>> {
    let message = event.object(c"message")?;
    if message.text(c"role") != "assistant" {
        return None;
    }
    let calls = message
        .objects(c"content")
        .into_iter()
        .filter(|block| block.text(c"type") == "toolCall")
        .map(|block| (block.text(c"name"), block))
        .filter(|(tool_name, _)| core.reads_ahead(tool_name))
        .filter_map(|(tool_name, block)| {
            Some(PlannedCall {
                tool_call_id: block.text(c"id"),
                tool_name,
                arguments: block.json(c"arguments")?,
            })
        })
        .collect();
    Some(calls)
}

/// A JSON value as a Pi object: the tests' events.
#[cfg(test)]
impl PiObject for Value {
    fn string(&self, name: &CStr) -> Option<String> {
        self.get(name.to_str().ok()?)?.as_str().map(str::to_string)
    }
    fn read(&self, name: &CStr) -> Option<Option<Value>> {
        Some(
            self.get(name.to_str().ok()?)
                .filter(|v| !v.is_null())
                .cloned(),
        )
    }
    fn object(&self, name: &CStr) -> Option<Self> {
        self.json(name).filter(Value::is_object)
    }
    fn objects(&self, name: &CStr) -> Vec<Self> {
        match self.json(name) {
            Some(Value::Array(items)) => items.into_iter().filter(Value::is_object).collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_reads_as_javascripts_string_of_it() {
        let event = json!({"a": "x", "n": 7, "b": true, "o": {"k": 1}, "z": null});
        assert_eq!(event.text(c"a"), "x");
        assert_eq!(event.text(c"n"), "7");
        assert_eq!(event.text(c"b"), "true");
        assert_eq!(event.text(c"o"), "", "an object is no id");
        assert_eq!(event.text(c"z"), "");
        assert_eq!(event.text(c"missing"), "");
    }

    #[test]
    fn only_an_assistant_messages_tool_call_blocks_that_may_edit_are_planned() {
        let dir = tempfile::tempdir().unwrap();
        let core = crate::extension::test_instance(dir.path(), &[], true, |_| ());
        let (edit, read) = ("mcp__gortex__edit", "mcp__gortex__read_file");
        let call = |id, name, arguments| json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments});
        let edit_call = call("c1", edit, json!({"path": "a"}));
        let read_call = call("c2", read, json!({"path": "a"}));
        let bare = call("c3", edit, Value::Null);
        let text = json!({"type": "text", "name": edit, "arguments": {}});
        let pis_own = call("c4", "edit", json!({}));
        let content = json!([edit_call, read_call, bare, text, pis_own, "not an object"]);
        let message = |role| json!({"message": {"role": role, "content": content}});
        let calls = planned_calls(&core, &message("assistant")).unwrap();
        let ids: Vec<_> = calls.iter().map(|c| c.tool_call_id.as_str()).collect();
        assert_eq!(ids, ["c1"]);
        assert_eq!(calls[0].arguments, json!({"path": "a"}));
        assert!(planned_calls(&core, &message("user")).is_none());
        assert!(planned_calls(&core, &json!({})).is_none());
    }
}
