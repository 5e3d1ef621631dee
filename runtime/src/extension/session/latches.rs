//! One extension instance's session state machine: the latches a Pi
//! instance keeps between events (the first turn, the briefing, a
//! compaction, the path taken, a panic reported) and the decisions made
//! from them.
//!
//! The glue only reads Pi and applies the answer; it keeps no latch of its
//! own. Each `extension::Extension` holds one [`InstanceLatches`] behind a
//! lock and hands it each event's facts. Everything here is pure, so
//! each rule is a unit test with no Pi present.

use std::future::Future;
use std::time::{Duration, Instant};

use pi_gortex_schema::host::{SessionPlan, ToolWait, TurnPlan, TurnPlanTurn};

use super::texts::{self, HiddenMessage};
use crate::extension::status::PathWhy;
use crate::native::{self, OwnClientReason};

/// The cap of the first turn's readiness wait.
pub const READY_WAIT_MS: u32 = 15_000;
/// How long the first turn polls `getAllTools()` for a gortex tool.
pub const NATIVE_WAIT_MS: u32 = 5_000;
/// The poll interval. Pi lists a fast server's tools some tens of ms into
/// the first turn, and each step of the poll is time the first turn waits
/// past that; one poll costs microseconds, so even a server that takes the
/// whole budget costs well under 1% of a core (`make bench-startup`).
pub const NATIVE_POLL_MS: u32 = 2;
/// How long a `tools_search` result waits for its promoted tools.
pub const PROMOTION_WAIT_MS: u32 = 2_000;
/// The poll interval.
pub const PROMOTION_POLL_MS: u32 = 20;
/// The command a native MCP connector registers.
pub const MCP_COMMAND: &str = "mcp";

/// The one warning a caught core panic produces per session.
pub fn panic_warning(message: &str) -> String {
    format!("pi-gortex hit an internal error and continued without that step ({message}).")
}

/// CFG warnings: one notice naming every configuration problem, or `None`.
pub fn config_notice(warnings: &[String]) -> Option<String> {
    (!warnings.is_empty()).then(|| format!("pi-gortex configuration: {}", warnings.join("; ")))
}

/// The prompt of this turn that goes to the hook: only with prompt
/// context on, only a user message (an absent type counts as one), never
/// an empty prompt.
pub fn user_prompt<'a>(
    prompt_context: bool,
    prompt: Option<&'a str>,
    message_type: Option<&str>,
) -> Option<&'a str> {
    if !prompt_context || message_type.is_some_and(|kind| kind != "user") {
        return None;
    }
    prompt.filter(|prompt| !prompt.is_empty())
}

/// Whether a `/mcp` connector is loaded. A command list Pi could not
/// give (`None`) counts as present: withdrawing the server on a host error
/// would cost the session its tools.
pub fn has_mcp_connector(commands: Option<&[String]>) -> bool {
    commands.is_none_or(|names| names.iter().any(|name| name == MCP_COMMAND))
}

/// The first turn's poll for any native gortex tool.
pub fn native_wait() -> ToolWait {
    ToolWait {
        names: None,
        budget_ms: NATIVE_WAIT_MS,
        poll_ms: NATIVE_POLL_MS,
    }
}

/// The wait for the promoted tools of a `tools_search` result.
pub fn promotion_wait(names: Vec<String>) -> ToolWait {
    ToolWait {
        names: Some(names),
        budget_ms: PROMOTION_WAIT_MS,
        poll_ms: PROMOTION_POLL_MS,
    }
}

/// Polls Pi's tool names within the wait's budget until they satisfy it.
pub async fn wait_for_tools<F>(wait: &ToolWait, tool_names: impl Fn() -> F) -> bool
where
    F: Future<Output = Option<Vec<String>>>,
{
    let deadline = Instant::now() + Duration::from_millis(wait.budget_ms.into());
    loop {
        if let Some(names) = tool_names().await {
            if tools_ready(wait, &names) {
                return true;
            }
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(wait.poll_ms.into())).await;
    }
}

/// Whether `present` (Pi's tool names) satisfies `wait`.
pub fn tools_ready(wait: &ToolWait, present: &[String]) -> bool {
    match &wait.names {
        None => native::native_tools_present(present.iter().map(String::as_str)),
        Some(names) => names.iter().all(|name| present.contains(name)),
    }
}

/// The message of a later turn: the compaction re-send,
/// the prompt guidance, or both joined.
pub fn later_turn_message(
    resend: Option<HiddenMessage>,
    guidance: Option<String>,
) -> Option<HiddenMessage> {
    match (resend, guidance) {
        (Some(mut message), Some(guidance)) => {
            message.content = format!("{}{}{}", message.content, texts::PART_JOINER, guidance);
            Some(message)
        }
        (Some(message), None) => Some(message),
        (None, Some(guidance)) => Some(HiddenMessage::new(guidance, false)),
        (None, None) => None,
    }
}

