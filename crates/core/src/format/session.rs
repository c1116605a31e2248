//! The on-disk form of episodes: the open episode file `sessions-open/<key>.yaml` (docs/REFERENCE.md#open-episodes)
//! and the closed session record (docs/REFERENCE.md#closed-sessions).
//!
//! Owns: [`OpenSession::to_yaml`]/[`OpenSession::parse`], [`ClosedSession::render`]/[`ClosedSession::parse`].
//! Must not touch: files, which episode is current (`store::sessions`).

use serde::Deserialize;

use super::{list_field, split, typed, Oversize, Writer};
use crate::model::session::{ClosedSession, OpenSession};

impl OpenSession {
    /// Emits the file in the order docs/REFERENCE.md#open-episodes shows.
    pub fn to_yaml(&self) -> String {
        let mut w = Writer::file();
        w.text("session_id", &self.session_id).fixed("started_at", &self.started_at).quoted("owner", &self.owner);
        for (key, value) in
            [("worker", &self.worker), ("provider", &self.provider), ("provider_session", &self.provider_session)]
        {
            if let Some(v) = value {
                w.quoted(key, v);
            }
        }
        w.comment("computed from git; never authored")
            .text("repository_id", &self.repository_id)
            .text("worktree", &self.worktree)
            .text("branch", &self.branch)
            .text("start_head", &self.start_head)
            .fixed("start_working_tree", &self.start_working_tree);
        w.finish()
    }

    /// Parses an open episode file; `None` when it is not one.
    pub fn parse(text: &str) -> Option<OpenSession> {
        #[derive(Deserialize)]
        struct Front {
            session_id: Option<String>,
            started_at: Option<String>,
            owner: Option<String>,
            worker: Option<String>,
            provider: Option<String>,
            provider_session: Option<String>,
            repository_id: Option<String>,
            worktree: Option<String>,
            branch: Option<String>,
            start_head: Option<String>,
            start_working_tree: Option<String>,
        }
        let f: Front = typed(text).ok()?;
        Some(OpenSession {
            session_id: f.session_id.filter(|s| !s.is_empty())?,
            started_at: f.started_at?,
            owner: f.owner.unwrap_or_default(),
            worker: f.worker,
            provider: f.provider,
            provider_session: f.provider_session,
            repository_id: f.repository_id.unwrap_or_default(),
            worktree: f.worktree?,
            branch: f.branch.unwrap_or_default(),
            start_head: f.start_head.unwrap_or_default(),
            start_working_tree: f.start_working_tree.unwrap_or_default(),
        })
    }
}

impl ClosedSession {
    /// Emits the whole record: front matter in docs/REFERENCE.md#closed-sessions order, a blank line, the body;
    /// refused when the front matter would pass the readers' cap (docs/REFERENCE.md#front-matter).
    pub fn render(&self, body: &str) -> Result<String, Oversize> {
        let mut w = Writer::front_matter();
        w.fixed("schema", "session/v1")
            .fixed("kind", "session")
            .fixed("created_at", &self.created_at)
            .text("task_id", &self.task_id)
            .text("profile", &self.profile)
            .quoted("repository_id", &self.repository_id)
            .fixed("worktree_id", &self.worktree_id)
            .text("branch", &self.branch)
            .text("head", &self.head)
            .fixed("working_tree", &self.working_tree)
            .list("changed_files", &self.changed_files);
        if let Some(n) = self.changed_total {
            w.fixed("changed_total", n);
        }
        w.text("session_id", &self.session_id)
            .fixed("started_at", &self.started_at)
            .fixed("closed_at", &self.closed_at)
            .fixed("outcome", &self.outcome)
            .quoted("title", &self.title)
            .quoted("worker", &self.worker)
            .text("start_head", &self.start_head)
            .fixed("start_working_tree", &self.start_working_tree)
            .list("commits", &self.commits)
            .list("tasks", &self.tasks)
            .list("checkpoints", &self.checkpoints)
            .list("handovers", &self.handovers)
            .list("decisions", &self.decisions)
            .list("questions", &self.questions);
        w.document(body)
    }

