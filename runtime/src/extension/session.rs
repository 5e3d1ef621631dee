//! The instance's life between Pi's session events: its configuration at
//! load, the path it takes (native or own client), what a `session_start`
//! does, and what each turn tells the model.
//!
//! A `session_start` opens a ticket on the readiness barrier before it plans
//! and hands the ticket back when it ends, releasing a first turn parked on
//! it; a turn is planned before any await, so two concurrent first turns
//! cannot both run, and its async half runs the session hook.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use pi_gortex_schema::host::{
    CatalogueUpdate, ContextEntry, HiddenMessage, HiddenMessageDetails, HostConfig, OwnStartResult,
    OwnStartResultStatus, PathChoice, PathRequest, SessionAction, SessionBegin, SessionPlan,
    StatusRequest, TurnAction, TurnEvent, TurnPlan, TurnPlanTurn, TurnRequest, TurnResult,
};

use super::{guard, Extension, InstanceState, ModuleState, Parked};
use crate::config::{self, ConfigInputs};
use crate::hook::{self, EnvelopeContext};
use crate::native::{self, HostCapabilities, ToolPath};
use latches::InstanceLatches;
use texts::FirstTurn;

pub mod latches;
pub mod readiness;
pub mod texts;

/// How long the sidecar reads may take before the factory goes on without them.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// What the glue sees when resolution itself failed: the built-in defaults
/// with enforcement off, so a core fault never blocks a call.
pub fn fallback_config() -> HostConfig {
    HostConfig {
        bin: config::DEFAULT_BIN.to_string(),
        enforce: false,
        hook_argv: Vec::new(),
        native_mcp: false,
        prompt_context: false,
        tools_preset: config::DEFAULT_TOOLS_PRESET.to_string(),
        warnings: Vec::new(),
    }
}

/// What the glue does when the core cannot plan a session start: nothing more.
pub fn no_session() -> SessionPlan {
    SessionPlan {
        notices: Vec::new(),
        withdraw_server: false,
        start_own_client: false,
    }
}

/// A session step with nothing to apply.
pub fn no_action() -> SessionAction {
    SessionAction {
        notices: Vec::new(),
        withdraw_server: None,
        catalogue: None,
        footer: None,
    }
}

/// A later listing of the own client, as a session step.
pub fn catalogue_action(update: CatalogueUpdate) -> SessionAction {
    SessionAction {
        catalogue: Some(update),
        ..no_action()
    }
}

/// A turn that applies nothing.
pub fn no_turn_action() -> TurnAction {
    TurnAction {
        message: None,
        notices: Vec::new(),
        footer: None,
    }
}

/// A turn with nothing to tell the model.
pub fn no_result() -> TurnResult {
    TurnResult {
        message: None,
        notices: Vec::new(),
    }
}

/// A turn with nothing to do.
pub fn no_turn() -> TurnPlan {
    TurnPlan {
        turn: TurnPlanTurn::None,
        prompt: None,
        compacted: false,
        read_context: false,
        ready_wait_ms: None,
        native_wait: None,
    }
}

/// The own client's path choice, with `reason`.
pub fn own_path(reason: &str) -> PathChoice {
    PathChoice {
        native: false,
        reason: reason.to_string(),
        server_config: None,
        server_name: native::MCP_SERVER_NAME.to_string(),
        tool_prefix: native::MCP_TOOL_PREFIX.to_string(),
    }
}

/// The runtime's hidden message in the boundary shape.
fn hidden_message(message: texts::HiddenMessage) -> HiddenMessage {
    HiddenMessage {
        content: message.content,
        custom_type: message.custom_type,
        details: HiddenMessageDetails {
            briefing: message.details.briefing,
        },
        display: message.display,
    }
}

