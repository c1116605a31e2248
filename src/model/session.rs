//! Episodes: the open episode file (SPEC §6.7) and the closed session record (§6.9).

use serde::Deserialize;

use super::record::{parse_typed, split_front_matter};
use super::yaml::{list, list_field, quoted, scalar};

/// An open episode, `sessions-open/<key>.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[allow(missing_docs)]
pub struct OpenSession {
    pub session_id: String,
    pub started_at: String,
    pub owner: String,
    pub worker: Option<String>,
    pub provider: Option<String>,
    pub provider_session: Option<String>,
    pub repository_id: String,
    pub worktree: String,
    pub branch: String,
    pub start_head: String,
    pub start_working_tree: String,
}

impl OpenSession {
    /// Emits the file in the order SPEC §6.7 shows.
    pub fn to_yaml(&self) -> String {
        let mut s = format!(
            "session_id: {}\nstarted_at: {}\nowner: {}\n",
            scalar(&self.session_id),
            self.started_at,
            quoted(&self.owner)
        );
        if let Some(w) = &self.worker {
            s.push_str(&format!("worker: {}\n", quoted(w)));
        }
        if let Some(p) = &self.provider {
            s.push_str(&format!("provider: {}\n", quoted(p)));
        }
        if let Some(p) = &self.provider_session {
            s.push_str(&format!("provider_session: {}\n", quoted(p)));
        }
        s.push_str("# computed from git; never authored\n");
        s.push_str(&format!("repository_id: {}\n", scalar(&self.repository_id)));
        s.push_str(&format!("worktree: {}\n", scalar(&self.worktree)));
        s.push_str(&format!("branch: {}\n", scalar(&self.branch)));
        s.push_str(&format!("start_head: {}\n", scalar(&self.start_head)));
        s.push_str(&format!("start_working_tree: {}\n", self.start_working_tree));
        s
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
        let f: Front = parse_typed(text)?;
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

/// The closed session record's front matter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub struct ClosedSession {
    pub created_at: String,
    pub task_id: String,
    pub profile: String,
    pub repository_id: String,
    pub worktree_id: String,
    pub branch: String,
    pub head: String,
    pub working_tree: String,
    pub changed_files: Vec<String>,
    pub session_id: String,
    pub started_at: String,
    pub closed_at: String,
    pub outcome: String,
    pub title: String,
    pub worker: String,
    pub start_head: String,
    pub start_working_tree: String,
    pub commits: Vec<String>,
    pub tasks: Vec<String>,
    pub checkpoints: Vec<String>,
    pub handovers: Vec<String>,
    pub decisions: Vec<String>,
    pub questions: Vec<String>,
}

impl ClosedSession {
    /// Emits the whole record: front matter in SPEC §6.9 order, a blank line, the body.
    pub fn render(&self, body: &str) -> String {
        let mut s = String::from("---\nschema: session/v1\nkind: session\n");
        s.push_str(&format!("created_at: {}\n", self.created_at));
        s.push_str(&format!("task_id: {}\n", scalar(&self.task_id)));
        s.push_str(&format!("profile: {}\n", scalar(&self.profile)));
        s.push_str(&format!("repository_id: {}\n", quoted(&self.repository_id)));
        s.push_str(&format!("worktree_id: {}\n", self.worktree_id));
        s.push_str(&format!("branch: {}\n", scalar(&self.branch)));
        s.push_str(&format!("head: {}\n", scalar(&self.head)));
        s.push_str(&format!("working_tree: {}\n", self.working_tree));
        s.push_str(&list("changed_files", &self.changed_files));
        s.push_str(&format!("session_id: {}\n", scalar(&self.session_id)));
        s.push_str(&format!("started_at: {}\n", self.started_at));
        s.push_str(&format!("closed_at: {}\n", self.closed_at));
        s.push_str(&format!("outcome: {}\n", self.outcome));
        s.push_str(&format!("title: {}\n", quoted(&self.title)));
        s.push_str(&format!("worker: {}\n", quoted(&self.worker)));
        s.push_str(&format!("start_head: {}\n", scalar(&self.start_head)));
        s.push_str(&format!("start_working_tree: {}\n", self.start_working_tree));
        s.push_str(&list("commits", &self.commits));
        for (k, v) in [
            ("tasks", &self.tasks),
            ("checkpoints", &self.checkpoints),
            ("handovers", &self.handovers),
            ("decisions", &self.decisions),
            ("questions", &self.questions),
        ] {
            s.push_str(&list(k, v));
        }
        s.push_str("---\n\n");
        s.push_str(body);
        if !body.ends_with('\n') {
            s.push('\n');
        }
        s
    }

    /// Parses a closed record (SPEC §5 for sessions: `schema: session/v1`; `session_id`, `head`
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
        let (yaml, body) = split_front_matter(text).ok_or("no front matter")?;
        let f: Front = parse_typed(yaml).ok_or("malformed front matter")?;
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

/// Paths a closed record does not list as changed: the tool's own records and generated output.
pub fn is_generated(path: &str) -> bool {
    const DIRS: &[&str] = &[
        ".ai/",
        "target/",
        "node_modules/",
        "dist/",
        "build/",
        "__pycache__/",
        ".venv/",
        ".pytest_cache/",
        ".mypy_cache/",
    ];
    DIRS.iter().any(|d| path.starts_with(d) || path.contains(&format!("/{d}")))
        || path.ends_with(".pyc")
        || path.ends_with(".DS_Store")
        || path.ends_with(".o")
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
            ..Default::default()
        };
        let text = c.render("# What Happened\nx\n");
        let (back, body) = ClosedSession::parse(&text).unwrap();
        assert_eq!(back, c);
        assert_eq!(body, "# What Happened\nx\n");
        assert!(is_generated("target/debug/x") && is_generated("web/node_modules/a") && !is_generated("src/a.rs"));
    }
}
