//! The active task, `current.yaml` (SPEC §6.1); its on-disk form is `store::format::task`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The outcome a task record carries (SPEC §6.1): `active` until `handover --close` or
/// `finish` ends it. Serialised as the snake_case names the files and JSON use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Work in progress.
    Active,
    /// Done; verified when the profile asks for it.
    Completed,
    /// Part of it done.
    Partial,
    /// Blocked.
    Blocked,
    /// Nothing to do.
    NoMatch,
    /// It failed.
    Failed,
    /// Closed by `handover --close`.
    HandedOver,
}

impl Outcome {
    /// Every outcome, in SPEC order.
    pub const ALL: [Outcome; 7] = [
        Outcome::Active,
        Outcome::Completed,
        Outcome::Partial,
        Outcome::Blocked,
        Outcome::NoMatch,
        Outcome::Failed,
        Outcome::HandedOver,
    ];

    /// The name files and JSON use.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Active => "active",
            Outcome::Completed => "completed",
            Outcome::Partial => "partial",
            Outcome::Blocked => "blocked",
            Outcome::NoMatch => "no_match",
            Outcome::Failed => "failed",
            Outcome::HandedOver => "handed_over",
        }
    }

    /// The outcome called `s`.
    pub fn parse(s: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// Whether `finish` ends a task with it (and so a `task.finished` line must back it).
    pub fn is_terminal(self) -> bool {
        !matches!(self, Outcome::Active | Outcome::HandedOver)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The task record.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Task {
    pub id: String,
    pub task: String,
    pub profile: String,
    #[serde(default)]
    pub owner: String,
    #[serde(default)]
    pub scope: Vec<String>,
    pub started_at: String,
    #[serde(default)]
    pub checkpoint_at: String,
    pub outcome: Outcome,
    #[serde(default)]
    pub requires: Vec<String>,
    pub repository_id: String,
    pub worktree: String,
    pub branch: String,
    pub head: String,
    #[serde(default)]
    pub working_tree: String,
}

impl Task {
    /// Whether the task is still `active`.
    pub fn is_active(&self) -> bool {
        self.outcome == Outcome::Active
    }
}

/// Why a scope path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    /// Nothing but whitespace.
    #[error("empty scope path")]
    Empty,
    /// Absolute (`/`, `~`, a drive letter, a backslash).
    #[error("scope path {0:?} is absolute; give a path relative to the repository root")]
    Absolute(String),
    /// A `..` segment.
    #[error("scope path {0:?} leaves the repository")]
    Escapes(String),
}

/// Normalises one scope path: no `./`, no trailing `/`, no `//`; absolute and escaping paths refused.
pub fn normalise_scope(raw: &str) -> Result<String, ScopeError> {
    let p = raw.trim();
    if p.is_empty() {
        return Err(ScopeError::Empty);
    }
    if p.starts_with('/') || p.starts_with('~') || p.contains('\\') || (p.len() > 1 && p.as_bytes()[1] == b':') {
        return Err(ScopeError::Absolute(p.into()));
    }
    let mut parts = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => return Err(ScopeError::Escapes(p.into())),
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return Ok(".".into());
    }
    Ok(parts.join("/"))
}

/// Whether a repository-relative `path` lies inside scope entry `scope` (`.` is everything).
pub fn in_scope(path: &str, scope: &str) -> bool {
    scope == "." || path == scope || path.strip_prefix(scope).is_some_and(|r| r.starts_with('/'))
}

impl super::labels::Anchor for Task {
    fn head_text(&self) -> &str {
        &self.head
    }
    fn branch_text(&self) -> &str {
        &self.branch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_normalisation() {
        assert_eq!(normalise_scope("./lib//auth/").unwrap(), "lib/auth");
        assert_eq!(normalise_scope("/etc"), Err(ScopeError::Absolute("/etc".into())));
        assert_eq!(normalise_scope("lib/../.."), Err(ScopeError::Escapes("lib/../..".into())));
        assert_eq!(normalise_scope("  "), Err(ScopeError::Empty));
        assert_eq!(ScopeError::Escapes("a/..".into()).to_string(), "scope path \"a/..\" leaves the repository");
        assert_eq!(normalise_scope(".").unwrap(), ".");
        assert!(in_scope("lib/auth/x.rs", "lib/auth"));
        assert!(!in_scope("lib/authz/x.rs", "lib/auth"));
    }
}
