//! What every written record carries: its metadata now, its origin field, and the refusal of a
//! body that claims another identity.
//!
//! Owns: the metadata of a new handover or checkpoint.
//! Must not touch: a command or a query.

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::Anchor;
use crate::model::record::{identity_violation, Origin, RecordMeta};

/// What writing a record refuses (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The body authors a field the tool computes.
    #[error("{cmd}: the body sets `{key}:`, a field computed from git and the clock at write time")]
    Authored {
        /// The command.
        cmd: String,
        /// The computed key.
        key: String,
    },
}

/// Refuses a body line that authors a computed field (exit 10).
pub fn refuse_identity(cmd: &str, body: &str) -> Result<()> {
    if let Some(line) = identity_violation(body) {
        let key = line.split(':').next().unwrap_or(line);
        return Err(RecordError::Authored { cmd: cmd.into(), key: key.into() }.into());
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

/// `meta` with its citations (docs/REFERENCE.md#citations): the paths `body` names (`absent`
/// when one was not at the record's head), then the changed files the head holds (an untracked
/// file has no blob to compare) while there is room, each with its blob; at most
/// `context.max_list_items`, with `citations_total` when more were cited.
pub fn cite(ctx: &Ctx, mut meta: RecordMeta, body: &str) -> Result<RecordMeta> {
    use crate::model::citations::{named_paths, Citation};
    let head = ctx.git.head()?;
    let max = ctx.max_list_items();
    let mut cited: Vec<Citation> = Vec::new();
    let mut total = 0;
    for path in named_paths(body) {
        total += 1;
        if cited.len() < max {
            let blob = ctx.git.blob_at(head, &path)?.map(|b| b.to_string());
            cited.push(Citation { path, blob });
        }
    }
    for path in ctx.changed_files()? {
        if cited.iter().any(|c| &c.path == path) {
            continue;
        }
        // Past the bound the changed files are not looked up (20,000 untracked files would
        // cost as many lookups): `changed_files` and `changed_total` already count them.
        if cited.len() >= max {
            break;
        }
        if let Some(b) = ctx.git.blob_at(head, path)? {
            total += 1;
            cited.push(Citation { path: path.clone(), blob: Some(b.to_string()) });
        }
    }
    meta.citations = cited.iter().map(Citation::to_field).collect();
    meta.citations_total = (total > max).then_some(total);
    Ok(meta)
}

/// The ledger field a derived write adds (docs/REFERENCE.md#origin: an episode's last activity leaves out the
/// hooks' own derived writes), none for an authored one.
pub fn origin_field(origin: Origin) -> Option<(&'static str, Value)> {
    (origin == Origin::Derived).then(|| ("origin", Value::from(origin.as_str())))
}
