//! Fuzz target `decisions`: `majordomus_fuzzing::target("decisions")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("decisions") {
        entry(data);
    }
});
