//! What the instance reports to the user: the footer status, `/gortex` (the
//! status block) and `/gortex doctor` (the doctor, run in process), and the
//! readiness refresh that clears the footer's `indexing`.
//!
//! The events record what they see into the import's [`StatusRecord`]; a
//! report joins it with what only the glue knows (Pi's tool names) into the
//! runtime's `StatusSnapshot`, which [`super::status`] words.
//!
//! [`StatusRecord`]: super::StatusRecord

use std::collections::{BTreeMap, HashMap};
use std::future::Future;

use pi_gortex_schema::host::{CommandReply, GortexCommand, StatusRequest, StatusView};

use super::status::{self, Command, ConnectionState, PathWhy, StatusSnapshot, ToolEntry};
use super::{guard, Extension};
use crate::config::ResolvedConfig;
use crate::hook;
use crate::native::{self, OwnClientReason};
use crate::savings::Savings;

/// What the glue shows when the status itself failed.
pub fn unavailable() -> StatusView {
    StatusView {
        footer: "gortex: down".into(),
        text: "Gortex bridge: status unavailable (internal error)\n".into(),
    }
}

fn path_why(
    config: &ResolvedConfig,
    taken: Option<PathWhy>,
    env: &HashMap<String, String>,
) -> PathWhy {
    taken.unwrap_or_else(|| {
        PathWhy::Own(if !config.native_mcp {
            OwnClientReason::NativeDisabled
        } else if native::resolve_binary(&config.bin, env).is_none() {
            OwnClientReason::BinaryDoesNotResolve
        } else {
            OwnClientReason::HostLacksNativeMcp
        })
    })
}

/// The net the footer shows (`−9.7k tok`): none with `stats_footer` off or
/// nothing counted.
fn footer_net(savings: Option<&Savings>, on: bool) -> Option<String> {
    let savings = savings.filter(|s| on && !s.is_empty())?;
    Some(status::footer_net(savings.net_tokens()))
}

impl Extension {
    /// The state as `/gortex` and the footer see it, with Pi's tool names.
    fn snapshot(&self, pi_tools: &[String]) -> Option<StatusSnapshot> {
        let me = self.instance()?;
        let state = &self.module;
        let config = &me.config();
        // `process_env`, not `std::env::vars`: one non-UTF-8 variable must not panic `/gortex` away.
        let env: HashMap<String, String> = crate::config::process_env();
        let (native, taken) = {
            let latches = &me.lock().latches;
            (latches.native, latches.path_taken())
        };
        // Sorted, so the block reads the same on every call; read before
        // the status record is (two short holds of the import's lock).
        let registry: BTreeMap<String, String> = match native {
            true => BTreeMap::new(),
            false => state.registry_entries().into_iter().collect(),
        };
        // Looked up on PATH before the import's lock is taken.
        let resolved_bin = native::resolve_binary(&config.bin, &env);
        let locked = state.lock();
        let record = &locked.status;
        let tools: Vec<ToolEntry> = if native {
            pi_tools
                .iter()
                .filter_map(|name| {
                    native::bare_tool_name(name).map(|bare| ToolEntry {
                        pi_name: name.clone(),
                        daemon_name: bare.to_string(),
                        promoted: false,
                    })
                })
                .collect()
        } else {
            registry
                .into_iter()
                .map(|(pi_name, daemon_name)| ToolEntry {
                    promoted: !record.initial_tools.contains(&pi_name),
                    pi_name,
                    daemon_name,
                })
                .collect()
        };
        let state_now = match (native, record.state) {
            (_, Some(ConnectionState::Down)) => ConnectionState::Down,
            (true, _) if !tools.is_empty() => ConnectionState::Connected,
            (true, _) => ConnectionState::Connecting,
            (false, Some(recorded)) => recorded,
            (false, None) => ConnectionState::Connecting,
        };
        Some(StatusSnapshot {
            state: state_now,
            path: path_why(config, taken, &env),
            configured_bin: config.bin.clone(),
            resolved_bin,
            daemon_version: record.daemon_version.clone(),
            readiness: record.readiness,
            daemon_autostart: config.daemon_autostart,
            tools,
            hook_mode: config.hook_mode.to_string(),
            enforce: config.enforce,
            hook: record.hook.clone(),
            config: status::config_entries(config),
            last_error: record.last_error.clone(),
            savings: config.stats.then(|| record.savings.clone()),
            savings_footer: config.stats_footer,
            stats_error: record.stats_error.clone(),
        })
    }

