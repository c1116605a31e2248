//! The closed registry of ledger event names (docs/REFERENCE.md#ledger): writers name an [`Event`], so an
//! unregistered event cannot be written (it does not compile); readers check names against it.

use std::fmt;

/// Every event a ledger line may record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Event {
    TaskStarted,
    TaskCheckpoint,
    TaskHandedOver,
    TaskFinished,
    TaskResumed,
    DecisionRecorded,
    QuestionOpened,
    QuestionResolved,
    SessionStarted,
    SessionClosed,
    LedgerRotated,
    ProviderEventReceived,
    ProviderEventFailed,
    KnowledgeDerived,
    KnowledgePromoted,
    KnowledgeRejected,
}

impl Event {
    /// Every event, in the documented order (docs/REFERENCE.md#ledger; `task.resumed`, docs/REFERENCE.md#task, beside the other task events).
    pub const ALL: [Event; 16] = [
        Event::TaskStarted,
        Event::TaskCheckpoint,
        Event::TaskHandedOver,
        Event::TaskFinished,
        Event::TaskResumed,
        Event::DecisionRecorded,
        Event::QuestionOpened,
        Event::QuestionResolved,
        Event::SessionStarted,
        Event::SessionClosed,
        Event::LedgerRotated,
        Event::ProviderEventReceived,
        Event::ProviderEventFailed,
        Event::KnowledgeDerived,
        Event::KnowledgePromoted,
        Event::KnowledgeRejected,
    ];

    /// The name the ledger writes.
    pub const fn as_str(self) -> &'static str {
        match self {
            Event::TaskStarted => "task.started",
            Event::TaskCheckpoint => "task.checkpoint",
            Event::TaskHandedOver => "task.handed_over",
            Event::TaskFinished => "task.finished",
            Event::TaskResumed => "task.resumed",
            Event::DecisionRecorded => "decision.recorded",
            Event::QuestionOpened => "question.opened",
            Event::QuestionResolved => "question.resolved",
            Event::SessionStarted => "session.started",
            Event::SessionClosed => "session.closed",
            Event::LedgerRotated => "ledger.rotated",
            Event::ProviderEventReceived => "provider.event.received",
            Event::ProviderEventFailed => "provider.event.failed",
            Event::KnowledgeDerived => "knowledge.derived",
            Event::KnowledgePromoted => "knowledge.promoted",
            Event::KnowledgeRejected => "knowledge.rejected",
        }
    }

    /// The event called `name`, if it is registered.
    pub fn parse(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every event name the ledger may carry.
pub const EVENTS: [&str; 16] = {
    let mut names = [""; 16];
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
        for e in Event::ALL {
            assert_eq!(Event::parse(e.as_str()), Some(e));
        }
        assert_eq!(EVENTS[3], "task.finished");
        assert_eq!(EVENTS[4], "task.resumed");
        assert!(!is_registered("no.such"));
    }
}
