//! Fuzz target `policy`: `majordomus_fuzzing::target("policy")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("policy") {
        entry(data);
    }
});
