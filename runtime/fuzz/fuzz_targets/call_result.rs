//! libFuzzer entry for the `call_result` target; the body lives in `targets/call_result.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_gortex_fuzz::call_result::run(data));
