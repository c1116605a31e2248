//! `handover` (docs/REFERENCE.md#records): the deliberate continuation package, and its resolution.

use std::path::PathBuf;

use serde_json::Value;

use super::checkpoint::{meta_now, origin_field, refuse_identity};
use super::derive;
use super::resolve::{resolve, Resolved};
use super::task;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::labels::{freshness, Anchor, Divergence, Freshness, Label, Landed, Rewrite, WorkingTree};
use crate::model::record::{missing_sections, withhold_next_action, Origin};
use crate::model::task::Outcome;
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
    let meta = meta_now(ctx, task.as_ref(), origin)?;
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
    fields.push(("closed", Value::from(closed)));
    fields.extend(origin_field(origin));
    ctx.record_event(Event::TaskHandedOver, &fields)?;
    Ok(HandoverReport { path, task_id: meta.task_id, closed })
}

/// A resolved record with both labels.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// The record.
    pub record: Resolved,
    /// Divergence from git ancestry (judged on the rewritten commit when `rewrite` is set).
    pub divergence: Divergence,
    /// The rewrite that earned the word, when one is proven (docs/REFERENCE.md#rewrites).
    pub rewrite: Option<Rewrite>,
    /// Freshness from age vs policy.
    pub freshness: Freshness,
    /// `Divergence: working tree was <x>, now <y>` when it differs.
    pub working_tree_now: Option<WorkingTree>,
    /// The newest derived record this authored one was preferred to (docs/REFERENCE.md#origin), by file name.
    pub passed_over: Option<String>,
}

impl Labelled {
    /// The git-state label as printed: the word, and the rewrite it was judged on.
    pub fn git_state(&self) -> String {
        Label { divergence: self.divergence, rewrite: self.rewrite.clone() }.describe()
    }

    /// The body as shown: its Next Action withheld when the record is history (stale or invalid).
    pub fn shown_body(&self) -> String {
        if self.freshness.is_history() {
            withhold_next_action(
                &self.record.body,
                &format!("{}, {}", self.freshness.label.as_str(), self.freshness.reason),
            )
        } else {
            self.record.body.clone()
        }
    }
}

impl Labelled {
    /// The repository-relative path of the derived record this one was preferred to.
    pub fn passed_over_path(&self, ctx: &Ctx) -> Option<String> {
        self.passed_over.as_ref().map(|name| ctx.rel(&self.record.path.with_file_name(name)))
    }
}

/// Labels a resolved record that was preferred to `passed_over` (a file name beside it).
pub fn label_preferred(ctx: &Ctx, record: Resolved, passed_over: Option<String>) -> Result<Labelled> {
    Ok(Labelled { passed_over, ..label(ctx, record)? })
}

/// Labels a resolved record.
pub fn label(ctx: &Ctx, record: Resolved) -> Result<Labelled> {
    let Label { divergence, rewrite } = super::rewrite::label_of(ctx, &record.meta);
    let thresholds = ctx.policy().map(|p| p.thresholds()).unwrap_or_default();
    let freshness = freshness(record.meta.judged_at(), ctx.clock.now(), thresholds);
    let now_wt = ctx.working_tree()?;
    let working_tree_now = (!record.meta.working_tree.is_empty()
        && record.meta.working_tree != now_wt.as_str()
        && record.meta.continuity_record.is_none())
    .then_some(now_wt);
    Ok(Labelled { record, divergence, rewrite, freshness, working_tree_now, passed_over: None })
}

/// When `handover --resolve --task <id>` finds nothing here: the task's newest handover on
/// another branch, by path, when its work landed in this branch (a squash or rebase merge,
/// docs/REFERENCE.md#rewrites). Resolution itself never crosses branches; this only says where the work went.
pub fn landed_elsewhere(ctx: &Ctx, task: &str) -> Result<Option<(String, String, Landed)>> {
    let here = ctx.identity()?.branch.clone();
    let newest = super::resolve::list(ctx, &ctx.layout.handovers())?
        .into_iter()
        .find(|(_, _, m, _)| m.task_id == task && Some(m.branch.as_str()) != here.as_deref());
    Ok(newest.and_then(|(_, path, m, _)| {
        super::rewrite::landed(ctx, m.anchor_head()).map(|l| (ctx.rel(&path), m.branch.clone(), l))
    }))
}

/// `handover --resolve [--task]`: the labelled winner, or none.
pub fn resolve_labelled(ctx: &Ctx, task: Option<&str>) -> Result<Option<Labelled>> {
    ctx.require_layer()?;
    let res = resolve(ctx, &ctx.layout.handovers(), task)?;
    res.winner.map(|w| label_preferred(ctx, w, res.passed_over)).transpose()
}
