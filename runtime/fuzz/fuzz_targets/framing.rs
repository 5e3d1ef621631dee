//! libFuzzer entry for the `framing` target; the body lives in `targets/framing.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_gortex_fuzz::framing::run(data));
