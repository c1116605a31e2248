//! Derived bodies (docs/REFERENCE.md#handover-body): checkpoints and handovers written from records and git, never
//! from a conversation. Deterministic: the same records and git give the same text.
//! Must not touch: a command or a query, a conversation, the file (the caller writes the body).

use std::collections::BTreeSet;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::{age, freshness, Anchor};
use crate::model::record::{section_text, PROVENANCE};
use crate::model::task::Task;
use crate::services::labelled::{next_action, NextAction};
use crate::services::resolve::{newest_authored, Resolved};
use crate::store::atomic::read_opt;
use crate::store::{decisions, ledger, questions};
use crate::text::short;

/// Unresolved questions of this checkout, as `(task, question)`.
pub fn unresolved(ctx: &Ctx) -> Result<Vec<(String, String)>> {
    let text = read_opt(&ctx.layout.questions())?.unwrap_or_default();
    Ok(questions::parse(&text)
        .into_iter()
        .filter_map(|e| match e {
            questions::Entry::Unresolved { task, question, .. } => Some((task, question)),
            _ => None,
        })
        .collect())
}

/// Files touched since the task started: committed since its head, plus every changed file
/// outside `.ai/`. A repository that cannot be read is an error, never "nothing touched" (the
/// scope check and `finish` rest on this list).
pub fn touched_since(ctx: &Ctx, task: &Task) -> Result<Vec<String>> {
    with_committed(ctx, task, ctx.changed_files()?)
}

/// What a derived body lists as touched since the task started (docs/REFERENCE.md#front-matter): the files
/// committed since its head, plus the change list as `git status` shows it (an untracked
/// directory as one `dir/` entry), not every file inside.
pub fn touched_listing(ctx: &Ctx, task: &Task) -> Result<Vec<String>> {
    with_committed(ctx, task, ctx.changes()?.entries())
}

/// `changed` and the files committed since `task`'s head, sorted, de-duplicated.
fn with_committed(ctx: &Ctx, task: &Task, changed: &[String]) -> Result<Vec<String>> {
    let mut set: BTreeSet<String> = changed.iter().cloned().collect();
    if let Some(head) = ctx.git.head()? {
        if let Some(base) = ctx.git.base_of(task.anchor_head()) {
            // The task's own commits: not what a merge or a rebase brought in (docs/REFERENCE.md#identity).
            let others = ctx.git.other_branch_tips(ctx.identity()?.branch.as_deref());
            let committed = ctx.git.own_changes_between(base, head, &others)?;
            // A host file whose commits since the task started added only what `hooks install`
            // writes is the tool's, not the task's work (docs/REFERENCE.md#identity), unless it changed since.
            let tools = |f: &String| {
                let at = |c| ctx.git.file_at(c, f).ok().flatten().map(|b| String::from_utf8_lossy(&b).into_owned());
                !changed.contains(f)
                    && f.starts_with('.')
                    && at(Some(head)).is_some_and(|now| {
                        let then = at(base);
                        crate::model::providers::PROVIDERS
                            .iter()
                            .any(|p| crate::model::providers::tools_own(p, f, &now, then.as_deref()))
                    })
            };
            set.extend(committed.into_iter().filter(|f| !tools(f)));
        }
    }
    Ok(set.into_iter().collect())
}

/// Commits since the task's start head, oldest first (empty when HEAD is unborn or the start
/// is not a commit here; an unreadable repository is an error).
pub fn commits_since(ctx: &Ctx, task: &Task) -> Result<Vec<(String, String)>> {
    let Some(head) = ctx.git.head()? else { return Ok(Vec::new()) };
    let Some(base) = ctx.git.base_of(task.anchor_head()) else { return Ok(Vec::new()) };
    Ok(ctx.git.commits_between(base, head)?.into_iter().map(|(id, s)| (id.to_string(), s)).collect())
}

/// The newest authored handover and checkpoint of this task (no task: of this episode) that
/// resolve here: what a derived record carries forward (docs/REFERENCE.md#origin).
/// The checkpoint is this episode's own when it wrote one (two windows on one task each carry
/// forward their own notes), else the task's.
fn authored(ctx: &Ctx, task: Option<&Task>) -> Result<(Option<Resolved>, Option<Resolved>)> {
    let task = task.map(|t| t.id.as_str()).unwrap_or("none");
    let session = ctx.session_id().unwrap_or_else(|| "none".into());
    let checkpoints = ctx.layout.checkpoints();
    let checkpoint = match newest_authored(ctx, &checkpoints, task, &session, true)? {
        Some(c) => Some(c),
        None => newest_authored(ctx, &checkpoints, task, &session, false)?,
    };
    Ok((newest_authored(ctx, &ctx.layout.handovers(), task, &session, false)?, checkpoint))
}

