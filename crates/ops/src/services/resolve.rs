//! Record resolution (docs/REFERENCE.md#resolution): which record on disk is about the work happening here.
//! Must not touch: a command or a query, writes, file modification times.
//!
//! Two tiers only — same repository + worktree + branch, then same repository + branch (not
//! detached) — then nothing. Within a tier the greatest (`created_at`, ledger rank, file name)
//! wins; file modification times are never read.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::clock::parse_stamp;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::branch_of;
use crate::model::labels::Anchor;
use crate::model::record::{branch_key, record_name_key, Origin, RecordMeta};
use crate::store::name_index;
use crate::store::records::{load, names, names_where, RecordFile};

majordomus_core::vocabulary! {
    /// Which tier matched.
    pub enum Match in declaration order {
        /// Tier 0.
        SameWorktreeSameBranch = "same_worktree_same_branch",
        /// Tier 1.
        SameBranch = "same_branch",
    }
}

/// A record that resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// File name.
    pub name: String,
    /// Absolute path.
    pub path: PathBuf,
    /// Parsed front matter.
    pub meta: RecordMeta,
    /// Body after the front matter.
    pub body: String,
    /// The tier it matched in.
    pub matched: Match,
}

impl Resolved {
    /// Who wrote it.
    pub fn origin(&self) -> Origin {
        self.meta.origin
    }
}

/// What happened to one file.
#[derive(Debug, Clone, Serialize)]
pub struct TraceEntry {
    /// File name.
    pub file: String,
    /// `selected`, `superseded` or `rejected`.
    pub verdict: &'static str,
    /// Why (never empty).
    pub reason: String,
}

/// The answer of the resolver.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// The winner, when there is one.
    pub winner: Option<Resolved>,
    /// The newest derived record the winner was preferred to (an authored record of the same
    /// task or episode beats newer derived ones, docs/REFERENCE.md#origin): its file name.
    pub passed_over: Option<String>,
    /// How many files were skipped as unreadable.
    pub skipped: usize,
    /// Per-file trace.
    pub trace: Vec<TraceEntry>,
}

fn key_matches(found: Option<&str>, key: &str) -> bool {
    match found {
        Some(k) => k == key || k.strip_prefix("continuity--") == Some(key),
        None => true,
    }
}

/// Sort key inside one tier: parseable `created_at` above unparseable, then the time, then
/// ledger rank, then the file name.
fn order_key(created_at: &str, rank: usize, name: &str) -> (bool, i64, usize, String) {
    let t = parse_stamp(created_at);
    (t.is_some(), t.map(|t| t.timestamp()).unwrap_or(0), rank, name.to_string())
}

/// Warns about (and counts) a skipped file.
pub fn warn_skip(ctx: &Ctx, l: &RecordFile, reason: &str) {
    ctx.warn(format!("skipped {}: {reason}", ctx.rel(&l.path)));
}

/// What the resolver compares of one record.
#[derive(Debug, Clone)]
pub struct Facts {
    /// Repository identity as the record states it.
    pub repository_id: String,
    /// Worktree identity (a path, or a worktree id for closed sessions).
    pub worktree: String,
    /// Branch or `DETACHED`.
    pub branch: String,
    /// The asserted time.
    pub created_at: String,
    /// The task it names.
    pub task_id: String,
    /// Who wrote it (closed session records are `authored`: they are never compared so).
    pub origin: Origin,
    /// The episode it was written in, or `none`.
    pub session: String,
}

impl Facts {
    /// Whether `self` is derived and an authored record `other` hides it
    /// (docs/REFERENCE.md#origin): of the same task; without a task, of the same episode, or of the
    /// same checkout when `self` was written after it (once another session's end hook composed a
    /// newer record that hid the Next Action an agent wrote).
    fn hidden_by(&self, other: &Facts) -> bool {
        self.origin == Origin::Derived
            && other.origin == Origin::Authored
            && self.task_id == other.task_id
            && (self.task_id != "none"
                || self.session == other.session
                || (self.worktree == other.worktree && self.created_at >= other.created_at))
    }
}

