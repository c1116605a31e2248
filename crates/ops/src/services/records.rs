//! What every written record carries: its metadata now, its origin field, and the refusal of a
//! body that claims another identity.
//!
//! Owns: the metadata of a new handover or checkpoint.
//! Must not touch: a command or a query.

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::labels::Anchor;
use crate::model::record::{identity_violation, Origin, RecordMeta};

/// Refuses a body line that authors a computed field (exit 10).
pub fn refuse_identity(cmd: &str, body: &str) -> Result<()> {
    if let Some(line) = identity_violation(body) {
        let key = line.split(':').next().unwrap_or(line);
        return Err(Error::refused(format!(
            "{cmd}: the body sets `{key}:`, a field computed from git and the clock at write time"
        ))
        .hint(format!("remove the `{key}:` line; identity fields are never authored")));
    }
    Ok(())
}

/// Counts lines as docs/REFERENCE.md#records does: a final line without newline still counts.
pub fn count_lines(body: &str) -> usize {
    body.lines().count()
}

/// The computed front matter for a record written now by `origin`: the change list bounded to
/// `context.max_list_items` entries as `git status` shows them, with `changed_total` (docs/REFERENCE.md#front-matter).
pub fn meta_now(ctx: &Ctx, task: Option<&crate::model::task::Task>, origin: Origin) -> Result<RecordMeta> {
    let id = ctx.identity()?;
    let (changed_files, total) = ctx.changed_list(|_| true)?;
    Ok(RecordMeta {
        created_at: ctx.clock.stamp(),
        task_id: task.map(|t| t.id.clone()).unwrap_or_else(|| "none".into()),
        profile: task.map(|t| t.profile.clone()).unwrap_or_else(|| "none".into()),
        owner: task.map(|t| t.owner.clone()).unwrap_or_else(|| ctx.default_owner()),
        repository_id: id.repository_id.clone(),
        worktree: id.worktree.clone(),
        branch: id.branch_text().into(),
        head: id.head_text().into(),
        working_tree: ctx.working_tree()?.into(),
        changed_files,
        changed_total: Some(total),
        origin,
        session: ctx.session_id().unwrap_or_else(|| "none".into()),
        ..Default::default()
    })
}

/// The ledger field a derived write adds (docs/REFERENCE.md#origin: an episode's last activity leaves out the
/// hooks' own derived writes), none for an authored one.
pub fn origin_field(origin: Origin) -> Option<(&'static str, Value)> {
    (origin == Origin::Derived).then(|| ("origin", Value::from(origin.as_str())))
}
