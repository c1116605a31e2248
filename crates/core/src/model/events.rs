//! The closed registry of ledger event names (docs/REFERENCE.md#ledger): writers name an [`Event`], so an
//! unregistered event cannot be written (it does not compile); readers check names against it.
//! Must not touch: files (`store::ledger` writes the ledger), git.

use crate::model::vocabulary::vocabulary;

vocabulary! {
    /// Every event a ledger line may record, with the name the ledger writes; `ALL` in the
    /// documented order (docs/REFERENCE.md#ledger; `task.resumed`, docs/REFERENCE.md#task, beside the
    /// other task events).
    #[allow(missing_docs)]
    pub enum Event {
        TaskStarted = "task.started",
        TaskCheckpoint = "task.checkpoint",
        TaskHandedOver = "task.handed_over",
        TaskFinished = "task.finished",
        TaskResumed = "task.resumed",
        DecisionRecorded = "decision.recorded",
        QuestionOpened = "question.opened",
        QuestionResolved = "question.resolved",
        SessionStarted = "session.started",
        SessionClosed = "session.closed",
        LedgerRotated = "ledger.rotated",
        ProviderEventReceived = "provider.event.received",
        ProviderEventFailed = "provider.event.failed",
        KnowledgeDerived = "knowledge.derived",
        KnowledgePromoted = "knowledge.promoted",
        KnowledgeRejected = "knowledge.rejected",
        WorktreeAdopted = "worktree.adopted",
    }
}

/// Every event name the ledger may carry.
pub const EVENTS: [&str; 17] = {
    let mut names = [""; 17];
    let mut i = 0;
    while i < Event::ALL.len() {
        names[i] = Event::ALL[i].as_str();
        i += 1;
    }
    names
};

/// Whether `name` is a registered event.
pub fn is_registered(name: &str) -> bool {
    Event::parse(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &e in Event::ALL {
            assert_eq!(Event::parse(e.as_str()), Some(e));
        }
        assert_eq!(EVENTS[3], "task.finished");
        assert_eq!(EVENTS[4], "task.resumed");
        assert!(!is_registered("no.such"));
    }
}
