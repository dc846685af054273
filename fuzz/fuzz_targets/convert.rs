//! Fuzz target: any input, read as the tool would detect it (every format, glTF and
//! OBJ), converted into every writer and read back (see fuzz-checks' `check_convert`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_convert(data));
