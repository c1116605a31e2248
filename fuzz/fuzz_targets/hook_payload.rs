//! Fuzz target `hook_payload`: `majordomus::fuzzing::target("hook_payload")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("hook_payload") {
        entry(data);
    }
});