/// Where the reader stands, in the same terms as [`Facts`].
#[derive(Debug, Clone)]
pub struct Here {
    /// Every repository identity that is this repository (today's first).
    pub repositories: Vec<String>,
    /// Every worktree identity that is this checkout (today's first; a moved or adopted
    /// checkout's earlier ones after it, D60).
    pub worktrees: Vec<String>,
    /// Branch or `DETACHED`.
    pub branch: String,
}

/// A record that resolved, with its parsed payload.
#[derive(Debug, Clone)]
pub struct Found<T> {
    /// File name.
    pub name: String,
    /// Absolute path.
    pub path: PathBuf,
    /// What was compared.
    pub facts: Facts,
    /// The parsed record.
    pub item: T,
    /// The tier it matched in.
    pub matched: Match,
}

/// The answer of [`resolve_with`].
#[derive(Debug, Clone)]
pub struct Answer<T> {
    /// The winner, when there is one.
    pub winner: Option<Found<T>>,
    /// The newest derived record the winner was preferred to, by file name.
    pub passed_over: Option<String>,
    /// How many files were skipped as unreadable.
    pub skipped: usize,
    /// Per-file trace.
    pub trace: Vec<TraceEntry>,
}

/// Whether the trace names every file of the directory (`explain`) or only those whose file
/// name is about this branch (every other reader: files naming another branch are then dropped
/// while the directory is listed, never held, sorted or traced).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trace {
    /// Every file, with its verdict.
    EveryFile,
    /// Only the files whose name is about this branch.
    ThisBranch,
}

/// The two-tier resolver over any record kind of `dir`. `name_key` extracts the branch key a
/// file name carries (files naming another key are rejected unread); `load` parses one file.
pub fn resolve_with<T>(
    ctx: &Ctx,
    dir: &Path,
    here: &Here,
    task: Option<&str>,
    name_key: impl Fn(&str) -> Option<&str>,
    trace_of: Trace,
    load: impl Fn(&str) -> (PathBuf, std::result::Result<(Facts, T), String>),
) -> Result<Answer<T>> {
    let listed = listing(dir, here, &name_key, trace_of)?;
    resolve_listed(ctx, listed, here, task.map(|id| TaskFilter { id, since: None }), None, name_key, load)
}

/// The task filter of a resolution: the `task_id` a record must carry and, when the task is this
/// checkout's own (`current.yaml`), the compact stamp before which no record of it can have been
/// written (its start, less [`START_SLACK_SECS`]).
#[derive(Debug, Clone, Copy)]
struct TaskFilter<'a> {
    id: &'a str,
    since: Option<&'a str>,
}

/// Which records may be candidates at all, beyond the tiers and the task filter.
type Only<'a> = Option<&'a dyn Fn(&Facts) -> bool>;

/// How far before its recorded start a record of the task is still looked at: room for a clock
/// that was set back a little between `start` and the record's write.
const START_SLACK_SECS: i64 = 3600;

/// The compact stamp before which no record of `task` was written, when `task` is this
/// checkout's own task (its `started_at` less [`START_SLACK_SECS`]). A record's file name starts
/// with the stamp of its write, and a task's records are written after its `start`, so the
/// task-filtered resolution need not read the older files of the branch: without this cut, a
/// task with no record yet read the front matter of every record of the branch (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow).
fn task_since(ctx: &Ctx, task: Option<&str>) -> Result<Option<String>> {
    let Some(id) = task else { return Ok(None) };
    let Some(t) = crate::services::task::local(ctx)?.filter(|t| t.id == id) else { return Ok(None) };
    Ok(parse_stamp(&t.started_at)
        .map(|at| (at - chrono::Duration::seconds(START_SLACK_SECS)).format("%Y%m%dT%H%M%SZ").to_string()))
}

