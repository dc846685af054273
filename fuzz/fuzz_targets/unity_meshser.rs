//! Fuzz target: unity-meshser files (see fuzz-checks for what is checked).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check("unity-meshser", data));
