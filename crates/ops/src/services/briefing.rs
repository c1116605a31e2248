//! The start-hook briefing (docs/REFERENCE.md#briefing): what a new episode is told without asking —
//! references, labels and at most one section (the Next Action), the newest authored
//! checkpoint's path and age, bounded by lines and characters.
//! Must not touch: a command, a query or a health rule; writes of any kind.

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::age;
use crate::model::labels::Anchor;
use crate::model::record::Origin;
use crate::services::derive::unresolved;
use crate::services::labelled::{resolve_labelled, NextAction};
use crate::services::resolve::{newest_authored, resolve};
use crate::services::task;
use crate::text::short;

/// Lines of `Its Next Action:` quoted at most.
const NEXT_ACTION_LINES: usize = 12;
/// Open questions listed at most.
const QUESTIONS_SHOWN: usize = 5;

/// One line of the briefing as worded ([`Words`]), and whether the budget may drop it before the
/// handover's lines (docs/REFERENCE.md#briefing: trimming never drops the handover line or its
/// Next Action before the optional lines above them, and never drops "No relevant handover…").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The text.
    pub text: String,
    /// The budget withholds lines of a lower rank first (0: optional, 1: kept until every
    /// optional line is gone, 2: the absence sentence, withheld last of all).
    pub rank: u8,
}

/// One fact of the briefing, before it is worded, and its rank ([`Line::rank`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What it says.
    pub said: Said,
    /// The budget's rank.
    pub rank: u8,
}

/// What git has in progress, as the briefing names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// A rebase of `branch` (a detached HEAD when `None`), onto `onto` when known.
    Rebase {
        /// The branch being rebased.
        branch: Option<String>,
        /// What it is rebased onto.
        onto: Option<String>,
    },
    /// A bisect started from `branch`.
    Bisect {
        /// The branch it started from.
        branch: Option<String>,
    },
    /// Anything else (`merge`, `cherry-pick`, `revert`) with conflicts to resolve.
    Other {
        /// git's word for it.
        kind: String,
        /// The commit it applies, when known.
        onto: Option<String>,
    },
}

