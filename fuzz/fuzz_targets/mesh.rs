//! Fuzz target `mesh`: `majordomus_fuzzing::target("mesh")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("mesh") {
        entry(data);
    }
});
