//! `finish` (docs/REFERENCE.md#finish): close the task against its contract.
//! Must not touch: another command or a query, the terminal beyond the verify command's own output.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::finding::{Category, Finding, Level};
use crate::model::labels::Anchor;
use crate::model::policy::Requirement;
use crate::model::record::has_section;
use crate::model::task::{in_scope, Outcome, Task};
use crate::services::derive::{touched_since, unresolved};
use crate::services::resolve::resolve;
use crate::services::rewrite::TaskLanded;
use crate::services::task;
use crate::store::atomic::{read_opt, replace, Lock};
use crate::store::layout::ignores_local;
use crate::store::ledger;

/// Parameters of `finish`.
#[derive(Debug, Clone)]
pub struct FinishParams {
    /// A terminal outcome ([`Outcome::is_terminal`]).
    pub outcome: Outcome,
    /// Run as `sh -c` in the worktree root.
    pub verify_command: Option<String>,
    /// The note's text and its path as given.
    pub note: Option<String>,
    /// Evaluate only; write nothing.
    pub check: bool,
}

/// One contract line.
#[derive(Debug, Clone)]
pub struct ContractLine {
    /// `scope_respected`, `verification_ran`, ...
    pub name: &'static str,
    /// `pass`, `fail` or `skipped`.
    pub verdict: &'static str,
    /// Why.
    pub message: String,
    /// Whether policy `verification.finish_requires` names it.
    pub required: bool,
}

/// The verify command's result.
#[derive(Debug, Clone)]
pub struct Verify {
    /// The command.
    pub command: String,
    /// Its exit code (-1 when killed by a signal).
    pub exit: i32,
    /// Whole seconds it ran.
    pub seconds: u64,
}

/// What `finish` decided.
#[derive(Debug, Clone)]
pub struct FinishReport {
    /// The task, or `None` for `--check` without a task that finish would accept.
    pub task: Option<Task>,
    /// Every contract line.
    pub contract: Vec<ContractLine>,
    /// The verify run, when a command was given.
    pub verify: Option<Verify>,
    /// Required lines that failed.
    pub unmet: usize,
    /// Whether the outcome was written.
    pub written: bool,
}

impl FinishReport {
    /// The contract lines as findings.
    pub fn findings(&self, outcome: Outcome) -> Vec<Finding> {
        let reproduce = format!("git majordomus finish --check --outcome {outcome}");
        self.contract
            .iter()
            .map(|c| {
                let level = match (c.verdict, c.required) {
                    ("pass", _) => Level::Ok,
                    ("fail", true) => Level::Fail,
                    ("fail", false) => Level::Warn,
                    _ => Level::Info,
                };
                let msg = if c.required {
                    c.message.clone()
                } else {
                    format!("{} (not in verification.finish_requires)", c.message)
                };
                Finding::new(level, Category::Contract, c.name, format!("{}: {msg}", c.verdict), &reproduce)
            })
            .collect()
    }
}

fn line(name: &'static str, verdict: &'static str, message: impl Into<String>) -> ContractLine {
    ContractLine { name, verdict, message: message.into(), required: false }
}

/// Runs the verify command as `sh -c` in `root`, its output on our stderr.
fn run_verify(root: &Path, cmd: &str) -> Result<Verify> {
    let started = Instant::now();
    let status = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| Error::io(format!("finish: cannot run the verify command: {e}")))?;
    Ok(Verify { command: cmd.to_string(), exit: status.code().unwrap_or(-1), seconds: started.elapsed().as_secs() })
}

