//! Fuzz target: OBJ import (the same bytes serve as the MTL library), and export of what
//! it imports.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check("obj", data));
