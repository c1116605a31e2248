//! Fuzz target `read_model`: `majordomus_fuzzing::target("read_model")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("read_model") {
        entry(data);
    }
});