/// Runs `finish`.
pub fn run(ctx: &Ctx, p: FinishParams) -> Result<FinishReport> {
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    if !p.outcome.is_terminal() {
        return Err(Error::usage(format!("finish: outcome {} does not end a task", p.outcome))
            .hint("use completed, partial, blocked, no_match or failed"));
    }
    let t = task::local(ctx)?;
    let t = match t {
        Some(t) if finishable(ctx, &t, p.outcome)? => t,
        Some(t) if !p.check => return Err(already_finished(ctx, &t)?),
        None if !p.check => {
            return Err(Error::not_found("no task record; nothing to finish").hint("run git majordomus start first"))
        }
        _ => return Ok(FinishReport { task: None, contract: Vec::new(), verify: None, unmet: 0, written: false }),
    };
    let completed = p.outcome == Outcome::Completed;
    // A task whose branch landed here is judged on the landed commits (docs/REFERENCE.md#finish).
    let landed = crate::services::rewrite::task_landed_here(ctx, &t);
    let (scope, touched) = scope_line(ctx, &t, landed.as_ref())?;
    let verify = match &p.verify_command {
        Some(c) if !c.trim().is_empty() => Some(run_verify(ctx.layout.root(), c)?),
        _ => None,
    };
    let mut contract = vec![
        scope,
        verification_line(ctx, &t, p.outcome, verify.as_ref(), &touched),
        state_line(ctx, &t, landed.as_ref()),
        blockers_line(ctx, completed)?,
        note_line(ctx, &t, &p, &policy.handover.required_sections)?,
    ];
    for c in &mut contract {
        c.required = policy.verification.finish_requires.iter().any(|r| r == c.name);
    }
    let unmet = contract.iter().filter(|c| c.required && c.verdict == "fail").count();
    let mut report = FinishReport { task: Some(t.clone()), contract, verify, unmet, written: false };
    if p.check || unmet > 0 {
        return Ok(report);
    }
    write(ctx, &t, &p, &report)?;
    report.written = true;
    Ok(report)
}

/// `scope_respected`: every file touched since the task started (the layer's own files, and the
/// layer's ignore line in `.gitignore`, left out) is inside the task's scope; with the files. A
/// landed task's touched files are those of the landed commits and the working tree.
fn scope_line(ctx: &Ctx, t: &Task, landed: Option<&TaskLanded>) -> Result<(ContractLine, Vec<String>)> {
    let touched = match landed {
        Some(l) => {
            let mut v = ctx.git.own_changes_between(l.base, l.head, &[])?;
            v.extend(ctx.changed_files()?.iter().cloned());
            v.sort();
            v.dedup();
            v
        }
        None => touched_since(ctx, t)?,
    };
    let mut touched: Vec<String> = touched.into_iter().filter(|f| !f.starts_with(".ai/")).collect();
    if touched.iter().any(|f| f == ".gitignore") && only_the_layers_ignore_line(ctx, t)? {
        touched.retain(|f| f != ".gitignore");
    }
    let outside: Vec<&String> = touched.iter().filter(|f| !t.scope.iter().any(|s| in_scope(f, s))).collect();
    let verdict = if outside.is_empty() {
        line("scope_respected", "pass", format!("{} touched file(s), all inside {}", touched.len(), t.scope.join(", ")))
    } else {
        let shown: Vec<&str> = outside.iter().take(5).map(|s| s.as_str()).collect();
        line("scope_respected", "fail", format!("{} file(s) outside scope: {}", outside.len(), shown.join(", ")))
    };
    Ok((verdict, touched))
}

/// `verification_ran`: only `completed` is verified; without `--verify-command` the task's
/// profile says whether one was required.
fn verification_line(
    ctx: &Ctx,
    t: &Task,
    outcome: Outcome,
    verify: Option<&Verify>,
    touched: &[String],
) -> ContractLine {
    match (verify, outcome == Outcome::Completed) {
        (_, false) => line("verification_ran", "skipped", format!("outcome {outcome} skips verification")),
        (Some(v), true) if v.exit == 0 => {
            line("verification_ran", "pass", format!("`{}` exited 0 in {} s", v.command, v.seconds))
        }
        (Some(v), true) => {
            line("verification_ran", "fail", format!("`{}` exited {} in {} s", v.command, v.exit, v.seconds))
        }
        (None, true) => {
            let req = ctx
                .profile(&t.profile)
                .ok()
                .map(|p| p.verification.verify_command_required.clone())
                .unwrap_or(Requirement::Flag(true));
            match req {
                Requirement::Flag(false) => line(
                    "verification_ran",
                    "skipped",
                    format!("profile {} does not require a verify command", t.profile),
                ),
                Requirement::Named(ref n) if n == "if_files_changed" && touched.is_empty() => {
                    line("verification_ran", "skipped", "no files changed (verify_command_required: if_files_changed)")
                }
                _ => line(
                    "verification_ran",
                    "fail",
                    format!("no --verify-command given; profile {} requires one ({req})", t.profile),
                ),
            }
        }
    }
}

