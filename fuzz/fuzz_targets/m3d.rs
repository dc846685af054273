//! Fuzz target: m3d files (see fuzz-checks for what is checked).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check("m3d", data));
