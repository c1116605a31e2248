//! Findings: the lines check, watch, doctor and history --validate report (SPEC §8).

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

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Severity.
    pub level: Level,
    /// What part of the state it is about (`task`, `ledger`, `questions`, ...).
    pub category: String,
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
        category: &str,
        subject: impl Into<String>,
        message: impl Into<String>,
        reproduce: &str,
    ) -> Self {
        Finding {
            level,
            category: category.into(),
            subject: subject.into(),
            message: message.into(),
            reproduce: reproduce.into(),
        }
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