impl Extension {
    /// Resolves the configuration the factory sees from `cwd` (the process
    /// working directory), keeps it with the instance and answers it.
    pub async fn resolve_config(&self, cwd: String) -> HostConfig {
        // The sidecar reads run on tokio's blocking pool, never on Pi's
        // thread or a runtime worker, bounded in time; O_NONBLOCK already
        // keeps a FIFO from blocking, the bound covers a hung mount.
        let inputs = ConfigInputs::from_process().with_cwd(cwd);
        let session_cwd = inputs.cwd.clone();
        let read = tokio::task::spawn_blocking(move || {
            // Trust is known only at session_start; both now, off Pi's
            // thread, and the session start picks one.
            (
                config::resolve_with_trust(&inputs, true),
                config::resolve_with_trust(&inputs, false),
            )
        });
        let Ok(Ok((resolved, untrusted))) = tokio::time::timeout(READ_TIMEOUT, read).await else {
            let mut host = fallback_config();
            host.warnings.push(format!(
                "the configuration could not be read within {} s; pi-gortex runs without it",
                READ_TIMEOUT.as_secs()
            ));
            return host;
        };
        let host = HostConfig {
            bin: resolved.bin.clone(),
            hook_argv: resolved.hook_argv.clone(),
            // The tool_call handler is registered now, before trust is
            // known: when either resolution enforces. The core judges each
            // call by the one in effect.
            enforce: resolved.enforce || untrusted.enforce,
            tools_preset: resolved.tools_preset.clone(),
            native_mcp: resolved.native_mcp,
            prompt_context: resolved.prompt_context,
            warnings: resolved.warnings.iter().map(|w| w.to_string()).collect(),
        };
        self.set_config(Arc::new(resolved), Arc::new(untrusted), session_cwd);
        host
    }

    /// The path at factory time. The connector check runs later, in
    /// `session_start`, so it is assumed present here.
    pub fn choose_path(&self, request: Option<PathRequest>) -> PathChoice {
        let (Some(request), Some(me)) = (request, self.instance()) else {
            return own_path("internal_error");
        };
        // The factory's resolution (the session start withdraws this
        // registration if the one in effect disagrees).
        let config = me.config_at_load();
        self.module
            .set_takes_tool_metadata(crate::catalogue::takes_tool_metadata(
                request.has_register_mcp_server,
            ));
        let env: HashMap<String, String> = config::process_env();
        let caps = HostCapabilities {
            has_register_mcp_server: request.has_register_mcp_server,
            has_mcp_command: true,
            native_mcp: config.native_mcp,
            // Resolved once, to the absolute path handed to Pi.
            bin_resolves: config.native_mcp
                && request.has_register_mcp_server
                && config.bin_path.is_some(),
        };
        let choice = match native::choose_path(&caps) {
            ToolPath::Native => PathChoice {
                native: true,
                reason: "native".to_string(),
                server_name: native::MCP_SERVER_NAME.to_string(),
                tool_prefix: native::MCP_TOOL_PREFIX.to_string(),
                server_config: Some(super::tool_events::object(
                    serde_json::to_value(native::server_config(
                        &config.bin,
                        &config.tools_preset,
                        config.daemon_autostart,
                        &env,
                    ))
                    .unwrap_or_default(),
                )),
            },
            ToolPath::OwnClient { reason } => {
                let reason = serde_json::to_value(reason)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                own_path(&reason)
            }
        };
        me.lock().latches = InstanceLatches::new(choice.native);
        choice
    }

    /// `registerMcpServer` threw `reason`: the instance takes the own
    /// client and tells the user at each session start.
    pub fn refuse_native(&self, reason: String) {
        if let Some(me) = self.instance() {
            let latches = &mut me.lock().latches;
            latches.native = false;
            latches.refusal = Some(reason);
        }
    }

    /// A `session_start` begins on the readiness barrier (adopting the
    /// generation a turn is parked on, else arming a fresh one). The ticket goes
    /// back to [`Extension::end_session`] on every exit path; 0 when there
    /// is no instance.
    pub fn open_session(&self) -> u32 {
        self.instance()
            .map_or(0, |me| me.lock().readiness.open_ticket())
    }

