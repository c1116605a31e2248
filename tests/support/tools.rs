//! The outside programs some tests need beside Rust and git, and what a test does without one.
//! Included by path (`#[path]`) from the end-to-end tests' `common` and from unit tests in
//! `src/`, so that one rule decides: missing under `CI=true` fails, elsewhere skips.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A program some tests need beside Rust and git; `contrib/test-deps.sh` (run by `make test`)
/// installs each.
#[derive(Debug, Clone, Copy)]
pub enum Tool {
    /// The stock `minisign` CLI, which judges our records as a user's copy would.
    Minisign,
    /// Debian's `chromium`, which loads the cockpit headless.
    Chromium,
    /// `target/surfaces-venv`: the MCP Python SDK, schemathesis and jsonschema.
    SurfacesVenv,
    /// `curl`, which the GitHub Action's install step fetches a release with (tests/cli/test_dist.rs,
    /// over `file://`); on every CI image, so `contrib/test-deps.sh` leaves it alone.
    Curl,
    /// `target/hosts`: the four agent host CLIs `contrib/host-deps.sh` installs from
    /// `contrib/hosts/package-lock.json` (tests/cli/test_real_hosts.rs).
    Hosts,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Minisign => "minisign",
            Tool::Chromium => "chromium",
            Tool::SurfacesVenv => "target/surfaces-venv (the MCP SDK, schemathesis, jsonschema)",
            Tool::Curl => "curl",
            Tool::Hosts => "target/hosts (the agent host CLIs of contrib/hosts/package-lock.json)",
        }
    }
    fn present(self) -> bool {
        let on_path = |name: &str| {
            std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(name).is_file()))
        };
        match self {
            Tool::Minisign => on_path("minisign"),
            Tool::Chromium => on_path("chromium"),
            Tool::SurfacesVenv => venv_python_path().exists(),
            Tool::Curl => on_path("curl"),
            Tool::Hosts => ["claude", "codex", "gemini", "copilot"].iter().all(|b| host_bin(b).is_file()),
        }
    }
}

/// Whether `tool` is here. When it is not, a run under `CI=true` fails the test (CI installs
/// every tool: `.ci/run` runs `make test`, which runs `contrib/test-deps.sh`); any other run
/// prints `skipped: <tool> not installed` and the caller returns, so that `cargo test` passes
/// on a machine with only Rust and git — as jj's `ensure_running_outside_ci` does.
#[must_use]
#[allow(clippy::disallowed_macros)] // a test's own note on stderr, not the tool's output
pub fn have(tool: Tool) -> bool {
    if tool.present() {
        return true;
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    assert!(!in_ci, "{} is not installed and CI is set: run contrib/test-deps.sh (make test does)", tool.name());
    eprintln!("skipped: {} not installed", tool.name());
    false
}

/// Where `contrib/test-deps.sh` puts the surfaces venv's python.
pub fn venv_python_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/surfaces-venv/bin/python")
}

/// A host CLI `contrib/host-deps.sh` installed (`claude`, `codex`, `gemini`, `copilot`).
pub fn host_bin(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/hosts/node_modules/.bin").join(name)
}