/// The latches of one extension instance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstanceLatches {
    /// The session's first turn has been taken.
    first_turn_taken: bool,
    /// The briefing the first turn received.
    briefing: Option<String>,
    /// A compaction happened since the last turn.
    compacted: bool,
    /// This session already showed a panic warning.
    panic_reported: bool,
    /// CFG: the configuration notice was shown (once per instance).
    config_warned: bool,
    /// The instance is on the native path.
    pub(in crate::extension) native: bool,
    /// Why `registerMcpServer` refused, told at each session start.
    pub(in crate::extension) refusal: Option<String>,
    /// The native registration was withdrawn for want of a connector.
    withdrawn: bool,
    /// The native registration was withdrawn because it came from a
    /// project sidecar that this untrusted folder does not honour.
    left_untrusted: bool,
}

impl InstanceLatches {
    /// An instance on the native path or not.
    pub fn new(native: bool) -> Self {
        Self {
            native,
            ..Self::default()
        }
    }

    /// The path as the latches know it: native, refused or
    /// withdrawn for want of a connector. `None` when the instance
    /// took the own client at factory time; the status then reads why from
    /// the configuration.
    pub fn path_taken(&self) -> Option<PathWhy> {
        if self.native {
            return Some(PathWhy::Native);
        }
        if let Some(refusal) = &self.refusal {
            return Some(PathWhy::Refused(refusal.clone()));
        }
        if self.left_untrusted {
            return Some(PathWhy::ProjectUntrusted);
        }
        self.withdrawn
            .then_some(PathWhy::Own(OwnClientReason::NoMcpConnector))
    }

    /// The native registration is made at load, before trust is
    /// known, from the configuration that honours the project sidecar. When
    /// the configuration in effect for this session no longer matches it
    /// (`registration_holds` false, see
    /// [`crate::config::native_registration_holds`]), the instance leaves the
    /// native path for the own client, which reads the configuration in
    /// effect. True when the registration must be withdrawn.
    pub fn leave_stale_native(&mut self, registration_holds: bool) -> bool {
        if registration_holds || !self.native {
            return false;
        }
        self.native = false;
        self.left_untrusted = true;
        true
    }

    /// What a `session_start` does. `parked_turn`
    /// is true while a turn waits on the barrier: that turn is this
    /// session's first, so the latch stays set.
    pub fn begin_session(
        &mut self,
        parked_turn: bool,
        commands: Option<&[String]>,
        config_warnings: &[String],
    ) -> SessionPlan {
        self.briefing = None;
        self.compacted = false;
        self.panic_reported = false;
        if !parked_turn {
            self.first_turn_taken = false;
        }
        let mut notices = Vec::new();
        if !self.config_warned {
            self.config_warned = true;
            notices.extend(config_notice(config_warnings));
        }
        let mut plan = SessionPlan {
            notices,
            withdraw_server: false,
            start_own_client: true,
        };
        if self.native {
            if has_mcp_connector(commands) {
                plan.start_own_client = false;
                return plan;
            }
            // No connector; withdraw and latch the own client.
            self.native = false;
            self.withdrawn = true;
            plan.withdraw_server = true;
        }
        if let Some(reason) = &self.refusal {
            plan.notices.push(native::refusal_notice(reason));
        }
        plan
    }

    /// A compaction happened.
    pub fn on_compact(&mut self) {
        self.compacted = true;
    }

    /// What this `before_agent_start` does, decided
    /// before any suspension point so two concurrent first turns cannot both
    /// run the session hook.
    pub fn take_turn(
        &mut self,
        prompt_context: bool,
        prompt: Option<&str>,
        message_type: Option<&str>,
    ) -> TurnPlan {
        let prompt = user_prompt(prompt_context, prompt, message_type).map(str::to_string);
        if !self.first_turn_taken {
            self.first_turn_taken = true;
            return TurnPlan {
                turn: TurnPlanTurn::First,
                prompt,
                compacted: false,
                read_context: true,
                ready_wait_ms: Some(READY_WAIT_MS),
                native_wait: self.native.then(native_wait),
            };
        }
        let compacted = std::mem::take(&mut self.compacted);
        let turn = if compacted || prompt.is_some() {
            TurnPlanTurn::Later
        } else {
            TurnPlanTurn::None
        };
        TurnPlan {
            turn,
            prompt,
            compacted,
            read_context: compacted,
            ready_wait_ms: None,
            native_wait: None,
        }
    }

