//! When a derived record fills a gap (docs/REFERENCE.md#origin): what the compact and end hooks learn
//! from the ledger's tail before they write anything.
//!
//! A derived record never hides one a person or an agent wrote. The end hook writes its derived
//! handover only when no authored handover is at or after the episode's last activity, and
//! either hook writes its derived checkpoint only when something changed since the last
//! checkpoint (another head, another working tree, or a new ledger line of the episode).
//!
//! An episode's *activity* is every ledger line stamped with it — its start included — except
//! the receipts (`provider.event.*`) and the tool's own derived writes (lines with
//! `origin: derived`, and `knowledge.derived`). Ledger position decides, never a clock.

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::events::Event;
use crate::model::record::Origin;
use crate::model::task::Task;
use crate::services::records::meta_now;
use crate::store::format::record::parse;
use crate::store::{atomic::read_opt, ledger};

/// How many ledger lines from the end are read at most: an episode of more lines than this
/// counts as having changed something (the derived records are written).
const TAIL_LINES: usize = 50_000;

/// What the hooks may skip.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gap {
    /// An authored handover of this episode or task is at or after the episode's last activity:
    /// the end hook writes no derived handover.
    pub handover_covered: bool,
    /// Nothing changed since the last checkpoint: the hooks write no derived checkpoint.
    pub checkpoint_current: bool,
}

/// Reads the ledger's tail, back to the start of the episode of this process
/// (`ctx.session_id()`).
pub fn of_episode(ctx: &Ctx, task: Option<&Task>) -> Result<Gap> {
    let session = ctx.session_id();
    let Some(lines) = ledger::backward(&ctx.layout.ledger())? else { return Ok(Gap::default()) };
    let own_task = |l: &ledger::Line| task.is_some_and(|t| l.str("task_id") == Some(t.id.as_str()));
    let mut covered: Option<bool> = None;
    // The newest checkpoint line with a record, when no activity line is newer.
    let mut checkpoint: Option<(String, String)> = None;
    let mut active_since_checkpoint = false;
    for line in lines.take(TAIL_LINES) {
        let line = line?;
        let Some(event) = line.event() else { continue };
        let mine = session.is_some() && line.str("session") == session.as_deref();
        let derived = line.str("origin") == Some(Origin::Derived.as_str()) || event == Event::KnowledgeDerived.as_str();
        let activity = mine && !derived && !event.starts_with("provider.event.");
        if covered.is_none() {
            if event == Event::TaskHandedOver.as_str() && !derived && (mine || own_task(&line)) {
                covered = Some(true);
            } else if activity {
                covered = Some(false);
            }
        }
        if checkpoint.is_none() && !active_since_checkpoint {
            match line.str("checkpoint_path") {
                Some(path) if event == Event::TaskCheckpoint.as_str() => {
                    checkpoint = Some((line.str("head").unwrap_or_default().to_string(), path.to_string()))
                }
                _ => active_since_checkpoint = activity,
            }
        }
        let started = mine && event == Event::SessionStarted.as_str();
        let checkpoint_known = checkpoint.is_some() || active_since_checkpoint;
        if started || checkpoint_known && (covered.is_some() || session.is_none()) {
            break;
        }
    }
    let checkpoint_current = match checkpoint {
        Some((head, path)) => same_state(ctx, task, &head, &ctx.layout.root().join(path))?,
        None => false,
    };
    Ok(Gap { handover_covered: covered.unwrap_or(false), checkpoint_current })
}

/// Whether the checkpoint at `path`, written at `head`, describes the checkout as it is now:
/// the same head and the same working tree (the same judgement and changed-file list).
fn same_state(ctx: &Ctx, task: Option<&Task>, head: &str, path: &std::path::Path) -> Result<bool> {
    let now = meta_now(ctx, task, Origin::Derived)?;
    if now.head != head {
        return Ok(false);
    }
    let Some(text) = read_opt(path)? else { return Ok(false) };
    let Ok((then, _)) = parse(&text) else { return Ok(false) };
    Ok(then.head == now.head
        && then.working_tree == now.working_tree
        && then.changed_files == now.changed_files
        && then.changed_total.is_none_or(|n| Some(n) == now.changed_total))
}