    /// A `session_start`'s first step, taken on Pi's thread: its ticket on
    /// the barrier, the action the glue applies at once and whether the own
    /// client starts. Without a start the action is already the last step.
    /// Every step is guarded (a panic of the plan costs the plan, never the
    /// ticket), so the binding calls it bare.
    pub fn session_opening(
        &self,
        begin: Option<SessionBegin>,
        pi_tools: Option<&[String]>,
    ) -> SessionOpening {
        let ticket = guard::guard_sync(|| 0, || self.open_session());
        let (mut action, start) = guard::guard_sync(
            || (no_action(), false),
            || self.session_plan(begin, pi_tools),
        );
        if !start {
            guard::guard_sync(|| (), || self.end_session_step(&mut action, pi_tools));
        }
        SessionOpening {
            ticket,
            action,
            start,
        }
    }

    /// The first step of a `session_start` (its notices, the withdrawal of
    /// a stale native registration, the footer before the own client
    /// starts) and whether the own client starts. `pi_tools` are Pi's tool
    /// names, `None` when the user has no UI (no footer is shown).
    pub fn session_plan(
        &self,
        begin: Option<SessionBegin>,
        pi_tools: Option<&[String]>,
    ) -> (SessionAction, bool) {
        let plan = self.session_start_plan(begin);
        let mut action = SessionAction {
            notices: plan.notices,
            withdraw_server: plan.withdraw_server.then_some(true),
            ..no_action()
        };
        if plan.start_own_client {
            action.footer = self.footer(pi_tools);
        }
        (action, plan.start_own_client)
    }

    /// What a session start does, with the configuration notice. Clears the
    /// start error and the version warning.
    fn session_start_plan(&self, begin: Option<SessionBegin>) -> SessionPlan {
        let state = &self.module;
        state.take_start_error();
        state.take_version_warning();
        state.lock().status.reset_for_session();
        let (Some(begin), Some(me)) = (begin, self.instance()) else {
            return no_session();
        };
        // A Pi without the trust API keeps the factory's config.
        let config = match begin.project_trusted {
            Some(trusted) => me.apply_trust(trusted),
            None => me.config(),
        };
        let holds = config::native_registration_holds(&me.config_at_load(), &config);
        let warnings: Vec<String> = config.warnings.iter().map(|w| w.to_string()).collect();
        let mut plan = {
            let mut locked = me.lock();
            // A turn parked on the generation this start adopted is its first.
            let parked_turn = locked.readiness.has_parked_turn();
            let withdraw = locked.latches.leave_stale_native(holds);
            let mut plan =
                locked
                    .latches
                    .begin_session(parked_turn, begin.commands.as_deref(), &warnings);
            plan.withdraw_server |= withdraw;
            plan
        };
        if config.project_ignored {
            let notice = config::untrusted_project_notice(&config.sidecars.project);
            if state.first_trust_notice(&notice) {
                plan.notices.push(notice);
            }
        }
        plan
    }

    /// The step the own client's start adds: its skew warning and its first
    /// listing, when it started.
    pub fn session_started(&self, started: OwnStartResult) -> SessionAction {
        if started.status != OwnStartResultStatus::Started {
            return no_action();
        }
        SessionAction {
            notices: started.user_warning.into_iter().collect(),
            catalogue: Some(started.catalogue),
            ..no_action()
        }
    }

    /// The end of a step that ends a `session_start` or a first turn: the
    /// warning of a panic caught since the last one (once per session),
    /// then the footer.
    pub fn end_step(
        &self,
        notices: &mut Vec<String>,
        pi_tools: Option<&[String]>,
        panics: &[String],
    ) -> Option<String> {
        notices.extend(self.panic_notice(panics));
        self.footer(pi_tools)
    }

    /// The own client's start for a `session_start` and its last step;
    /// `on_listing` gets the step of each later listing that changes the tools.
    pub async fn start_session(
        &self,
        pi_tools: Option<&[String]>,
        on_listing: impl Fn(SessionAction) + Send + Sync + 'static,
    ) -> SessionAction {
        let on_catalogue = move |update| on_listing(catalogue_action(update));
        let panicked = || self.start_panicked();
        let started = guard::guard_async(panicked, self.start_own_client(on_catalogue)).await;
        guard::guard_sync(no_action, || {
            let mut action = self.session_started(started);
            self.end_session_step(&mut action, pi_tools);
            action
        })
    }

