//! Findings: the lines check, watch, doctor and history --validate report (docs/REFERENCE.md#findings).
//! Must not touch: files, git, the terminal (the CLI prints findings; `ops::health` makes them).

use serde::Serialize;

use crate::model::vocabulary::vocabulary;

vocabulary! {
    /// How much a finding matters; only FAIL and DRIFT affect exit codes. Ranked as declared.
    pub enum Level in declaration order {
        /// Healthy.
        Ok = "OK",
        /// For information.
        Info = "INFO",
        /// Worth attention.
        Warn = "WARN",
        /// Broken: exit 10.
        Fail = "FAIL",
        /// Drift (`watch`): exit 11.
        Drift = "DRIFT",
        /// A refusal.
        Refuse = "REFUSE",
    }
}

vocabulary! {
    /// What part of the state a finding is about: the one place the category names live.
    pub enum Category {
        /// Unresolved blocking questions.
        Blockers = "blockers",
        /// A command over its time budget.
        Budget = "budget",
        /// The task's checkpoint and its age.
        Checkpoint = "checkpoint",
        /// The outcome contract of `finish`.
        Contract = "contract",
        /// The decision log.
        Decisions = "decisions",
        /// Handover records and handover drift.
        Handover = "handover",
        /// Knowledge derivation.
        Knowledge = "knowledge",
        /// The knowledge store's integrity.
        KnowledgeIntegrity = "knowledge-integrity",
        /// The ledger.
        Ledger = "ledger",
        /// The checkout's policy.
        Policy = "policy",
        /// The task's profile.
        Profile = "profile",
        /// The open-questions store.
        Questions = "questions",
        /// Checkpoint and handover files the resolver would skip.
        Records = "records",
        /// Retention caps.
        Retention = "retention",
        /// Touched files against the task's scope.
        Scope = "scope",
        /// The session store.
        Sessions = "sessions",
        /// The task's outcome against the ledger and the record label.
        State = "state",
        /// The task record.
        Task = "task",
        /// Verification of a terminal outcome.
        Verification = "verification",
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
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
    /// On the one finding that stands for the rest of a long list ([`Findings::bounded`]): how
    /// many findings the whole list held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<usize>,
    /// The command that fixes it, when one does (`doctor` used to name problems, not the way
    /// out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
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
        Finding {
            level,
            category,
            subject: subject.into(),
            message: message.into(),
            reproduce: reproduce.into(),
            total: None,
            fix: None,
        }
    }

    /// The finding with the command that fixes it.
    pub fn fixed_by(self, fix: impl Into<String>) -> Self {
        Finding { fix: Some(fix.into()), ..self }
    }
}

/// The findings document of `--json` (`check`, `watch`, `doctor`, `history --validate`,
/// `knowledge check`; `schemas/findings.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Findings {
    /// Every finding, in the order produced.
    pub findings: Vec<Finding>,
}

impl Findings {
    /// The findings with each list bounded (one line per untracked file was 40,207 lines on a
    /// checkout with 20,000 untracked files): of the findings of one category at one level, the
    /// first `max` are kept and the rest become one finding at that level, "… and M more", whose
    /// `total` is the list's whole length. The exit code is unchanged (a FAIL kept or summed is
    /// still a FAIL).
    pub fn bounded(self, max: usize) -> Findings {
        let mut seen: std::collections::HashMap<(Category, Level), usize> = std::collections::HashMap::new();
        for f in &self.findings {
            *seen.entry((f.category, f.level)).or_default() += 1;
        }
        let mut kept: std::collections::HashMap<(Category, Level), usize> = std::collections::HashMap::new();
        let mut out = Vec::with_capacity(self.findings.len().min(seen.len() * (max + 1)));
        for f in self.findings {
            let key = (f.category, f.level);
            let n = kept.entry(key).or_default();
            *n += 1;
            let total = seen[&key];
            if *n <= max {
                out.push(f);
            } else if *n == max + 1 {
                let more = total - max;
                out.push(Finding {
                    subject: format!("… and {more} more"),
                    message: format!(
                        "{more} more {} finding(s) at {} like those above ({total} in all; `total` in --json)",
                        f.category.as_str(),
                        f.level.as_str()
                    ),
                    total: Some(total),
                    ..f
                });
            }
        }
        Findings { findings: out }
    }

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
