//! Fuzz target `continuity_record`: `majordomus::fuzzing::target("continuity_record")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("continuity_record") {
        entry(data);
    }
});
