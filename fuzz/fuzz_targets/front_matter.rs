//! Fuzz target `front_matter`: `majordomus_fuzzing::target("front_matter")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("front_matter") {
        entry(data);
    }
});
