//! Module-generation handles and per-instance handles.
//!
//! The addon stays loaded for the life of the Node process, while Pi
//! re-imports the entry module on every `/reload`. State that must be shared
//! by the instances of one import, and fresh after the next import, is
//! therefore keyed by a generation handle that index.ts creates once per
//! import. Handles are plain integers so that async exports can carry them
//! across the tokio boundary without borrowing a JS object.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pi_gortex_runtime::extension::ModuleState;

static NEXT_HANDLE: AtomicU32 = AtomicU32::new(1);

fn table() -> &'static Mutex<HashMap<u32, Arc<ModuleState>>> {
    static TABLE: OnceLock<Mutex<HashMap<u32, Arc<ModuleState>>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Allocates a new generation and returns its handle.
pub fn create() -> u32 {
    // DIFF-7's repo-root cache belongs to the generation too.
    pi_gortex_runtime::diff::paths::clear_repo_root_cache();
    let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut table) = table().lock() {
        table.insert(handle, Arc::new(ModuleState::default()));
    }
    handle
}

/// The state of a generation, or a fresh throwaway one for an unknown handle
/// (fail open: a stale handle must not throw into a Pi handler).
pub fn get(handle: u32) -> Arc<ModuleState> {
    table()
        .lock()
        .ok()
        .and_then(|table| table.get(&handle).cloned())
        .unwrap_or_default()
}

/// A process-unique id for one factory call; the client slot records
/// which instance claimed it.
pub fn next_instance_id() -> u32 {
    NEXT_HANDLE.fetch_add(1, Ordering::Relaxed)
}
