//! Fuzz target `portability`: `majordomus_fuzzing::target("portability")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("portability") {
        entry(data);
    }
});