    /// The first turn's briefing, kept for a compaction re-send.
    pub fn set_briefing(&mut self, briefing: Option<String>) {
        self.briefing = briefing;
    }

    /// The cached briefing.
    pub fn briefing(&self) -> Option<&str> {
        self.briefing.as_deref()
    }

    /// The warning for `panics` (drained since the last call), shown
    /// at most once per session.
    pub fn panic_notice(&mut self, panics: &[String]) -> Option<String> {
        let first = panics.first()?;
        if self.panic_reported {
            return None;
        }
        self.panic_reported = true;
        Some(panic_warning(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn stat_2_the_path_taken_follows_the_native_refusal_and_withdrawal_latches() {
        let own = InstanceLatches::new(false);
        assert_eq!(own.path_taken(), None, "own client from the start");
        let mut native = InstanceLatches::new(true);
        native.begin_session(false, Some(&names(&["mcp"])), &[]);
        assert_eq!(native.path_taken(), Some(PathWhy::Native));
        let mut refused = InstanceLatches::new(true);
        refused.native = false;
        refused.refusal = Some("duplicate server".into());
        assert_eq!(
            refused.path_taken(),
            Some(PathWhy::Refused("duplicate server".into()))
        );
        let mut withdrawn = InstanceLatches::new(true);
        withdrawn.begin_session(false, Some(&names(&["other"])), &[]);
        assert_eq!(
            withdrawn.path_taken(),
            Some(PathWhy::Own(OwnClientReason::NoMcpConnector))
        );
        let mut untrusted = InstanceLatches::new(true);
        assert!(untrusted.leave_stale_native(false));
        untrusted.begin_session(false, Some(&names(&["mcp"])), &[]);
        assert_eq!(
            untrusted.path_taken(),
            Some(PathWhy::ProjectUntrusted),
            "CFG-19: /gortex names trust, not a missing connector"
        );
    }

    #[test]
    fn cfg_19_a_stale_native_registration_moves_to_the_own_client_once() {
        let mut latches = InstanceLatches::new(true);
        assert!(
            !latches.leave_stale_native(true),
            "a matching registration stays"
        );
        assert!(latches.native);
        assert!(
            latches.leave_stale_native(false),
            "a stale one is withdrawn"
        );
        assert!(!latches.native);
        let plan = latches.begin_session(false, None, &[]);
        assert!(plan.start_own_client, "the own client takes over");
        assert!(
            !latches.leave_stale_native(false),
            "withdrawn once; the own client stays latched"
        );
        let mut own = InstanceLatches::new(false);
        assert!(
            !own.leave_stale_native(false),
            "nothing to withdraw off the native path"
        );
    }

    #[test]
    fn ses_10_the_first_turn_is_planned_once_per_session() {
        let mut latches = InstanceLatches::new(false);
        latches.begin_session(false, None, &[]);
        let first = latches.take_turn(false, None, None);
        assert_eq!(first.turn, TurnPlanTurn::First);
        assert_eq!(first.ready_wait_ms, Some(READY_WAIT_MS));
        assert!(first.read_context);
        assert!(first.native_wait.is_none(), "own client: no tool poll");
        assert_eq!(
            latches.take_turn(false, None, None).turn,
            TurnPlanTurn::None
        );
        latches.begin_session(false, None, &[]);
        assert_eq!(
            latches.take_turn(false, None, None).turn,
            TurnPlanTurn::First
        );
    }

    #[test]
    fn ses_6_a_parked_turn_keeps_the_latch_and_state_is_reset() {
        let mut latches = InstanceLatches::new(false);
        latches.take_turn(false, None, None);
        latches.set_briefing(Some("b".into()));
        latches.on_compact();
        latches.begin_session(true, None, &[]);
        assert_eq!(latches.briefing(), None);
        let plan = latches.take_turn(false, None, None);
        assert_eq!(
            plan.turn,
            TurnPlanTurn::None,
            "the parked turn was the first"
        );
        assert!(!plan.compacted, "the compaction flag was cleared");
    }

    #[test]
    fn ses_15_a_later_turn_runs_after_compaction_or_with_a_prompt_only() {
        let mut latches = InstanceLatches::new(false);
        latches.take_turn(true, None, None);
        latches.on_compact();
        let plan = latches.take_turn(true, None, None);
        assert_eq!(
            (plan.turn, plan.compacted, plan.read_context),
            (TurnPlanTurn::Later, true, true)
        );
        assert_eq!(
            latches.take_turn(true, None, None).turn,
            TurnPlanTurn::None,
            "flag cleared"
        );
        let plan = latches.take_turn(true, Some("where is f"), None);
        assert_eq!((plan.turn, plan.read_context), (TurnPlanTurn::Later, false));
        assert_eq!(plan.prompt.as_deref(), Some("where is f"));
    }

    #[test]
    fn hook_15_only_a_user_prompt_with_prompt_context_on_goes_to_the_hook() {
        assert_eq!(user_prompt(true, Some("p"), None), Some("p"));
        assert_eq!(user_prompt(true, Some("p"), Some("user")), Some("p"));
        assert_eq!(user_prompt(true, Some("p"), Some("custom")), None);
        assert_eq!(user_prompt(false, Some("p"), None), None);
        assert_eq!(user_prompt(true, Some(""), None), None);
        let mut latches = InstanceLatches::new(false);
        latches.take_turn(false, None, None);
        assert_eq!(
            latches.take_turn(false, Some("p"), None).turn,
            TurnPlanTurn::None
        );
    }

    #[test]
    fn nat_6_no_connector_withdraws_and_latches_the_own_client() {
        let mut latches = InstanceLatches::new(true);
        let plan = latches.begin_session(false, Some(&names(&["mcp", "reload"])), &[]);
        assert_eq!(
            (plan.withdraw_server, plan.start_own_client),
            (false, false)
        );
        assert!(latches.take_turn(false, None, None).native_wait.is_some());
        let plan = latches.begin_session(false, None, &[]);
        assert!(
            !plan.start_own_client,
            "an unreadable command list counts as present"
        );
        let plan = latches.begin_session(false, Some(&names(&["reload"])), &[]);
        assert_eq!((plan.withdraw_server, plan.start_own_client), (true, true));
        assert!(!latches.native);
        let plan = latches.begin_session(false, Some(&names(&["reload"])), &[]);
        assert!(
            !plan.withdraw_server,
            "withdrawn once; the own client stays latched"
        );
    }

    #[test]
    fn nat_5_a_refusal_is_told_at_every_session_start_and_config_warnings_once() {
        let mut latches = InstanceLatches::new(true);
        latches.native = false;
        latches.refusal = Some("no".into());
        let warnings = names(&["bad sidecar", "bad env"]);
        let plan = latches.begin_session(false, None, &warnings);
        assert_eq!(
            plan.notices,
            vec![
                "pi-gortex configuration: bad sidecar; bad env".to_string(),
                native::refusal_notice("no"),
            ]
        );
        assert!(plan.start_own_client);
        let plan = latches.begin_session(false, None, &warnings);
        assert_eq!(plan.notices, vec![native::refusal_notice("no")]);
    }

    #[test]
    fn fail_4_one_panic_warning_per_session() {
        let mut latches = InstanceLatches::new(false);
        assert_eq!(latches.panic_notice(&[]), None);
        let panics = names(&["boom at x.rs:1", "second"]);
        assert_eq!(
            latches.panic_notice(&panics).as_deref(),
            Some(
                "pi-gortex hit an internal error and continued without that step (boom at x.rs:1)."
            )
        );
        assert_eq!(latches.panic_notice(&panics), None);
        latches.begin_session(false, None, &[]);
        assert!(
            latches.panic_notice(&panics).is_some(),
            "a new session reports again"
        );
    }

    #[test]
    fn nat_9_and_nat_15_tool_waits() {
        let present = names(&["read", "mcp__gortex__search"]);
        assert!(tools_ready(&native_wait(), &present));
        assert!(!tools_ready(
            &native_wait(),
            &names(&["read", "mcp__docs__x"])
        ));
        let wait = promotion_wait(names(&["mcp__gortex__search", "mcp__gortex__find_usages"]));
        assert!(!tools_ready(&wait, &present));
        assert!(tools_ready(
            &wait,
            &names(&["mcp__gortex__search", "mcp__gortex__find_usages"])
        ));
        assert_eq!((wait.budget_ms, wait.poll_ms), (2_000, 20));
        assert_eq!((native_wait().budget_ms, native_wait().poll_ms), (5_000, 2));
    }

    #[test]
    fn ses_15_later_turn_message_joins_resend_and_guidance() {
        let resend = Some(HiddenMessage::new("brief".into(), true));
        let joined = later_turn_message(resend.clone(), Some("g".into())).unwrap();
        assert_eq!(
            (joined.content.as_str(), joined.details.briefing),
            ("brief\n\ng", true)
        );
        assert_eq!(later_turn_message(resend.clone(), None), resend);
        let guidance = later_turn_message(None, Some("g".into())).unwrap();
        assert_eq!(
            (guidance.content.as_str(), guidance.details.briefing),
            ("g", false)
        );
        assert_eq!(later_turn_message(None, None), None);
    }
}
