//! `worktree list`: every checkout of this clone whose records are kept under the common git
//! directory, with its standing, and what a removed one holds (docs/REFERENCE.md#kept-records).
//!
//! Owns: the listing's view. Must not touch: a write.

use crate::ctx::Ctx;
use crate::error::Result;
use crate::services::kept;
use crate::store::keep;

/// One kept checkout.
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct KeptView {
    /// Its id (the copy's directory under `<common dir>/majordomus/worktrees/`).
    pub id: String,
    /// Git's name of a linked worktree; `null` for a main checkout.
    pub name: Option<String>,
    /// The path it was last seen at.
    pub worktree: String,
    /// `this` (the checkout asking), `live` (another checkout that exists), `removed` (its
    /// records are kept here only: adopt them with `worktree adopt`), or `adopted` (into
    /// `adopted_into`).
    pub standing: String,
    /// The checkout it was adopted into.
    pub adopted_into: Option<String>,
    /// A removed one's task id and title.
    pub task: Option<String>,
    /// A removed one's handovers.
    pub handovers: usize,
    /// A removed one's checkpoints.
    pub checkpoints: usize,
    /// A removed one's decisions.
    pub decisions: usize,
    /// A removed one's unresolved questions.
    pub open_questions: usize,
}

/// Every kept checkout, sorted by the path last seen.
pub fn list(ctx: &Ctx) -> Result<Vec<KeptView>> {
    let me = ctx.place().id();
    Ok(keep::list(ctx.git.common_dir())
        .into_iter()
        .map(|(c, live)| {
            let standing = if me.as_deref() == Some(c.id.as_str()) {
                "this"
            } else if live {
                "live"
            } else if c.adopted_into.is_some() {
                "adopted"
            } else {
                "removed"
            };
            let mut v = KeptView {
                id: c.id.clone(),
                name: c.name.clone(),
                worktree: c.last_path().to_string(),
                standing: standing.into(),
                adopted_into: c.adopted_into.clone(),
                task: None,
                handovers: 0,
                checkpoints: 0,
                decisions: 0,
                open_questions: 0,
            };
            if standing == "removed" {
                let k = kept::read(ctx, c);
                v.task = k.task.map(|t| format!("{} ('{}')", t.id, t.task));
                (v.handovers, v.checkpoints, v.decisions, v.open_questions) =
                    (k.handovers.len(), k.checkpoints, k.decisions, k.open_questions);
            }
            v
        })
        .collect())
}
