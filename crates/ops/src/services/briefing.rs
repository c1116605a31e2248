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

/// One line of the briefing, and whether the budget may drop it before the handover's lines
/// (docs/REFERENCE.md#briefing: trimming never drops the handover line or its Next Action before the optional
/// lines above them, and never drops "No relevant handover…").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The text.
    pub text: String,
    /// The budget withholds lines of a lower rank first (0: optional, 1: kept until every
    /// optional line is gone, 2: the absence sentence, withheld last of all).
    pub rank: u8,
}

/// How many other open episodes the briefing names.
const OTHERS_SHOWN: usize = 3;

/// The other episodes open in this checkout as the store knows them (issue 41 item 4): host,
/// opened, last ledger activity — no guess about whether their host is still attached. Best
/// effort: a briefing never fails for it.
fn other_episodes(ctx: &Ctx, own: Option<&str>) -> Vec<Line> {
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
    let mut out = vec![optional(format!("Also open in this checkout: {} other episode(s).", others.len()))];
    for o in others.iter().take(OTHERS_SHOWN) {
        let activity = last.get(&o.session_id).map_or_else(|| "none in the ledger's tail".to_string(), |t| age(t, now));
        out.push(optional(format!(
            "- {} episode {}, opened {}, last activity {activity}",
            o.provider.as_deref().unwrap_or("hand"),
            o.session_id,
            age(&o.started_at, now)
        )));
    }
    if others.len() > OTHERS_SHOWN {
        out.push(optional(format!("- … and {} more (git majordomus session status)", others.len() - OTHERS_SHOWN)));
    }
    out
}

/// What git has in progress here (docs/REFERENCE.md#briefing): the
/// operation and, for a rebase or a bisect, the branch — whose newest handover is *offered* with
/// its label, never resolved as this checkout's (HEAD is detached meanwhile). A merge, a
/// cherry-pick or a revert offers no other branch's record.
fn operation_lines(ctx: &Ctx) -> Result<Vec<Line>> {
    use crate::git::OperationKind;
    let Some(op) = ctx.git.operation() else { return Ok(Vec::new()) };
    let kind = op.kind.as_str();
    let onto = op.onto.as_deref().map(|c| format!(" ({})", short(c))).unwrap_or_default();
    let mut out = Vec::new();
    let (what, how) = match op.kind {
        OperationKind::Rebase => (
            format!("a rebase of {}{onto}", op.branch.as_deref().unwrap_or("a detached HEAD")),
            "`git status`, then `git rebase --continue` or `git rebase --abort`",
        ),
        OperationKind::Bisect => (
            format!("a bisect started from {}", op.branch.as_deref().unwrap_or("a detached HEAD")),
            "`git bisect reset` ends it",
        ),
        _ => (format!("a {kind}{onto} with conflicts to resolve"), "`git status`, then commit or `--abort`"),
    };
    out.push(kept(format!("Git: {what} is in progress; HEAD is detached until it ends: {how}.")));
    let offered = matches!(op.kind, OperationKind::Rebase | OperationKind::Bisect).then_some(op.branch).flatten();
    if let Some(branch) = offered {
        let all = crate::services::resolve::list(ctx, &ctx.layout.handovers())?;
        let of_branch = |authored: bool| {
            all.iter().find(|(_, _, m, _)| m.branch == branch && (!authored || m.origin == Origin::Authored))
        };
        if let Some((name, _, meta, body)) = of_branch(true).or_else(|| of_branch(false)) {
            let label = ctx.divergence(Some(&meta.head), Some(&meta.branch));
            out.push(kept(format!(
                "Offered, not resolved as this checkout's: the newest handover of {branch}, {name} ({}, {}).",
                meta.origin.as_str(),
                label.as_str()
            )));
            if let Some(na) = crate::model::record::section_text(body, "Next Action") {
                out.push(optional(format!("  Its Next Action: {}", crate::text::first_line(&na))));
            }
        }
    }
    Ok(out)
}

