//! `handover` (docs/REFERENCE.md#records): the deliberate continuation package, and its resolution.
//! Must not touch: another command or a query, clap, the terminal.

use std::path::PathBuf;

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::record::{missing_sections, Origin};
use crate::model::task::Outcome;
use crate::services::derive;
use crate::services::records::{cite, meta_now, origin_field, refuse_identity};
use crate::services::task;
use crate::store::records;

/// Parameters of writing a handover.
#[derive(Debug, Clone, Default)]
pub struct HandoverParams {
    /// The body from stdin.
    pub body: String,
    /// Derive the body from records and git.
    pub derive: bool,
    /// Mark an active task `handed_over`.
    pub close: bool,
    /// Write without a task record.
    pub no_task: bool,
}

/// What `handover` wrote.
#[derive(Debug, Clone)]
pub struct HandoverReport {
    /// The record path.
    pub path: PathBuf,
    /// The task it names, or `none`.
    pub task_id: String,
    /// Whether the task was marked `handed_over`.
    pub closed: bool,
}

/// Writes a handover.
pub fn write(ctx: &Ctx, p: HandoverParams) -> Result<HandoverReport> {
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    let task = task::local(ctx)?;
    if task.is_none() && !p.no_task {
        return Err(Error::not_found("no task record; run git majordomus start, or pass --no-task")
            .hint("git majordomus handover --no-task writes a handover outside a task"));
    }
    let task = if p.no_task { None } else { task };
    let body =
        if p.derive { derive::handover_body(ctx, task.as_ref(), &policy.handover.required_sections)? } else { p.body };
    if body.trim().is_empty() {
        return Err(Error::refused("handover: empty body on stdin (or pass --derive)")
            .hint("write # Objective, # Current State and # Next Action sections on stdin"));
    }
    refuse_identity("handover", &body)?;
    let missing = missing_sections(&body, &policy.handover.required_sections);
    if !missing.is_empty() {
        return Err(Error::refused(format!("handover: missing or empty section(s): {}", missing.join(", "))).hint(
            "each required section is a level-one heading (# Name) with real content; <placeholders> count as empty",
        ));
    }
    let origin = if p.derive { Origin::Derived } else { Origin::Authored };
    let meta = cite(ctx, meta_now(ctx, task.as_ref(), origin)?, &body)?;
    let path = records::write(&ctx.layout.handovers(), &ctx.clock.compact(), &meta, &body)?;
    let mut closed = false;
    if task.is_some() {
        let now = ctx.clock.stamp();
        let updated = task::update(ctx, |t| {
            t.checkpoint_at = now;
            if p.close && t.is_active() {
                t.outcome = Outcome::HandedOver;
            }
        })?;
        closed = p.close && updated.is_some_and(|t| t.outcome == Outcome::HandedOver);
    }
    let mut fields: Vec<(&str, Value)> = Vec::new();
    if let Some(t) = &task {
        fields.push(("task_id", Value::from(t.id.clone())));
    }
    fields.push(("handover_path", Value::from(ctx.rel(&path))));
    fields.push((crate::services::gap::TREE_FIELD, Value::from(crate::services::gap::tree_now(ctx, false)?)));
    fields.push(("closed", Value::from(closed)));
    fields.extend(origin_field(origin));
    ctx.record_event(Event::TaskHandedOver, &fields)?;
    Ok(HandoverReport { path, task_id: meta.task_id, closed })
}
