//! Findings: the lines check, watch, doctor and history --validate report (docs/REFERENCE.md#findings).

use serde::Serialize;

/// How much a finding matters; only FAIL and DRIFT affect exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// Healthy.
    Ok,
    /// For information.
    Info,
    /// Worth attention.
    Warn,
    /// Broken: exit 10.
    Fail,
    /// Drift (`watch`): exit 11.
    Drift,
    /// A refusal.
    Refuse,
}

impl Level {
    /// The level as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Ok => "OK",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Fail => "FAIL",
            Level::Drift => "DRIFT",
            Level::Refuse => "REFUSE",
        }
    }
}

/// What part of the state a finding is about: the one place the category names live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Unresolved blocking questions.
    Blockers,
    /// A command over its time budget.
    Budget,
    /// The task's checkpoint and its age.
    Checkpoint,
    /// The outcome contract of `finish`.
    Contract,
    /// The decision log.
    Decisions,
    /// Handover records and handover drift.
    Handover,
    /// Knowledge derivation.
    Knowledge,
    /// The knowledge store's integrity.
    KnowledgeIntegrity,
    /// The ledger.
    Ledger,
    /// The checkout's policy.
    Policy,
    /// The task's profile.
    Profile,
    /// The open-questions store.
    Questions,
    /// Checkpoint and handover files the resolver would skip.
    Records,
    /// Retention caps.
    Retention,
    /// Touched files against the task's scope.
    Scope,
    /// The session store.
    Sessions,
    /// The task's outcome against the ledger and the record label.
    State,
    /// The task record.
    Task,
    /// Verification of a terminal outcome.
    Verification,
}

impl Category {
    /// The category as printed (the same text as its JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Blockers => "blockers",
            Category::Budget => "budget",
            Category::Checkpoint => "checkpoint",
            Category::Contract => "contract",
            Category::Decisions => "decisions",
            Category::Handover => "handover",
            Category::Knowledge => "knowledge",
            Category::KnowledgeIntegrity => "knowledge-integrity",
            Category::Ledger => "ledger",
            Category::Policy => "policy",
            Category::Profile => "profile",
            Category::Questions => "questions",
            Category::Records => "records",
            Category::Retention => "retention",
            Category::Scope => "scope",
            Category::Sessions => "sessions",
            Category::State => "state",
            Category::Task => "task",
            Category::Verification => "verification",
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Severity.
    pub level: Level,
    /// What part of the state it is about (`task`, `ledger`, `questions`, ...).
    pub category: Category,
    /// The file, record or item.
    pub subject: String,
    /// One sentence.
    pub message: String,
    /// A command that shows the same fact.
    pub reproduce: String,
}

impl Finding {
    /// Builds a finding.
    pub fn new(
        level: Level,
        category: Category,
        subject: impl Into<String>,
        message: impl Into<String>,
        reproduce: &str,
    ) -> Self {
        Finding { level, category, subject: subject.into(), message: message.into(), reproduce: reproduce.into() }
    }
}

/// The findings document of `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Findings {
    /// Every finding, in the order produced.
    pub findings: Vec<Finding>,
}

impl Findings {
    /// The exit code the findings map to: 10 on any FAIL, else 11 on any DRIFT, else 0.
    pub fn exit(&self) -> crate::error::Exit {
        use crate::error::Exit;
        if self.findings.iter().any(|x| x.level == Level::Fail) {
            Exit::Refused
        } else if self.findings.iter().any(|x| x.level == Level::Drift) {
            Exit::Drift
        } else {
            Exit::Ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Category;

    #[test]
    fn category_json_is_its_printed_name() {
        for c in [Category::Blockers, Category::KnowledgeIntegrity, Category::Verification] {
            assert_eq!(serde_json::to_value(c).unwrap(), serde_json::Value::from(c.as_str()));
        }
        assert_eq!(Category::KnowledgeIntegrity.as_str(), "knowledge-integrity");
    }
}
