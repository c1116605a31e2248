//! Labels that survive amend, rebase and squash merge (docs/REFERENCE.md#rewrites): when the plain
//! ancestry question says a record's commit X is not in HEAD's history, a proof may map X to a
//! commit X′ that is, and the word is the one X′ earns, with the proof beside it. Proofs,
//! strongest first, each failing closed: the reflog of the record's branch and of HEAD naming
//! the rewrite; a pair the `post-rewrite` hook captured; the same tree or the same
//! `git patch-id --stable` within HEAD's first-parent window. Messages, authors and times are
//! never a proof. For a record of another branch, [`landed`] says whether its work is in HEAD's
//! history as a commit with the same content (a squash or rebase merge, a cherry-pick); it never
//! makes the record a candidate of resolution.
//! Must not touch: a command or a query; messages, authors or times as a proof; git beyond what
//! `git::rewrite` reads.
//!
//! Owns: the proof ladder and its bounds. Git facts come from `git::rewrite`, the caches from
//! `store::rewrites`.

use crate::git::ObjectId;

use crate::ctx::Ctx;
use crate::git::full;
use crate::git::rewrite::{Entry, Op};
use crate::model::labels::{Anchor, Divergence, Label, Landed, Proof, ProofKind, Rewrite, RewriteBy};
use crate::store::rewrites::{self, PatchIds};
use crate::text::short;

/// Reflog entries read per reflog, from its end.
pub const REFLOG_TAIL: usize = 1000;

/// How much of HEAD's first-parent history the content proofs compare with.
pub const WINDOW: usize = 200;

/// Rewrites followed one after another (an amend, then another, then a rebase...).
const MAX_HOPS: usize = 16;

/// Records of other branches whose landing one process checks (newest first as listed).
pub const LANDED_CHECKS: usize = 64;

/// One step from a commit to the one it became.
#[derive(Debug, Clone)]
struct Hop {
    to: ObjectId,
    by: RewriteBy,
    kind: ProofKind,
    value: String,
}

/// A record's label against HEAD now, with its rewrite when one is proven (docs/REFERENCE.md#rewrites).
pub fn label_of(ctx: &Ctx, record: &impl Anchor) -> Label {
    label(ctx, record.anchor_head(), record.anchor_branch())
}

/// The label of a (head, branch) against HEAD now; the proof runs only when the plain answer is
/// `diverged`, and once per head per process.
pub fn label(ctx: &Ctx, head: Option<&str>, branch: Option<&str>) -> Label {
    let plain = ctx.divergence(head, branch);
    let Some(x) = head.filter(|_| plain == Divergence::Diverged) else { return Label::plain(plain) };
    if let Some(l) = ctx.rewrite_cache().labels.get(x).cloned() {
        return l.unwrap_or(Label::plain(plain));
    }
    let proven = prove(ctx, x, branch);
    ctx.rewrite_cache().labels.insert(x.to_string(), proven.clone());
    proven.unwrap_or(Label::plain(plain))
}

/// The commit `x` was rewritten into by content alone (same tree or patch id within HEAD's
/// window): what a cross-machine plan can prove, where the other machine's reflog is not.
pub fn content_label(ctx: &Ctx, x: &str) -> Option<Label> {
    let head = ctx.git.head().ok()??;
    let from = ctx.git.commit_id(x)?;
    let mut facts = Facts::new(ctx, None);
    let hop = facts.content(from, head)?;
    Some(finish(x, head, vec![hop]))
}

fn prove(ctx: &Ctx, x: &str, branch: Option<&str>) -> Option<Label> {
    let head = ctx.git.head().ok()??;
    let from = ObjectId::from_hex(x.as_bytes()).ok()?;
    let mut facts = Facts::new(ctx, branch);
    let mut hops: Vec<Hop> = Vec::new();
    let mut cur = from;
    for _ in 0..MAX_HOPS {
        match facts.hop(cur) {
            Some(h) if h.to != cur && h.to != from && !hops.iter().any(|p| p.to == h.to) => {
                cur = h.to;
                hops.push(h);
                if ctx.git.commit_id(&cur.to_string()).is_some() && ctx.git.is_ancestor(cur, head).unwrap_or(false) {
                    return Some(finish(x, head, hops));
                }
            }
            _ => break,
        }
    }
    if ctx.git.commit_id(&cur.to_string()).is_some() {
        if let Some(h) = facts.content(cur, head) {
            hops.push(h);
            return Some(finish(x, head, hops));
        }
    }
    None
}

