//! `check`, `watch` and `doctor` (docs/REFERENCE.md#findings): findings about the task, its stores and records.
//!
//! Each rule is one function shared by the three commands; a command picks the rules and the
//! level a bad result carries (a diverged task record is a WARN for `check`, a DRIFT for
//! `watch`). Only `check --checkpoint` writes.
//!
//! Owns: the rules and the exit code a findings document maps to.
//! Must not touch: clap, `Ui`.

use std::time::Instant;

mod file_rules;
mod ledger;
mod session_rules;
mod store_rules;
mod task_rules;

use self::file_rules::{freshness_rules, profile_rules, record_rules, staging_rules, template_rules, torn_rules};
use self::ledger::{retention, LedgerScan};
use self::session_rules::session_rules;
use self::store_rules::{decision_rules, question_rules};
use self::task_rules::{
    checkpoint_age, handover_drift, scope, task_label, task_record, task_summary, write_checkpoint,
};
use crate::ctx::Ctx;
use crate::error::{Error, Exit, Result};
use crate::model::finding::{Category, Finding, Findings, Level};
use crate::model::task::Outcome;
use crate::services::task::{self};

/// The exit code of a findings document: 10 on any FAIL, else 11 on any DRIFT, else 0.
pub fn exit_code(f: &Findings) -> Exit {
    f.exit()
}

/// `check [--checkpoint]`: the task record against git and its profile, then the stores.
///
/// No task record is exit 12. `--checkpoint` first moves the active task's `checkpoint_at` to
/// now and appends `task.checkpoint` (without `checkpoint_path`), then checks.
pub fn check(ctx: &Ctx, checkpoint: bool) -> Result<Findings> {
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    let Some(rec) = task::read(ctx)? else {
        return Err(
            Error::not_found("check: no task record").hint("start one: git majordomus start \"<task>\" --scope <path>")
        );
    };
    let mut out = Vec::new();
    if checkpoint {
        out.push(write_checkpoint(ctx, &rec)?);
    }
    // Re-read: --checkpoint may have moved checkpoint_at.
    let rec = task::read(ctx)?.unwrap_or(rec);
    out.push(task_summary(&rec));
    if !rec.foreign {
        let t = &rec.task;
        out.push(task_label(ctx, t, Level::Warn, Category::Task));
        if t.is_active() {
            out.extend(scope(ctx, t)?);
            out.extend(checkpoint_age(ctx, policy, t, Level::Warn));
        } else {
            out.push(Finding::new(
                Level::Info,
                Category::Task,
                t.id.clone(),
                format!("outcome {}: scope and checkpoint rules apply to active tasks only", t.outcome),
                "cat .ai/local/state/current.yaml",
            ));
        }
    }
    out.extend(question_rules(ctx, true)?);
    out.extend(decision_rules(ctx)?);
    out.extend(LedgerScan::read(ctx, None)?.rules(ctx, false));
    // Each list bounded by `context.max_list_items` (issue 41 item 6).
    Ok(Findings { findings: out }.bounded(ctx.max_list_items()))
}

/// `watch`: drift between the task record, the ledger, the handovers and git; retention.
///
/// Never writes. No task record is reported and is not itself drift.
pub fn watch(ctx: &Ctx) -> Result<Findings> {
    let started = Instant::now();
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    let mut out = Vec::new();
    let (rec, bad) = task_record(ctx);
    let active = rec.as_ref().filter(|r| !r.foreign).map(|r| r.task.id.as_str());
    let scan = LedgerScan::read(ctx, active)?;
    out.extend(bad);
    match &rec {
        None => {}
        Some(r) if r.foreign => out.push(task_summary(r)),
        Some(r) => {
            let t = &r.task;
            out.push(task_summary(r));
            out.push(task_label(ctx, t, Level::Drift, Category::State));
            out.extend(scan.outcome_vs_ledger(ctx, t)?);
            if t.outcome == Outcome::HandedOver {
                out.extend(handover_drift(ctx, policy, t)?);
            }
            if t.is_active() {
                out.extend(checkpoint_age(ctx, policy, t, Level::Drift));
            }
        }
    }
    out.extend(question_rules(ctx, false)?);
    out.extend(decision_rules(ctx)?);
    out.extend(scan.rules(ctx, false));
    out.extend(retention(ctx, policy, scan.lines, Level::Drift)?);
    out.extend(budget("watch", started, policy.benchmark.budget.watch_ms, "benchmark.budget.watch_ms"));
    Ok(Findings { findings: out })
}

