//! Fuzz target: the meshopt decoders (vertex, index, sequence, filters) on any bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::run_target("meshopt", data));
