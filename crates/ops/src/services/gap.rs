//! When a derived record fills a gap (docs/REFERENCE.md#origin): what the compact and end hooks learn
//! from the ledger's tail before they write anything.
//! Must not touch: a command or a query, writes (it reads the ledger's tail and the tree).
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

/// The ledger field that records the state of the working tree and index by content when a
/// checkpoint, a handover or an episode is written or opened (docs/REFERENCE.md#origin).
pub const TREE_FIELD: &str = "tree";

/// How many changed files an episode's opening hashes at most: beyond that its `tree` is
/// `unknown` (the start hook stays within its budget), and nothing is skipped against it.
const START_TREE_FILES: usize = 200;

/// The value of [`TREE_FIELD`] now: `clean`, or the fingerprint of the changed files' contents
/// (docs/REFERENCE.md#fingerprint); with `bounded`, `unknown` past [`START_TREE_FILES`].
pub fn tree_now(ctx: &Ctx, bounded: bool) -> Result<String> {
    if bounded && ctx.changed_files()?.len() > START_TREE_FILES {
        return Ok("unknown".into());
    }
    Ok(crate::services::continuity::fingerprint(ctx)?.unwrap_or_else(|| "clean".into()))
}

/// How many ledger lines from the end are read at most: an episode of more lines than this
/// counts as having changed something (the derived records are written).
const TAIL_LINES: usize = 50_000;

/// What the hooks may skip.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gap {
    /// The episode did nothing (no ledger line of it beyond its opening and the receipts) and
    /// the checkout is as the last checkpoint or handover of the same task left it (none:
    /// as the episode opened it) — the same head, the same tree by content: the hooks write
    /// no derived record at all (docs/REFERENCE.md#origin).
    pub empty: bool,
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
    let mut checkpoint: Option<(String, String, Option<String>)> = None;
    let mut active_since_checkpoint = false;
    // Whether the episode did anything, and the state the last record (or its opening) left.
    let mut episode_active = false;
    let mut reference: Option<(String, String)> = None;
    let mut opening_state: Option<(String, String)> = None;
    let mut reached_start = false;
    for line in lines.take(TAIL_LINES) {
        let line = line?;
        let Some(event) = line.event() else { continue };
        let mine = session.is_some() && line.str("session") == session.as_deref();
        let derived = line.str("origin") == Some(Origin::Derived.as_str()) || event == Event::KnowledgeDerived.as_str();
        let activity = mine && !derived && !event.starts_with("provider.event.");
        // Emptiness counts every line of the episode beyond its opening and the receipts (and
        // the compact hook's own knowledge pass), derived records included.
        let bookkeeping = event.starts_with("provider.event.")
            || event == Event::SessionStarted.as_str()
            || event == Event::KnowledgeDerived.as_str();
        if mine && !bookkeeping {
            episode_active = true;
        }
        let a_record = event == Event::TaskHandedOver.as_str() || event == Event::TaskCheckpoint.as_str();
        let opening = mine && event == Event::SessionStarted.as_str();
        // A line without the field (written before it, or an opening past the bound): unknown.
        let state = || {
            (line.str("head").unwrap_or_default().to_string(), line.str(TREE_FIELD).unwrap_or("unknown").to_string())
        };
        if reference.is_none() && a_record && (task.is_none() || own_task(&line)) {
            reference = Some(state());
        }
        if opening_state.is_none() && opening {
            opening_state = Some(state());
        }
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
                    checkpoint = Some((
                        line.str("head").unwrap_or_default().to_string(),
                        path.to_string(),
                        line.str(TREE_FIELD).filter(|t| *t != "unknown").map(str::to_string),
                    ))
                }
                _ => active_since_checkpoint = activity,
            }
        }
        reached_start |= mine && event == Event::SessionStarted.as_str();
        let checkpoint_known = checkpoint.is_some() || active_since_checkpoint;
        let settled = reached_start || checkpoint_known && (covered.is_some() || session.is_none());
        // An episode that did nothing is judged against the last record of its task, which may
        // be older than the episode: read on until it is found.
        let emptiness_known = session.is_none() || episode_active || reference.is_some();
        if settled && emptiness_known {
            break;
        }
    }
    // The head and the tree as they are now, each read (the tree hashed) at most once.
    let now_head = crate::model::labels::Anchor::head_text(ctx.identity()?).to_string();
    let now_tree = std::cell::OnceCell::new();
    let same = |head: &str, tree: &str| -> Result<bool> {
        if head != now_head {
            return Ok(false);
        }
        if now_tree.get().is_none() {
            let _ = now_tree.set(tree_now(ctx, false)?);
        }
        Ok(now_tree.get().is_some_and(|now: &String| tree == now.as_str()))
    };
    // By content when the checkpoint's line says what the tree held (an edit to a file
    // already changed keeps the same list); else by its head and change list.
    let checkpoint_current = match checkpoint {
        Some((head, _, Some(tree))) => same(&head, &tree)?,
        Some((head, path, None)) => same_state(ctx, task, &head, &ctx.layout.root().join(path))?,
        None => false,
    };
    let empty = !episode_active
        && session.is_some()
        && match reference.or(opening_state) {
            Some((head, tree)) if tree != "unknown" => same(&head, &tree)?,
            _ => false,
        };
    Ok(Gap { handover_covered: covered.unwrap_or(false), checkpoint_current, empty })
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