/// `doctor`: the health of the whole store; every record the resolver would skip is a FAIL.
pub fn doctor(ctx: &Ctx) -> Result<Findings> {
    let started = Instant::now();
    ctx.require_layer()?;
    let mut out = Vec::new();
    let policy = match ctx.policy() {
        Ok(p) => {
            out.push(Finding::new(
                Level::Ok,
                Category::Policy,
                ".ai/repo/policy.yaml",
                "parses",
                "git majordomus check",
            ));
            Some(p)
        }
        Err(e) => {
            out.push(Finding::new(
                Level::Fail,
                Category::Policy,
                ".ai/repo/policy.yaml",
                e.message,
                "git majordomus check",
            ));
            None
        }
    };
    out.extend(profile_rules(ctx, policy));
    out.extend(policy.map(freshness_rules).unwrap_or_default());
    let (rec, bad) = task_record(ctx);
    out.extend(bad);
    if let Some(r) = &rec {
        out.push(task_summary(r));
    }
    out.extend(record_rules(ctx, &ctx.layout.checkpoints(), "checkpoint")?);
    out.extend(record_rules(ctx, &ctx.layout.handovers(), "handover")?);
    out.extend(staging_rules(ctx)?);
    out.extend(torn_rules(ctx));
    out.extend(template_rules(ctx)?);
    let local = rec.as_ref().filter(|r| !r.foreign).map(|r| &r.task);
    let scan = LedgerScan::read(ctx, local.map(|t| t.id.as_str()))?;
    out.extend(scan.rules(ctx, true));
    if let Some(t) = local {
        out.extend(scan.finish_recorded(ctx, t)?);
    }
    out.extend(question_rules(ctx, false)?);
    out.extend(decision_rules(ctx)?);
    out.extend(session_rules(ctx)?);
    match policy {
        Some(p) => {
            out.extend(retention(ctx, p, scan.lines, Level::Warn)?);
            out.extend(scan.knowledge_observed(ctx, p));
            out.extend(crate::services::knowledge::store_findings(ctx, p)?);
            out.extend(budget("doctor", started, p.benchmark.budget.doctor_ms, "benchmark.budget.doctor_ms"));
        }
        None => out.push(Finding::new(
            Level::Info,
            Category::Policy,
            ".ai/repo/policy.yaml",
            "retention, knowledge and budget rules skipped: the policy does not parse",
            "git majordomus check",
        )),
    }
    Ok(Findings { findings: out })
}

/// WARN when the run took longer than its budget.
fn budget(what: &str, started: Instant, budget_ms: u64, key: &str) -> Vec<Finding> {
    let ms = started.elapsed().as_millis();
    let level = if ms > u128::from(budget_ms) { Level::Warn } else { Level::Ok };
    vec![Finding::new(
        level,
        Category::Budget,
        what,
        format!("ran in {ms} ms, budget {budget_ms} ms ({key})"),
        &format!("time git majordomus {what}"),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(level: Level) -> Finding {
        Finding::new(level, Category::Task, "s", "m", "")
    }

    #[test]
    fn exit_codes_follow_fail_then_drift() {
        let doc = |v: Vec<Finding>| Findings { findings: v };
        assert_eq!(exit_code(&doc(vec![f(Level::Ok), f(Level::Warn), f(Level::Info)])), Exit::Ok);
        assert_eq!(exit_code(&doc(vec![f(Level::Drift), f(Level::Warn)])), Exit::Drift);
        assert_eq!(exit_code(&doc(vec![f(Level::Drift), f(Level::Fail)])), Exit::Refused);
    }
}