/// The names of `dir` the resolver goes through (see [`Trace`]), sorted.
fn listing(dir: &Path, here: &Here, name_key: impl Fn(&str) -> Option<&str>, trace_of: Trace) -> Result<Vec<String>> {
    let key = branch_key(&here.branch);
    Ok(match trace_of {
        Trace::EveryFile => names(dir),
        Trace::ThisBranch => names_where(dir, |n| key_matches(name_key(n), &key)),
    }?)
}

/// [`listing`] of a checkpoint or handover directory, read through its name index
/// ([`name_index`]): an unchanged directory of thousands of records is not listed again, and
/// only the names of this branch's key are read.
fn record_listing(ctx: &Ctx, dir: &Path, here: &Here, trace_of: Trace) -> Result<Vec<String>> {
    let Some(index) = index_of(ctx, dir) else { return listing(dir, here, record_name_key, trace_of) };
    let key = branch_key(&here.branch);
    Ok(name_index::record_names_where(dir, &index, |k| trace_of == Trace::EveryFile || key_matches(k, &key))?)
}

/// Where the name index of `dir` lives: `<git-dir>/majordomus/names/<dir, checkout-relative>`
/// (the git dir of this worktree, as `dir` is this worktree's); none for a directory outside
/// the checkout.
fn index_of(ctx: &Ctx, dir: &Path) -> Option<PathBuf> {
    let rel = dir.strip_prefix(ctx.layout.root()).ok()?;
    let plain = rel.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    (plain && !rel.as_os_str().is_empty()).then(|| ctx.git.git_dir().join("majordomus/names").join(rel))
}

