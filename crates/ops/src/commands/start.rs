//! `start` (docs/REFERENCE.md#task): open a task in this checkout; `start --resume` (docs/REFERENCE.md#task) reopens one.
//! Must not touch: another command or a query, clap, the terminal.

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::finding::{Category, Finding, Level};
use crate::model::labels::{age, Anchor, Divergence};
use crate::model::task::{in_scope, is_task_id, normalise_scope, Outcome, Task, TITLE_CAP};
use crate::services::derive::unresolved;
use crate::services::resolve::resolve;
use crate::services::task::{self, LOCK};
use crate::store::atomic::{read_opt, rename, replace, Lock};
use crate::store::records::random_hex;
use crate::text::short;

/// Parameters of `start`.
#[derive(Debug, Clone)]
pub struct StartParams {
    /// The task text.
    pub task: String,
    /// Raw scope arguments (each may hold comma-separated paths).
    pub scope: Vec<String>,
    /// Profile name; the policy default when absent.
    pub profile: Option<String>,
    /// Owner; `$USER`, else git's `user.name`, when absent.
    pub owner: Option<String>,
}

/// What `start` did.
#[derive(Debug, Clone)]
pub struct StartReport {
    /// The new task.
    pub task: Task,
    /// The id of the record moved to the archive, if any.
    pub archived: Option<String>,
    /// INFO findings: scope overlaps and the prior record.
    pub findings: Vec<Finding>,
}

/// Normalises every scope argument (comma-split); usage error (2) on a bad path.
pub fn parse_scope(raw: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for part in raw.iter().flat_map(|s| s.split(',')) {
        if part.trim().is_empty() {
            continue;
        }
        let p = normalise_scope(part).map_err(|e| Error::usage(e.to_string()))?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(Error::usage("start: --scope is required")
            .hint("name the paths the task may touch, e.g. --scope lib/auth,tests"));
    }
    Ok(out)
}

/// Runs `start`.
pub fn run(ctx: &Ctx, p: StartParams) -> Result<StartReport> {
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    let text = p.task.trim();
    if text.is_empty() || text.contains('\n') {
        return Err(Error::usage("start: the task must be one non-empty line"));
    }
    let chars = text.chars().count();
    if chars > TITLE_CAP {
        return Err(Error::usage(format!("start: the task is {chars} characters, cap {TITLE_CAP}"))
            .hint("name the task in one short line; put the detail in a checkpoint or the handover"));
    }
    let scope = parse_scope(&p.scope)?;
    let profile = p.profile.unwrap_or_else(|| policy.profiles.default.clone());
    ctx.profile(&profile)?;
    let id = ctx.identity()?.clone();
    let wt = ctx.working_tree()?;
    let now = ctx.clock.stamp();
    let task = Task {
        id: format!("t-{}-{}", ctx.clock.id_stamp(), random_hex(4)),
        task: text.to_string(),
        profile,
        owner: p.owner.unwrap_or_else(|| ctx.default_owner()),
        scope,
        started_at: now.clone(),
        checkpoint_at: now,
        outcome: Outcome::Active,
        requires: Vec::new(),
        repository_id: id.repository_id.clone(),
        worktree: id.worktree.clone(),
        branch: id.branch_text().into(),
        head: id.head_text().into(),
        working_tree: wt.into(),
    };
    let mut archived = None;
    {
        let _lock = Lock::acquire(&ctx.layout.locks(), LOCK)?;
        if let Some(old) = task::read(ctx)? {
            if !old.foreign && old.task.is_active() {
                return Err(task::active_conflict(&old.task));
            }
            archived = Some(task::archive_current(ctx, &old)?);
        }
        replace(&ctx.layout.current(), task.to_yaml().as_bytes())?;
    }
    ctx.record_event(
        Event::TaskStarted,
        &[
            ("task_id", Value::from(task.id.clone())),
            ("profile", Value::from(task.profile.clone())),
            ("owner", Value::from(task.owner.clone())),
            ("scope", Value::from(task.scope.join(" "))),
        ],
    )?;
    let mut findings = missing_scope(ctx, &task)?;
    findings.extend(overlaps(ctx, &task));
    findings.extend(handover_finding(ctx, None, "prior record")?);
    Ok(StartReport { task, archived, findings })
}

