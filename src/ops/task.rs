//! Reading and updating the active task record `current.yaml`.

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::task::Task;
use crate::store::atomic::{guard, read_opt, replace, Lock};
use crate::store::ledger;

/// The lock every writer of `current.yaml` takes.
pub const LOCK: &str = "task";

/// The task record of this checkout, with whether it names another checkout.
#[derive(Debug, Clone)]
pub struct TaskRecord {
    /// The parsed record.
    pub task: Task,
    /// Its `worktree` names another checkout: reported, enforces nothing.
    pub foreign: bool,
}

/// Reads `current.yaml`; `None` when absent. A record that does not parse is an error (13).
pub fn read(ctx: &Ctx) -> Result<Option<TaskRecord>> {
    let path = ctx.layout.current();
    guard(ctx.layout.root(), &path)?;
    let Some(text) = read_opt(&path)? else { return Ok(None) };
    let task = Task::parse(&text).map_err(|e| {
        Error::io(format!(".ai/local/state/current.yaml does not parse: {}", e.lines().next().unwrap_or(&e)))
            .hint("fix or remove the file; git majordomus start writes a new one")
    })?;
    let foreign = task.worktree != ctx.layout.root().display().to_string();
    Ok(Some(TaskRecord { task, foreign }))
}

/// The task record when it belongs to this checkout (not foreign).
pub fn local(ctx: &Ctx) -> Result<Option<Task>> {
    Ok(read(ctx)?.filter(|r| !r.foreign).map(|r| r.task))
}

/// The local task record when its outcome is `active`.
pub fn active(ctx: &Ctx) -> Result<Option<Task>> {
    Ok(local(ctx)?.filter(Task::is_active))
}

/// Re-reads the local task under the task lock and applies `f` to it, writing the result
/// atomically; returns the updated task (or `None` when there is no local task).
pub fn update(ctx: &Ctx, f: impl FnOnce(&mut Task)) -> Result<Option<Task>> {
    let _lock = Lock::acquire(&ctx.layout.locks(), LOCK)?;
    let Some(mut t) = local(ctx)? else { return Ok(None) };
    f(&mut t);
    replace(&ctx.layout.current(), t.to_yaml().as_bytes())?;
    Ok(Some(t))
}

/// The `task.finished` line of task `id`, newest first: the live ledger read from its tail, then
/// its rotated archives.
pub fn finished_line(ctx: &Ctx, id: &str) -> Result<Option<ledger::Line>> {
    let mine = |l: &ledger::Line| l.event() == Some(Event::TaskFinished.as_str()) && l.str("task_id") == Some(id);
    match ledger::last(&ctx.layout.ledger(), mine)? {
        Some(l) => Ok(Some(l)),
        None => ledger::archived_last(&ctx.layout.ledger(), |l| mine(l).then(|| l.clone())),
    }
}
