//! `session_start` and `before_agent_start`, each one [`Answer`]: the
//! binding converts what Pi handed it and settles the answer, nothing more.

use std::sync::Arc;
use std::time::Duration;

use pi_gortex_schema::host::TurnPlanTurn;
use pi_gortex_schema::host::{ContextEntry, SessionAction, SessionBegin, TurnAction, TurnEvent};

use super::{
    guard, no_turn_action, Answer, Extension, Hold, Parked, PlannedTurn, Reply, ToolNames,
};

/// Applies a session step in Pi, on Pi's thread, from any thread; `then`
/// runs there once it was applied. `false` when Pi is going away (the step
/// and `then` are dropped).
pub type Applier =
    Arc<dyn Fn(SessionAction, Option<Box<dyn FnOnce() + Send>>) -> bool + Send + Sync>;

/// Shows a footer in Pi's interface, from any thread.
pub type ShowFooter = Arc<dyn Fn(String) + Send + Sync>;

/// What a turn reads of Pi, besides its event.
pub struct TurnReads<E: FnOnce() -> Option<Vec<ContextEntry>>> {
    pub cwd: String,
    pub session_id: String,
    /// The session's context entries, read on Pi's thread only when the plan needs them.
    pub entries: E,
    /// Pi's tool names.
    pub tool_names: ToolNames,
    /// The footer's way to Pi; `None` without a UI.
    pub show_footer: Option<ShowFooter>,
}

/// The end of a `session_start`: its ticket goes back, releasing the first
/// turns parked on it, and then its answer. Dropped, as when Pi went away
/// before the last step was applied, it ends all the same.
struct SessionEnd {
    extension: Extension,
    ticket: u32,
    reply: Option<Reply<()>>,
}

impl Drop for SessionEnd {
    fn drop(&mut self) {
        self.extension.release_turns(self.ticket);
        if let Some(reply) = self.reply.take() {
            reply(());
        }
    }
}

impl Extension {
    /// `session_start`: its first step goes to `apply_now` (on Pi's thread);
    /// when the own client starts, the answer comes once it started and its
    /// last step was applied through `apply`, which also carries each later
    /// listing that changes the tools. The session's ticket goes back after
    /// the last step, so a first turn parked on it sees the tools registered.
    pub fn session_start(
        &self,
        begin: Option<SessionBegin>,
        pi_tools: Option<Vec<String>>,
        apply_now: impl FnOnce(SessionAction),
        apply: Applier,
    ) -> Answer<()> {
        let opening = self.session_opening(begin, pi_tools.as_deref());
        apply_now(opening.action);
        if !opening.start {
            self.release_turns(opening.ticket);
            return Answer::Now(());
        }
        let this = self.clone();
        Answer::Later(Box::new(move |reply| {
            tokio::spawn(async move {
                let listing = apply.clone();
                let on_listing = move |action| {
                    listing(action, None);
                };
                let action = this.start_session(pi_tools.as_deref(), on_listing).await;
                let end = SessionEnd {
                    extension: this,
                    ticket: opening.ticket,
                    reply: Some(reply),
                };
                apply(action, Some(Box::new(move || drop(end))));
            });
        }))
    }

    /// Releases the first turns parked on `ticket`: their session became ready.
    fn release_turns(&self, ticket: u32) {
        for turn in self.end_session(ticket) {
            turn.open(true);
        }
    }

    /// `before_agent_start`, planned before any await; `None` when the turn
    /// has nothing to do. A first turn waits (capped, holding the host only
    /// once that wait ended) for the `session_start` that registers the
    /// tools, on the native path for Pi's tools, then runs the hook. While
    /// the daemon reports indexing, the session hook is asked again off the
    /// turn and a changed footer goes to Pi.
    pub fn before_agent_start<E: FnOnce() -> Option<Vec<ContextEntry>>>(
        &self,
        event: Option<TurnEvent>,
        reads: TurnReads<E>,
    ) -> Answer<Option<TurnAction>> {
        let refresh = self.refresh_due();
        let plan = self.plan_turn(event);
        if plan.turn == TurnPlanTurn::None && !refresh {
            return Answer::Now(None);
        }
        let context_entries = plan.read_context.then(reads.entries).flatten();
        let wait = plan
            .ready_wait_ms
            .map(|cap| Duration::from_millis(cap.into()));
        let turn = PlannedTurn {
            plan,
            cwd: reads.cwd.clone(),
            session_id: reads.session_id,
            context_entries,
            has_ui: reads.show_footer.is_some(),
        };
        let (this, names) = (self.clone(), reads.tool_names);
        let start = move |reply: Reply<Option<TurnAction>>, hold: Hold| {
            if refresh {
                tokio::spawn(
                    this.clone()
                        .refresh(reads.cwd, names.clone(), reads.show_footer),
                );
            }
            if turn.plan.turn == TurnPlanTurn::None {
                return reply(None);
            }
            let (open, opened) = tokio::sync::oneshot::channel();
            this.wait_ready(
                wait,
                Parked::new(move |ready| {
                    hold();
                    let _ = open.send(ready);
                }),
            );
            tokio::spawn(async move {
                let ready = opened.await.unwrap_or(false);
                let finished = this.finish_turn(turn, ready, || names(), guard::take_recorded);
                reply(Some(guard::guard_async(no_turn_action, finished).await));
            });
        };
        match wait {
            Some(_) => Answer::Parked(Box::new(start)),
            None => Answer::Later(Box::new(move |reply| start(reply, Box::new(|| ())))),
        }
    }

    /// A first turn's readiness wait: parked until its session start ends
    /// or `cap` expires; opened at once when it need not wait.
    fn wait_ready(&self, cap: Option<Duration>, turn: Parked) {
        let parked = match cap {
            Some(cap) => self.park_turn(turn).map(|parked| (parked, cap)),
            None => Err(turn),
        };
        match parked {
            Ok(((me, id), cap)) => {
                tokio::spawn(async move {
                    if let Some(turn) = Extension::expire_turn(me, id, cap).await {
                        turn.open(false);
                    }
                });
            }
            Err(turn) => turn.open(true),
        }
    }

    /// The readiness refresh of a turn: when the readiness changed, the new
    /// footer, worded with Pi's tool names, goes to `show`.
    async fn refresh(self, cwd: String, names: ToolNames, show: Option<ShowFooter>) {
        let names = show.is_some().then(|| names());
        if let (Some(footer), Some(show)) = (self.refresh_footer(&cwd, names).await, show) {
            show(footer);
        }
    }
}
