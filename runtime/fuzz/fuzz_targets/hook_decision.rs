//! libFuzzer entry for the `hook_decision` target; the body lives in `targets/hook_decision.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_gortex_fuzz::hook_decision::run(data));
