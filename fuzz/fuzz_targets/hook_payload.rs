//! Fuzz target `hook_payload`: `majordomus_fuzzing::target("hook_payload")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("hook_payload") {
        entry(data);
    }
});
