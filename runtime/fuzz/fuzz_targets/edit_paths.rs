//! libFuzzer entry for the `edit_paths` target; the body lives in `targets/edit_paths.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pi_gortex_fuzz::edit_paths::run(data));
