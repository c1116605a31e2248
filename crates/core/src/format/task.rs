//! The on-disk form of the task record `current.yaml` (docs/REFERENCE.md#task).
//!
//! Owns: [`Task::parse`] and [`Task::to_yaml`].
//! Must not touch: files, which task is current (`services::task`).

use super::Writer;
use crate::model::task::Task;

impl Task {
    /// Parses `current.yaml` text; the error is serde's message (an unknown outcome names it).
    pub fn parse(text: &str) -> Result<Task, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    /// Emits the record in the order docs/REFERENCE.md#task shows.
    pub fn to_yaml(&self) -> String {
        let mut w = Writer::file();
        w.text("id", &self.id)
            .quoted("task", &self.task)
            .text("profile", &self.profile)
            .quoted("owner", &self.owner)
            .list("scope", &self.scope)
            .fixed("started_at", &self.started_at)
            .fixed("checkpoint_at", &self.checkpoint_at)
            .fixed("outcome", self.outcome);
        if !self.requires.is_empty() {
            w.list("requires", &self.requires);
        }
        w.comment("computed from git; never authored")
            .text("repository_id", &self.repository_id)
            .text("worktree", &self.worktree)
            .text("branch", &self.branch)
            .text("head", &self.head)
            .fixed("working_tree", &self.working_tree);
        w.finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::model::task::{Outcome, Task};

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
        for &o in Outcome::ALL {
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
