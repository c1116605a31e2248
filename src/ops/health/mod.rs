//! `check`, `watch` and `doctor` (SPEC §8.9): findings about the task, its stores and records.
//!
//! Each rule is one function shared by the three commands; a command picks the rules and the
//! level a bad result carries (a diverged task record is a WARN for `check`, a DRIFT for
//! `watch`). Only `check --checkpoint` writes.
//!
//! Owns: the rules and the exit code a findings document maps to.
//! Must not touch: clap, `Ui`.

use std::path::Path;
use std::time::Instant;

use serde_json::Value;

mod ledger;

use self::ledger::{retention, LedgerScan};
use super::derive::touched_since;
use super::resolve::list;
use super::task::{self, TaskRecord};
use crate::clock::parse_stamp;
use crate::ctx::Ctx;
use crate::error::{Error, Exit, Result};
use crate::model::events::Event;
use crate::model::finding::{Category, Finding, Findings, Level};
use crate::model::labels::Anchor;
use crate::model::labels::{span, Divergence};
use crate::model::policy::{interval_minutes, Policy};
use crate::model::record::missing_sections;
use crate::model::session::ClosedSession;
use crate::model::task::{in_scope, Outcome, Task};
use crate::store::atomic::read_opt;
use crate::store::format;
use crate::store::records::{head7, load, names};
use crate::store::{decisions, questions, sessions};

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
    Ok(Findings { findings: out })
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
    let (rec, bad) = task_record(ctx);
    out.extend(bad);
    if let Some(r) = &rec {
        out.push(task_summary(r));
    }
    out.extend(record_rules(ctx, &ctx.layout.checkpoints(), "checkpoint")?);
    out.extend(record_rules(ctx, &ctx.layout.handovers(), "handover")?);
    let scan = LedgerScan::read(ctx, None)?;
    out.extend(scan.rules(ctx, true));
    out.extend(question_rules(ctx, false)?);
    out.extend(decision_rules(ctx)?);
    out.extend(session_rules(ctx)?);
    match policy {
        Some(p) => {
            out.extend(retention(ctx, p, scan.lines, Level::Warn)?);
            out.extend(scan.knowledge_observed(ctx, p));
            out.extend(super::knowledge::store_findings(ctx, p)?);
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

// ---------------------------------------------------------------------------------------------
// The one write

/// Moves the active task's `checkpoint_at` to now and appends `task.checkpoint`.
fn write_checkpoint(ctx: &Ctx, rec: &TaskRecord) -> Result<Finding> {
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

// ---------------------------------------------------------------------------------------------
// Task rules

/// Reads the task record for watch/doctor: a record that does not parse is a FAIL, not an error.
fn task_record(ctx: &Ctx) -> (Option<TaskRecord>, Vec<Finding>) {
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
fn task_summary(r: &TaskRecord) -> Finding {
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
        format!("{:?} ({}, profile {}, scope {})", t.task, t.outcome, t.profile, t.scope.join(" ")),
        "cat .ai/local/state/current.yaml",
    )
}

/// The divergence label of the task's (head, branch); `diverged`/`different_context` at `bad`.
fn task_label(ctx: &Ctx, t: &Task, bad: Level, category: Category) -> Finding {
    let label = ctx.divergence_of(&t);
    let level = match label {
        Divergence::Exact | Divergence::Advanced => Level::Ok,
        Divergence::Diverged | Divergence::DifferentContext => bad,
        Divergence::Unknown => Level::Warn,
    };
    let what = match label {
        Divergence::Diverged => "; the recorded head is not an ancestor of HEAD: trust git, not the record",
        Divergence::DifferentContext => "; HEAD is on another branch: this task is not about the work here",
        Divergence::Unknown => "; the repository could not be asked",
        _ => "",
    };
    Finding::new(
        level,
        category,
        t.id.clone(),
        format!("task record {} (recorded head {} on {}){what}", label.as_str(), head7(&t.head), t.branch),
        "git majordomus context",
    )
}

/// Files touched since the task started (outside `.ai/`) that lie outside its scope: FAIL each.
fn scope(ctx: &Ctx, t: &Task) -> Result<Vec<Finding>> {
    let touched: Vec<String> =
        touched_since(ctx, t)?.into_iter().filter(|p| p != ".ai" && !p.starts_with(".ai/")).collect();
    let reproduce = if t.anchor_head().is_none() {
        "git status --porcelain".to_string()
    } else {
        format!("git diff --name-only {}; git status --porcelain", head7(&t.head))
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
fn checkpoint_age(ctx: &Ctx, policy: &Policy, t: &Task, late: Level) -> Vec<Finding> {
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
        ));
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

// ---------------------------------------------------------------------------------------------
// Store rules

/// `open-questions.md`: malformed `- [` lines FAIL; unresolved entries FAIL each when
/// `blockers_fail` (check), else one INFO count.
fn question_rules(ctx: &Ctx, blockers_fail: bool) -> Result<Vec<Finding>> {
    const REPRODUCE: &str = "git majordomus question list";
    let path = ctx.layout.questions();
    let rel = ctx.rel(&path);
    let Some(text) = read_opt(&path)? else {
        return Ok(vec![Finding::new(Level::Ok, Category::Questions, rel, "no question store yet", REPRODUCE)]);
    };
    let mut out = Vec::new();
    let mut open = 0;
    for e in questions::parse(&text) {
        match e {
            questions::Entry::Malformed { line, raw } => out.push(Finding::new(
                Level::Fail,
                Category::Questions,
                format!("{rel}:{line}"),
                format!(
                    "not a valid entry: {:?}; the shapes are \"- [unresolved] <task> — <question> (<date>)\" and \"- [resolved <date>] <task> — <text>\"",
                    cut(&raw, 120)
                ),
                &format!("sed -n {line}p {rel}"),
            )),
            questions::Entry::Unresolved { line, task, question, opened } => {
                open += 1;
                if blockers_fail {
                    out.push(Finding::new(
                        Level::Fail,
                        Category::Blockers,
                        format!("{rel}:{line}"),
                        format!("unresolved since {opened} (task {task}): {question} — refuses finish --outcome completed"),
                        REPRODUCE,
                    ));
                }
            }
            questions::Entry::Resolved { .. } => {}
        }
    }
    if !blockers_fail && open > 0 {
        out.push(Finding::new(
            Level::Info,
            Category::Blockers,
            rel.clone(),
            format!("{open} unresolved question(s); each refuses finish --outcome completed"),
            REPRODUCE,
        ));
    }
    if out.is_empty() {
        out.push(Finding::new(Level::Ok, Category::Questions, rel, "every entry parses; none unresolved", REPRODUCE));
    }
    Ok(out)
}

/// `decisions.md`: an entry missing `Task:`, `Head:` or `Why:` is a WARN.
fn decision_rules(ctx: &Ctx) -> Result<Vec<Finding>> {
    const REPRODUCE: &str = "git majordomus decision list";
    let path = ctx.layout.decisions();
    let rel = ctx.rel(&path);
    let Some(text) = read_opt(&path)? else {
        return Ok(vec![Finding::new(Level::Ok, Category::Decisions, rel, "no decision log yet", REPRODUCE)]);
    };
    let all = decisions::parse(&text);
    let mut out: Vec<Finding> = all
        .iter()
        .filter(|d| !d.missing().is_empty())
        .map(|d| {
            Finding::new(
                Level::Warn,
                Category::Decisions,
                format!("{rel}:{}", d.line),
                format!("entry {:?} lacks {}", d.title, d.missing().join(", ")),
                REPRODUCE,
            )
        })
        .collect();
    if out.is_empty() {
        out.push(Finding::new(
            Level::Ok,
            Category::Decisions,
            rel,
            format!("{} decision(s), each with Task, Head and Why", all.len()),
            REPRODUCE,
        ));
    }
    Ok(out)
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

// ---------------------------------------------------------------------------------------------
// Watch rules

/// Handover drift of a `handed_over` task: no handover names it, or the newest naming it lacks a
/// required section.
fn handover_drift(ctx: &Ctx, policy: &Policy, t: &Task) -> Result<Vec<Finding>> {
    let reproduce = format!("git majordomus handover --resolve --task {}", t.id);
    let all = list(ctx, &ctx.layout.handovers())?;
    let Some((_, path, _, body)) = all.iter().find(|(_, _, m, _)| m.task_id == t.id) else {
        return Ok(vec![Finding::new(
            Level::Drift,
            Category::Handover,
            t.id.clone(),
            "task handed_over, but no handover record names it",
            &reproduce,
        )]);
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
    }])
}

// ---------------------------------------------------------------------------------------------
// Doctor rules

/// Every profile parses, and `profiles.default` names one.
fn profile_rules(ctx: &Ctx, policy: Option<&Policy>) -> Vec<Finding> {
    let mut out = Vec::new();
    let names = ctx.profile_names();
    for n in &names {
        let subject = format!(".ai/repo/profiles/{n}.yaml");
        let reproduce = format!("cat {subject}");
        match ctx.profile(n) {
            Ok(p) if interval_minutes(&p.checkpoint_interval).is_none() => out.push(Finding::new(
                Level::Fail,
                Category::Profile,
                subject,
                format!("checkpoint_interval {:?} is not a span such as 15m", p.checkpoint_interval),
                &reproduce,
            )),
            Ok(_) => out.push(Finding::new(Level::Ok, Category::Profile, subject, "parses", &reproduce)),
            Err(e) => out.push(Finding::new(Level::Fail, Category::Profile, subject, e.message, &reproduce)),
        }
    }
    if let Some(p) = policy {
        if !names.contains(&p.profiles.default) {
            out.push(Finding::new(
                Level::Fail,
                Category::Profile,
                p.profiles.default.clone(),
                format!("profiles.default names no profile in .ai/repo/profiles/ (known: {})", names.join(", ")),
                "ls .ai/repo/profiles",
            ));
        }
        if interval_minutes(&p.profiles.checkpoint_interval_default).is_none() {
            out.push(Finding::new(
                Level::Fail,
                Category::Policy,
                ".ai/repo/policy.yaml",
                format!(
                    "profiles.checkpoint_interval_default {:?} is not a span such as 15m",
                    p.profiles.checkpoint_interval_default
                ),
                "git majordomus check",
            ));
        }
    }
    out
}

/// Every record file under `dir` the resolver would skip is a FAIL naming the file.
fn record_rules(ctx: &Ctx, dir: &Path, kind: &str) -> Result<Vec<Finding>> {
    let reproduce = format!("git majordomus {kind} --list");
    let root = ctx.layout.root();
    let all = names(dir)?;
    let mut out = Vec::new();
    for n in &all {
        let l = load(root, dir, n);
        if let Err(reason) = &l.parsed {
            out.push(Finding::new(
                Level::Fail,
                Category::Records,
                ctx.rel(&l.path),
                format!("the resolver skips this {kind}: {reason}"),
                &reproduce,
            ));
        }
    }
    if out.is_empty() {
        out.push(Finding::new(
            Level::Ok,
            Category::Records,
            ctx.rel(dir),
            format!("{} {kind} record(s), all readable", all.len()),
            &reproduce,
        ));
    }
    Ok(out)
}

/// The front matter of a Markdown file as a mapping, or why not.
fn front_matter(path: &Path) -> std::result::Result<serde_yaml::Mapping, String> {
    let text = read_opt(path).map_err(|e| e.message)?.ok_or_else(|| "vanished while reading".to_string())?;
    let (fm, _) = format::split(&text).ok_or_else(|| "no front matter".to_string())?;
    format::mapping(fm).ok_or_else(|| "malformed front matter".to_string())
}

/// File names in `dir` ending in `ext`, temp files excluded, sorted; `None` when `dir` is absent.
fn files(dir: &Path, ext: &str) -> Option<Vec<String>> {
    let rd = std::fs::read_dir(dir).ok()?;
    let mut v: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(ext) && !n.starts_with('.'))
        .collect();
    v.sort();
    Some(v)
}

/// Session store integrity, as far as the stores exist: every working-context document carries
/// `head`; every open episode parses and has its working context; every closed record carries
/// `schema: session/v1` and its required fields.
fn session_rules(ctx: &Ctx) -> Result<Vec<Finding>> {
    let mut out = Vec::new();
    let root = ctx.layout.root();
    let contexts_dir = ctx.layout.session_contexts();
    for n in files(&contexts_dir, ".md").unwrap_or_default() {
        let path = contexts_dir.join(&n);
        let subject = ctx.rel(&path);
        let reproduce = format!("head -n 16 {subject}");
        let problem = match crate::store::atomic::guard(root, &path) {
            Err(e) => Some(e.message),
            Ok(()) => match front_matter(&path) {
                Err(why) => Some(format!("working context: {why}")),
                Ok(m) if format::get(&m, "head").is_none_or(|h| h.trim().is_empty()) => {
                    Some("working context without head: it cannot be compared with git".into())
                }
                Ok(_) => None,
            },
        };
        if let Some(p) = problem {
            out.push(Finding::new(Level::Fail, Category::Sessions, subject, p, &reproduce));
        }
    }
    let open_dir = ctx.layout.sessions_open();
    if open_dir.is_dir() {
        let before = out.len();
        let open = sessions::list_open(&ctx.layout)?;
        for (key, parsed) in &open {
            let path = open_dir.join(format!("{key}.yaml"));
            let subject = ctx.rel(&path);
            let reproduce = format!("cat {subject}");
            if let Err(e) = crate::store::atomic::guard(root, &path) {
                out.push(Finding::new(Level::Fail, Category::Sessions, subject, e.message, &reproduce));
                continue;
            }
            match parsed {
                Err(_) => out.push(Finding::new(
                    Level::Fail,
                    Category::Sessions,
                    subject,
                    "open episode record does not parse",
                    &reproduce,
                )),
                Ok(s) if crate::store::session_context::find(&ctx.layout, &s.session_id).is_none() => {
                    out.push(Finding::new(
                        Level::Fail,
                        Category::Sessions,
                        subject,
                        format!(
                            "episode {} has no working-context document in {}",
                            s.session_id,
                            ctx.rel(&contexts_dir)
                        ),
                        &format!("git majordomus session context {}", s.session_id),
                    ))
                }
                Ok(_) => {}
            }
        }
        if out.len() == before {
            out.push(Finding::new(
                Level::Ok,
                Category::Sessions,
                ctx.rel(&open_dir),
                format!("{} open episode(s), each parses with a working context", open.len()),
                "git majordomus session status",
            ));
        }
    }
    let closed_dir = ctx.layout.sessions();
    if closed_dir.is_dir() {
        let before = out.len();
        let all = names(&closed_dir)?;
        for n in &all {
            let path = closed_dir.join(n);
            let subject = ctx.rel(&path);
            let reproduce = format!("head -n 30 {subject}");
            let problem = crate::store::atomic::guard(root, &path)
                .and_then(|()| read_opt(&path))
                .map_err(|e| e.message)
                .and_then(|t| t.ok_or_else(|| "vanished while reading".to_string()))
                .and_then(|t| ClosedSession::parse(&t).map(|_| ()).map_err(str::to_string));
            if let Err(p) = problem {
                out.push(Finding::new(
                    Level::Fail,
                    Category::Sessions,
                    subject,
                    format!("readers skip this closed session record: {p}"),
                    &reproduce,
                ));
            }
        }
        if out.len() == before {
            out.push(Finding::new(
                Level::Ok,
                Category::Sessions,
                ctx.rel(&closed_dir),
                format!("{} closed session record(s), all readable", all.len()),
                "git majordomus session list --all",
            ));
        }
    }
    Ok(out)
}

/// `s` cut to `n` characters with an ellipsis.
fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
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

    #[test]
    fn cut_marks_the_cut() {
        assert_eq!(cut("abc", 5), "abc");
        assert_eq!(cut("abcdef", 3), "abc…");
    }
}
