//! The active task, `current.yaml` (docs/REFERENCE.md#task); its on-disk form is `store::format::task`.
//! Must not touch: files, git, which task is current (`services::task`).

use serde::Deserialize;

use crate::model::vocabulary::vocabulary;

vocabulary! {
    /// The outcome a task record carries (docs/REFERENCE.md#task): `active` until `handover --close` or
    /// `finish` ends it. Serialised as the snake_case names the files and JSON use.
    pub enum Outcome {
        /// Work in progress.
        Active = "active",
        /// Done; verified when the profile asks for it.
        Completed = "completed",
        /// Part of it done.
        Partial = "partial",
        /// Blocked.
        Blocked = "blocked",
        /// Nothing to do.
        NoMatch = "no_match",
        /// It failed.
        Failed = "failed",
        /// Closed by `handover --close`.
        HandedOver = "handed_over",
    }
}

impl Outcome {
    /// Whether `finish` ends a task with it (and so a `task.finished` line must back it).
    pub fn is_terminal(self) -> bool {
        !matches!(self, Outcome::Active | Outcome::HandedOver)
    }

    /// Whether `start --resume` brings a task with this outcome back (docs/REFERENCE.md#task, DECISIONS
    /// D34): work remains — handed over, or finished `partial` or `blocked`, whose notes carry a
    /// Next Action. `completed`, `no_match` and `failed` ended the task with a verdict.
    pub fn is_resumable(self) -> bool {
        matches!(self, Outcome::HandedOver | Outcome::Partial | Outcome::Blocked)
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

/// The longest task title `start` takes, in characters (a title is one line that
/// the briefing, `context` and every conflict message repeat; DECISIONS D34).
pub const TITLE_CAP: usize = 200;

/// Whether `s` can name a task record: a plain file name (`[A-Za-z0-9._-]`, not starting with
/// `.`, at most 100 bytes). Ids this tool mints are `t-<yyyymmddHHMMSS>-<4 hex>`; the rule only
/// keeps a path out of `archive/<id>.yaml`.
pub fn is_task_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && !s.starts_with('.')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
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

    #[test]
    fn task_ids_and_resumable_outcomes() {
        assert!(is_task_id("t-20260903193012-a4f1"));
        for bad in ["", "../x", "a/b", ".hidden", "t 1", &"x".repeat(101)] {
            assert!(!is_task_id(bad), "{bad:?}");
        }
        let resumable: Vec<&str> =
            Outcome::ALL.iter().copied().filter(|o| o.is_resumable()).map(Outcome::as_str).collect();
        assert_eq!(resumable, ["partial", "blocked", "handed_over"]);
    }
}
