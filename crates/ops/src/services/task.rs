//! Reading and updating the active task record `current.yaml`, and its archive
//! (`archive/<id>.yaml`, docs/REFERENCE.md#layout): what `start` moves there and `start --resume` brings back.
//! Must not touch: a command or a query, records other than the task and its archive.

use std::path::PathBuf;

use crate::ctx::Ctx;
use crate::error::{Error, Result};

/// What reading or moving the task record refuses (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// A task record does not parse.
    #[error("{path} does not parse: {reason}")]
    Unparsable {
        /// The file, relative to the checkout.
        path: String,
        /// The parser's first line.
        reason: String,
        /// An archived record (else `current.yaml`).
        archived: bool,
    },
    /// A task is active.
    #[error("task {id} is active ('{task}')")]
    Active {
        /// Its id.
        id: String,
        /// Its title.
        task: String,
    },
    /// The archive file for the id holds other text.
    #[error("an archive already exists at {0}; nothing was changed")]
    ArchiveExists(String),
}
use crate::model::events::Event;
use crate::model::task::Task;
use crate::store::atomic::{create_if_absent, guard, read_opt, replace, Lock};
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
    read_at(ctx, ctx.layout.current(), false)
}

/// Reads the archived record `archive/<id>.yaml`; `None` when absent, an error (13) when it
/// does not parse. `id` must be a plain file name ([`crate::model::task::is_task_id`]).
pub fn archived(ctx: &Ctx, id: &str) -> Result<Option<TaskRecord>> {
    read_at(ctx, archive_path(ctx, id), true)
}

/// Where task `id` is archived.
pub fn archive_path(ctx: &Ctx, id: &str) -> PathBuf {
    ctx.layout.archive().join(format!("{id}.yaml"))
}

fn read_at(ctx: &Ctx, path: PathBuf, archived: bool) -> Result<Option<TaskRecord>> {
    guard(ctx.layout.root(), &path)?;
    let Some(text) = read_opt(&path)? else { return Ok(None) };
    let task = Task::parse(&text).map_err(|e| TaskError::Unparsable {
        path: ctx.rel(&path),
        reason: e.lines().next().unwrap_or(&e).to_string(),
        archived,
    })?;
    let foreign = !ctx.here().is_worktree(&task.worktree);
    Ok(Some(TaskRecord { task, foreign }))
}

/// The refusal (15) of `start` and `start --resume` while task `t` is active: the hint names
/// the two commands that end it (a plain `handover` leaves it active).
pub fn active_conflict(t: &Task) -> Error {
    TaskError::Active { id: t.id.clone(), task: t.task.clone() }.into()
}

/// Moves the record in `current.yaml`, `old` as read, to `archive/<id>.yaml` (the caller
/// holds [`LOCK`] and writes `current.yaml` next); a foreign record is moved with a warning.
/// An archive of that id that already holds other text is a conflict (15); one that holds the
/// same text is the trace of a move killed before `current.yaml` was rewritten, and is kept.
/// Returns the archived id.
pub fn archive_current(ctx: &Ctx, old: &TaskRecord) -> Result<String> {
    if old.foreign {
        ctx.warn(format!(
            "task record {} names another checkout ({}); replacing it here",
            old.task.id, old.task.worktree
        ));
    }
    let text = read_opt(&ctx.layout.current())?.unwrap_or_default();
    let dest = archive_path(ctx, &old.task.id);
    guard(ctx.layout.root(), &dest)?;
    if !create_if_absent(&dest, text.as_bytes())? && read_opt(&dest)?.as_deref() != Some(text.as_str()) {
        return Err(TaskError::ArchiveExists(ctx.rel(&dest)).into());
    }
    Ok(old.task.id.clone())
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
/// its rotated archives. A `task.resumed` of the task newer than its last finish undoes that
/// finish: the task is open again, and the answer is `None`.
pub fn finished_line(ctx: &Ctx, id: &str) -> Result<Option<ledger::Line>> {
    let ends = [Event::TaskFinished.as_str(), Event::TaskResumed.as_str()];
    let mine = |l: &ledger::Line| l.event().is_some_and(|e| ends.contains(&e)) && l.str("task_id") == Some(id);
    let newest = match ledger::last(&ctx.layout.ledger(), mine)? {
        Some(l) => Some(l),
        None => ledger::archived_last(&ctx.layout.ledger(), |l| mine(l).then(|| l.clone()))?,
    };
    Ok(newest.filter(|l| l.event() == Some(Event::TaskFinished.as_str())))
}