    /// [`Self::end_step`] for a `session_start`'s last step, with the panics
    /// caught since the last report.
    pub fn end_session_step(&self, action: &mut SessionAction, pi_tools: Option<&[String]>) {
        action.footer = self.end_step(&mut action.notices, pi_tools, &guard::take_recorded());
    }

    /// The footer status for Pi's tool names, `None` without a UI.
    pub fn footer(&self, pi_tools: Option<&[String]>) -> Option<String> {
        let request = StatusRequest {
            pi_tools: pi_tools?.to_vec(),
        };
        Some(self.status_view(&request).footer).filter(|footer| !footer.is_empty())
    }

    /// The `session_start` with `ticket` ended: the turns parked on its
    /// generation, to release, unless a newer `session_start` adopted that generation.
    pub fn end_session(&self, ticket: u32) -> Vec<Parked> {
        self.instance()
            .map(|me| me.lock().readiness.close_ticket(ticket))
            .unwrap_or_default()
    }

    /// A first turn waits for readiness: `Err(turn)` when it need not wait
    /// (the barrier is released, or there is no instance), else the
    /// instance's state and the parked turn's id, for
    /// [`Extension::expire_turn`].
    pub fn park_turn(&self, turn: Parked) -> Result<(Arc<InstanceState>, u64), Parked> {
        let Some(me) = self.instance() else {
            return Err(turn);
        };
        let id = me.lock().readiness.park(turn)?;
        Ok((me, id))
    }

    /// The cap of a parked turn: its waiter when the cap expired first.
    pub async fn expire_turn(me: Arc<InstanceState>, id: u64, cap: Duration) -> Option<Parked> {
        readiness::expire(cap, || me.lock().readiness.give_up(id)).await
    }

    /// The plan of one `before_agent_start`, taken before any await.
    pub fn plan_turn(&self, event: Option<TurnEvent>) -> TurnPlan {
        let (Some(event), Some(me)) = (event, self.instance()) else {
            return no_turn();
        };
        let (prompt, message_type) = (event.prompt.as_deref(), event.message_type.as_deref());
        let locked = &mut *me.lock();
        let prompt_context = locked.config.prompt_context;
        locked
            .latches
            .take_turn(prompt_context, prompt, message_type)
    }

    /// The async half of a planned turn.
    pub async fn run_turn(&self, request: TurnRequest) -> TurnResult {
        let Some(me) = self.instance() else {
            return no_result();
        };
        // Only read when the plan asked for the entries.
        let entries = request
            .context_entries
            .as_ref()
            .and_then(|entries| serde_json::to_value(entries).ok())
            .unwrap_or_default();
        let in_context = texts::briefing_in_context(&entries);
        match request.plan.turn {
            TurnPlanTurn::First => first_turn(&self.module, &me, &request, in_context).await,
            TurnPlanTurn::Later => later_turn(&me, &request, in_context).await,
            TurnPlanTurn::None => no_result(),
        }
    }

    /// The rest of a planned turn once its readiness wait ended (`ready`):
    /// the native tool poll, the hook, and what the glue applies. `tool_names`
    /// reads Pi's tool names on Pi's thread; `has_ui` asks for the footer a
    /// first turn ends with.
    pub async fn finish_turn<F>(
        &self,
        turn: PlannedTurn,
        ready: bool,
        tool_names: impl Fn() -> F,
        panics: impl FnOnce() -> Vec<String>,
    ) -> TurnAction
    where
        F: Future<Output = Option<Vec<String>>>,
    {
        let PlannedTurn {
            plan,
            cwd,
            session_id,
            context_entries,
            has_ui,
        } = turn;
        let ready = match &plan.native_wait {
            Some(wait) => latches::wait_for_tools(wait, &tool_names).await,
            None => ready,
        };
        let first = plan.turn == TurnPlanTurn::First;
        let request = TurnRequest {
            plan,
            cwd,
            session_id,
            ready,
            context_entries,
        };
        let result = self.run_turn(request).await;
        let mut action = TurnAction {
            message: result.message,
            notices: result.notices,
            footer: None,
        };
        if first {
            let names = match has_ui {
                true => Some(tool_names().await.unwrap_or_default()),
                false => None,
            };
            action.footer = self.end_step(&mut action.notices, names.as_deref(), &panics());
        }
        action
    }