/// A newer handover for this branch from another device that a plain `git fetch` brought into
/// the chosen remote's tracked store (issue 40 item 5): named, never quoted. Refs only unless
/// that store holds records the local one lacks; best effort (a briefing never fails for it).
fn arrived_line(ctx: &Ctx) -> Option<String> {
    use crate::services::continuity::{loaded, views};
    views::remote_ahead(ctx).ok()??;
    let s = loaded::setup(ctx).ok()?;
    let ours = loaded::load(ctx, &s, crate::services::continuity::REF).ok()?;
    let st = views::standing(ctx, &s, &ours).ok()??;
    let a = st.arrived?;
    let age = a.age_minutes.map_or_else(|| "age unknown".to_string(), |m| format!("{m} min old"));
    Some(format!(
        "Arrived: a newer handover for this branch from {} (key {}), {age}, record {} on {} — run git majordomus continuity sync, then git majordomus continuity plan",
        a.device.label,
        a.key_id,
        crate::text::short_id(&a.id),
        st.remote
    ))
}

fn optional(text: impl Into<String>) -> Line {
    Line { text: text.into(), rank: 0 }
}

fn kept(text: impl Into<String>) -> Line {
    Line { text: text.into(), rank: 1 }
}

/// The whole briefing, before the budget is applied. `server_line` is the shared server's
/// state when the policy asks the start hook to ensure one, else `None` (no line).
pub fn lines(ctx: &Ctx, server_line: Option<&str>) -> Result<Vec<Line>> {
    let id = ctx.identity()?.clone();
    let mut out = vec![kept("## Majordomus — what this repository already knows")];
    let session = ctx.session_id();
    let episode = session.clone().unwrap_or_else(|| "(none open)".into());
    out.push(kept(format!(
        "Episode {episode}, on {} at {}, working tree {}.",
        id.branch_text(),
        short(id.head_text()),
        ctx.working_tree()?
    )));
    out.extend(operation_lines(ctx)?);
    out.extend(other_episodes(ctx, session.as_deref()));
    let mut task_id = None;
    match task::read(ctx)? {
        Some(r) if !r.foreign => {
            let t = r.task;
            match crate::services::rewrite::task_landed_here(ctx, &t).map(|l| l.text) {
                // Never briefed as the active task of the branch its work landed on (docs/REFERENCE.md#briefing).
                Some(where_) => out.push(kept(format!(
                    "Task {} ({} on {}, profile {}): {} — its work {where_}: nothing left to do here but `git majordomus finish --outcome completed`.",
                    t.id, t.outcome, t.branch, t.profile, t.task
                ))),
                None => out.push(kept(format!("Task {} ({}, profile {}): {}", t.id, t.outcome, t.profile, t.task))),
            }
            out.push(kept(format!("Scope: {}", t.scope.join(", "))));
            task_id = Some(t.id);
        }
        Some(r) => {
            out.push(kept(format!("No task here: the task record names another checkout ({}).", r.task.worktree)))
        }
        None => out.push(kept("No task record: checkpoints and handovers are still written for this episode.")),
    }
    if let Some(server) = server_line {
        out.push(optional(format!("Shared server: {server}")));
    }
    let offers =
        crate::services::continuity::load_local(ctx).map(|l| l.offers_total.unwrap_or(l.offers.len())).unwrap_or(0);
    // `continuity.json` offers only what `plan` would let this checkout resume: records of an
    // untrusted or revoked key are never counted (issue 39; `views::refresh_offers`).
    if offers > 0 {
        out.push(optional(format!(
            "Mesh: {offers} resumable handover(s) from other devices — run git majordomus continuity plan"
        )));
    }
    if let Some(line) = arrived_line(ctx) {
        out.push(kept(line));
    }
    // A removed worktree's records, kept under the git directory (D60): named, never resolved.
    out.extend(crate::services::kept::orphans(ctx).iter().map(|k| optional(crate::services::kept::sentence(k))));
    let open = unresolved(ctx)?;
    if !open.is_empty() {
        out.push(kept(format!("BLOCKED: {} open question(s) in this checkout; finish --outcome completed is refused until each is resolved.", open.len())));
        for (t, q) in open.iter().take(QUESTIONS_SHOWN) {
            out.push(optional(format!("- {q} ({t})")));
        }
    }
    out.extend(crate::services::knowledge::briefing_lines(ctx)?.into_iter().map(optional));
    let now = ctx.clock.now();
    let resolved = resolve_labelled(ctx, None)?;
    match &resolved {
        None => out.push(Line {
            text: "No relevant handover for this worktree and branch; absence is the answer, not a stale match.".into(),
            rank: 2,
        }),
        Some(l) => {
            let m = &l.record.meta;
            // A resumed handover names the device and key it came from (issue 39).
            let origin = match l.arrived() {
                Some(a) => format!("{}, arrived from {}", m.origin, a.describe()),
                None => m.origin.to_string(),
            };
            out.push(kept(format!(
                "Handover {} ({}, {}, {}, {origin}).",
                ctx.rel(&l.record.path),
                l.record.matched.as_str(),
                l.git_state(),
                age(m.judged_at(), now),
            )));
            if let Some(name) = &l.passed_over {
                out.push(optional(format!(
                    "A newer derived handover ({name}) only restates it: the authored one is shown."
                )));
            }
            if !l.divergence.trustworthy() {
                out.push(kept(format!(
                    "Its commit is not in this history ({}): trust git, not the record.",
                    l.git_state()
                )));
            }
            let na = match l.next_action() {
                NextAction::Withheld { label, reason, .. } => {
                    out.push(kept(format!(
                        "It is history ({}, {}): {reason}. Its next action is withheld; read it with git majordomus handover --resolve.",
                        label.as_str(),
                        age(m.judged_at(), now),
                    )));
                    None
                }
                NextAction::Shown(text) => Some(text),
                NextAction::Absent => None,
            };
            if let Some(na) = na {
                out.push(kept(match l.arrived() {
                    Some(a) => format!("Its Next Action (written on {}):", a.describe()),
                    None => "Its Next Action:".to_string(),
                }));
                let lines: Vec<&str> = na.lines().collect();
                for line in lines.iter().take(NEXT_ACTION_LINES) {
                    out.push(kept(format!("  {line}")));
                }
                if lines.len() > NEXT_ACTION_LINES {
                    out.push(kept(format!("  ... {} more line(s) in the handover", lines.len() - NEXT_ACTION_LINES)));
                }
                // The files the Next Action names that changed since (issue 43): trimmed with the
                // optional lines; a record that cites nothing costs nothing.
                if let Some(line) = crate::services::citations::check_first(ctx, m, &na, "handover") {
                    out.push(optional(line));
                }
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
        out.push(optional(format!(
            "Newest authored checkpoint {} ({}, {}); read it with git majordomus checkpoint --show.",
            ctx.rel(&c.path),
            crate::services::rewrite::label_of(ctx, &c.meta).describe(),
            age(c.meta.judged_at(), now)
        )));
    }
    out.push(optional(
        "Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.",
    ));
    // The authored handover is the whole value: the briefing ends by asking for one (issue 42).
    out.push(kept(
        "Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).",
    ));
    Ok(out)
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
    pub by: String,
}

impl Limit {
    fn size(&self, lines: &[&str]) -> usize {
        lines.iter().map(|l| if self.bytes { l.len() } else { l.chars().count() } + 1).sum()
    }
}

/// Fits the briefing under `max_lines` and every size limit, each counting the overflow line:
/// whole lines go, the lowest rank first and within a rank from the end, and the last line then
/// says how many were withheld, by what, and where the whole briefing is.
pub fn bounded(lines: Vec<Line>, max_lines: usize, limits: &[Limit]) -> Vec<String> {
    let total = lines.len();
    let overflow = |n: usize, cap: &str| {
        format!("... {n} more line(s) withheld by {cap}; run `git majordomus context` for the whole briefing.")
    };
    let mut gone = vec![false; total];
    let shown =
        |gone: &[bool]| -> Vec<&str> { (0..total).filter(|&i| !gone[i]).map(|i| lines[i].text.as_str()).collect() };
    // The limit a briefing of these lines plus `extra` breaks, if any.
    let broken = |gone: &[bool], extra: Option<&str>| {
        let mut v = shown(gone);
        v.extend(extra);
        if v.len() > max_lines {
            return Some("session.briefing_budget_lines".to_string());
        }
        limits.iter().find(|l| l.size(&v) > l.max).map(|l| l.by.clone())
    };
    let Some(mut cap) = broken(&gone, None) else { return lines.into_iter().map(|l| l.text).collect() };
    // Whole lines go until the rest and the overflow line fit: next, the last one still there
    // of the lowest rank.
    while let Some(i) = (0..total).rev().filter(|&i| !gone[i]).min_by_key(|&i| lines[i].rank) {
        gone[i] = true;
        let n = gone.iter().filter(|g| **g).count();
        match broken(&gone, Some(&overflow(n, &cap))) {
            None => break,
            Some(by) => cap = by,
        }
    }
    let n = gone.iter().filter(|g| **g).count();
    let mut out: Vec<String> = lines.into_iter().zip(&gone).filter(|(_, g)| !**g).map(|(l, _)| l.text).collect();
    out.push(overflow(n, &cap));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ls(n: usize, w: usize) -> Vec<Line> {
        (0..n).map(|i| optional(format!("{i:0w$}"))).collect()
    }

    #[test]
    fn line_budget_counts_the_overflow_line() {
        let out = bounded(ls(100, 3), 60, &[]);
        assert_eq!(out.len(), 60);
        assert!(out[59].starts_with("... 41 more line(s) withheld by session.briefing_budget_lines"));
        assert_eq!(bounded(ls(10, 3), 60, &[]).len(), 10);
    }

    /// The handover line and its Next Action outlast the optional lines above them.
    #[test]
    fn optional_lines_go_before_the_kept_ones() {
        let mut v = vec![kept("head"), optional("server"), optional("knowledge"), kept("Handover x."), kept("  do it")];
        v.push(optional("closing"));
        let out = bounded(v.clone(), 4, &[]);
        assert_eq!(out[..3], ["head", "Handover x.", "  do it"], "{out:?}");
        assert!(out[3].starts_with("... 3 more line(s) withheld"), "{out:?}");
        let out = bounded(v, 3, &[]);
        assert_eq!(out[..2], ["head", "Handover x."], "{out:?}");
    }

    #[test]
    fn char_budget_withholds_whole_lines() {
        let by = |b: &str| Limit { max: 1000, bytes: false, by: b.into() };
        let out = bounded(ls(50, 99), 60, &[by("session.briefing_budget_chars")]);
        let total: usize = out.iter().map(|l| l.len() + 1).sum();
        assert!(total <= 1000, "{total}");
        assert!(out.last().unwrap().contains("session.briefing_budget_chars"));
        // Bytes and characters differ: 400 two-byte characters a line.
        let wide: Vec<Line> = (0..10).map(|_| optional("é".repeat(400))).collect();
        let out = bounded(wide, 60, &[Limit { max: 2000, bytes: true, by: "the host".into() }]);
        let bytes: usize = out.iter().map(|l| l.len() + 1).sum();
        assert!(bytes <= 2000, "{bytes}");
        assert_eq!(out.len(), 3, "two lines of 801 bytes and the overflow line: {out:?}");
        assert!(out[2].starts_with("... 8 more line(s) withheld by the host"));
    }
}
