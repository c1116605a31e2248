//! Fuzz target `policy`: `majordomus::fuzzing::target("policy")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("policy") {
        entry(data);
    }
});
