//! Fuzz target `local_state`: `majordomus::fuzzing::target("local_state")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("local_state") {
        entry(data);
    }
});