/// Appends `text` as a block quote of at most `max` lines; when cut, a line says how much was
/// quoted and where the rest is.
fn quote(s: &mut String, text: &str, max: usize, path: &str) {
    let lines: Vec<&str> = text.lines().collect();
    for l in lines.iter().take(max) {
        s.push_str(if l.is_empty() { ">\n" } else { "> " });
        if !l.is_empty() {
            s.push_str(l);
            s.push('\n');
        }
    }
    if lines.len() > max {
        s.push_str(&format!("(quoted {max} of {} lines — read {path})\n", lines.len()));
    }
}

/// The line that sums up a checkpoint: its first non-blank line, or for a derived one the line
/// saying where git stands (the quote of an authored checkpoint before it is that record's).
pub fn note_line(body: &str, derived: bool) -> Option<&str> {
    let mut lines = body.lines().filter(|l| !l.trim().is_empty());
    if derived {
        lines.find(|l| l.starts_with("At "))
    } else {
        lines.next()
    }
}

/// `<path> (<age>)` of a record.
fn cited(ctx: &Ctx, r: &Resolved) -> String {
    format!("{} ({})", ctx.rel(&r.path), age(r.meta.judged_at(), ctx.clock.now()))
}

/// Carries `text` of record `r` forward: `<what> <path> (<age>)<says>` on a line, then the
/// text quoted within `max` lines.
fn carry(s: &mut String, ctx: &Ctx, what: &str, r: &Resolved, says: &str, text: &str, max: usize) {
    s.push_str(&format!("{what} {}{says}\n", cited(ctx, r)));
    quote(s, text, max, &ctx.rel(&r.path));
}

/// The derived checkpoint body: the newest authored checkpoint quoted within the checkpoint cap
/// (docs/REFERENCE.md#origin), then where git stands.
pub fn checkpoint_body(ctx: &Ctx, task: Option<&Task>) -> Result<String> {
    let id = ctx.identity()?;
    let wt = ctx.working_tree()?;
    let mut rest = String::new();
    match task.filter(|t| t.is_active()) {
        None => rest.push_str(&format!(
            "At {} on {}, working tree {wt}; no active task.\n",
            short(id.head_text()),
            id.branch_text()
        )),
        Some(t) => {
            let n = touched_since(ctx, t)?.len();
            rest.push_str(&format!(
                "At {} on {}, working tree {wt}; {n} file(s) changed since the task started.\n",
                short(id.head_text()),
                id.branch_text()
            ));
            let commits = commits_since(ctx, t)?;
            let shown = commits.len().min(8);
            for (sha, subject) in &commits[commits.len() - shown..] {
                rest.push_str(&format!("- {} {subject}\n", short(sha)));
            }
        }
    }
    rest.push_str(&format!("Open questions: {} unresolved.\n", unresolved(ctx)?.len()));
    rest.push_str(PROVENANCE);
    rest.push('\n');
    let mut s = String::new();
    if let (_, Some(c)) = authored(ctx, task)? {
        // The heading, the quote and its cut note must leave room for the rest within the cap.
        let cap = ctx.policy()?.checkpoint.max_body_lines;
        let room = cap.saturating_sub(rest.lines().count() + 2);
        if room > 0 {
            carry(&mut s, ctx, "Newest authored checkpoint", &c, ":", c.body.trim_end(), room);
        }
    }
    s.push_str(&rest);
    Ok(s)
}

fn slug(name: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            gap = false;
        } else {
            gap = true;
        }
    }
    out
}

/// Lines of the current episode (by session stamp) or, without an episode, of the task, read
/// from the ledger's tail back to the episode's (or the task's) start line: nothing of either is
/// older (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow).
fn episode_lines(ctx: &Ctx, task: Option<&Task>) -> Result<Vec<ledger::Line>> {
    let session = ctx.session_id();
    match (&session, task) {
        (Some(s), _) => lines_since(ctx, "session", s, "session.started"),
        (None, Some(t)) => lines_since(ctx, "task_id", &t.id, "task.started"),
        (None, None) => Ok(Vec::new()),
    }
}