/// [`resolve_with`] over names already listed (sorted).
fn resolve_listed<T>(
    ctx: &Ctx,
    mut all: Vec<String>,
    here: &Here,
    task: Option<TaskFilter<'_>>,
    only: Only<'_>,
    name_key: impl Fn(&str) -> Option<&str>,
    load: impl Fn(&str) -> (PathBuf, std::result::Result<(Facts, T), String>),
) -> Result<Answer<T>> {
    let key = branch_key(&here.branch);
    let detached = branch_of(&here.branch).is_none();
    let mut res = Answer { winner: None, passed_over: None, skipped: 0, trace: Vec::new() };
    let mut trace = |file: &str, verdict: &'static str, reason: String| {
        res.trace.push(TraceEntry { file: file.to_string(), verdict, reason })
    };
    all.reverse(); // newest name stamp first
    let mut cands: Vec<(Found<T>, usize)> = Vec::new();
    // The name stamp below which no file can change the answer (see [`bound_of`]).
    let mut best0: Option<String> = None;
    let mut skipped = 0;
    for name in all {
        if !key_matches(name_key(&name), &key) {
            trace(&name, "rejected", "its file name names another branch".into());
            continue;
        }
        if best0.as_ref().is_some_and(|b| name.get(..16).is_some_and(|s| s < b.as_str())) {
            trace(&name, "superseded", "older than any record that could change the answer".into());
            continue;
        }
        if let Some(TaskFilter { id, since: Some(since) }) = task {
            if name.get(..16).is_some_and(|s| s < since) {
                trace(&name, "rejected", format!("written before task {id} started"));
                continue;
            }
        }
        let (path, parsed) = load(&name);
        let (facts, item) = match parsed {
            Ok(x) => x,
            Err(reason) => {
                ctx.warn(format!("skipped {}: {reason}", ctx.rel(&path)));
                skipped += 1;
                trace(&name, "rejected", reason);
                continue;
            }
        };
        if let Some(TaskFilter { id: t, .. }) = task {
            if facts.task_id != t {
                trace(&name, "rejected", format!("written under task {}, not {t}", facts.task_id));
                continue;
            }
        }
        if only.is_some_and(|keep| !keep(&facts)) {
            trace(&name, "rejected", "not a record this reader asks for".into());
            continue;
        }
        let this_repository = here.repositories.contains(&facts.repository_id);
        let matched = if !this_repository {
            None
        } else if here.worktrees.contains(&facts.worktree) && facts.branch == here.branch {
            Some(Match::SameWorktreeSameBranch)
        } else if !detached && facts.branch == here.branch {
            Some(Match::SameBranch)
        } else {
            None
        };
        let Some(matched) = matched else {
            let why = if !this_repository {
                format!("about another repository ({})", facts.repository_id)
            } else if facts.branch != here.branch {
                format!("about another branch ({})", facts.branch)
            } else {
                format!("about another worktree ({}) while HEAD is detached", facts.worktree)
            };
            trace(&name, "rejected", why);
            continue;
        };
        cands.push((Found { name, path, facts, item, matched }, 0));
        if matched == Match::SameWorktreeSameBranch {
            let tier0: Vec<&Facts> =
                cands.iter().filter(|c| c.0.matched == Match::SameWorktreeSameBranch).map(|c| &c.0.facts).collect();
            best0 = bound_of(&tier0);
        }
    }
    res.skipped = skipped;
    let Some(best_tier) = cands.iter().map(|c| c.0.matched).min() else { return Ok(res) };
    // Ledger ranks matter only among the best tier's records that share the newest timestamp.
    let time = |c: &Found<T>| order_key(&c.facts.created_at, 0, "").1;
    let top = cands.iter().filter(|c| c.0.matched == best_tier).map(|c| time(&c.0)).max();
    let tied: Vec<usize> =
        (0..cands.len()).filter(|&i| cands[i].0.matched == best_tier && Some(time(&cands[i].0)) == top).collect();
    if tied.len() > 1 {
        let tied_names: Vec<&str> = tied.iter().map(|&i| cands[i].0.name.as_str()).collect();
        let ranks = crate::store::ledger::ranks(&ctx.layout.ledger(), &tied_names)?;
        for (k, &i) in tied.iter().enumerate() {
            cands[i].1 = ranks[k];
        }
    }
    let in_tier: Vec<usize> = (0..cands.len()).filter(|&i| cands[i].0.matched == best_tier).collect();
    let hider = |i: usize| in_tier.iter().copied().find(|&j| cands[i].0.facts.hidden_by(&cands[j].0.facts));
    let key = |i: usize| order_key(&cands[i].0.facts.created_at, cands[i].1, &cands[i].0.name);
    let win = in_tier.iter().copied().filter(|&i| hider(i).is_none()).max_by_key(|&i| key(i)).unwrap_or(0);
    res.passed_over = in_tier
        .iter()
        .copied()
        .filter(|&i| hider(i).is_some() && key(i) > key(win))
        .max_by_key(|&i| key(i))
        .map(|i| cands[i].0.name.clone());
    for (i, (c, _)) in cands.iter().enumerate() {
        let (verdict, reason) = if i == win {
            ("selected", format!("{} (tier {}), {}", c.matched.as_str(), c.matched as u8, c.facts.origin))
        } else if c.matched != best_tier {
            ("superseded", "a record in a nearer tier exists".to_string())
        } else if let Some(j) = hider(i) {
            ("superseded", format!("derived; the authored record {} of the same task is preferred", cands[j].0.name))
        } else {
            ("superseded", "a newer record in the same tier exists".to_string())
        };
        res.trace.push(TraceEntry { file: c.name.clone(), verdict, reason });
    }
    res.winner = Some(cands.swap_remove(win).0);
    Ok(res)
}