majordomus_core::vocabulary! {
    /// Where `start --resume` found the task, named as the `task.resumed` line records it.
    pub enum ResumedFrom {
        /// `current.yaml`: the task handed over (or finished) in place.
        Current = "current",
        /// `archive/<id>.yaml`, where a later `start` had moved it.
        Archive = "archive",
    }
}

/// What `start --resume` did.
#[derive(Debug, Clone)]
pub struct ResumeReport {
    /// The task, active again.
    pub task: Task,
    /// The outcome it had.
    pub previous: Outcome,
    /// Where it was.
    pub from: ResumedFrom,
    /// The id of the record `current.yaml` held, moved to the archive, if any.
    pub archived: Option<String>,
    /// Findings: its handover, its unresolved questions, its label, scope overlaps.
    pub findings: Vec<Finding>,
}

/// Runs `start --resume <id>` (docs/REFERENCE.md#task): task `id`, handed over or
/// finished `partial`/`blocked` ([`Outcome::is_resumable`]), in `current.yaml` or in the
/// archive, becomes the active task again under its own id, with its scope, profile, owner and
/// start head as recorded; `checkpoint_at` restarts now. A non-active task in `current.yaml`
/// that is not `id` is archived first, as `start` does. Refused: a malformed id (2), an unknown
/// one (12), any active task, a record naming another checkout, a finished outcome (15).
pub fn resume(ctx: &Ctx, id: &str) -> Result<ResumeReport> {
    ctx.require_layer()?;
    let id = id.trim();
    if !is_task_id(id) {
        return Err(Error::usage(format!("start --resume: {id:?} is not a task id"))
            .hint("task ids look like t-20260903193012-a4f1; git majordomus history --event task.started lists them"));
    }
    let now = ctx.clock.stamp();
    let mut archived = None;
    let (task, previous, from) = {
        let _lock = Lock::acquire(&ctx.layout.locks(), LOCK)?;
        let current = task::read(ctx)?;
        if let Some(cur) = current.as_ref().filter(|r| !r.foreign && r.task.is_active()) {
            if cur.task.id == id {
                return Err(Error::conflict(format!(
                    "task {id} is already active ('{}'); nothing to resume",
                    cur.task.task
                ))
                .hint("carry on with it: git majordomus context"));
            }
            return Err(task::active_conflict(&cur.task));
        }
        let (rec, from) = match current.as_ref().filter(|r| r.task.id == id) {
            Some(r) => (r.clone(), ResumedFrom::Current),
            None => match task::archived(ctx, id)? {
                Some(r) => (r, ResumedFrom::Archive),
                None => {
                    return Err(Error::not_found(format!("no task {id} in this checkout"))
                        .hint("a task comes back from .ai/local/state/current.yaml or .ai/local/state/archive/<id>.yaml; git majordomus history --event task.started lists the tasks started here"))
                }
            },
        };
        let mut t = rec.task;
        if rec.foreign {
            return Err(Error::conflict(format!(
                "task {id} names another checkout ({}); it can be resumed only there",
                t.worktree
            ))
            .hint("start a new task here: git majordomus start \"<task>\" --scope <path>"));
        }
        if !t.is_active() && !t.outcome.is_resumable() {
            return Err(Error::conflict(format!(
                "task {id} is finished (outcome {}); it cannot be resumed",
                t.outcome
            ))
            .hint("start a new task: git majordomus start \"<task>\" --scope <path>"));
        }
        if from == ResumedFrom::Archive {
            if let Some(old) = &current {
                archived = Some(task::archive_current(ctx, old)?);
            }
            // The record moves back whole, then is rewritten: a resume killed in between
            // leaves the task in current.yaml, where a second resume finds it.
            rename(&task::archive_path(ctx, id), &ctx.layout.current())?;
        }
        let previous = t.outcome;
        t.outcome = Outcome::Active;
        t.checkpoint_at = now;
        replace(&ctx.layout.current(), t.to_yaml().as_bytes())?;
        (t, previous, from)
    };
    ctx.record_event(
        Event::TaskResumed,
        &[
            ("task_id", Value::from(task.id.clone())),
            ("previous_outcome", Value::from(previous.as_str())),
            ("from", Value::from(from.as_str())),
        ],
    )?;
    let mut findings = Vec::new();
    let label = crate::services::rewrite::label_of(ctx, &task);
    if matches!(label.divergence, Divergence::Diverged | Divergence::DifferentContext) {
        findings.push(Finding::new(
            Level::Warn,
            Category::Task,
            task.id.clone(),
            format!(
                "the task started at {} on {}, and that is {} here: its scope and touched files are judged from there",
                short(&task.head),
                task.branch,
                label.describe()
            ),
            "git majordomus check",
        ));
    }
    findings.extend(handover_finding(ctx, Some(&task.id), "its handover")?);
    let open = unresolved(ctx)?.into_iter().filter(|(t, _)| *t == task.id).count();
    if open > 0 {
        findings.push(Finding::new(
            Level::Info,
            Category::Blockers,
            task.id.clone(),
            format!("{open} unresolved question(s) of this task; each refuses finish --outcome completed"),
            "git majordomus question list",
        ));
    }
    findings.extend(overlaps(ctx, &task));
    Ok(ResumeReport { task, previous, from, archived, findings })
}

