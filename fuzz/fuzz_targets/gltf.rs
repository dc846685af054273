//! Fuzz target: glTF import (.glb and .gltf), and export of what it imports.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check("gltf", data));
