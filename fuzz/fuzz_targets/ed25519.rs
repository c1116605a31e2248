//! Fuzz target `ed25519`: `majordomus_fuzzing::target("ed25519")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("ed25519") {
        entry(data);
    }
});
