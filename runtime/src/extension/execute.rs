//! An own-client tool call: Pi's `execute` of a registered Gortex tool. The
//! call never fails as a promise: a failure is `{ok:false, text}` for the
//! glue to throw. An edit gets a diff window (the before side read before
//! the call, the after side once it answered); a call that needs no window
//! is written to the daemon on Pi's thread, before the binding's promise
//! exists, so the daemon works on it while the runtime's thread wakes.

use std::path::Path;
use std::sync::Arc;

use pi_gortex_schema::host::{ToolExecuteRequest, ToolExecuteResult};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{catalogue_update, Answer, Extension, ModuleState};
use crate::diff;
use crate::mcp::client::ProgressHandler;
use crate::mcp::own_client::{throttled, OwnClient, SentCall, PROGRESS_GAP};

/// The details key of a result's `structuredContent`, Pi's own MCP's word for it.
const STRUCTURED_CONTENT: &str = "structuredContent";

/// An execution that failed with `text`: the glue throws it.
pub fn failed_execution(text: String) -> ToolExecuteResult {
    ToolExecuteResult {
        catalogue: None,
        content: None,
        details: serde_json::Map::new(),
        ok: false,
        text,
    }
}

/// What the synchronous half of an execution left for the asynchronous one.
pub enum Execution {
    /// Answered already (bad request, not connected).
    Done(ToolExecuteResult),
    /// The request is with the daemon; only its reply is awaited.
    Sent {
        state: Arc<ModuleState>,
        own_client: OwnClient,
        call: SentCall,
        call_id: String,
        token: CancellationToken,
    },
    /// An edit's diff window, a respawn or an abort comes first.
    Full {
        state: Arc<ModuleState>,
        own_client: OwnClient,
        request: ToolExecuteRequest,
        token: CancellationToken,
        progress: Option<ProgressHandler>,
    },
}

/// Pi's update text for a progress notification (its `message`, else
/// `Progress <progress>[/<total>]`), throttled for Pi's interface.
pub fn progress_handler(forward: impl Fn(String) + Send + Sync + 'static) -> ProgressHandler {
    let forward: ProgressHandler = Arc::new(move |params| {
        forward(match &params.message {
            Some(message) => message.clone(),
            None => match params.total {
                Some(total) => format!("Progress {}/{total}", params.progress),
                None => format!("Progress {}", params.progress),
            },
        });
    });
    throttled(forward, PROGRESS_GAP)
}

/// Pi's arguments; `null` reads as `{}`.
fn call_args(args: &Value) -> Value {
    if args.is_null() {
        Value::Object(Default::default())
    } else {
        args.clone()
    }
}

impl Extension {
    /// Executes one own-client tool call: its result, never a failure (a
    /// failure is `ok: false` with the text for the glue to throw).
    /// `on_progress` gets the text of each (throttled) progress notification.
    pub fn execute_tool(
        &self,
        request: Option<ToolExecuteRequest>,
        on_progress: Option<impl Fn(String) + Send + Sync + 'static>,
    ) -> Answer<ToolExecuteResult> {
        let execution = self.begin_execution(request, on_progress.map(progress_handler));
        let failed = || failed_execution("gortex: internal error".into());
        Answer::spawn(failed, execution.finish())
    }

    /// The synchronous half: checks, the abort token, and the eager send.
    pub fn begin_execution(
        &self,
        request: Option<ToolExecuteRequest>,
        progress: Option<ProgressHandler>,
    ) -> Execution {
        let state = self.module.clone();
        let Some(request) = request else {
            return Execution::Done(failed_execution("gortex: bad request".to_string()));
        };
        let Some(own_client) = state.lock().client.own_client() else {
            let name = state
                .daemon_name(&request.name)
                .unwrap_or_else(|| request.name.clone());
            return Execution::Done(failed_execution(format!(
                "gortex {name}: MCP bridge is not connected"
            )));
        };
        // An abort that came first (while Pi's file locks were taken) left
        // a cancelled token here; the call is then never sent.
        let token = state
            .lock()
            .aborts
            .entry(request.call_id.clone())
            .or_default()
            .clone();
        if !request.diff {
            let args = call_args(&request.args);
            if let Some(call) = own_client.send_call_with_progress(
                &request.name,
                args,
                Some(&token),
                progress.clone(),
            ) {
                return Execution::Sent {
                    state,
                    own_client,
                    call,
                    call_id: request.call_id,
                    token,
                };
            }
        }
        Execution::Full {
            state,
            own_client,
            request,
            token,
            progress,
        }
    }

    /// The glue's locks: the candidate files of an own-client call, empty
    /// when it is not an edit. `args` is read only when the name says the
    /// tool can edit: most calls are not edits.
    pub fn edit_candidates(
        &self,
        name: &str,
        args: impl FnOnce() -> Option<Value>,
        cwd: &str,
    ) -> Vec<String> {
        let Some(daemon) = self.module.daemon_name(name) else {
            return Vec::new();
        };
        if !diff::classify::may_edit(&daemon) {
            return Vec::new();
        }
        let Some(args) = args() else {
            return Vec::new();
        };
        diff::edit_candidates(&daemon, &args, Path::new(cwd))
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }

