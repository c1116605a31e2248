//! Fuzz target `ledger`: `majordomus::fuzzing::target("ledger")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("ledger") {
        entry(data);
    }
});
