//! The start-hook briefing (SPEC §9.2, §A.8): what a new episode is told without asking —
//! references, labels and at most one section, bounded by lines and characters.

use super::derive::unresolved;
use super::handover::resolve_labelled;
use super::task;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::age;
use crate::model::labels::Anchor;
use crate::model::record::section_text;
use crate::store::records::head7;

/// Lines of `Its Next Action:` quoted at most.
const NEXT_ACTION_LINES: usize = 12;
/// Open questions listed at most.
const QUESTIONS_SHOWN: usize = 5;

/// The whole briefing, before the budget is applied.
pub fn lines(ctx: &Ctx, server_line: &str) -> Result<Vec<String>> {
    let id = ctx.identity()?.clone();
    let mut out = vec!["## Majordomus — what this repository already knows".to_string()];
    let episode = ctx.session_id().unwrap_or_else(|| "(none open)".into());
    out.push(format!(
        "Episode {episode}, on {} at {}, working tree {}.",
        id.branch_text(),
        head7(id.head_text()),
        ctx.working_tree()?
    ));
    match task::read(ctx)? {
        Some(r) if !r.foreign => {
            let t = r.task;
            out.push(format!("Task {} ({}, profile {}): {}", t.id, t.outcome, t.profile, t.task));
            out.push(format!("Scope: {}", t.scope.join(", ")));
        }
        Some(r) => out.push(format!("No task here: the task record names another checkout ({}).", r.task.worktree)),
        None => out.push("No task record: checkpoints and handovers are still written for this episode.".into()),
    }
    out.push(format!("Shared server: {server_line}"));
    let offers = super::continuity::load_local(ctx).map(|l| l.offers_total.unwrap_or(l.offers.len())).unwrap_or(0);
    if offers > 0 {
        out.push(format!(
            "Mesh: {offers} resumable handover(s) from other devices — run git majordomus continuity plan"
        ));
    }
    let open = unresolved(ctx)?;
    if !open.is_empty() {
        out.push(format!("BLOCKED: {} open question(s) in this checkout; finish --outcome completed is refused until each is resolved.", open.len()));
        for (t, q) in open.iter().take(QUESTIONS_SHOWN) {
            out.push(format!("- {q} ({t})"));
        }
    }
    out.extend(super::knowledge::briefing_lines(ctx)?);
    match resolve_labelled(ctx, None)? {
        None => out.push(
            "No relevant handover for this worktree and branch; absence is the answer, not a stale match.".into(),
        ),
        Some(l) => {
            let m = &l.record.meta;
            out.push(format!(
                "Handover {} ({}, {}, {}).",
                ctx.rel(&l.record.path),
                l.record.matched.as_str(),
                l.divergence.as_str(),
                age(m.judged_at(), ctx.clock.now())
            ));
            if !l.divergence.trustworthy() {
                out.push(format!(
                    "Its commit is not in this history ({}): trust git, not the record.",
                    l.divergence.as_str()
                ));
            }
            if l.freshness.is_history() {
                out.push(format!(
                    "It is history ({}, {}): {}. Its next action is withheld; read it with git majordomus handover --resolve.",
                    l.freshness.label.as_str(),
                    age(m.judged_at(), ctx.clock.now()),
                    l.freshness.reason
                ));
            } else if let Some(na) = section_text(&l.record.body, "Next Action").filter(|t| !t.trim().is_empty()) {
                out.push("Its Next Action:".into());
                let lines: Vec<&str> = na.lines().collect();
                for line in lines.iter().take(NEXT_ACTION_LINES) {
                    out.push(format!("  {line}"));
                }
                if lines.len() > NEXT_ACTION_LINES {
                    out.push(format!("  ... {} more line(s) in the handover", lines.len() - NEXT_ACTION_LINES));
                }
            }
        }
    }
    out.push("Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.".into());
    Ok(out)
}

/// Applies the line and character budgets: whole lines are withheld from the end, and the
/// overflow line (counted in the budget) names how many and which cap was hit.
pub fn bounded(lines: Vec<String>, max_lines: usize, max_chars: Option<usize>) -> Vec<String> {
    let total = lines.len();
    let chars = |v: &[String]| v.iter().map(|l| l.chars().count() + 1).sum::<usize>();
    let over_lines = total > max_lines;
    let over_chars = max_chars.is_some_and(|c| chars(&lines) > c);
    if !over_lines && !over_chars {
        return lines;
    }
    let overflow = |n: usize, cap: &str| {
        format!("... {n} more line(s) withheld by {cap}; run `git majordomus context` for the whole briefing.")
    };
    let mut keep = if over_lines { max_lines.saturating_sub(1) } else { total };
    let mut cap = "session.briefing_budget_lines";
    if let Some(c) = max_chars {
        while keep > 0
            && chars(&lines[..keep]) + overflow(total - keep, "session.briefing_budget_chars").chars().count() + 1 > c
        {
            keep -= 1;
            cap = "session.briefing_budget_chars";
        }
    }
    let mut out: Vec<String> = lines.into_iter().take(keep).collect();
    out.push(overflow(total - keep, cap));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ls(n: usize, w: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:0w$}")).collect()
    }

    #[test]
    fn line_budget_counts_the_overflow_line() {
        let out = bounded(ls(100, 3), 60, None);
        assert_eq!(out.len(), 60);
        assert!(out[59].starts_with("... 41 more line(s) withheld by session.briefing_budget_lines"));
        assert_eq!(bounded(ls(10, 3), 60, None).len(), 10);
    }

    #[test]
    fn char_budget_withholds_whole_lines() {
        let out = bounded(ls(50, 99), 60, Some(1000));
        let total: usize = out.iter().map(|l| l.len() + 1).sum();
        assert!(total <= 1000, "{total}");
        assert!(out.last().unwrap().contains("session.briefing_budget_chars"));
    }
}