    /// Parses a closed record (docs/REFERENCE.md#resolution for sessions: `schema: session/v1`; `session_id`, `head`
    /// and `created_at` required). The error is the skip reason.
    pub fn parse(text: &str) -> Result<(ClosedSession, &str), &'static str> {
        /// Every field; absent ones are `None` or empty.
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Front {
            schema: Option<String>,
            session_id: Option<String>,
            head: Option<String>,
            created_at: Option<String>,
            task_id: Option<String>,
            profile: Option<String>,
            repository_id: Option<String>,
            worktree_id: Option<String>,
            branch: Option<String>,
            working_tree: Option<String>,
            #[serde(deserialize_with = "list_field")]
            changed_files: Vec<String>,
            changed_total: Option<String>,
            started_at: Option<String>,
            closed_at: Option<String>,
            outcome: Option<String>,
            title: Option<String>,
            worker: Option<String>,
            start_head: Option<String>,
            start_working_tree: Option<String>,
            #[serde(deserialize_with = "list_field")]
            commits: Vec<String>,
            #[serde(deserialize_with = "list_field")]
            tasks: Vec<String>,
            #[serde(deserialize_with = "list_field")]
            checkpoints: Vec<String>,
            #[serde(deserialize_with = "list_field")]
            handovers: Vec<String>,
            #[serde(deserialize_with = "list_field")]
            decisions: Vec<String>,
            #[serde(deserialize_with = "list_field")]
            questions: Vec<String>,
        }
        let (yaml, body) = split(text).ok_or("no front matter")?;
        let f: Front = typed(yaml).map_err(|_| "malformed front matter")?;
        if f.schema.as_deref() != Some("session/v1") {
            return Err("unknown schema");
        }
        let (Some(session_id), Some(head), Some(created_at)) =
            (f.session_id.clone(), f.head.clone(), f.created_at.clone())
        else {
            return Err("missing required fields");
        };
        let r = f;
        let c = ClosedSession {
            created_at,
            head,
            session_id,
            task_id: r.task_id.unwrap_or_default(),
            profile: r.profile.unwrap_or_default(),
            repository_id: r.repository_id.unwrap_or_default(),
            worktree_id: r.worktree_id.unwrap_or_default(),
            branch: r.branch.unwrap_or_default(),
            working_tree: r.working_tree.unwrap_or_default(),
            changed_files: r.changed_files,
            changed_total: r.changed_total.and_then(|n| n.parse().ok()),
            started_at: r.started_at.unwrap_or_default(),
            closed_at: r.closed_at.unwrap_or_default(),
            outcome: r.outcome.unwrap_or_default(),
            title: r.title.unwrap_or_default(),
            worker: r.worker.unwrap_or_default(),
            start_head: r.start_head.unwrap_or_default(),
            start_working_tree: r.start_working_tree.unwrap_or_default(),
            commits: r.commits,
            tasks: r.tasks,
            checkpoints: r.checkpoints,
            handovers: r.handovers,
            decisions: r.decisions,
            questions: r.questions,
        };
        Ok((c, body.strip_prefix('\n').unwrap_or(body)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_round_trip() {
        let o = OpenSession {
            session_id: "s-20260904153733-fc51".into(),
            started_at: "2026-09-04T15:37:33Z".into(),
            owner: "alice".into(),
            worker: None,
            provider: Some("claude-code".into()),
            provider_session: Some("cc-1".into()),
            repository_id: "/r/.git".into(),
            worktree: "/r".into(),
            branch: "master".into(),
            start_head: "NONE".into(),
            start_working_tree: "clean".into(),
        };
        assert_eq!(OpenSession::parse(&o.to_yaml()).unwrap(), o);
        for odd in ["null", "1e3", "~", "true", "123", ": x", "#c"] {
            let o = OpenSession { owner: odd.into(), worker: Some(odd.into()), branch: odd.into(), ..o.clone() };
            assert_eq!(OpenSession::parse(&o.to_yaml()).unwrap(), o, "{odd}");
        }
    }

    #[test]
    fn closed_round_trip() {
        let c = ClosedSession {
            created_at: "2026-09-04T16:00:00Z".into(),
            session_id: "s-1".into(),
            head: "NONE".into(),
            title: "a \"b\"".into(),
            decisions: vec!["x: y".into(), "1e3".into(), "null".into()],
            branch: "123".into(),
            changed_files: vec!["node_modules/".into()],
            changed_total: Some(3),
            ..Default::default()
        };
        let text = c.render("# What Happened\nx\n").unwrap();
        let (back, body) = ClosedSession::parse(&text).unwrap();
        assert_eq!(back, c);
        assert_eq!(body, "# What Happened\nx\n");
    }
}
