//! Fuzz target `ed25519`: `majordomus::fuzzing::target("ed25519")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("ed25519") {
        entry(data);
    }
});