/// The facts of the briefing, in the order they are given; `render::briefing` words them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// The heading.
    Header,
    /// This episode and where it runs.
    Episode {
        /// The open episode, if any.
        episode: Option<String>,
        /// The branch as printed.
        branch: String,
        /// HEAD as printed (a commit id or the unborn marker).
        head: String,
        /// The working tree's state.
        working_tree: String,
    },
    /// A git operation in progress.
    Operation(Operation),
    /// The newest handover of the branch being rebased or bisected, offered, not resolved.
    Offered {
        /// The branch.
        branch: String,
        /// The handover's file name.
        name: String,
        /// Authored or derived.
        origin: String,
        /// Its divergence label.
        label: String,
    },
    /// The first line of the offered handover's Next Action.
    OfferedNextAction(String),
    /// How many other episodes are open in this checkout.
    OthersOpen(usize),
    /// One of them.
    OtherEpisode {
        /// Its host, `hand` when none.
        host: String,
        /// Its id.
        id: String,
        /// How long ago it opened.
        opened: String,
        /// How long ago its last ledger line was written, when the tail holds one.
        activity: Option<String>,
    },
    /// How many more are open than are named.
    MoreOthers(usize),
    /// The active task.
    Task {
        /// Its id.
        id: String,
        /// Its outcome.
        outcome: String,
        /// Its profile.
        profile: String,
        /// Its title.
        task: String,
        /// Where its work landed, when it did ([`crate::services::rewrite::task_landed_here`]).
        landed: Option<(String, String)>,
    },
    /// The task's scope.
    Scope(Vec<String>),
    /// The task record names another checkout.
    ForeignTask(String),
    /// No task record.
    NoTask,
    /// The shared server's state.
    Server(String),
    /// How many handovers from other devices this checkout may resume.
    MeshOffers(usize),
    /// A newer handover for this branch from another device, in the remote's tracked store.
    Arrived {
        /// The device's label.
        device: String,
        /// The signing key's id.
        key_id: String,
        /// Its age in minutes, when known.
        age_minutes: Option<i64>,
        /// The record id.
        record: String,
        /// The remote.
        remote: String,
    },
    /// A removed worktree's kept records ([`crate::services::kept::sentence`]).
    Kept(String),
    /// How many open questions block `finish --outcome completed`.
    Blocked(usize),
    /// One of them and its task.
    Question {
        /// The question.
        question: String,
        /// Its task.
        task: String,
    },
    /// Knowledge candidates awaiting review on this branch.
    KnowledgeHere(Vec<String>),
    /// Knowledge candidates whose episode is unknown here.
    KnowledgeUnattributed(Vec<String>),
    /// No handover resolves: absence is the answer.
    NoHandover,
    /// The resolved handover.
    Handover {
        /// Its path.
        path: String,
        /// How it matched.
        matched: String,
        /// Its git-state label.
        git_state: String,
        /// Its age.
        age: String,
        /// Authored or derived.
        origin: String,
        /// The device and key it arrived from, when resumed from another machine.
        arrived: Option<String>,
    },
    /// A newer derived handover only restates the authored one shown.
    PassedOver(String),
    /// Its commit is not in this history.
    Untrusted(String),
    /// It is history: its Next Action is withheld ([`NextAction::Withheld`]).
    History {
        /// Stale or invalid.
        label: String,
        /// Its age.
        age: String,
        /// Why.
        reason: String,
    },
    /// The Next Action follows; written on another device when named.
    NextActionHead(Option<String>),
    /// One line of it.
    NextActionLine(String),
    /// How many more lines it has than are quoted.
    NextActionMore(usize),
    /// The files it names that moved since ([`crate::services::citations::check_first`]).
    CheckFirst(Vec<String>),
    /// The newest authored checkpoint.
    Checkpoint {
        /// Its path.
        path: String,
        /// Its git-state label.
        label: String,
        /// Its age.
        age: String,
    },
    /// Where the whole briefing is.
    ContextHint,
    /// The request for a handover before the episode stops.
    AskHandover,
}

/// How the briefing is worded: the root crate's `render::briefing` gives the words.
pub trait Words {
    /// One fact as a line.
    fn say(&self, said: &Said) -> String;
    /// The last line of a trimmed briefing: `n` lines withheld by `by`.
    fn overflow(&self, n: usize, by: &By) -> String;
}

/// How many other open episodes the briefing names.
const OTHERS_SHOWN: usize = 3;

/// The other episodes open in this checkout as the store knows them (issue 41 item 4): host,
/// opened, last ledger activity — no guess about whether their host is still attached. Best
/// effort: a briefing never fails for it.
fn other_episodes(ctx: &Ctx, own: Option<&str>) -> Vec<Item> {
    let Ok(open) = crate::store::sessions::list_open(&ctx.layout) else { return Vec::new() };
    let here = ctx.here();
    let mut others: Vec<crate::model::session::OpenSession> = open
        .into_iter()
        .filter_map(|(_, s)| s.ok())
        .filter(|s| Some(s.session_id.as_str()) != own && here.is_worktree(&s.worktree))
        .collect();
    if others.is_empty() {
        return Vec::new();
    }
    others.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    // Each one's newest ledger line, from one backward read of the tail.
    let mut last: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    if let Ok(Some(lines)) = crate::store::ledger::backward(&ctx.layout.ledger()) {
        for l in lines.take(5_000).filter_map(|l| l.ok()) {
            if last.len() == others.len() {
                break;
            }
            if let (Some(sid), Some(ts)) = (l.str("session"), l.str("ts")) {
                if others.iter().any(|o| o.session_id == sid) && !last.contains_key(sid) {
                    last.insert(sid.to_string(), ts.to_string());
                }
            }
        }
    }
    let now = ctx.clock.now();
    let mut out = vec![optional(Said::OthersOpen(others.len()))];
    for o in others.iter().take(OTHERS_SHOWN) {
        out.push(optional(Said::OtherEpisode {
            host: o.provider.clone().unwrap_or_else(|| "hand".into()),
            id: o.session_id.clone(),
            opened: age(&o.started_at, now),
            activity: last.get(&o.session_id).map(|t| age(t, now)),
        }));
    }
    if others.len() > OTHERS_SHOWN {
        out.push(optional(Said::MoreOthers(others.len() - OTHERS_SHOWN)));
    }
    out
}