    /// The footer status and the `/gortex` block. The names and the net the
    /// footer was worded with are kept, for [`Self::footer_update`].
    pub fn status_view(&self, request: &StatusRequest) -> StatusView {
        let Some(snapshot) = self.snapshot(&request.pi_tools) else {
            return unavailable();
        };
        let net = footer_net(snapshot.savings.as_ref(), snapshot.savings_footer);
        self.module.lock().status.footer_shown = Some((request.pi_tools.clone(), net));
        StatusView {
            footer: status::footer(&snapshot),
            text: status::render(&snapshot),
        }
    }

    /// The footer again, worded with the names of the last one, when the net
    /// of what the graph saved it shows changed since (SAVE-2); `None` when no
    /// footer was shown yet (no UI) or it would read the same, which costs
    /// one lock and no status.
    pub fn footer_update(&self) -> Option<String> {
        let me = self.instance()?;
        let config = me.config();
        let names = {
            let locked = self.module.lock();
            let status = &locked.status;
            let (names, shown) = status.footer_shown.as_ref()?;
            let savings = config.stats.then_some(&status.savings);
            if *shown == footer_net(savings, config.stats_footer) {
                return None;
            }
            names.clone()
        };
        self.footer(Some(&names))
    }

    /// Whether a readiness refresh is due: the last briefing reported
    /// indexing (no cost on a turn otherwise).
    pub fn refresh_due(&self) -> bool {
        self.instance().is_some()
            && self
                .module
                .lock()
                .status
                .readiness
                .is_some_and(|r| r.is_indexing())
    }

    /// Asks the session hook for a fresh briefing when one is due (the last
    /// one reported indexing, and no other refresh runs); true when the
    /// readiness changed.
    pub async fn refresh_readiness(&self, cwd: &str) -> bool {
        let Some(me) = self.instance() else {
            return false;
        };
        if !self.module.lock().status.begin_refresh() {
            return false;
        }
        let argv = me.config().hook_argv.clone();
        let run = hook::run(&argv, &hook::envelope_for_session_start(cwd)).await;
        self.module
            .lock()
            .status
            .end_refresh(hook::orientation(&run.decision))
    }

    /// A refresh that panicked leaves the next one free to run.
    pub fn refresh_failed(&self) -> bool {
        self.module.lock().status.refreshing = false;
        false
    }

    /// A turn's readiness refresh: when the readiness changed and Pi has a
    /// UI (`names` reads its tool names, only then), the new footer.
    pub async fn refresh_footer(
        &self,
        cwd: &str,
        names: Option<impl Future<Output = Option<Vec<String>>>>,
    ) -> Option<String> {
        let failed = || self.refresh_failed();
        let changed = guard::guard_async(failed, self.refresh_readiness(cwd)).await;
        let names = names.filter(|_| changed)?.await.unwrap_or_default();
        guard::guard_sync(|| None, || self.footer(Some(&names)))
    }

