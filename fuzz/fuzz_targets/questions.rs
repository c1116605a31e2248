//! Fuzz target `questions`: `majordomus::fuzzing::target("questions")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("questions") {
        entry(data);
    }
});
