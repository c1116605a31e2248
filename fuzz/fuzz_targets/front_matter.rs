//! Fuzz target `front_matter`: `majordomus::fuzzing::target("front_matter")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("front_matter") {
        entry(data);
    }
});