    /// One `/gortex` command: the status block with a fresh footer, or the
    /// doctor run in process.
    pub async fn gortex_command(&self, command: GortexCommand) -> CommandReply {
        match status::command(&command.args) {
            Command::Doctor => {
                let output = crate::cli::run(status::doctor_argv(&command.cwd)).await;
                status::doctor_reply(&output)
            }
            Command::Stats => {
                // This session's record first, so the report includes it.
                let this = self.clone();
                let _ = tokio::task::spawn_blocking(move || this.record_stats(0)).await;
                let argv = ["pi-gortex"]
                    .into_iter()
                    .chain(command.args.split_whitespace());
                let output = crate::cli::run(argv.map(str::to_string)).await;
                status::doctor_reply(&output)
            }
            Command::Status => {
                self.refresh_readiness(&command.cwd).await;
                let request = StatusRequest {
                    pi_tools: command.pi_tools,
                };
                status::status_reply(self.status_view(&request))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::extension::ModuleState;
    use crate::version::Readiness;

    #[cfg(unix)]
    const WARMING: &str =
        "## Gortex Session Orientation\n\n⏳ Gortex daemon warming up (v0.64.4, 3s elapsed).";
    #[cfg(unix)]
    const READY: &str =
        "## Gortex Session Orientation\n\n✓ Gortex daemon ready (v0.64.4, uptime 5s).";

    /// An instance on the native path or not, with `hook` as its hook's argv.
    fn resolved(native: bool, native_mcp: bool, hook: Vec<String>) -> Extension {
        crate::extension::test_instance(&std::env::temp_dir(), &[], native, |config| {
            config.hook_argv = hook;
            config.native_mcp = native_mcp;
        })
    }

    fn names(tools: &[ToolEntry]) -> Vec<(&str, &str, bool)> {
        tools
            .iter()
            .map(|t| (t.pi_name.as_str(), t.daemon_name.as_str(), t.promoted))
            .collect()
    }

    #[test]
    fn a_native_snapshot_lists_pi_s_gortex_tools_and_is_connected_once_there_is_one() {
        let extension = resolved(true, true, Vec::new());
        let snapshot = extension.snapshot(&["read".into()]).unwrap();
        assert!(snapshot.tools.is_empty());
        assert_eq!(snapshot.state, ConnectionState::Connecting);
        let snapshot = extension
            .snapshot(&["read".into(), "mcp__gortex__search".into()])
            .unwrap();
        assert_eq!(
            names(&snapshot.tools),
            [("mcp__gortex__search", "search", false)]
        );
        assert_eq!(snapshot.state, ConnectionState::Connected);
        extension.module().lock().status.record_down("gone".into());
        let snapshot = extension.snapshot(&["mcp__gortex__search".into()]).unwrap();
        assert_eq!(snapshot.state, ConnectionState::Down);
        assert!(Extension::new(Arc::new(ModuleState::default()))
            .snapshot(&[])
            .is_none());
    }

    #[test]
    fn an_own_client_snapshot_marks_the_tools_registered_after_the_first_listing_promoted() {
        let extension = resolved(false, false, Vec::new());
        extension
            .module()
            .register_for_test(&[("search", "search"), ("find_usages", "find_usages")]);
        extension
            .module()
            .lock()
            .status
            .record_started("0.64.4", &["search".into()]);
        let snapshot = extension.snapshot(&[]).unwrap();
        assert_eq!(
            names(&snapshot.tools),
            [
                ("find_usages", "find_usages", true),
                ("search", "search", false)
            ]
        );
        assert_eq!(snapshot.state, ConnectionState::Connected);
        assert_eq!(
            snapshot.path,
            PathWhy::Own(OwnClientReason::NativeDisabled),
            "native_mcp off"
        );
    }

    #[test]
    fn a_refresh_is_due_only_for_an_instance_whose_last_briefing_said_indexing() {
        let extension = resolved(false, true, Vec::new());
        assert!(!extension.refresh_due(), "nothing reported");
        extension.module().lock().status.readiness = Some(Readiness::Ready);
        assert!(!extension.refresh_due());
        extension.module().lock().status.readiness = Some(Readiness::Warming);
        assert!(extension.refresh_due());
        let without_instance = Extension::new(Arc::new(ModuleState::default()));
        without_instance.module().lock().status.readiness = Some(Readiness::Warming);
        assert!(!without_instance.refresh_due());
    }

    #[test]
    fn a_failed_refresh_frees_the_next_one() {
        let extension = resolved(false, true, Vec::new());
        extension.module().lock().status.readiness = Some(Readiness::Warming);
        assert!(extension.module().lock().status.begin_refresh());
        assert!(!extension.refresh_failed());
        assert!(
            extension.module().lock().status.begin_refresh(),
            "free again"
        );
    }

    // Unix only: the hook double is a shell script (the Windows exchange: `test_hook_windows`).
    #[cfg(unix)]
    #[tokio::test]
    async fn a_refresh_that_finds_the_daemon_ready_gives_the_new_footer() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("hook.sh");
        let decision = serde_json::json!({ "orientation": READY }).to_string();
        std::fs::write(
            &hook,
            format!("#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '{decision}'\n"),
        )
        .unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let extension = resolved(false, true, vec![hook.to_string_lossy().into_owned()]);
        let names = || async { Some(Vec::<String>::new()) };
        assert_eq!(
            extension.refresh_footer("/w", Some(names())).await,
            None,
            "not due"
        );
        extension
            .module()
            .lock()
            .status
            .record_briefing(Some(WARMING));
        let footer = extension.refresh_footer("/w", Some(names())).await;
        assert!(footer.is_some(), "the readiness changed");
        assert_eq!(
            extension.module().lock().status.readiness,
            Some(Readiness::Ready)
        );
        assert!(
            !extension.refresh_readiness("/w").await,
            "ready: nothing more"
        );
    }
}
