//! Fuzz target bodies, one module per target, shared by two harnesses: the
//! libFuzzer binaries in `runtime/fuzz/fuzz_targets/` (nightly flags, run by
//! `make fuzz`) and `runtime/tests/test_fuzz_corpus_regression.rs` (stable,
//! replays every committed corpus file in `make test`). Each `run` must
//! never panic on any input; where the code under test has an independent
//! property (chunking does not change frames, a diff rebuilds both texts,
//! no candidate leaves the session's directories) the body asserts it, so a
//! wrong answer is a crash just like a panic.

pub mod call_result;
pub mod diff_engine;
pub mod edit_paths;
pub mod framing;
pub mod hook_decision;
pub mod input;
pub mod mcp_frame;
pub mod sidecar_config;

/// A target body: takes one input, panics on a crash or a wrong answer.
pub type Target = fn(&[u8]);

/// Every target by name: the corpus directory `runtime/fuzz/corpus/<name>/`
/// and the libFuzzer binary share the name.
pub const TARGETS: [(&str, Target); 7] = [
    ("framing", framing::run),
    ("mcp_frame", mcp_frame::run),
    ("call_result", call_result::run),
    ("hook_decision", hook_decision::run),
    ("sidecar_config", sidecar_config::run),
    ("edit_paths", edit_paths::run),
    ("diff_engine", diff_engine::run),
];
