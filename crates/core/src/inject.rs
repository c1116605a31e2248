//! Named steps at which a test stops the process, as a kill would (`MAJORDOMUS_STOP_AT=<step>`):
//! the crash tests reach a write's worst moment by name, never by a timer (issue 41 item 5).
//! The process aborts (no destructor runs, so temp files stay as a SIGKILL leaves them).
//! Must not touch: anything but `MAJORDOMUS_STOP_AT` and the abort; nothing else reads or writes
//! here.
//!
//! Steps: `store.before-ref` (a store write's objects are written, the reference is not moved),
//! `publish.after-ref` (`continuity publish` moved the reference, `continuity.json` not yet
//! written), `ledger.mid-line` (half a ledger line is written).

/// The environment variable naming the step to stop at.
pub const VAR: &str = "MAJORDOMUS_STOP_AT";

/// Whether [`VAR`] names `step` (a writer that must first leave a step's damage, half a line).
pub fn named(step: &str) -> bool {
    std::env::var_os(VAR).is_some_and(|v| v == step)
}

/// Stops the process here when [`VAR`] names `step`.
pub fn stop_at(step: &str) {
    if named(step) {
        std::process::abort();
    }
}