/// The name stamp below which no file can change a tier-0 answer, given the tier-0 candidates
/// read so far (every one newer than any file still to read). The winner so far is the newest
/// one no authored record hides. An authored winner is beaten by no older file. A derived
/// winner can still be hidden by an older authored record of its task (task `none`: its
/// episode), but by none written before that task or episode began: task and episode ids carry
/// their start (`t-`/`s-<yyyymmddHHMMSS>-…`), less [`START_SLACK_SECS`].
fn bound_of(tier0: &[&Facts]) -> Option<String> {
    let hidden = |f: &Facts| tier0.iter().any(|o| f.hidden_by(o));
    let winner = tier0.iter().filter(|f| !hidden(f)).max_by_key(|f| order_key(&f.created_at, 0, ""))?;
    let at = if winner.origin == Origin::Authored {
        parse_stamp(&winner.created_at)?
    } else {
        let id = if winner.task_id != "none" { &winner.task_id } else { &winner.session };
        let stamp = id.get(2..16)?;
        let started = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%d%H%M%S").ok()?.and_utc();
        started - chrono::Duration::seconds(START_SLACK_SECS)
    };
    Some(at.format("%Y%m%dT%H%M%SZ").to_string())
}

/// Resolves the checkpoint or handover of `dir` for this checkout; `task` filters on `task_id`.
/// The trace names only the files about this branch (see [`resolve_traced`]).
pub fn resolve(ctx: &Ctx, dir: &Path, task: Option<&str>) -> Result<Resolution> {
    resolve_traced(ctx, dir, task, Trace::ThisBranch)
}

/// [`resolve`] with the trace it keeps chosen.
pub fn resolve_traced(ctx: &Ctx, dir: &Path, task: Option<&str>, trace: Trace) -> Result<Resolution> {
    resolve_only(ctx, dir, task, None, trace)
}

/// The newest authored record of `dir` that resolves here for `task` (task `none`, or
/// `same_episode`: of the episode `session` only) — what a derived record carries forward
/// (docs/REFERENCE.md#origin).
pub fn newest_authored(
    ctx: &Ctx,
    dir: &Path,
    task: &str,
    session: &str,
    same_episode: bool,
) -> Result<Option<Resolved>> {
    let only = |f: &Facts| f.origin == Origin::Authored && (task != "none" && !same_episode || f.session == session);
    Ok(resolve_only(ctx, dir, Some(task), Some(&only), Trace::ThisBranch)?.winner)
}

/// [`resolve_traced`] over the records `only` admits as candidates.
fn resolve_only(ctx: &Ctx, dir: &Path, task: Option<&str>, only: Only<'_>, trace: Trace) -> Result<Resolution> {
    let here = here(ctx)?;
    let root = ctx.layout.root();
    let since = task_since(ctx, task)?;
    let task = task.map(|id| TaskFilter { id, since: since.as_deref() });
    let listed = record_listing(ctx, dir, &here, trace)?;
    let ans = resolve_listed(ctx, listed, &here, task, only, record_name_key, |name| load_record(root, dir, name))?;
    Ok(resolution(ans))
}

/// [`resolve`] on `task` and, when no record of the task resolves, on any task — what
/// `context` shows as the handover (docs/REFERENCE.md#context) — from one listing of `dir`, each file read at
/// most once: the second resolution reuses what the first one read.
pub fn resolve_task_or_any(ctx: &Ctx, dir: &Path, task: Option<&str>) -> Result<Resolution> {
    let here = here(ctx)?;
    let root = ctx.layout.root();
    let listed = record_listing(ctx, dir, &here, Trace::ThisBranch)?;
    let read: RefCell<HashMap<String, Read>> = RefCell::new(HashMap::new());
    let load = |name: &str| {
        if let Some(hit) = read.borrow().get(name) {
            return hit.clone();
        }
        let r = load_record(root, dir, name);
        read.borrow_mut().insert(name.to_string(), r.clone());
        r
    };
    if let Some(id) = task {
        let since = task_since(ctx, task)?;
        let filter = TaskFilter { id, since: since.as_deref() };
        let ans = resolve_listed(ctx, listed.clone(), &here, Some(filter), None, record_name_key, load)?;
        if ans.winner.is_some() {
            return Ok(resolution(ans));
        }
    }
    Ok(resolution(resolve_listed(ctx, listed, &here, None, None, record_name_key, load)?))
}

