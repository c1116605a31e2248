//! Fuzz target `continuity_record`: `majordomus_fuzzing::target("continuity_record")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("continuity_record") {
        entry(data);
    }
});
