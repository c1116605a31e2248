//! Fuzz target `mesh`: `majordomus::fuzzing::target("mesh")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("mesh") {
        entry(data);
    }
});