/// What git has in progress here (docs/REFERENCE.md#briefing): the
/// operation and, for a rebase or a bisect, the branch — whose newest handover is *offered* with
/// its label, never resolved as this checkout's (HEAD is detached meanwhile). A merge, a
/// cherry-pick or a revert offers no other branch's record.
fn operation_lines(ctx: &Ctx) -> Result<Vec<Item>> {
    use crate::git::OperationKind;
    let Some(op) = ctx.git.operation() else { return Ok(Vec::new()) };
    let onto = op.onto.as_deref().map(|c| short(c).to_string());
    let what = match op.kind {
        OperationKind::Rebase => Operation::Rebase { branch: op.branch.clone(), onto },
        OperationKind::Bisect => Operation::Bisect { branch: op.branch.clone() },
        _ => Operation::Other { kind: op.kind.as_str().to_string(), onto },
    };
    let mut out = vec![kept(Said::Operation(what))];
    let offered = matches!(op.kind, OperationKind::Rebase | OperationKind::Bisect).then_some(op.branch).flatten();
    if let Some(branch) = offered {
        let all = crate::services::resolve::list(ctx, &ctx.layout.handovers())?;
        let of_branch = |authored: bool| {
            all.iter().find(|(_, _, m, _)| m.branch == branch && (!authored || m.origin == Origin::Authored))
        };
        if let Some((name, _, meta, body)) = of_branch(true).or_else(|| of_branch(false)) {
            let label = ctx.divergence(Some(&meta.head), Some(&meta.branch));
            out.push(kept(Said::Offered {
                branch: branch.clone(),
                name: name.clone(),
                origin: meta.origin.as_str().to_string(),
                label: label.as_str().to_string(),
            }));
            if let Some(na) = crate::model::record::section_text(body, "Next Action") {
                out.push(optional(Said::OfferedNextAction(crate::text::first_line(&na).to_string())));
            }
        }
    }
    Ok(out)
}

/// The most store files the briefing admits to say what arrived (some 70 ms of signature checks):
/// a store this machine has no read model to start from, or one that brought more, is left to
/// `continuity status` and `sync`, and the briefing says nothing of it.
const HOOK_ADMITS: usize = 2_000;

/// A newer handover for this branch from another device that a plain `git fetch` brought into
/// the chosen remote's tracked store (issue 40 item 5): named, never quoted. Refs only unless
/// that store holds records the local one lacks; best effort (a briefing never fails for it).
fn arrived(ctx: &Ctx) -> Option<Said> {
    use crate::services::continuity::{loaded, views};
    views::remote_ahead(ctx).ok()??;
    let s = loaded::setup(ctx).ok()?;
    let ours = loaded::load_within(ctx, &s, crate::services::continuity::REF, Some(HOOK_ADMITS)).ok()??;
    let st = views::standing_within(ctx, &s, &ours, Some(HOOK_ADMITS)).ok()??;
    let a = st.arrived?;
    Some(Said::Arrived {
        device: a.device.label,
        key_id: a.key_id,
        age_minutes: a.age_minutes,
        record: crate::text::short_id(&a.id).to_string(),
        remote: st.remote,
    })
}

fn optional(said: Said) -> Item {
    Item { said, rank: 0 }
}

fn kept(said: Said) -> Item {
    Item { said, rank: 1 }
}

