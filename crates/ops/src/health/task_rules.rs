//! The task rules of check, watch and doctor: the task record, its label, scope, checkpoint age
//! and handover drift; and `check --checkpoint`, the one write.
//! Must not touch: a command or a query; any write but `check --checkpoint`'s checkpoint.

use crate::clock::parse_stamp;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::events::Event;
use crate::model::finding::{Category, Finding, Level};
use crate::model::labels::Anchor;
use crate::model::labels::{span, Divergence};
use crate::model::policy::{interval_minutes, Policy};
use crate::model::record::missing_sections;
use crate::model::task::{in_scope, Task};
use crate::services::derive::touched_since;
use crate::services::resolve::list;
use crate::services::task::{self, TaskRecord};
use crate::text::short;
use serde_json::Value;

/// Moves the active task's `checkpoint_at` to now and appends `task.checkpoint`.
pub(super) fn write_checkpoint(ctx: &Ctx, rec: &TaskRecord) -> Result<Finding> {
    if rec.foreign {
        return Ok(Finding::new(
            Level::Info,
            Category::Checkpoint,
            rec.task.id.clone(),
            "checkpoint_at not moved: the task record names another checkout",
            "cat .ai/local/state/current.yaml",
        ));
    }
    let now = ctx.clock.stamp();
    let mut moved = false;
    if rec.task.is_active() {
        moved = task::update(ctx, |t| {
            if t.is_active() {
                t.checkpoint_at = now.clone();
            }
        })?
        .is_some_and(|t| t.checkpoint_at == now);
    }
    ctx.record_event(Event::TaskCheckpoint, &[("task_id", Value::from(rec.task.id.clone()))])?;
    let message = if moved {
        format!("checkpoint_at moved to {now}; task.checkpoint recorded")
    } else {
        format!("outcome {}: checkpoint_at not moved; task.checkpoint recorded", rec.task.outcome)
    };
    Ok(Finding::new(
        Level::Ok,
        Category::Checkpoint,
        rec.task.id.clone(),
        message,
        "git majordomus history --event task.checkpoint",
    ))
}

/// Reads the task record for watch/doctor: a record that does not parse is a FAIL, not an error.
pub(super) fn task_record(ctx: &Ctx) -> (Option<TaskRecord>, Vec<Finding>) {
    match task::read(ctx) {
        Ok(Some(r)) => (Some(r), Vec::new()),
        Ok(None) => (
            None,
            vec![Finding::new(
                Level::Info,
                Category::Task,
                ".ai/local/state/current.yaml",
                "no task record; nothing to compare",
                "git majordomus start \"<task>\" --scope <path>",
            )],
        ),
        Err(e) => (
            None,
            vec![Finding::new(
                Level::Fail,
                Category::Task,
                ".ai/local/state/current.yaml",
                e.message,
                "cat .ai/local/state/current.yaml",
            )],
        ),
    }
}

/// One line naming the task; a foreign record is a WARN that enforces nothing.
pub(super) fn task_summary(r: &TaskRecord) -> Finding {
    let t = &r.task;
    if r.foreign {
        return Finding::new(
            Level::Warn,
            Category::Task,
            t.id.clone(),
            format!("the task record names another checkout ({}); it enforces nothing here", t.worktree),
            "cat .ai/local/state/current.yaml",
        );
    }
    Finding::new(
        Level::Ok,
        Category::Task,
        t.id.clone(),
        format!(
            "\"{}\" ({}, profile {}, scope {})",
            crate::text::escape_line(&t.task),
            t.outcome,
            t.profile,
            t.scope.join(" ")
        ),
        "cat .ai/local/state/current.yaml",
    )
}

/// The divergence label of the task's (head, branch); `diverged`/`different_context` at `bad`.
pub(super) fn task_label(ctx: &Ctx, t: &Task, bad: Level, category: Category) -> Finding {
    let label = crate::services::rewrite::label_of(ctx, &t);
    // Its work landed on this branch: nothing is wrong, it is done here (docs/REFERENCE.md#finish).
    if let Some(l) = crate::services::rewrite::task_landed_here(ctx, t).filter(|_| !label.divergence.trustworthy()) {
        return Finding::new(
            Level::Info,
            category,
            t.id.clone(),
            format!("task record {}; its work {}", label.describe(), l.text),
            "git majordomus check",
        )
        .fixed_by("git majordomus finish --outcome completed");
    }
    let level = match label.divergence {
        Divergence::Exact | Divergence::Advanced => Level::Ok,
        Divergence::Diverged | Divergence::DifferentContext => bad,
        Divergence::Unknown => Level::Warn,
    };
    let what = match label.divergence {
        Divergence::Diverged => "; the recorded head is not an ancestor of HEAD: trust git, not the record",
        Divergence::DifferentContext => "; HEAD is on another branch: this task is not about the work here",
        Divergence::Unknown => "; the repository could not be asked",
        _ => "",
    };
    Finding::new(
        level,
        category,
        t.id.clone(),
        format!("task record {} (recorded head {} on {}){what}", label.describe(), short(&t.head), t.branch),
        "git majordomus context",
    )
}

