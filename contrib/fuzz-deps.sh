#!/usr/bin/env bash
# Installs what `make fuzz` needs beyond the Rust toolchain, when it is missing: cargo-fuzz
# (libFuzzer driver, from crates.io, pinned to a 0.13 release). The fuzz crate (fuzz/) builds with
# the machine's stable toolchain under RUSTC_BOOTSTRAP=1, which unlocks the -Z flags cargo-fuzz
# passes (sanitizer, coverage); no nightly toolchain is installed. `make test` does not need this:
# it runs the fuzz targets' entry functions over the seed corpora in crates/fuzzing/tests/hostile.rs, and its
# bounded libFuzzer run (contrib/fuzz-smoke.sh) builds with plain cargo.
set -euo pipefail
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz-deps: installing cargo-fuzz with cargo install" >&2
  cargo install --locked --quiet cargo-fuzz --version '^0.13'
fi
cargo fuzz --version >/dev/null