/// `state_updated`: the task record's label still describes this checkout, or its work landed
/// here.
fn state_line(ctx: &Ctx, t: &Task, landed: Option<&TaskLanded>) -> ContractLine {
    let label = crate::services::rewrite::label_of(ctx, t);
    if label.divergence.trustworthy() {
        line("state_updated", "pass", format!("task record is {}", label.describe()))
    } else if let Some(l) = landed {
        line("state_updated", "pass", format!("task record is {}; its work {}", label.describe(), l.text))
    } else {
        line(
            "state_updated",
            "fail",
            format!("task record is {}; its head no longer describes this checkout", label.describe()),
        )
    }
}

/// `no_open_blockers`: no unresolved question (only `completed` is gated by them).
fn blockers_line(ctx: &Ctx, completed: bool) -> Result<ContractLine> {
    let open = unresolved(ctx)?;
    Ok(if !completed {
        line(
            "no_open_blockers",
            "skipped",
            format!("only completed is gated by open questions ({} unresolved)", open.len()),
        )
    } else if open.is_empty() {
        line("no_open_blockers", "pass", "no unresolved question")
    } else {
        let qs: Vec<&str> = open.iter().take(3).map(|(_, q)| q.as_str()).collect();
        line(
            "no_open_blockers",
            "fail",
            format!("{} unresolved question(s) refuse completion: {}", open.len(), qs.join(" | ")),
        )
    })
}

/// Ends the task: from the re-read of the task record to the `task.finished` line under one lock,
/// so two finishes at once write one line; the outcome, the note, and the line with the
/// contract's verdicts.
fn write(ctx: &Ctx, t: &Task, p: &FinishParams, report: &FinishReport) -> Result<()> {
    let _lock = Lock::acquire(&ctx.layout.locks(), LOCK)?;
    match task::local(ctx)? {
        Some(now) if now.id == t.id && finishable(ctx, &now, p.outcome)? => {
            if now.outcome == p.outcome {
                ctx.warn(format!(
                    "task {} already had outcome {} but no task.finished line (a finish was interrupted); completing it",
                    t.id, p.outcome
                ));
            }
        }
        Some(now) if now.id != t.id => {
            return Err(Error::conflict(format!("task {} was replaced by {} while finish ran", t.id, now.id))
                .hint("run git majordomus finish again"))
        }
        Some(now) => return Err(already_finished(ctx, &now)?),
        None => {
            return Err(Error::not_found("no task record; nothing to finish").hint("run git majordomus start first"))
        }
    }
    task::update(ctx, |x| x.outcome = p.outcome)?;
    if let Some(note) = &p.note {
        replace(&ctx.layout.completed().join(format!("{}.md", t.id)), note.as_bytes())?;
    }
    let verdicts: BTreeMap<&str, &str> = report.contract.iter().map(|c| (c.name, c.verdict)).collect();
    let verify_json = report
        .verify
        .as_ref()
        .map(|v| json!({"command": v.command, "exit": v.exit, "seconds": v.seconds}))
        .unwrap_or(Value::Null);
    ctx.record_event(
        Event::TaskFinished,
        &[
            ("task_id", Value::from(t.id.clone())),
            ("outcome", Value::from(p.outcome.as_str())),
            ("contract", json!(verdicts)),
            ("verify", verify_json),
            ("checkpoints", Value::from(checkpoints_of(ctx, &t.id)?)),
        ],
    )?;
    Ok(())
}

/// How many checkpoints the ledger records for a task.
fn checkpoints_of(ctx: &Ctx, task_id: &str) -> Result<usize> {
    let mut checkpoints = 0;
    for l in ledger::forward(&ctx.layout.ledger())?.into_iter().flatten() {
        let l = l?;
        let counted = l.event() == Some("task.checkpoint")
            && l.str("task_id") == Some(task_id)
            && l.pairs.as_ref().is_some_and(|p| p.has("checkpoint_path"));
        checkpoints += usize::from(counted);
    }
    Ok(checkpoints)
}

