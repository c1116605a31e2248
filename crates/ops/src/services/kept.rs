//! The kept records of checkouts that are gone (docs/REFERENCE.md#kept-records, D60): a
//! removed or pruned worktree's copy under the common git directory, read from any other
//! checkout, labelled with the worktree it came from. Read only: adopting one is the command
//! `worktree adopt`.
//!
//! Owns: finding the copies no live checkout owns and no checkout adopted, and reading what
//! each holds. Must not touch: this checkout's own records, a command or a query.

use std::path::PathBuf;

use crate::ctx::Ctx;
use crate::error::Result;

/// What finding a gone checkout's records refuses (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    /// No gone checkout answers to the name.
    #[error("no kept records of a removed worktree named {0}")]
    NotFound(String),
    /// Several do.
    #[error("{which} names {} removed worktrees ({})", .ids.len(), .ids.join(", "))]
    Several {
        /// The name given.
        which: String,
        /// The ids of the checkouts it names.
        ids: Vec<String>,
    },
}
use crate::model::record::RecordMeta;
use crate::model::task::Task;
use crate::store::keep::{self, Checkout};
use crate::store::records::{load, names};

/// One gone checkout's kept records.
#[derive(Debug, Clone)]
pub struct Kept {
    /// Its `checkout.json`.
    pub checkout: Checkout,
    /// The copy of its `.ai/local/`.
    pub local: PathBuf,
    /// Its task record, when it had one that parses.
    pub task: Option<Task>,
    /// Its handovers, newest first (name, meta).
    pub handovers: Vec<(String, RecordMeta)>,
    /// How many checkpoints it holds.
    pub checkpoints: usize,
    /// How many decisions it holds.
    pub decisions: usize,
    /// How many questions are unresolved in it.
    pub open_questions: usize,
}

impl Kept {
    /// How a reader names it: git's worktree name, else the path it was last seen at.
    pub fn label(&self) -> String {
        self.checkout.name.clone().unwrap_or_else(|| self.checkout.last_path().to_string())
    }
}

/// One sentence naming what `k` holds and the command that adopts it (state's findings, the
/// briefing).
pub fn sentence(k: &Kept) -> String {
    let task = k.task.as_ref().map(|t| format!("task {} '{}', ", t.id, t.task)).unwrap_or_default();
    format!(
        "The records of the removed worktree {} are kept ({task}{} handover(s), {} decision(s), {} open question(s)); adopt them here with git majordomus worktree adopt {}.",
        k.checkout.last_path(),
        k.handovers.len(),
        k.decisions,
        k.open_questions,
        k.checkout.name.as_deref().unwrap_or(&k.checkout.id)
    )
}

/// The kept copies of gone checkouts not yet adopted, sorted by the path last seen.
pub fn orphans(ctx: &Ctx) -> Vec<Kept> {
    keep::orphans(ctx.git.common_dir()).into_iter().map(|c| read(ctx, c)).collect()
}

/// Reads what copy `checkout` holds (unreadable parts count as none).
pub fn read(ctx: &Ctx, checkout: Checkout) -> Kept {
    let local = keep::local_of(ctx.git.common_dir(), &checkout.id);
    let state = local.join("state");
    let text = |name: &str| std::fs::read_to_string(state.join(name)).unwrap_or_default();
    let task = Task::parse(&text("current.yaml")).ok();
    let dir = state.join("handovers");
    let mut handovers: Vec<(String, RecordMeta)> = names(&dir)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|n| load(&local, &dir, &n).parsed.ok().map(|(m, _)| (n, m)))
        .collect();
    handovers.reverse();
    let checkpoints = names(&state.join("checkpoints")).map(|v| v.len()).unwrap_or(0);
    let decisions = crate::store::decisions::parse(&text("decisions.md")).len();
    let open_questions = crate::store::questions::parse(&text("open-questions.md"))
        .iter()
        .filter(|e| matches!(e, crate::store::questions::Entry::Unresolved { .. }))
        .count();
    Kept { checkout, local, task, handovers, checkpoints, decisions, open_questions }
}

/// The gone checkout `which` names — its id (or a prefix of at least 4), git's worktree name,
/// or a path it was seen at — among those not yet adopted: 12 when none, 10 when several.
pub fn find(ctx: &Ctx, which: &str) -> Result<Kept> {
    let all = orphans(ctx);
    let abs = std::path::absolute(which).map(|p| p.display().to_string()).unwrap_or_default();
    let hits: Vec<&Kept> = all
        .iter()
        .filter(|k| {
            let c = &k.checkout;
            (which.len() >= 4 && c.id.starts_with(which))
                || c.name.as_deref() == Some(which)
                || c.paths.iter().any(|p| p == which || p == &abs)
        })
        .collect();
    match hits.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(KeptError::NotFound(which.into()).into()),
        many => {
            Err(KeptError::Several { which: which.into(), ids: many.iter().map(|k| k.checkout.id.clone()).collect() }
                .into())
        }
    }
}