/// Files touched since the task started (outside `.ai/`) that lie outside its scope: FAIL each.
pub(super) fn scope(ctx: &Ctx, t: &Task) -> Result<Vec<Finding>> {
    let touched: Vec<String> =
        touched_since(ctx, t)?.into_iter().filter(|p| p != ".ai" && !p.starts_with(".ai/")).collect();
    let reproduce = if t.anchor_head().is_none() {
        "git status --porcelain".to_string()
    } else {
        format!("git diff --name-only {}; git status --porcelain", short(&t.head))
    };
    let outside: Vec<&String> = touched.iter().filter(|p| !t.scope.iter().any(|s| in_scope(p, s))).collect();
    if outside.is_empty() {
        return Ok(vec![Finding::new(
            Level::Ok,
            Category::Scope,
            t.scope.join(" "),
            format!("{} file(s) touched since the task started, all inside its scope", touched.len()),
            &reproduce,
        )]);
    }
    Ok(outside
        .into_iter()
        .map(|p| {
            Finding::new(
                Level::Fail,
                Category::Scope,
                p.clone(),
                format!("touched since the task started, outside its scope ({})", t.scope.join(" ")),
                &reproduce,
            )
        })
        .collect())
}

/// The age of the task's `checkpoint_at` against its profile's `checkpoint_interval`.
pub(super) fn checkpoint_age(ctx: &Ctx, policy: &Policy, t: &Task, late: Level) -> Vec<Finding> {
    const REPRODUCE: &str = "grep checkpoint_at .ai/local/state/current.yaml";
    let mut out = Vec::new();
    let (interval, source) = match ctx.profile(&t.profile) {
        Ok(p) => (p.checkpoint_interval, format!("profile {}", t.profile)),
        Err(e) => {
            out.push(Finding::new(
                Level::Warn,
                Category::Checkpoint,
                t.id.clone(),
                format!("{}; using profiles.checkpoint_interval_default", e.message),
                REPRODUCE,
            ));
            (policy.profiles.checkpoint_interval_default.clone(), "profiles.checkpoint_interval_default".to_string())
        }
    };
    let Some(minutes) = interval_minutes(&interval) else {
        out.push(Finding::new(
            Level::Warn,
            Category::Checkpoint,
            t.id.clone(),
            format!("checkpoint_interval {interval:?} ({source}) is not a span such as 15m"),
            REPRODUCE,
        ));
        return out;
    };
    let Some(at) = parse_stamp(&t.checkpoint_at).or_else(|| parse_stamp(&t.started_at)) else {
        out.push(Finding::new(
            Level::Warn,
            Category::Checkpoint,
            t.id.clone(),
            format!("checkpoint_at {:?} is not a timestamp", t.checkpoint_at),
            REPRODUCE,
        ));
        return out;
    };
    let secs = (ctx.clock.now() - at).num_seconds();
    let age = if secs < 0 { "in the future".to_string() } else { format!("{} ago", span(secs / 60)) };
    if secs > minutes * 60 {
        out.push(Finding::new(
            late,
            Category::Checkpoint,
            t.id.clone(),
            format!("last checkpoint {age}, older than the interval {interval} ({source}); run git majordomus checkpoint or check --checkpoint"),
            REPRODUCE,
        )
.fixed_by("git majordomus checkpoint < <note>"));
    } else {
        out.push(Finding::new(
            Level::Ok,
            Category::Checkpoint,
            t.id.clone(),
            format!("last checkpoint {age}, interval {interval} ({source})"),
            REPRODUCE,
        ));
    }
    out
}

/// Handover drift of a `handed_over` task: no handover names it, or the newest naming it lacks a
/// required section.
pub(super) fn handover_drift(ctx: &Ctx, policy: &Policy, t: &Task) -> Result<Vec<Finding>> {
    let reproduce = format!("git majordomus handover --resolve --task {}", t.id);
    let all = list(ctx, &ctx.layout.handovers())?;
    let Some((_, path, _, body)) = all.iter().find(|(_, _, m, _)| m.task_id == t.id) else {
        return Ok(vec![Finding::new(
            Level::Drift,
            Category::Handover,
            t.id.clone(),
            "task handed_over, but no handover record names it",
            &reproduce,
        )
        .fixed_by("git majordomus handover < <body>")]);
    };
    let missing = missing_sections(body, &policy.handover.required_sections);
    Ok(vec![if missing.is_empty() {
        Finding::new(
            Level::Ok,
            Category::Handover,
            ctx.rel(path),
            format!("newest handover of {}; every required section present", t.id),
            &reproduce,
        )
    } else {
        Finding::new(
            Level::Drift,
            Category::Handover,
            ctx.rel(path),
            format!("newest handover of {} lacks {}", t.id, missing.join(", ")),
            &reproduce,
        )
        .fixed_by("git majordomus handover < <body with the missing sections>")
    }])
}
