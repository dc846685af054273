//! Fuzz target: M3D's ASCII form (inputs get the `3dmodel` header they lack; see
//! fuzz-checks).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::run_target("m3d_ascii", data));
