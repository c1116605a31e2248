//! `worktree adopt`: bring a removed worktree's kept records into this checkout
//! (docs/REFERENCE.md#kept-records, D60). Only then do they join its resolution and gate its
//! `finish`: the paths the removed worktree was seen at become this checkout's.
//!
//! Owns: what adoption copies and how each store is merged. Must not touch: stdout, another
//! command or a query.

use std::path::Path;

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::services::kept::{self, Kept};
use crate::services::logs::{read_decisions, read_questions, DECISIONS_LOCK, QUESTIONS_LOCK};
use crate::services::task;
use crate::store::atomic::{create_if_absent, read_opt, replace, Lock};
use crate::store::decisions::strip_comments;
use crate::store::keep;

/// What `worktree adopt` did.
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Adopted {
    /// The adopted copy's id.
    pub id: String,
    /// The path the removed worktree was last seen at.
    pub worktree: String,
    /// Its task, when it had one, and where it went: `current` (this checkout had none) or
    /// `archive` (resume it with `start --resume`).
    pub task: Option<String>,
    /// `current` or `archive` (with `task`).
    pub task_to: Option<String>,
    /// Handovers, checkpoints and other record files copied.
    pub files: usize,
    /// Decisions appended to this checkout's log.
    pub decisions: usize,
    /// Questions appended to this checkout's store.
    pub questions: usize,
}

/// Adopts the removed worktree `which` names into this checkout.
pub fn adopt(ctx: &Ctx, which: &str) -> Result<Adopted> {
    ctx.require_layer()?;
    let mut kept = kept::find(ctx, which)?;
    let _task = Lock::acquire(&ctx.layout.locks(), task::LOCK)?;
    let (task, task_to) = adopt_task(ctx, &kept)?;
    let mut files = 0;
    for dir in ["state/handovers", "state/checkpoints", "state/archive", "state/completed", "session-contexts"] {
        files += copy_new(&kept.local.join(dir), &ctx.layout.local().join(dir))?;
    }
    let decisions = {
        let _l = Lock::acquire(&ctx.layout.locks(), DECISIONS_LOCK)?;
        let theirs = read_opt(&kept.local.join("state/decisions.md"))?.unwrap_or_default();
        merge(ctx, &ctx.layout.decisions(), &read_decisions(ctx)?, &decision_entries(&theirs))?
    };
    let questions = {
        let _l = Lock::acquire(&ctx.layout.locks(), QUESTIONS_LOCK)?;
        let theirs = read_opt(&kept.local.join("state/open-questions.md"))?.unwrap_or_default();
        merge(ctx, &ctx.layout.questions(), &read_questions(ctx)?, &question_entries(&theirs))?
    };
    // The ledger is kept beside this one, read by nothing: its events are the other checkout's.
    if let Some(ledger) = read_opt(&kept.local.join("state/ledger.jsonl"))? {
        let aside = ctx.layout.state().join(format!("ledger.adopted-{}.jsonl", kept.checkout.id));
        create_if_absent(&aside, ledger.as_bytes())?;
    }
    keep::adopt(&ctx.place(), &mut kept.checkout)
        .map_err(|e| Error::io(format!("recording the adoption under the git directory: {e}")))?;
    let worktree = kept.checkout.last_path().to_string();
    ctx.record_event(
        Event::WorktreeAdopted,
        &[
            ("worktree", Value::from(worktree.clone())),
            ("adopted", Value::from(kept.checkout.id.clone())),
            ("task_id", Value::from(task.clone().unwrap_or_else(|| "none".into()))),
        ],
    )?;
    Ok(Adopted { id: kept.checkout.id, worktree, task, task_to, files, decisions, questions })
}

/// The removed worktree's task: this checkout's task when it has no active one (a finished or
/// handed-over one is archived first, as `start` does), else archived here (an archive of the
/// same id already here is left as it is).
fn adopt_task(ctx: &Ctx, kept: &Kept) -> Result<(Option<String>, Option<String>)> {
    let Some(text) = read_opt(&kept.local.join("state/current.yaml"))? else { return Ok((None, None)) };
    let Some(t) = &kept.task else {
        return Err(Error::io(format!("{}/state/current.yaml does not parse", kept.local.display()))
            .hint("fix or remove that file, then adopt again"));
    };
    let to = match task::read(ctx)? {
        Some(cur) if cur.task.is_active() => {
            create_if_absent(&task::archive_path(ctx, &t.id), text.as_bytes())?;
            "archive"
        }
        Some(cur) => {
            task::archive_current(ctx, &cur)?;
            replace(&ctx.layout.current(), text.as_bytes())?;
            "current"
        }
        None => {
            create_if_absent(&ctx.layout.current(), text.as_bytes())?;
            "current"
        }
    };
    Ok((Some(t.id.clone()), Some(to.into())))
}

/// Copies every file of `from` that `to` lacks; how many.
fn copy_new(from: &Path, to: &Path) -> Result<usize> {
    let names = crate::store::records::file_names_where(from, |n| !n.starts_with('.'))?;
    let mut n = 0;
    for name in names {
        let src = from.join(&name);
        if !src.is_file() {
            continue;
        }
        let bytes = std::fs::read(&src).map_err(|e| Error::io_at(&src, e))?;
        n += usize::from(create_if_absent(&to.join(&name), &bytes)?);
    }
    Ok(n)
}

/// The entries of a decision log, each with its lines (what the log's template part is not).
fn decision_entries(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for d in crate::store::decisions::parse(text) {
        let block = text.lines().skip(d.line - 1).take(d.text.len() + 1).collect::<Vec<_>>().join("\n");
        out.push(format!("\n{}\n", block.trim_end()));
    }
    out
}

/// The entry lines of a question store (outside comments), each with its newline.
fn question_entries(text: &str) -> Vec<String> {
    strip_comments(text).into_iter().filter(|(_, l)| l.starts_with("- [")).map(|(_, l)| format!("{l}\n")).collect()
}

/// Appends to the store `path` (text `ours`) each of `entries` it does not hold yet outside its
/// comments; how many.
fn merge(ctx: &Ctx, path: &Path, ours: &str, entries: &[String]) -> Result<usize> {
    let visible: String = strip_comments(ours).into_iter().map(|(_, l)| format!("{l}\n")).collect();
    let new: Vec<&String> = entries.iter().filter(|e| !visible.contains(e.trim())).collect();
    if new.is_empty() {
        return Ok(0);
    }
    let mut text = ours.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for e in &new {
        text.push_str(e);
    }
    crate::store::atomic::guard(ctx.layout.root(), path)?;
    replace(path, text.as_bytes())?;
    Ok(new.len())
}
