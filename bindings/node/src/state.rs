//! What one module generation holds (SES-1) and what one instance holds
//! (SES-2): the generation's shared state behind private fields, and the one
//! `lock` helper every module uses.
//!
//! Lock order, when two are held at once: `registry` before `known` (client),
//! and `instances` is only held long enough to clone one instance out. No
//! other lock is ever taken while one of these is held.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use pi_gortex_runtime::config::ResolvedConfig;
use pi_gortex_runtime::instance::InstanceLatches;

/// Locks a mutex, recovering the data of a poisoned one: a panic elsewhere
/// (already contained by the guard) must not disable the bridge.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The Rust-side state of one factory call: its configuration and every
/// latch the instance keeps between Pi events.
#[derive(Debug)]
pub struct InstanceState {
    /// The configuration in effect: the factory's (CFG-1), narrowed to
    /// `untrusted` while the host reports the project untrusted (CFG-19).
    config: Mutex<Arc<ResolvedConfig>>,
    /// The factory's resolution with the project sidecar honoured: what the
    /// native registration was made from.
    trusted: Arc<ResolvedConfig>,
    /// The same resolution with the project sidecar left out (CFG-19).
    untrusted: Arc<ResolvedConfig>,
    /// The session latches (SES-4..15, NAT-5/6, FAIL-4).
    pub latches: Mutex<InstanceLatches>,
    /// The session cwd the factory saw: the children's working directory,
    /// so they never inherit whatever the host's cwd is later (MCP-2).
    pub cwd: std::path::PathBuf,
}

/// The SES-1 state of one generation.
#[derive(Default)]
pub struct GenerationState {
    /// CFG-19: the trust notices this generation gave (one per folder, not
    /// one per session: `/new` makes a new session, not a new generation).
    trust_noticed: Mutex<std::collections::HashSet<String>>,
    /// SES-9 bridge error, reported once on the first turn (SES-13, FAIL-5).
    bridge_error: Mutex<Option<String>>,
    /// Pending MCP-23 model line, delivered once with the first-turn text.
    version_warning: Mutex<Option<String>>,
    /// TOOL-5 registry: registered Pi name to daemon name.
    registry: Mutex<HashMap<String, String>>,
    /// Instances created from this generation, by id.
    instances: Mutex<HashMap<u32, Arc<InstanceState>>>,
    /// The own client's slot and in-flight calls (SES-7, SES-16, MCP-30).
    pub client: crate::client::ClientState,
    /// The edit watcher and shell tracker (DIFF-15..20).
    pub watcher: crate::watcher::WatcherState,
    /// What the footer status and `/gortex` report (STAT-1, STAT-2).
    pub status: Mutex<crate::status::StatusRecord>,
}

impl InstanceState {
    /// The configuration in effect.
    pub fn config(&self) -> Arc<ResolvedConfig> {
        lock(&self.config).clone()
    }

    /// The resolution the factory acted on (native registration, CFG-19).
    pub fn config_at_load(&self) -> Arc<ResolvedConfig> {
        self.trusted.clone()
    }

    /// CFG-19: puts the resolution for the host's trust answer in effect
    /// and returns it.
    pub fn apply_trust(&self, trusted: bool) -> Arc<ResolvedConfig> {
        let chosen = if trusted {
            self.trusted.clone()
        } else {
            self.untrusted.clone()
        };
        *lock(&self.config) = chosen.clone();
        chosen
    }
}

impl GenerationState {
    /// Records an instance's two resolutions (with and without the project
    /// sidecar) and session cwd (CFG-1, CFG-19). The first is in effect
    /// until a session start reports the project untrusted.
    pub fn add_instance(
        &self,
        instance: u32,
        trusted: Arc<ResolvedConfig>,
        untrusted: Arc<ResolvedConfig>,
        cwd: std::path::PathBuf,
    ) {
        let state = InstanceState {
            config: Mutex::new(trusted.clone()),
            trusted,
            untrusted,
            latches: Mutex::new(InstanceLatches::default()),
            cwd,
        };
        lock(&self.instances).insert(instance, Arc::new(state));
    }

    /// CFG-19: true the first time this generation gives `notice`.
    pub fn first_trust_notice(&self, notice: &str) -> bool {
        lock(&self.trust_noticed).insert(notice.to_string())
    }

    /// An instance, if the factory resolved its configuration.
    pub fn instance(&self, instance: u32) -> Option<Arc<InstanceState>> {
        lock(&self.instances).get(&instance).cloned()
    }

    /// The configuration of an instance, if the factory resolved one.
    pub fn config(&self, instance: u32) -> Option<Arc<ResolvedConfig>> {
        self.instance(instance).map(|state| state.config())
    }

    /// The session cwd of an instance (see [`InstanceState::cwd`]).
    pub fn cwd(&self, instance: u32) -> Option<std::path::PathBuf> {
        self.instance(instance).map(|state| state.cwd.clone())
    }

    /// Whether an instance is on the native path (NAT-2, NAT-6).
    pub fn is_native(&self, instance: u32) -> bool {
        self.instance(instance)
            .is_some_and(|state| lock(&state.latches).is_native())
    }

    /// Takes the bridge error (cleared once reported, FAIL-5).
    pub fn take_bridge_error(&self) -> Option<String> {
        lock(&self.bridge_error).take()
    }

    /// Records the bridge error of a failed start (SES-9).
    pub fn set_bridge_error(&self, error: String) {
        *lock(&self.bridge_error) = Some(error);
    }

    /// Takes the pending version warning (cleared once reported, MCP-23).
    pub fn take_version_warning(&self) -> Option<String> {
        lock(&self.version_warning).take()
    }

    /// Records the version warning of a skewed handshake (MCP-23).
    pub fn set_version_warning(&self, warning: String) {
        *lock(&self.version_warning) = Some(warning);
    }

    /// The daemon name of a registered tool (TOOL-5), also what the diff
    /// code classifies an own-client edit by.
    pub fn daemon_name(&self, registered: &str) -> Option<String> {
        lock(&self.registry).get(registered).cloned()
    }

    /// The TOOL-5 registry as (Pi name, daemon name) pairs (STAT-2).
    pub fn registry_entries(&self) -> Vec<(String, String)> {
        lock(&self.registry)
            .iter()
            .map(|(pi, daemon)| (pi.clone(), daemon.clone()))
            .collect()
    }

    /// Empties the registry when a new client starts (SES-7).
    pub fn clear_registry(&self) {
        lock(&self.registry).clear();
    }

    /// Applies one listing's changes to the registry (TOOL-5, HOOK-5):
    /// registered tools enter it, withdrawn ones leave, re-activated ones
    /// come back under the daemon name they were registered with.
    pub fn update_registry(
        &self,
        register: &[(String, String)],
        deactivate: &[String],
        activate: &[String],
    ) {
        let mut registry = lock(&self.registry);
        let mut known = lock(&self.client.known);
        for (name, daemon) in register {
            registry.insert(name.clone(), daemon.clone());
            known.insert(name.clone(), daemon.clone());
        }
        for name in deactivate {
            registry.remove(name);
        }
        for name in activate {
            if let Some(daemon) = known.get(name) {
                registry.insert(name.clone(), daemon.clone());
            }
        }
    }
}
