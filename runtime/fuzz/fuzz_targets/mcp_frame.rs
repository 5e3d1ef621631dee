//! libFuzzer entry for the `mcp_frame` target; the body lives in `targets/mcp_frame.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_gortex_fuzz::mcp_frame::run(data));
