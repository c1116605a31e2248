//! `checkpoint` (docs/REFERENCE.md#records): a short progress note of the episode, with or without a task.

use std::path::PathBuf;

use serde_json::Value;

use super::derive;
use super::resolve::{resolve, Resolved};
use super::task;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::labels::Anchor;
use crate::model::record::{identity_violation, Origin, RecordMeta};
use crate::store::records;

/// What `checkpoint` wrote.
#[derive(Debug, Clone)]
pub enum CheckpointReport {
    /// A record was written.
    Written {
        /// The record path.
        path: PathBuf,
        /// The task it names, or `none`.
        task_id: String,
    },
    /// An empty body: no file, the task's `checkpoint_at` moved (when active).
    NoBody {
        /// The task whose `checkpoint_at` moved, if any.
        task_id: Option<String>,
    },
}

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

/// Writes a checkpoint from `body` (or a derived one).
pub fn write(ctx: &Ctx, body: &str, derived: bool) -> Result<CheckpointReport> {
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    let task = task::local(ctx)?;
    let body = if derived { derive::checkpoint_body(ctx, task.as_ref())? } else { body.to_string() };
    let mut fields: Vec<(&str, Value)> = Vec::new();
    if let Some(t) = &task {
        fields.push(("task_id", Value::from(t.id.clone())));
    }
    if body.trim().is_empty() {
        let moved = bump(ctx, task.as_ref())?;
        ctx.record_event(Event::TaskCheckpoint, &fields)?;
        return Ok(CheckpointReport::NoBody { task_id: moved });
    }
    refuse_identity("checkpoint", &body)?;
    let n = count_lines(&body);
    let cap = policy.checkpoint.max_body_lines;
    if n > cap {
        return Err(Error::refused(format!(
            "checkpoint: body is {n} lines, cap {cap} (checkpoint.max_body_lines); write a handover instead"
        ))
        .hint("a checkpoint is a short progress note; git majordomus handover takes the longer package"));
    }
    let origin = if derived { Origin::Derived } else { Origin::Authored };
    let meta = meta_now(ctx, task.as_ref(), origin)?;
    let path = records::write(&ctx.layout.checkpoints(), &ctx.clock.compact(), &meta, &body)?;
    bump(ctx, task.as_ref())?;
    fields.push(("checkpoint_path", Value::from(ctx.rel(&path))));
    fields.extend(origin_field(origin));
    ctx.record_event(Event::TaskCheckpoint, &fields)?;
    Ok(CheckpointReport::Written { path, task_id: meta.task_id })
}

/// Moves `checkpoint_at` of the active task to now; returns its id when it moved.
fn bump(ctx: &Ctx, task: Option<&crate::model::task::Task>) -> Result<Option<String>> {
    if !task.is_some_and(|t| t.is_active()) {
        return Ok(None);
    }
    let now = ctx.clock.stamp();
    Ok(task::update(ctx, |t| {
        if t.is_active() {
            t.checkpoint_at = now;
        }
    })?
    .map(|t| t.id))
}

/// What `checkpoint --show` answers.
#[derive(Debug, Clone)]
pub struct ShowReport {
    /// The resolved checkpoint, if any.
    pub record: Option<Resolved>,
    /// The active task it was filtered on.
    pub task: Option<String>,
    /// The newest derived checkpoint the authored winner was preferred to, by file name.
    pub passed_over: Option<String>,
}

/// Resolves the checkpoint to show: the active task's, else any task's.
pub fn show(ctx: &Ctx) -> Result<ShowReport> {
    ctx.require_layer()?;
    let task = task::active(ctx)?.map(|t| t.id);
    let res = resolve(ctx, &ctx.layout.checkpoints(), task.as_deref())?;
    Ok(ShowReport { record: res.winner, task, passed_over: res.passed_over })
}