/// The whole briefing as facts, before it is worded and the budget is applied. `server_line`
/// is the shared server's state when the policy asks the start hook to ensure one, else `None`
/// (no line).
pub fn items(ctx: &Ctx, server_line: Option<&str>) -> Result<Vec<Item>> {
    let id = ctx.identity()?.clone();
    let mut out = vec![kept(Said::Header)];
    let session = ctx.session_id();
    out.push(kept(Said::Episode {
        episode: session.clone(),
        branch: id.branch_text().to_string(),
        head: short(id.head_text()).to_string(),
        working_tree: ctx.working_tree()?.to_string(),
    }));
    out.extend(operation_lines(ctx)?);
    out.extend(other_episodes(ctx, session.as_deref()));
    let mut task_id = None;
    match task::read(ctx)? {
        Some(r) if !r.foreign => {
            let t = r.task;
            // Never briefed as the active task of the branch its work landed on (docs/REFERENCE.md#briefing).
            let landed = crate::services::rewrite::task_landed_here(ctx, &t).map(|l| (t.branch.clone(), l.text));
            out.push(kept(Said::Task {
                id: t.id.clone(),
                outcome: t.outcome.to_string(),
                profile: t.profile.clone(),
                task: t.task.clone(),
                landed,
            }));
            out.push(kept(Said::Scope(t.scope.clone())));
            task_id = Some(t.id);
        }
        Some(r) => out.push(kept(Said::ForeignTask(r.task.worktree))),
        None => out.push(kept(Said::NoTask)),
    }
    if let Some(server) = server_line {
        out.push(optional(Said::Server(server.to_string())));
    }
    let offers =
        crate::services::continuity::load_local(ctx).map(|l| l.offers_total.unwrap_or(l.offers.len())).unwrap_or(0);
    // `continuity.json` offers only what `plan` would let this checkout resume: records of an
    // untrusted or revoked key are never counted (issue 39; `views::refresh_offers`).
    if offers > 0 {
        out.push(optional(Said::MeshOffers(offers)));
    }
    if let Some(said) = arrived(ctx) {
        out.push(kept(said));
    }
    // A removed worktree's records, kept under the git directory (D60): named, never resolved.
    out.extend(
        crate::services::kept::orphans(ctx).iter().map(|k| optional(Said::Kept(crate::services::kept::sentence(k)))),
    );
    let open = unresolved(ctx)?;
    if !open.is_empty() {
        out.push(kept(Said::Blocked(open.len())));
        for (t, q) in open.iter().take(QUESTIONS_SHOWN) {
            out.push(optional(Said::Question { question: q.clone(), task: t.clone() }));
        }
    }
    let awaiting = crate::services::knowledge::awaiting_review(ctx)?;
    // Only a line that says something (docs/REFERENCE.md#briefing): none when nothing awaits review.
    if !awaiting.here.is_empty() {
        out.push(optional(Said::KnowledgeHere(awaiting.here)));
    }
    if !awaiting.unattributed.is_empty() {
        out.push(optional(Said::KnowledgeUnattributed(awaiting.unattributed)));
    }
    let now = ctx.clock.now();
    match &resolve_labelled(ctx, None)? {
        None => out.push(Item { said: Said::NoHandover, rank: 2 }),
        Some(l) => {
            let m = &l.record.meta;
            // A resumed handover names the device and key it came from (issue 39).
            let arrived = l.arrived().map(|a| a.describe());
            out.push(kept(Said::Handover {
                path: ctx.rel(&l.record.path),
                matched: l.record.matched.as_str().to_string(),
                git_state: l.git_state(),
                age: age(m.judged_at(), now),
                origin: m.origin.to_string(),
                arrived: arrived.clone(),
            }));
            if let Some(name) = &l.passed_over {
                out.push(optional(Said::PassedOver(name.clone())));
            }
            if !l.divergence.trustworthy() {
                out.push(kept(Said::Untrusted(l.git_state())));
            }
            match l.next_action() {
                NextAction::Withheld { label, reason, .. } => out.push(kept(Said::History {
                    label: label.as_str().to_string(),
                    age: age(m.judged_at(), now),
                    reason,
                })),
                NextAction::Shown(na) => {
                    out.push(kept(Said::NextActionHead(arrived)));
                    let lines: Vec<&str> = na.lines().collect();
                    out.extend(lines.iter().take(NEXT_ACTION_LINES).map(|l| kept(Said::NextActionLine(l.to_string()))));
                    if lines.len() > NEXT_ACTION_LINES {
                        out.push(kept(Said::NextActionMore(lines.len() - NEXT_ACTION_LINES)));
                    }
                    // The files the Next Action names that changed since (issue 43): trimmed with the
                    // optional lines; a record that cites nothing costs nothing.
                    if let Some(moved) = crate::services::citations::check_first(ctx, m, &na, "handover") {
                        out.push(optional(Said::CheckFirst(moved)));
                    }
                }
                NextAction::Absent => {}
            }
        }
    }
    // The newest authored checkpoint of the task (no task: of any), by path and age.
    let session = session.unwrap_or_else(|| "none".into());
    let checkpoint = match &task_id {
        Some(t) => newest_authored(ctx, &ctx.layout.checkpoints(), t, &session, false)?,
        None => resolve(ctx, &ctx.layout.checkpoints(), None)?.winner.filter(|c| c.origin() == Origin::Authored),
    };
    if let Some(c) = checkpoint {
        out.push(optional(Said::Checkpoint {
            path: ctx.rel(&c.path),
            label: crate::services::rewrite::label_of(ctx, &c.meta).describe(),
            age: age(c.meta.judged_at(), now),
        }));
    }
    out.push(optional(Said::ContextHint));
    // The authored handover is the whole value: the briefing ends by asking for one (issue 42).
    out.push(kept(Said::AskHandover));
    Ok(out)
}