/// The label the last hop's commit earns, and the rewrite naming every hop.
fn finish(x: &str, head: ObjectId, hops: Vec<Hop>) -> Label {
    let to = hops.last().map_or(head, |h| h.to);
    let by = hops.iter().rev().map(|h| h.by).find(|b| *b != RewriteBy::Unknown).unwrap_or(RewriteBy::Unknown);
    let kind = hops.iter().map(|h| h.kind).max_by_key(|k| strength_rank(*k)).unwrap_or(ProofKind::Reflog);
    let value = hops.iter().map(|h| h.value.as_str()).collect::<Vec<_>>().join("; ");
    Label {
        divergence: if to == head { Divergence::Exact } else { Divergence::Advanced },
        rewrite: Some(Rewrite { from: x.to_string(), to: full(to), by, proof: Proof { kind, value } }),
    }
}

/// Weaker proofs rank higher: a chain is as strong as its weakest hop.
fn strength_rank(k: ProofKind) -> usize {
    ProofKind::ALL.iter().position(|p| *p == k).unwrap_or(usize::MAX)
}

/// Whether a record of another branch (its head `x`) landed in HEAD's branch as a commit with
/// the same content: its tree, its own patch id (a rebase merge, a cherry-pick) or the combined
/// patch id of its range from the merge base (a squash merge), within HEAD's window. At most
/// [`LANDED_CHECKS`] heads per process are checked.
pub fn landed(ctx: &Ctx, x: Option<&str>) -> Option<Landed> {
    let x = x?;
    if let Some(l) = ctx.rewrite_cache().landed.get(x).cloned() {
        return l;
    }
    if ctx.rewrite_cache().landed.len() >= LANDED_CHECKS {
        return None;
    }
    let found = landed_uncached(ctx, x);
    ctx.rewrite_cache().landed.insert(x.to_string(), found.clone());
    found
}

/// Where the work of task `t`, of another branch than this checkout's, landed on this branch
/// (docs/REFERENCE.md#rewrites), and the commits that carry it.
#[derive(Debug, Clone)]
pub struct TaskLanded {
    /// `landed in main: its branch's tip 1a2b3c4 is in this history (a merge)`, or
    /// [`Landed::describe`].
    pub text: String,
    /// The task's work as a range here: from `base` (exclusive; `None`: from the root) along
    /// `head`'s first parents — the task's start to its branch's tip for a merge, the carrying
    /// commit alone for a squash, rebase or cherry-pick (of a rebase, its newest commit).
    pub base: Option<ObjectId>,
    /// The range's end.
    pub head: ObjectId,
}

/// [`TaskLanded`] for task `t`: its branch's tip merged here, or a squash, rebase or
/// cherry-pick a content proof shows ([`landed`]); `None` on its own branch, before its first
/// commit, or without a proof.
pub fn task_landed_here(ctx: &Ctx, t: &crate::model::task::Task) -> Option<TaskLanded> {
    let here = ctx.identity().ok()?.branch.clone()?;
    let branch = Anchor::anchor_branch(t).filter(|b| !b.is_empty() && *b != here)?;
    let tip = ctx.git.ref_tip(&format!("refs/heads/{branch}")).ok()??;
    if t.head.starts_with(tip.as_str()) || tip.starts_with(t.head.as_str()) {
        return None; // no commit of the task yet: nothing can have landed
    }
    let head = ctx.git.head().ok()??;
    let tip_id = ctx.git.commit_id(&tip)?;
    if ctx.git.is_ancestor(tip_id, head).unwrap_or(false) {
        return Some(TaskLanded {
            text: format!("landed in {here}: its branch's tip {} is in this history (a merge)", short(&tip)),
            base: ctx.git.commit_id(&t.head),
            head: tip_id,
        });
    }
    let l = landed(ctx, Some(&tip))?;
    let carrier = ctx.git.commit_id(l.commit.as_str())?;
    Some(TaskLanded { text: l.describe(), base: ctx.git.parents(carrier).first().copied(), head: carrier })
}

fn landed_uncached(ctx: &Ctx, x: &str) -> Option<Landed> {
    let branch = ctx.identity().ok()?.branch.clone()?;
    let head = ctx.git.head().ok()??;
    let from = ctx.git.commit_id(x)?;
    if ctx.git.is_ancestor(from, head).unwrap_or(true) {
        return None;
    }
    let mut facts = Facts::new(ctx, None);
    let hop = facts.content(from, head).or_else(|| facts.range(from, head))?;
    Some(Landed { branch, commit: full(hop.to), by: hop.by, proof: Proof { kind: hop.kind, value: hop.value } })
}

