//! Fuzz target `mcp`: `majordomus::fuzzing::target("mcp")` (see src/fuzzing.rs).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(entry) = majordomus::fuzzing::target("mcp") {
        entry(data);
    }
});
