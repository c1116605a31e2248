//! Fuzz target `ledger`: `majordomus_fuzzing::target("ledger")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("ledger") {
        entry(data);
    }
});