/// How a listing shows a record's label: the word with its rewrite, or for a record of another
/// branch whose work landed here, where it landed (`landed in main as 1a2b3c4 (...)`).
pub fn shown(ctx: &Ctx, record: &impl Anchor) -> String {
    let l = label_of(ctx, record);
    match l.divergence {
        Divergence::DifferentContext => match landed(ctx, record.anchor_head()) {
            Some(landed) => landed.describe(),
            None => l.describe(),
        },
        _ => l.describe(),
    }
}

/// `git majordomus hook git post-rewrite <amend|rebase>`: keeps the `<old> <new>` pairs git
/// hands the hook on stdin under the git common dir (bounded), for [`label`] to prove with.
pub fn capture(ctx: &Ctx, kind: &str, input: &str) -> crate::error::Result<usize> {
    Ok(rewrites::capture(ctx.git.common_dir(), kind, input)?)
}

/// What one proof has read, read once each; HEAD's window and the patch-id cache are the
/// process's (`Ctx::rewrite_cache`), shared by every proof it runs.
struct Facts<'a> {
    ctx: &'a Ctx,
    branch: Option<&'a str>,
    reflog: Option<Vec<Entry>>,
    head_log: Option<Vec<Entry>>,
    pairs: Option<Vec<rewrites::Pair>>,
}