/// What sets a size limit on the briefing, as the overflow line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum By {
    /// The policy's `session.briefing_budget_lines` (or `context.always_loaded_budget_lines`).
    Lines,
    /// The policy's `session.briefing_budget_chars`.
    PolicyChars,
    /// The host's own cap on a hook's output (docs/HOOKS.md).
    Host {
        /// The host's name.
        title: String,
        /// The cap.
        max: usize,
        /// Counted in bytes (else characters).
        bytes: bool,
    },
}

/// A size limit on the briefing, measured as its holder measures: the host's cap (
/// docs/HOOKS.md) or the policy's `session.briefing_budget_chars`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    /// The most the briefing may hold, its overflow line and newlines included.
    pub max: usize,
    /// Counted in bytes of UTF-8 (else in characters).
    pub bytes: bool,
    /// What sets it, as the overflow line names it.
    pub by: By,
}

impl Limit {
    fn size(&self, lines: &[&str]) -> usize {
        lines.iter().map(|l| if self.bytes { l.len() } else { l.chars().count() } + 1).sum()
    }
}

/// Fits the briefing under `max_lines` and every size limit, each counting the overflow line:
/// whole lines go, the lowest rank first and within a rank from the end, and the last line then
/// says how many were withheld, by what, and where the whole briefing is.
pub fn bounded(lines: Vec<Line>, max_lines: usize, limits: &[Limit], words: &dyn Words) -> Vec<String> {
    let total = lines.len();
    let mut gone = vec![false; total];
    let shown =
        |gone: &[bool]| -> Vec<&str> { (0..total).filter(|&i| !gone[i]).map(|i| lines[i].text.as_str()).collect() };
    // The limit a briefing of these lines plus `extra` breaks, if any.
    let broken = |gone: &[bool], extra: Option<&str>| {
        let mut v = shown(gone);
        v.extend(extra);
        if v.len() > max_lines {
            return Some(By::Lines);
        }
        limits.iter().find(|l| l.size(&v) > l.max).map(|l| l.by.clone())
    };
    let Some(mut cap) = broken(&gone, None) else { return lines.into_iter().map(|l| l.text).collect() };
    // Whole lines go until the rest and the overflow line fit: next, the last one still there
    // of the lowest rank.
    while let Some(i) = (0..total).rev().filter(|&i| !gone[i]).min_by_key(|&i| lines[i].rank) {
        gone[i] = true;
        let n = gone.iter().filter(|g| **g).count();
        match broken(&gone, Some(&words.overflow(n, &cap))) {
            None => break,
            Some(by) => cap = by,
        }
    }
    let n = gone.iter().filter(|g| **g).count();
    let mut out: Vec<String> = lines.into_iter().zip(&gone).filter(|(_, g)| !**g).map(|(l, _)| l.text).collect();
    out.push(words.overflow(n, &cap));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The overflow line in the words the tests check.
    struct Plain;

    impl Words for Plain {
        fn say(&self, _: &Said) -> String {
            String::new()
        }
        fn overflow(&self, n: usize, by: &By) -> String {
            let by = match by {
                By::Lines => "session.briefing_budget_lines".to_string(),
                By::PolicyChars => "session.briefing_budget_chars".to_string(),
                By::Host { title, .. } => title.clone(),
            };
            format!("... {n} more line(s) withheld by {by}; run `git majordomus context` for the whole briefing.")
        }
    }

    fn line(text: impl Into<String>, rank: u8) -> Line {
        Line { text: text.into(), rank }
    }

    fn ls(n: usize, w: usize) -> Vec<Line> {
        (0..n).map(|i| line(format!("{i:0w$}"), 0)).collect()
    }

    #[test]
    fn line_budget_counts_the_overflow_line() {
        let out = bounded(ls(100, 3), 60, &[], &Plain);
        assert_eq!(out.len(), 60);
        assert!(out[59].starts_with("... 41 more line(s) withheld by session.briefing_budget_lines"));
        assert_eq!(bounded(ls(10, 3), 60, &[], &Plain).len(), 10);
    }

    /// The handover line and its Next Action outlast the optional lines above them.
    #[test]
    fn optional_lines_go_before_the_kept_ones() {
        let mut v =
            vec![line("head", 1), line("server", 0), line("knowledge", 0), line("Handover x.", 1), line("  do it", 1)];
        v.push(line("closing", 0));
        let out = bounded(v.clone(), 4, &[], &Plain);
        assert_eq!(out[..3], ["head", "Handover x.", "  do it"], "{out:?}");
        assert!(out[3].starts_with("... 3 more line(s) withheld"), "{out:?}");
        let out = bounded(v, 3, &[], &Plain);
        assert_eq!(out[..2], ["head", "Handover x."], "{out:?}");
    }

    #[test]
    fn char_budget_withholds_whole_lines() {
        let out = bounded(ls(50, 99), 60, &[Limit { max: 1000, bytes: false, by: By::PolicyChars }], &Plain);
        let total: usize = out.iter().map(|l| l.len() + 1).sum();
        assert!(total <= 1000, "{total}");
        assert!(out.last().unwrap().contains("session.briefing_budget_chars"));
        // Bytes and characters differ: 400 two-byte characters a line.
        let wide: Vec<Line> = (0..10).map(|_| line("é".repeat(400), 0)).collect();
        let host = By::Host { title: "the host".into(), max: 2000, bytes: true };
        let out = bounded(wide, 60, &[Limit { max: 2000, bytes: true, by: host }], &Plain);
        let bytes: usize = out.iter().map(|l| l.len() + 1).sum();
        assert!(bytes <= 2000, "{bytes}");
        assert_eq!(out.len(), 3, "two lines of 801 bytes and the overflow line: {out:?}");
        assert!(out[2].starts_with("... 8 more line(s) withheld by the host"));
    }
}