/// The INFO `handover` finding naming the record this checkout resolves to (of `task`, when
/// given): `<what>, <match>, <label>, <age>`.
fn handover_finding(ctx: &Ctx, task: Option<&str>, what: &str) -> Result<Option<Finding>> {
    let res = resolve(ctx, &ctx.layout.handovers(), task)?;
    Ok(res.winner.map(|w| {
        Finding::new(
            Level::Info,
            Category::Handover,
            ctx.rel(&w.path),
            format!(
                "{what}, {}, {}, {}",
                w.matched.as_str(),
                crate::services::rewrite::label_of(ctx, &w.meta).describe(),
                age(w.meta.judged_at(), ctx.clock.now())
            ),
            "git majordomus handover --resolve",
        )
    }))
}

/// A WARN for each scope path that names nothing (a typo such as `--scope srcc`): absent from the
/// working tree, and no changed file lies inside it (a path deleted since HEAD is listed
/// there), so it is in neither HEAD nor the working tree. Not a refusal: it may be a path the
/// task is about to create.
fn missing_scope(ctx: &Ctx, task: &Task) -> Result<Vec<Finding>> {
    let root = ctx.layout.root();
    let mut out = Vec::new();
    for s in task.scope.iter().filter(|s| *s != ".") {
        if std::fs::symlink_metadata(root.join(s)).is_ok() || ctx.changed_files()?.iter().any(|f| in_scope(f, s)) {
            continue;
        }
        out.push(Finding::new(
            Level::Warn,
            Category::Scope,
            s.clone(),
            "exists neither in HEAD nor in the working tree: a typo, or a path this task will create",
            &format!("git ls-files -- {s}"),
        ));
    }
    Ok(out)
}

/// INFO findings for active tasks of other worktrees whose scope contains or is contained by ours.
fn overlaps(ctx: &Ctx, task: &Task) -> Vec<Finding> {
    let mut out = Vec::new();
    for root in ctx.git.worktree_roots() {
        if root == ctx.layout.root() {
            continue;
        }
        let Ok(Some(text)) = read_opt(&root.join(".ai/local/state/current.yaml")) else { continue };
        let Ok(other) = Task::parse(&text) else { continue };
        if !other.is_active() {
            continue;
        }
        for mine in &task.scope {
            for theirs in &other.scope {
                let rel = if in_scope(mine, theirs) {
                    "contained by"
                } else if in_scope(theirs, mine) {
                    "contains"
                } else {
                    continue;
                };
                out.push(Finding::new(
                    Level::Info,
                    Category::Scope,
                    mine.clone(),
                    format!("{rel} {theirs} of active task {} in {}", other.id, root.display()),
                    "git worktree list",
                ));
            }
        }
    }
    out
}
