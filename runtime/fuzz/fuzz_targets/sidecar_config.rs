//! libFuzzer entry for the `sidecar_config` target; the body lives in `targets/sidecar_config.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_gortex_fuzz::sidecar_config::run(data));