/// The lock a finish holds from re-reading the task to its `task.finished` line.
const LOCK: &str = "finish";

/// Whether `.gitignore` differs from the task's start commit only by lines that keep
/// `.ai/local/` out of git — the line `init` adds, which no task's scope names (D43).
fn only_the_layers_ignore_line(ctx: &Ctx, t: &Task) -> Result<bool> {
    let Some(base) = ctx.git.base_of(t.anchor_head()) else { return Ok(false) };
    let before = ctx.git.file_at(base, ".gitignore")?.unwrap_or_default();
    let now = read_opt(&ctx.layout.gitignore())?.unwrap_or_default();
    let other = |text: &str| text.lines().filter(|l| !ignores_local(l)).map(str::to_string).collect::<Vec<_>>();
    Ok(other(&String::from_utf8_lossy(&before)) == other(&now))
}

/// Whether `finish --outcome <outcome>` takes task `t`: an active or handed-over task, or one a
/// killed finish left half done — `outcome` already written and no `task.finished` line for it
/// (the re-run completes that finish, as a second `session close` completes a killed one).
fn finishable(ctx: &Ctx, t: &Task, outcome: Outcome) -> Result<bool> {
    if t.is_active() || t.outcome == Outcome::HandedOver {
        return Ok(true);
    }
    Ok(t.outcome == outcome && task::finished_line(ctx, &t.id)?.is_none())
}

/// The refusal (15) for a task `finish` does not take; it names an interrupted finish.
fn already_finished(ctx: &Ctx, t: &Task) -> Result<Error> {
    let e = Error::conflict(format!("task {} is already finished (outcome {})", t.id, t.outcome));
    Ok(if task::finished_line(ctx, &t.id)?.is_some() {
        e.hint("run git majordomus start for new work")
    } else {
        e.hint(format!(
            "its finish was interrupted before the task.finished line; run git majordomus finish --outcome {} to complete it",
            t.outcome
        ))
    })
}

/// The `note_present` line: what the outcome needs from the note (or the newest handover).
fn note_line(ctx: &Ctx, t: &Task, p: &FinishParams, required: &[String]) -> Result<ContractLine> {
    let needs: Vec<String> = match p.outcome {
        Outcome::Completed => required.to_vec(),
        Outcome::Partial | Outcome::Blocked => vec!["Next Action".into()],
        _ => vec!["Reason".into()],
    };
    if let Some(note) = &p.note {
        let missing: Vec<&String> = needs.iter().filter(|s| !has_section(note, s)).collect();
        return Ok(if missing.is_empty() {
            line("note_present", "pass", format!("the note carries {}", needs.join(", ")))
        } else {
            let m: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
            line("note_present", "fail", format!("the note lacks section(s): {}", m.join(", ")))
        });
    }
    if p.outcome == Outcome::Completed {
        return Ok(line("note_present", "skipped", "no --note given (completed needs none)"));
    }
    let res = resolve(ctx, &ctx.layout.handovers(), Some(&t.id))?;
    if let Some(w) = res.winner {
        if needs.iter().all(|s| has_section(&w.body, s)) {
            return Ok(line(
                "note_present",
                "pass",
                format!(
                    "no --note; the newest handover naming the task ({}) carries # {}",
                    ctx.rel(&w.path),
                    needs.join(", # ")
                ),
            ));
        }
    }
    Ok(line(
        "note_present",
        "fail",
        format!(
            "outcome {} needs a --note with # {} (or a handover naming the task that has it)",
            p.outcome,
            needs.join(", # ")
        ),
    ))
}

/// Reads a note file (UTF-8, at most 1 MiB).
pub fn read_note(path: &Path) -> Result<String> {
    let meta =
        std::fs::metadata(path).map_err(|e| Error::not_found(format!("finish: note {}: {e}", path.display())))?;
    if meta.len() > crate::BODY_CAP as u64 {
        return Err(Error::refused(format!("finish: note is {} bytes, cap {}", meta.len(), crate::BODY_CAP)));
    }
    read_opt(path)?.ok_or_else(|| Error::not_found(format!("finish: note {} does not exist", path.display())))
}
