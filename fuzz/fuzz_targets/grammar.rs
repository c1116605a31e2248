//! Fuzz target `grammar`: `majordomus_fuzzing::target("grammar")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("grammar") {
        entry(data);
    }
});
