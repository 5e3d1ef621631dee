//! What one module generation holds (SES-1) and what one instance holds
//! (SES-2, the parts that live on the Rust side).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use pi_gortex_runtime::config::ResolvedConfig;

/// The Rust-side state of one factory call.
#[derive(Debug, Clone)]
pub struct InstanceState {
    /// The configuration in effect: resolved when the factory ran (CFG-1),
    /// then narrowed to `untrusted` if the host reports the project
    /// untrusted (CFG-19).
    pub config: Arc<ResolvedConfig>,
    /// The factory's resolution with the project sidecar honoured.
    pub trusted: Arc<ResolvedConfig>,
    /// The same resolution with the project sidecar left out.
    pub untrusted: Arc<ResolvedConfig>,
}

/// The SES-1 state of one generation.
#[derive(Default)]
pub struct GenerationState {
    /// SES-9 bridge error, reported once on the first turn (SES-13, FAIL-5).
    pub bridge_error: Mutex<Option<String>>,
    /// Pending MCP-23 model line, delivered once with the first-turn text.
    pub version_warning: Mutex<Option<String>>,
    /// TOOL-5 registry: registered Pi name to daemon name.
    pub registry: Mutex<HashMap<String, String>>,
    /// Instances created from this generation, by id.
    pub instances: Mutex<HashMap<u32, InstanceState>>,
    /// The own client's slot and in-flight calls (SES-7, SES-16, MCP-30).
    pub client: crate::client::ClientState,
    /// The edit watcher and shell tracker (DIFF-15..20).
    pub watcher: crate::watcher::WatcherState,
}

/// Locks a mutex, recovering the data of a poisoned one: a panic elsewhere
/// (already contained by the guard) must not disable the bridge.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl GenerationState {
    /// The configuration of an instance, if the factory resolved one.
    pub fn config(&self, instance: u32) -> Option<Arc<ResolvedConfig>> {
        lock(&self.instances)
            .get(&instance)
            .map(|state| state.config.clone())
    }

    /// Takes the bridge error (cleared once reported, FAIL-5).
    pub fn take_bridge_error(&self) -> Option<String> {
        lock(&self.bridge_error).take()
    }

    /// Takes the pending version warning (cleared once reported, MCP-23).
    pub fn take_version_warning(&self) -> Option<String> {
        lock(&self.version_warning).take()
    }
}
