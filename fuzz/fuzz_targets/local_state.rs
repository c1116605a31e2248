//! Fuzz target `local_state`: `majordomus_fuzzing::target("local_state")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("local_state") {
        entry(data);
    }
});
