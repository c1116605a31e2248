//! Fuzz target `portability`: `majordomus::fuzzing::target("portability")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("portability") {
        entry(data);
    }
});
