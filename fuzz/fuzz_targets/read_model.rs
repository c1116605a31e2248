//! Fuzz target `read_model`: `majordomus::fuzzing::target("read_model")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("read_model") {
        entry(data);
    }
});