    /// Pi aborted the call with `call_id`. Before the execution registered
    /// the call (it waits for Pi's file locks first), the abort is kept as a
    /// cancelled token that the execution then finds.
    pub fn abort_call(&self, call_id: String) {
        let mut locked = self.module.lock();
        let aborts = &mut locked.aborts;
        match aborts.remove(&call_id) {
            Some(token) => token.cancel(),
            None => {
                let token = CancellationToken::new();
                token.cancel();
                aborts.insert(call_id, token);
            }
        }
    }
}

impl Execution {
    /// The asynchronous half: the reply, and the diff window around an edit.
    pub async fn finish(self) -> ToolExecuteResult {
        let (state, outcome, diff_window) = match self {
            Execution::Done(result) => return result,
            Execution::Sent {
                state,
                own_client,
                call,
                call_id,
                token,
            } => {
                let outcome = own_client.finish_call(call, Some(&token)).await;
                state.lock().aborts.remove(&call_id);
                (state, outcome, None)
            }
            Execution::Full {
                state,
                own_client,
                request,
                token,
                progress,
            } => {
                let args = call_args(&request.args);
                let diff_window = if request.diff && !token.is_cancelled() {
                    state
                        .open_own_window(&request.name, &args, &request.cwd)
                        .await
                } else {
                    None
                };
                let outcome = own_client
                    .call_tool_with_progress(&request.name, args, Some(&token), progress)
                    .await;
                state.lock().aborts.remove(&request.call_id);
                (state, outcome, diff_window)
            }
        };
        let outcome = match outcome {
            Err(error) => return failed_execution(error.to_string()),
            Ok(outcome) => outcome,
        };
        let mut details = match diff_window {
            Some(window) if !outcome.is_error => {
                match serde_json::to_value(state.close_own_window(window).await) {
                    Ok(Value::Object(map)) => map,
                    _ => serde_json::Map::new(),
                }
            }
            _ => serde_json::Map::new(),
        };
        if let Some(structured) = outcome.structured_content {
            details.insert(STRUCTURED_CONTENT.to_string(), structured);
        }
        ToolExecuteResult {
            ok: !outcome.is_error,
            content: (!outcome.is_error).then_some(outcome.content),
            text: outcome.text,
            details,
            catalogue: outcome
                .catalogue_changes
                .map(|changes| catalogue_update(&state, changes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn extension_with_tools() -> Extension {
        let module = Arc::new(ModuleState::default());
        module.register_for_test(&[("gortex_edit", "edit"), ("search", "search")]);
        Extension::new(module)
    }

    fn edit_args() -> Value {
        json!({"operation": "file", "target": {"file": "main.go"}, "match": "a", "replacement": "b"})
    }

    #[test]
    fn only_a_registered_tool_that_can_edit_has_its_arguments_read_for_candidates() {
        let extension = extension_with_tools();
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_string_lossy().into_owned();
        let candidates = extension.edit_candidates("gortex_edit", || Some(edit_args()), &cwd);
        assert_eq!(candidates.len(), 1);
        assert!(candidates[0].ends_with("main.go"), "{candidates:?}");
        let unread = || -> Option<Value> { panic!("the arguments were read") };
        assert!(extension.edit_candidates("search", unread, &cwd).is_empty());
        assert!(
            extension.edit_candidates("edit", unread, &cwd).is_empty(),
            "Pi's own edit"
        );
        assert!(extension
            .edit_candidates("gortex_edit", || None, &cwd)
            .is_empty());
    }

    #[tokio::test]
    async fn a_call_without_a_connected_client_fails_with_the_daemon_tools_name() {
        let extension = extension_with_tools();
        let request = ToolExecuteRequest {
            args: Value::Null,
            call_id: "c1".into(),
            cwd: "/".into(),
            diff: false,
            name: "gortex_edit".into(),
        };
        let result = extension
            .begin_execution(Some(request), None)
            .finish()
            .await;
        assert!(!result.ok);
        assert_eq!(result.text, "gortex edit: MCP bridge is not connected");
        let result = extension.begin_execution(None, None).finish().await;
        assert_eq!(result.text, "gortex: bad request");
    }

    #[test]
    fn an_abort_before_the_call_registered_is_kept_cancelled_and_one_after_cancels_it() {
        let extension = extension_with_tools();
        extension.abort_call("early".into());
        let state = || extension.module.lock();
        assert!(
            state().aborts["early"].is_cancelled(),
            "found by the execution"
        );
        let token = CancellationToken::new();
        state().aborts.insert("running".into(), token.clone());
        extension.abort_call("running".into());
        assert!(token.is_cancelled());
        assert!(!state().aborts.contains_key("running"), "taken out");
    }

    #[test]
    fn null_arguments_are_sent_as_an_empty_object() {
        assert_eq!(call_args(&Value::Null), json!({}));
        assert_eq!(call_args(&json!({"a": 1})), json!({"a": 1}));
    }
}
