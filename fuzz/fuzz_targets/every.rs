//! Fuzz binary `every`: one libFuzzer binary for every entry of `majordomus_fuzzing::TARGETS`
//! (see crates/fuzzing/src/lib.rs); the environment variable `MAJORDOMUS_FUZZ_TARGET` names the entry, so
//! each target's own corpus (`fuzz/corpus/<name>/`) goes through it unchanged. The bounded run of
//! `make test` (contrib/fuzz-smoke.sh) builds only this binary, once, instead of one per target.
#![no_main]

use std::sync::OnceLock;

static ENTRY: OnceLock<fn(&[u8])> = OnceLock::new();

libfuzzer_sys::fuzz_target!(
    init: {
        let name = std::env::var("MAJORDOMUS_FUZZ_TARGET").unwrap_or_default();
        let Some(entry) = majordomus_fuzzing::target(&name) else {
            let names: Vec<&str> = majordomus_fuzzing::TARGETS.iter().map(|(n, _)| *n).collect();
            eprintln!("every: MAJORDOMUS_FUZZ_TARGET={name:?} names no target; one of {}", names.join(", "));
            std::process::exit(2);
        };
        let _ = ENTRY.set(entry);
    },
    |data: &[u8]| {
        if let Some(entry) = ENTRY.get() {
            entry(data);
        }
    }
);
