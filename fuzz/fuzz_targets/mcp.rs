//! Fuzz target `mcp`: `majordomus_fuzzing::target("mcp")` (see crates/fuzzing/src/lib.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus_fuzzing::target("mcp") {
        entry(data);
    }
});
