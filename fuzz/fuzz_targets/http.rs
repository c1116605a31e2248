//! Fuzz target `http`: `majordomus::fuzzing::target("http")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("http") {
        entry(data);
    }
});