impl<'a> Facts<'a> {
    fn new(ctx: &'a Ctx, branch: Option<&'a str>) -> Facts<'a> {
        Facts { ctx, branch, reflog: None, head_log: None, pairs: None }
    }

    fn head_log(&mut self) -> &[Entry] {
        let git = &self.ctx.git;
        self.head_log.get_or_insert_with(|| git.reflog_tail("HEAD", REFLOG_TAIL))
    }

    /// The next commit `cur` became, by the reflog or a captured pair.
    fn hop(&mut self, cur: ObjectId) -> Option<Hop> {
        self.reflog_hop(cur).or_else(|| self.pair_hop(cur))
    }

    fn reflog_hop(&mut self, cur: ObjectId) -> Option<Hop> {
        if self.reflog.is_none() {
            let mut v = match self.branch {
                Some(b) => self.ctx.git.reflog_tail(&format!("refs/heads/{b}"), REFLOG_TAIL),
                None => Vec::new(),
            };
            v.extend(self.head_log().iter().cloned());
            self.reflog = Some(v);
        }
        let e = self
            .reflog
            .as_ref()?
            .iter()
            .find(|e| e.old == cur && e.new != cur && matches!(e.op, Op::Amend | Op::RebaseFinish))?
            .clone();
        let by = match e.op {
            Op::Amend => RewriteBy::Amend,
            _ if self.made_by(e.new, Op::Squash) => RewriteBy::Squash,
            _ => RewriteBy::Rebase,
        };
        Some(Hop { to: e.new, by, kind: ProofKind::Reflog, value: e.at })
    }

    /// Whether HEAD's reflog says `commit` was made by `op`.
    fn made_by(&mut self, commit: ObjectId, op: Op) -> bool {
        self.head_log().iter().any(|e| e.new == commit && e.op == op)
    }

    fn pair_hop(&mut self, cur: ObjectId) -> Option<Hop> {
        let common = self.ctx.git.common_dir();
        let pairs = self.pairs.get_or_insert_with(|| rewrites::pairs(common));
        let hex = cur.to_string();
        let p = pairs.iter().rev().find(|p| p.old == hex)?;
        let to = ObjectId::from_hex(p.new.as_bytes()).ok()?;
        let by = match p.kind.as_str() {
            "amend" => RewriteBy::Amend,
            _ if pairs.iter().filter(|q| q.new == p.new && q.kind == p.kind).count() > 1 => RewriteBy::Squash,
            _ => RewriteBy::Rebase,
        };
        let value = format!("{} {} {}", p.kind, &p.old[..7], &p.new[..7]);
        Some(Hop { to, by, kind: ProofKind::PostRewrite, value })
    }

    /// HEAD's first-parent window with each commit's tree, read once per process.
    fn window(&mut self, head: ObjectId) -> Vec<(ObjectId, Option<ObjectId>)> {
        let git = &self.ctx.git;
        let mut cache = self.ctx.rewrite_cache();
        cache
            .window
            .get_or_insert_with(|| git.first_parents(head, WINDOW).into_iter().map(|c| (c, git.tree_of(c))).collect())
            .clone()
    }

    /// A commit of the window with `from`'s tree, else with its patch id — never `from` itself
    /// nor one of its ancestors (a revert's tree, a re-applied patch).
    fn content(&mut self, from: ObjectId, head: ObjectId) -> Option<Hop> {
        let trees = self.window(head);
        let window: Vec<ObjectId> = trees.iter().map(|w| w.0).collect();
        let git = &self.ctx.git;
        let unrelated = |c: ObjectId| c != from && !git.is_ancestor(c, from).unwrap_or(true);
        if let Some(tree) = git.tree_of(from) {
            if let Some(c) = trees.iter().find(|w| w.1 == Some(tree) && unrelated(w.0)).map(|w| w.0) {
                return Some(self.content_hop(c, ProofKind::Tree, tree.to_string()));
            }
        }
        if git.parents(from).len() != 1 {
            return None;
        }
        let mut ids = self.patch_ids_of(&[&[from][..], &window].concat());
        let pid = ids.remove(&from)?;
        let c = window.iter().copied().find(|c| ids.get(c) == Some(&pid) && unrelated(*c))?;
        Some(self.content_hop(c, ProofKind::PatchId, pid))
    }

    /// A commit of the window whose patch id is the combined one of `from`'s range (merge
    /// base..from): a squash merge.
    fn range(&mut self, from: ObjectId, head: ObjectId) -> Option<Hop> {
        let git = &self.ctx.git;
        let base = git.merge_base_of(from, head).ok()??;
        let key = format!("{base}..{from}");
        let cached = self.with_cache(|c| c.get(&key).map(|v| v.map(str::to_string)));
        let pid = match cached {
            Some(v) => v,
            None => {
                let v = git.range_patch_id(base, from).ok()?;
                self.with_cache(|c| c.put(key, v.clone()));
                v
            }
        }?;
        let window: Vec<ObjectId> = self.window(head).into_iter().map(|w| w.0).collect();
        let ids = self.patch_ids_of(&window);
        let c = window.iter().copied().find(|c| ids.get(c) == Some(&pid) && *c != from)?;
        let commits = git.commits_between(Some(base), from).map(|v| v.len()).unwrap_or(0);
        let by = if commits > 1 { RewriteBy::SquashMerge } else { RewriteBy::Unknown };
        Some(Hop { to: c, by, kind: ProofKind::RangePatchId, value: pid })
    }

    /// A content hop to `c`; `by: cherry-pick` when HEAD's reflog says a cherry-pick made `c`.
    fn content_hop(&mut self, c: ObjectId, kind: ProofKind, value: String) -> Hop {
        let by = if self.made_by(c, Op::CherryPick) { RewriteBy::CherryPick } else { RewriteBy::Unknown };
        Hop { to: c, by, kind, value }
    }

    /// Runs `f` on the process's patch-id cache, loaded on first use.
    fn with_cache<T>(&self, f: impl FnOnce(&mut PatchIds) -> T) -> T {
        let common = self.ctx.git.common_dir();
        let mut cache = self.ctx.rewrite_cache();
        f(cache.patch_ids.get_or_insert_with(|| PatchIds::load(common)))
    }

    /// The patch ids of `commits`, from the cache, the missing ones computed in one pipe.
    fn patch_ids_of(&mut self, commits: &[ObjectId]) -> std::collections::HashMap<ObjectId, String> {
        let mut out = std::collections::HashMap::new();
        let mut missing = Vec::new();
        self.with_cache(|cache| {
            for c in commits {
                match cache.get(&c.to_string()) {
                    Some(Some(p)) => {
                        out.insert(*c, p.to_string());
                    }
                    Some(None) => {}
                    None => missing.push(*c),
                }
            }
        });
        if missing.is_empty() {
            return out;
        }
        let Ok(found) = self.ctx.git.patch_ids(&missing) else { return out };
        self.with_cache(|cache| {
            for c in missing {
                let p = found.get(&c).cloned();
                cache.put(c.to_string(), p.clone());
                if let Some(p) = p {
                    out.insert(c, p);
                }
            }
        });
        out
    }
}