    /// The warning for `panics` (caught since the last call), once per session.
    pub fn panic_notice(&self, panics: &[String]) -> Option<String> {
        let me = self.instance()?;
        let notice = me.lock().latches.panic_notice(panics);
        notice
    }
}

/// What [`Extension::session_opening`] answers.
#[derive(Debug)]
pub struct SessionOpening {
    /// For [`Extension::end_session`] once the last step was applied.
    pub ticket: u32,
    pub action: SessionAction,
    /// Whether [`Extension::start_session`] follows.
    pub start: bool,
}

/// A turn planned on Pi's thread, with what the glue read there.
#[derive(Debug)]
pub struct PlannedTurn {
    pub plan: TurnPlan,
    pub cwd: String,
    pub session_id: String,
    /// The session's context entries, read only when the plan asked.
    pub context_entries: Option<Vec<ContextEntry>>,
    /// Whether the user has a UI (a first turn then ends with the footer).
    pub has_ui: bool,
}

/// The prompt guidance for this turn, when the plan carries a prompt.
async fn prompt_guidance(
    me: &InstanceState,
    config: &Arc<config::ResolvedConfig>,
    prompt: Option<&str>,
    context: &EnvelopeContext,
) -> Option<String> {
    let envelope = hook::envelope_for_prompt(prompt?, context)?;
    let run = me.run_hook(config, envelope).await;
    hook::prompt_guidance(&run.decision).map(str::to_string)
}

/// Runs the session hook once and assembles the hidden message. Takes
/// (clears) the import's start error and version warning and keeps the
/// briefing.
async fn first_turn(
    state: &ModuleState,
    me: &InstanceState,
    request: &TurnRequest,
    briefing_in_context: bool,
) -> TurnResult {
    let config = me.config();
    let run = me
        .run_hook(&config, hook::envelope_for_session_start(&request.cwd))
        .await;
    let orientation = hook::orientation(&run.decision).map(str::to_string);
    let mut notices = Vec::new();
    let mut version_warning = state.take_version_warning();
    state.lock().status.record_briefing(orientation.as_deref());
    if me.lock().latches.native {
        let version = orientation
            .as_deref()
            .map(crate::version::version_from_briefing);
        state
            .lock()
            .status
            .record_native_first_turn(version, request.ready);
        if let Some(skew) = orientation.as_deref().and_then(texts::skew_from_briefing) {
            notices.push(skew.user_text);
            version_warning = Some(skew.model_text);
        }
    }
    let guidance = prompt_guidance(
        me,
        &config,
        request.plan.prompt.as_deref(),
        &context(request),
    )
    .await;
    let start_error = state.take_start_error();
    let message = texts::first_turn_message(&FirstTurn {
        start_error: start_error.as_deref(),
        ready: request.ready,
        version_warning: version_warning.as_deref(),
        orientation: orientation.as_deref(),
        briefing_in_context,
        prompt_context: guidance.as_deref(),
    });
    me.lock().latches.set_briefing(orientation);
    TurnResult {
        message: message.map(hidden_message),
        notices,
    }
}

/// The compaction re-send and the prompt guidance.
async fn later_turn(me: &InstanceState, request: &TurnRequest, in_context: bool) -> TurnResult {
    let briefing = me.lock().latches.briefing().map(str::to_string);
    let resend = texts::compaction_resend(request.plan.compacted, briefing.as_deref(), in_context);
    let config = me.config();
    let guidance = prompt_guidance(
        me,
        &config,
        request.plan.prompt.as_deref(),
        &context(request),
    )
    .await;
    TurnResult {
        message: latches::later_turn_message(resend, guidance).map(hidden_message),
        notices: Vec::new(),
    }
}

fn context(request: &TurnRequest) -> EnvelopeContext {
    EnvelopeContext {
        cwd: request.cwd.clone(),
        session_id: request.session_id.clone(),
    }
}

#[cfg(test)]
mod tests;
