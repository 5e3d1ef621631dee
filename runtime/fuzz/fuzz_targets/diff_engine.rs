//! libFuzzer entry for the `diff_engine` target; the body lives in `targets/diff_engine.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_gortex_fuzz::diff_engine::run(data));
