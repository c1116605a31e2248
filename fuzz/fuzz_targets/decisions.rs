//! Fuzz target `decisions`: `majordomus::fuzzing::target("decisions")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("decisions") {
        entry(data);
    }
});