/// The ledger lines whose `key` is `value`, back to the first `start` event among them, oldest
/// first.
fn lines_since(ctx: &Ctx, key: &str, value: &str, start: &str) -> Result<Vec<ledger::Line>> {
    let Some(lines) = ledger::backward(&ctx.layout.ledger())? else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for l in lines {
        let l = l?;
        if l.str(key) == Some(value) {
            let first = l.event() == Some(start);
            out.push(l);
            if first {
                break;
            }
        }
    }
    out.reverse();
    Ok(out)
}

/// The sections a derived handover can write.
pub const WRITERS: &[&str] =
    &["objective", "current_state", "next_action", "decisions", "open_questions", "verification"];

/// What deriving a body refuses (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum DeriveError {
    /// Policy requires a section no derivation writes.
    #[error("handover --derive: required section {0:?} has no writer; write the handover by hand")]
    NoWriter(String),
}

/// The derived handover body; a required section with no writer is a refusal (10).
pub fn handover_body(ctx: &Ctx, task: Option<&Task>, required: &[String]) -> Result<String> {
    for r in required {
        if !WRITERS.contains(&slug(r).as_str()) {
            return Err(DeriveError::NoWriter(r.clone()).into());
        }
    }
    let policy = ctx.policy()?;
    let max = policy.context.max_list_items;
    let quoted = policy.checkpoint.max_body_lines;
    let id = ctx.identity()?;
    let wt = ctx.working_tree()?;
    let (ho, cp) = authored(ctx, task)?;
    let section = |name: &str| ho.as_ref().and_then(|h| section_text(&h.body, name)).filter(|t| !t.trim().is_empty());
    let mut s = String::new();

    s.push_str("# Objective\n");
    match task {
        Some(t) => {
            s.push_str(&format!("{}\n", t.task));
            s.push_str(&format!(
                "Task {} (profile {}, outcome {}); scope: {}.\n",
                t.id,
                t.profile,
                t.outcome,
                t.scope.join(", ")
            ));
        }
        None => s.push_str("No active task: this handover records the state of the episode outside any task.\n"),
    }
    if let (Some(h), Some(text)) = (&ho, section("Objective")) {
        carry(&mut s, ctx, "The authored handover", h, " states it as:", &text, quoted);
    }

    s.push_str("\n# Current State\n");
    if let (Some(h), Some(text)) = (&ho, section("Current State")) {
        carry(&mut s, ctx, "The authored handover", h, " said:", &text, quoted);
    }
    if let Some(c) = &cp {
        carry(&mut s, ctx, "The newest authored checkpoint", c, ":", c.body.trim_end(), quoted);
    }
    if ho.is_some() || cp.is_some() {
        s.push_str("What git and the records say now:\n");
    }
    s.push_str(&format!("On {} at {}, working tree {wt}.\n", id.branch_text(), short(id.head_text())));
    if let Some(h) = &ho {
        if let (Some(Some(base)), Some(now)) = (ctx.git.base_of(h.meta.anchor_head()), ctx.git.head()?) {
            let n = ctx.git.commits_between(Some(base), now)?.len();
            s.push_str(&format!(
                "Since the authored handover: {n} commit(s), {}.\n",
                crate::services::rewrite::label_of(ctx, &h.meta).describe()
            ));
        }
    }
    if let Some(t) = task {
        let label = crate::services::rewrite::label_of(ctx, &t).describe();
        let commits = commits_since(ctx, t)?;
        s.push_str(&format!("Since the task started at {}: {} commit(s), {}.\n", short(&t.head), commits.len(), label));
        let touched = touched_listing(ctx, t)?;
        list_bounded(&mut s, &format!("Changed files ({}):", touched.len()), &touched, max);
    } else {
        let changed = ctx.changes()?.entries();
        list_bounded(&mut s, &format!("Uncommitted files ({}):", changed.len()), changed, max);
    }
    // What was recorded, counted truly (it once said "0 handover(s)" while the task had three
    // authored): in this episode, and for the task in all.
    let count = |lines: &[ledger::Line], ev: &str, key: Option<&str>| {
        lines
            .iter()
            .filter(|l| l.event() == Some(ev) && key.is_none_or(|k| l.pairs.as_ref().is_some_and(|p| p.has(k))))
            .count()
    };
    let counts = |lines: &[ledger::Line]| {
        let count = |ev: &str, key: Option<&str>| count(lines, ev, key);
        format!(
            "{} checkpoint(s), {} decision(s), {} question(s), {} handover(s)",
            count("task.checkpoint", Some("checkpoint_path")),
            count("decision.recorded", None),
            count("question.opened", None),
            count("task.handed_over", None)
        )
    };
    let episode = episode_lines(ctx, task)?;
    let cps = count(&episode, "task.checkpoint", Some("checkpoint_path"));
    match (ctx.session_id(), task) {
        (Some(_), Some(t)) => {
            let all = lines_since(ctx, "task_id", &t.id, "task.started")?;
            s.push_str(&format!(
                "Recorded in this episode: {}; for task {} in all: {}.\n",
                counts(&episode),
                t.id,
                counts(&all)
            ));
        }
        (Some(_), None) => s.push_str(&format!("Recorded in this episode: {}.\n", counts(&episode))),
        (None, _) => s.push_str(&format!("Recorded so far: {}.\n", counts(&episode))),
    }

    s.push_str("\n# Next Action\n");
    let open = unresolved(ctx)?;
    if !open.is_empty() {
        s.push_str(&format!(
            "Answer the {} open question(s) first; they refuse finish --outcome completed:\n",
            open.len()
        ));
        for (_, q) in &open {
            s.push_str(&format!("- {q}\n"));
        }
    }
    // A stale or invalid Next Action is never carried forward as the thing to do now (
    // docs/REFERENCE.md#freshness).
    let judged = |h: &Resolved| freshness(h.meta.judged_at(), ctx.clock.now(), policy.thresholds());
    let next = ho.as_ref().map(|h| (h, next_action(&h.body, &judged(h))));
    match next {
        Some((h, NextAction::Withheld { label, had_text: true, .. })) => s.push_str(&format!(
            "The authored handover {} is history ({}): its Next Action is not carried forward; read {} before acting on it.\n",
            cited(ctx, h),
            label.as_str(),
            ctx.rel(&h.path),
        )),
        Some((h, NextAction::Shown(text))) => {
            carry(&mut s, ctx, "The authored handover", h, " gave this Next Action:", &text, quoted)
        }
        None | Some((_, NextAction::Absent | NextAction::Withheld { had_text: false, .. })) if open.is_empty() => s.push_str(
            "Run `git majordomus context`, then `git majordomus check`, and continue from the current state above.\n",
        ),
        _ => {}
    }
    if cps == 0 {
        s.push_str("Nothing was checkpointed in this stretch of work; read the git log for what happened.\n");
    }

    let log = read_opt(&ctx.layout.decisions())?.unwrap_or_default();
    let all = decisions::parse(&log);
    let mine: Vec<&decisions::Decision> =
        all.iter().filter(|d| task.is_none_or(|t| d.task.as_deref() == Some(t.id.as_str()))).collect();
    if !mine.is_empty() {
        s.push_str("\n# Decisions\n");
        for d in mine.iter().rev().take(policy.context.recent_decisions) {
            s.push_str(&format!("- {} — {}\n", d.date, d.title));
        }
    }
    if !open.is_empty() {
        s.push_str("\n# Open Questions\n");
        for (t, q) in &open {
            s.push_str(&format!("- [unresolved] {t} — {q}\n"));
        }
    }
    if let Some(t) = task {
        let finished = crate::services::task::finished_line(ctx, &t.id)?;
        if let Some(p) = finished.as_ref().and_then(|l| l.pairs.as_ref()) {
            s.push_str("\n# Verification\n");
            let outcome = p.str("outcome").unwrap_or("?");
            match p.get("verify").filter(|v| !v.is_null()) {
                Some(v) => s.push_str(&format!(
                    "finish --outcome {outcome} ran `{}`: exit {}, {} s.\n",
                    v.get("command").and_then(|c| c.as_str()).unwrap_or("?"),
                    v.get("exit").map(|e| e.to_string()).unwrap_or_else(|| "?".into()),
                    v.get("seconds").map(|e| e.to_string()).unwrap_or_else(|| "?".into())
                )),
                None => s.push_str(&format!("finish --outcome {outcome} recorded no verify command.\n")),
            }
        }
    }
    s.push_str("\n---\n");
    s.push_str(PROVENANCE);
    s.push('\n');
    Ok(s)
}

fn list_bounded(s: &mut String, heading: &str, items: &[String], max: usize) {
    if items.is_empty() {
        return;
    }
    s.push_str(heading);
    s.push('\n');
    for i in items.iter().take(max) {
        s.push_str(&format!("- {i}\n"));
    }
    if items.len() > max {
        s.push_str(&format!("... and {} more\n", items.len() - max));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn slugs() {
        assert_eq!(super::slug("Current State"), "current_state");
        assert_eq!(super::slug("Next  Action!"), "next_action");
    }
}
