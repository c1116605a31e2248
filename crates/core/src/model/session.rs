//! Episodes: the open episode file (docs/REFERENCE.md#open-episodes) and the closed session record (docs/REFERENCE.md#closed-sessions); their
//! on-disk form is `store::format::session`.
//! Must not touch: files, git, the clock.

/// An open episode, `sessions-open/<key>.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct OpenSession {
    /// `s-<stamp>-<hex4>`.
    pub session_id: String,
    /// When it opened.
    pub started_at: String,
    /// Who opened it.
    pub owner: String,
    /// The worker (`provider/model`), when given.
    pub worker: Option<String>,
    /// The provider, when a hook opened it.
    pub provider: Option<String>,
    /// The provider's session id (the episode key), when a hook opened it.
    pub provider_session: Option<String>,
    /// The git common dir it opened in.
    pub repository_id: String,
    /// The worktree it opened in.
    pub worktree: String,
    /// Branch or `DETACHED`.
    pub branch: String,
    /// HEAD at open: full SHA or `NONE`.
    pub start_head: String,
    /// `clean` or `dirty` at open.
    pub start_working_tree: String,
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
    /// At most `context.max_list_items` entries (docs/REFERENCE.md#front-matter), generated output left out.
    pub changed_files: Vec<String>,
    /// How many entries `changed_files` was bounded from (`None` in records written before it).
    pub changed_total: Option<usize>,
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

impl super::labels::Anchor for OpenSession {
    fn head_text(&self) -> &str {
        &self.start_head
    }
    fn branch_text(&self) -> &str {
        &self.branch
    }
}

impl super::labels::Anchor for ClosedSession {
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
    fn generated_paths() {
        assert!(is_generated("target/debug/x") && is_generated("web/node_modules/a") && !is_generated("src/a.rs"));
    }
}
