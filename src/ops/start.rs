//! `start` (SPEC §8.1): open a task in this checkout.

use serde_json::Value;

use super::resolve::resolve;
use super::task::{self, LOCK};
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::finding::{Category, Finding, Level};
use crate::model::labels::{age, Anchor};
use crate::model::task::{in_scope, normalise_scope, Outcome, Task};
use crate::store::atomic::{create_if_absent, read_opt, replace, Lock};
use crate::store::records::random_hex;

/// Parameters of `start`.
#[derive(Debug, Clone)]
pub struct StartParams {
    /// The task text.
    pub task: String,
    /// Raw scope arguments (each may hold comma-separated paths).
    pub scope: Vec<String>,
    /// Profile name; the policy default when absent.
    pub profile: Option<String>,
    /// Owner; `$USER` when absent.
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
            if old.foreign {
                ctx.warn(format!(
                    "task record {} names another checkout ({}); replacing it here",
                    old.task.id, old.task.worktree
                ));
            } else if old.task.is_active() {
                return Err(Error::conflict(format!(
                    "task {} is active ('{}'); run git majordomus handover or git majordomus finish first",
                    old.task.id, old.task.task
                )));
            }
            let text = read_opt(&ctx.layout.current())?.unwrap_or_default();
            let dest = ctx.layout.archive().join(format!("{}.yaml", old.task.id));
            if !create_if_absent(&dest, text.as_bytes())? {
                return Err(Error::conflict(format!(
                    "an archive already exists at {}; nothing was changed",
                    ctx.rel(&dest)
                ))
                .hint("move or remove that archive file, then start again"));
            }
            archived = Some(old.task.id);
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
    let mut findings = overlaps(ctx, &task);
    let res = resolve(ctx, &ctx.layout.handovers(), None)?;
    if let Some(w) = res.winner {
        let label = ctx.divergence_of(&w.meta);
        findings.push(Finding::new(
            Level::Info,
            Category::Handover,
            ctx.rel(&w.path),
            format!(
                "prior record, {}, {}, {}",
                w.matched.as_str(),
                label.as_str(),
                age(w.meta.judged_at(), ctx.clock.now())
            ),
            "git majordomus handover --resolve",
        ));
    }
    Ok(StartReport { task, archived, findings })
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
