//! `checkpoint` (docs/REFERENCE.md#records): a short progress note of the episode, with or without a task.
//! Must not touch: another command or a query, clap, the terminal.

use std::path::PathBuf;

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::record::Origin;
use crate::services::derive;
use crate::services::records::{cite, count_lines, meta_now, origin_field, refuse_identity};
use crate::services::task;
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
    fields.push((crate::services::gap::TREE_FIELD, Value::from(crate::services::gap::tree_now(ctx, false)?)));
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
    let meta = cite(ctx, meta_now(ctx, task.as_ref(), origin)?, &body)?;
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