/// Where this checkout stands, for the record resolver.
fn here(ctx: &Ctx) -> Result<Here> {
    let id = ctx.identity()?;
    Ok(Here {
        repositories: ctx.here().repositories.clone(),
        worktrees: ctx.here().worktrees.clone(),
        branch: id.branch_text().into(),
    })
}

/// One checkpoint or handover file as the resolver reads it.
type Read = (PathBuf, std::result::Result<(Facts, (RecordMeta, String)), String>);

fn load_record(root: &Path, dir: &Path, name: &str) -> Read {
    let l = load(root, dir, name);
    let parsed = l.parsed.map(|(meta, body)| {
        let facts = Facts {
            repository_id: meta.repository_id.clone(),
            worktree: meta.worktree.clone(),
            branch: meta.branch.clone(),
            created_at: meta.created_at.clone(),
            task_id: meta.task_id.clone(),
            origin: meta.origin,
            session: meta.session.clone(),
        };
        (facts, (meta, body))
    });
    (l.path, parsed)
}

fn resolution(ans: Answer<(RecordMeta, String)>) -> Resolution {
    Resolution {
        winner: ans.winner.map(|f| Resolved {
            name: f.name,
            path: f.path,
            meta: f.item.0,
            body: f.item.1,
            matched: f.matched,
        }),
        passed_over: ans.passed_over,
        skipped: ans.skipped,
        trace: ans.trace,
    }
}

/// Every readable record of `dir`, newest first by (`created_at`, ledger rank, file name);
/// unreadable ones are warned about and skipped.
pub fn list(ctx: &Ctx, dir: &Path) -> Result<Vec<(String, PathBuf, RecordMeta, String)>> {
    let root = ctx.layout.root();
    let all = names(dir)?;
    let mut v = Vec::new();
    for name in &all {
        let l = load(root, dir, name);
        match l.parsed {
            Ok((m, b)) => v.push((name.clone(), l.path, m, b)),
            Err(ref reason) => warn_skip(ctx, &l, reason),
        }
    }
    let refs: Vec<&str> = v.iter().map(|x| x.0.as_str()).collect();
    let ranks = crate::store::ledger::ranks(&ctx.layout.ledger(), &refs)?;
    let mut keyed: Vec<_> = v.into_iter().zip(ranks).collect();
    keyed.sort_by_key(|b| std::cmp::Reverse(order_key(&b.0 .2.created_at, b.1, &b.0 .0)));
    Ok(keyed.into_iter().map(|x| x.0).collect())
}

/// What `checkpoint --show` answers.
#[derive(Debug, Clone)]
pub struct ShownCheckpoint {
    /// The resolved checkpoint, if any.
    pub record: Option<Resolved>,
    /// The active task it was filtered on.
    pub task: Option<String>,
    /// The newest derived checkpoint the authored winner was preferred to, by file name.
    pub passed_over: Option<String>,
}

/// Resolves the checkpoint to show: the active task's, else any task's.
pub fn shown_checkpoint(ctx: &Ctx) -> Result<ShownCheckpoint> {
    ctx.require_layer()?;
    let task = crate::services::task::active(ctx)?.map(|t| t.id);
    let res = resolve(ctx, &ctx.layout.checkpoints(), task.as_deref())?;
    Ok(ShownCheckpoint { record: res.winner, task, passed_over: res.passed_over })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_key_of_names() {
        assert_eq!(record_name_key("20260903T201455Z--main--9b1e2d4--c0ffee12c0ffee12.md"), Some("main"));
        assert_eq!(record_name_key("20260903T201455Z--a--b--NONE--c0ffee12c0ffee12.md"), Some("a--b"));
        assert!(key_matches(
            record_name_key("20260903T201455Z--continuity--feat-x--9b1e2d4--c0ffee12c0ffee12.md"),
            "feat-x"
        ));
        assert!(!key_matches(record_name_key("20260903T201455Z--other--9b1e2d4--c0ffee12c0ffee12.md"), "main"));
    }
}
