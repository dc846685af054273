//! Fuzz target: unigine-mesh files (see fuzz-checks for what is checked).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check("unigine-mesh", data));
