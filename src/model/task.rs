//! The active task, `current.yaml` (SPEC §6.1).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::yaml::{list, quoted, scalar};

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
    /// Parses `current.yaml` text.
    pub fn parse(text: &str) -> Result<Task, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    /// Emits the record in the order SPEC §6.1 shows.
    pub fn to_yaml(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!("id: {}\n", scalar(&self.id)));
        s.push_str(&format!("task: {}\n", quoted(&self.task)));
        s.push_str(&format!("profile: {}\n", scalar(&self.profile)));
        s.push_str(&format!("owner: {}\n", quoted(&self.owner)));
        s.push_str(&list("scope", &self.scope));
        s.push_str(&format!("started_at: {}\n", self.started_at));
        s.push_str(&format!("checkpoint_at: {}\n", self.checkpoint_at));
        s.push_str(&format!("outcome: {}\n", self.outcome));
        if !self.requires.is_empty() {
            s.push_str(&list("requires", &self.requires));
        }
        s.push_str("# computed from git; never authored\n");
        s.push_str(&format!("repository_id: {}\n", scalar(&self.repository_id)));
        s.push_str(&format!("worktree: {}\n", scalar(&self.worktree)));
        s.push_str(&format!("branch: {}\n", scalar(&self.branch)));
        s.push_str(&format!("head: {}\n", scalar(&self.head)));
        s.push_str(&format!("working_tree: {}\n", self.working_tree));
        s
    }

    /// Whether the task is still `active`.
    pub fn is_active(&self) -> bool {
        self.outcome == Outcome::Active
    }
}

/// Normalises one scope path: no `./`, no trailing `/`, no `//`; absolute and escaping paths refused.
pub fn normalise_scope(raw: &str) -> Result<String, String> {
    let p = raw.trim();
    if p.is_empty() {
        return Err("empty scope path".into());
    }
    if p.starts_with('/') || p.starts_with('~') || p.contains('\\') || (p.len() > 1 && p.as_bytes()[1] == b':') {
        return Err(format!("scope path {p:?} is absolute; give a path relative to the repository root"));
    }
    let mut parts = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => return Err(format!("scope path {p:?} leaves the repository")),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_normalisation() {
        assert_eq!(normalise_scope("./lib//auth/").unwrap(), "lib/auth");
        assert!(normalise_scope("/etc").is_err());
        assert!(normalise_scope("lib/../..").is_err());
        assert_eq!(normalise_scope(".").unwrap(), ".");
        assert!(in_scope("lib/auth/x.rs", "lib/auth"));
        assert!(!in_scope("lib/authz/x.rs", "lib/auth"));
    }

    #[test]
    fn round_trip() {
        let t = Task {
            id: "t-20260903193012-a4f1".into(),
            task: "fix \"OAuth\" callback".into(),
            profile: "debugging".into(),
            owner: "alice".into(),
            scope: vec!["lib/auth".into()],
            started_at: "2026-09-03T19:30:12Z".into(),
            checkpoint_at: "2026-09-03T19:30:12Z".into(),
            outcome: Outcome::Active,
            requires: vec![],
            repository_id: "/abs/.git".into(),
            worktree: "/abs".into(),
            branch: "main".into(),
            head: "NONE".into(),
            working_tree: "dirty".into(),
        };
        assert_eq!(Task::parse(&t.to_yaml()).unwrap(), t);
        for o in Outcome::ALL {
            let again = Task { outcome: o, ..t.clone() };
            assert_eq!(Task::parse(&again.to_yaml()).unwrap().outcome, o);
            assert_eq!(Outcome::parse(o.as_str()), Some(o));
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
        }
        let bad = t.to_yaml().replace("outcome: active", "outcome: done");
        assert!(Task::parse(&bad).unwrap_err().contains("unknown variant `done`"));
        assert!(Outcome::ALL.iter().filter(|o| o.is_terminal()).count() == 5);
    }
}
