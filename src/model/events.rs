//! The closed registry of ledger event names (SPEC §6.6).

/// Every event name the ledger may carry.
pub const EVENTS: &[&str] = &[
    "task.started",
    "task.checkpoint",
    "task.handed_over",
    "task.finished",
    "decision.recorded",
    "question.opened",
    "question.resolved",
    "session.started",
    "session.closed",
    "ledger.rotated",
    "provider.event.received",
    "provider.event.failed",
    "knowledge.derived",
    "knowledge.promoted",
    "knowledge.rejected",
];

/// Whether `name` is a registered event.
pub fn is_registered(name: &str) -> bool {
    EVENTS.contains(&name)
}
