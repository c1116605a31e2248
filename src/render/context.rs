//! The `context` document as text (docs/REFERENCE.md#context): the header, each section's heading and line
//! formats, the EXCLUDED reasons and the BUDGET line, laid out from the data of
//! [`ContextReport`]. `Text` is the [`Renderer`] `cli` passes to `services::context`, which counts
//! the budget in these lines and decides what is dropped; nothing here decides.
//! Must not touch: git, `ctx`, files, the terminal; what is dropped (`services::context` decides).

use crate::model::labels::Divergence;
use crate::model::record::{only_sections, truncate_section};
use crate::ops::services::context::{
    Bounded, CheckpointFacts, Content, ContextReport, Event, HandoverFacts, Renderer, Why,
};
use crate::ops::services::labelled::NextAction;
use crate::render::records;
use crate::text::short;

/// The second header line: what the document is and is not.
const DISCLAIMER: &str = "# a projection of durable state, not a source of truth: validate every line against git";

/// The document's text layout.
#[derive(Debug, Clone, Copy, Default)]
pub struct Text;

/// The whole document; its line count is the report's `budget.lines`.
pub fn text(r: &ContextReport) -> String {
    Text.document(r)
}

impl Renderer for Text {
    fn section(&self, content: &Content) -> String {
        lines(content).join("\n").trim_end().to_string()
    }

    fn brief(&self, content: &Content) -> Option<String> {
        match content {
            Content::Checkpoint(c) => {
                Some(format!("{}\nbody omitted for budget — read {}", checkpoint_heading(c), c.path))
            }
            // The handover keeps what a worker acts on: its Objective and Next Action (docs/REFERENCE.md#context).
            Content::Handover(h) => {
                let mut lines = vec![handover_heading(h)];
                lines.extend(warnings(h));
                let shown = h.labelled.shown_body();
                lines.extend(non_blank(only_sections(&shown, &["Objective", "Next Action"]).lines()));
                lines.push(format!("body omitted for budget — read {}", h.path));
                Some(lines.join("\n"))
            }
            _ => None,
        }
    }

    fn trimmed(&self, content: &Content) -> Option<String> {
        let Content::Handover(h) = content else { return None };
        let body = truncate_section(&h.labelled.record.body, "Current State", STATE_LINES, &h.path)?;
        let mut cut = h.as_ref().clone();
        cut.labelled.record.body = body;
        Some(self.section(&Content::Handover(Box::new(cut))))
    }

    fn reason(&self, why: &Why) -> String {
        match why {
            Why::ProfileOff { profile, key, value } => format!("profile {profile} sets context.{key}: {value}"),
            Why::OutputNotCaptured { profile } => format!(
                "profile {profile} sets context.failing_output: true, but context does not capture command output"
            ),
            Why::NoCheckpoint { task: None } => "no checkpoint for this worktree and branch".to_string(),
            Why::NoCheckpoint { task: Some(t) } => format!("no checkpoint for task {t} on this worktree and branch"),
            Why::NoHandover => "no record for this worktree and branch — absence, not a stale match".to_string(),
            Why::NoTask => "no active task: touched files are counted from a task's start and scope".to_string(),
            Why::PromptWraps { name } => {
                format!("{name} holds {{{{CONTEXT}}}} alone on a line: it wraps the context rather than adding to it")
            }
            Why::Budget { limit } => format!("context budget {limit} lines"),
        }
    }

    fn blocks(&self, r: &ContextReport) -> Vec<String> {
        let mut header = vec![format!("# Majordomus context — {}", r.generated_at), DISCLAIMER.to_string()];
        if let Some(p) = &r.provider {
            header.push(format!("# provider {} — its always-loaded instructions are {}", p.name, p.always_loaded));
        }
        let mut blocks = vec![header.join("\n")];
        blocks.extend(r.sections.iter().map(|s| s.text.clone()));
        let mut excluded = vec!["## EXCLUDED".to_string()];
        excluded.extend(r.excluded.iter().map(|e| format!("- {} — {}", e.item, e.reason)));
        if r.excluded.is_empty() {
            excluded.push("- nothing".into());
        }
        blocks.push(excluded.join("\n"));
        blocks.push(format!("## BUDGET\n{}", budget_line(r)));
        blocks
    }

    fn document(&self, r: &ContextReport) -> String {
        let mut s = self.blocks(r).join("\n\n");
        s.push('\n');
        s
    }
}

/// `<lines> of <budget> lines[ (dropped: a b-body ...)]`.
fn budget_line(r: &ContextReport) -> String {
    let mut s = format!("{} of {} lines", r.budget.lines, r.budget.limit);
    if !r.budget.dropped.is_empty() {
        s.push_str(&format!(" (dropped: {})", r.budget.dropped.join(" ")));
    }
    s
}

/// Lines of Current State a trimmed handover keeps (the `handover-state` step).
const STATE_LINES: usize = 5;

fn checkpoint_heading(c: &CheckpointFacts) -> String {
    format!("## LATEST CHECKPOINT ({}, {}, {}, {})", c.path, c.age, c.label.describe(), c.origin)
}

/// The handover's HISTORY and WARNING lines.
fn warnings(h: &HandoverFacts) -> Vec<String> {
    let l = &h.labelled;
    let mut lines = Vec::new();
    if matches!(l.next_action(), NextAction::Withheld { .. }) {
        lines.push(format!("HISTORY: this handover is {} — read it as background, not as the thing to do now; its Next Action is withheld", l.freshness.label.as_str()));
    }
    if !l.divergence.trustworthy() {
        lines.push(format!(
            "WARNING: its commit is {} from here — validate it against git before acting on it",
            l.git_state()
        ));
    }
    lines
}

fn handover_heading(h: &HandoverFacts) -> String {
    format!("## LATEST COMPATIBLE HANDOVER ({})", h.path)
}

/// A section's lines, heading first.
fn lines(content: &Content) -> Vec<String> {
    match content {
        Content::Git(g) => {
            let v = &g.view;
            let mut lines = vec![
                "## GIT".to_string(),
                format!("repository: {}", v.repository),
                format!("branch: {}", v.branch),
                format!("head: {}", v.head),
                if g.changed == 0 {
                    format!("working_tree: {}", v.working_tree)
                } else {
                    format!("working_tree: {} ({} changed)", v.working_tree, g.changed)
                },
            ];
            match &g.task {
                None => lines.push("task_record: none (no active task)".into()),
                Some(t) => {
                    lines.push(format!("task_record: {} (recorded head {})", t.label.describe(), short(&t.head)));
                    if matches!(t.label.divergence, Divergence::Diverged | Divergence::DifferentContext) {
                        lines.push(format!(
                            "WARNING: the task was recorded on {} at {}, which is {} from here — validate the task against git before acting on it",
                            t.branch,
                            short(&t.head),
                            t.label.divergence.as_str()
                        ));
                    }
                }
            }
            lines.extend(g.briefing.as_ref().map(|b| match b.label {
                Divergence::Exact => format!("briefing exact at {}", short(&b.head)),
                Divergence::Advanced => {
                    format!("briefing advanced — {} commit(s) since it was frozen at {}", b.since, short(&b.head))
                }
                other => format!(
                    "WARNING: briefing {} at {} — it no longer describes this checkout",
                    other.as_str(),
                    short(&b.head)
                ),
            }));
            lines
        }
        Content::Task(None) => {
            vec!["## TASK".into(), "none active — run: git majordomus start \"<task>\" --scope <path>".into()]
        }
        Content::Task(Some(f)) => {
            let t = &f.view;
            vec![
                "## TASK".into(),
                format!("id: {}", t.id),
                format!("task: {}", t.task),
                format!("profile: {}", t.profile),
                format!("owner: {}", t.owner),
                format!("outcome: {}", t.outcome),
                format!("scope: {}", t.scope.join(", ")),
                format!("started: {} ({})", t.started_at, f.started_age),
                format!("checkpoint: {} ({}; interval {})", t.checkpoint_at, f.checkpoint_age, f.interval),
            ]
        }
        Content::Profile(p) => {
            let v = &p.verification;
            vec![
                format!("## PROFILE {}", p.name),
                format!("capability: {}", p.capability),
                format!("effort: {} (escalation: {})", p.effort, p.effort_escalation),
                format!("verbosity: {}", p.verbosity),
                format!("presentation: {}", p.presentation),
                format!("reasoning: {}", p.reasoning),
                format!(
                    "verification: verify_command_required {}, regression_test_required {}, decision_record_required {}",
                    v.verify_command_required, v.regression_test_required, v.decision_record_required
                ),
                format!("output: {}", p.output_contract),
            ]
        }
        Content::Questions(open) => {
            let mut lines = vec![format!(
                "## OPEN QUESTIONS ({} unresolved — every one refuses finish --outcome completed)",
                open.len()
            )];
            lines.extend(open.iter().map(|(t, q)| format!("- [unresolved] {t} — {q}")));
            if open.is_empty() {
                lines.push("- none".into());
            }
            lines
        }
        Content::Documents(found) => {
            let mut lines = vec![format!(
                "## CONTEXT DOCUMENTS ({}, from the scope paths up to the root; not quoted)",
                found.len()
            )];
            if found.is_empty() {
                lines.push("- none".into());
            }
            lines.extend(found.iter().map(|d| {
                let loaded = d.always_loaded_by.as_ref().map(|p| format!("; always loaded by {p}")).unwrap_or_default();
                format!("- {} ({} line{}{loaded})", d.path, d.lines, if d.lines == 1 { "" } else { "s" })
            }));
            lines
        }
        Content::Decisions(d) => {
            let scope = if d.for_task { "for this task" } else { "in this repository" };
            let mut lines = vec![format!("## DECISIONS ({} most recent {scope})", d.entries.len())];
            for e in &d.entries {
                let mut s = format!("- {} — {}", e.date, e.title);
                if let Some(why) = &e.why {
                    s.push_str(&format!(" — why: {why}"));
                }
                if let Some(by) = &e.superseded_by {
                    s.push_str(&format!(" (superseded by: {by})"));
                }
                lines.push(s);
            }
            if d.entries.is_empty() {
                lines.push("- none recorded".into());
            }
            lines
        }
        Content::Reasoning(r) => vec!["## REASONING".into(), format!("{r}: {}", how(r))],
        Content::Checkpoint(c) => {
            let mut lines = vec![checkpoint_heading(c)];
            if let Some(p) = &c.passed_over {
                lines.push(format!("(preferred to the newer derived {p}: an authored record wins)"));
            }
            lines.extend(non_blank(c.body.lines()));
            lines
        }
        Content::Handover(h) => {
            let l = &h.labelled;
            let mut lines = vec![handover_heading(h)];
            lines.extend(warnings(h));
            let resolved = records::handover(l, &h.path, h.now, &h.cited);
            lines.extend(non_blank(resolved.lines().skip(1)));
            lines
        }
        Content::Files(files) => {
            let mut lines = vec![format!("## FILES TOUCHED IN SCOPE ({})", files.total)];
            lines.extend(files.shown.iter().map(|f| format!("- {f}")));
            lines.extend(more(files, "more"));
            if files.total == 0 {
                lines.push("- none".into());
            }
            lines
        }
        Content::History(events) => {
            let mut lines = vec![format!("## RECENT HISTORY (last {} events)", events.total)];
            if events.total == 0 {
                lines.push("- none".into());
            }
            lines.extend(more(events, "earlier"));
            lines.extend(events.shown.iter().map(event_line));
            lines
        }
        Content::Prompt { name, body } => {
            let mut lines = vec![format!("## PROMPT {name}")];
            lines.extend(body.trim_end().lines().map(str::to_string));
            lines
        }
    }
}

/// What the profile's reasoning axis asks of the worker.
fn how(reasoning: &str) -> &'static str {
    match reasoning {
        "direct" => "act directly: make the routine change, verify it, stop",
        "stepwise" => "work in small verified steps: plan, change, run the checks, checkpoint",
        "hypothesis-driven" => "reproduce first, then state a hypothesis, test it, and keep what refuted it; fix with a regression test",
        "deliberate" => "deliberate before changing: read the decisions and scope documents, weigh the alternatives, record the decision and why",
        _ => "follow the profile's reasoning axis as named",
    }
}

/// `... and <n> <what> (context.max_list_items)` when items were left out.
fn more<T>(list: &Bounded<T>, what: &str) -> Option<String> {
    let n = list.omitted();
    (n > 0).then(|| format!("... and {n} {what} (context.max_list_items)"))
}

/// The lines that are not blank: inside a section, a blank line would read as a section break.
fn non_blank<'a>(lines: impl Iterator<Item = &'a str> + 'a) -> impl Iterator<Item = String> + 'a {
    lines.filter(|x| !x.trim().is_empty()).map(str::to_string)
}

/// `- <ts> <event>[ <task>][ <path>]`.
fn event_line(e: &Event) -> String {
    let mut s = format!("- {} {}", e.ts.as_deref().unwrap_or("?"), e.event.as_deref().unwrap_or("?"));
    for v in &e.fields {
        s.push(' ');
        s.push_str(v);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::services::context::{Budget, Excluded, GitFacts, GitView, Section};

    #[test]
    fn document_is_the_blocks_with_one_blank_line_between() {
        let view = GitView {
            repository: ".git".into(),
            branch: "main".into(),
            head: "NONE".into(),
            working_tree: crate::model::labels::WorkingTree::Dirty,
            task_record: None,
            task_record_rewrite: None,
        };
        let git = Content::Git(GitFacts { view: view.clone(), changed: 2, task: None, briefing: None });
        let text = Text.section(&git);
        let r = ContextReport {
            schema: 1,
            generated_at: "2026-09-03T20:00:00Z".into(),
            provider: None,
            git: view,
            task: None,
            sections: vec![Section { id: git.id(), lines: text.lines().count(), text, content: git, degraded: false }],
            excluded: vec![Excluded {
                item: "history".into(),
                reason: Text.reason(&Why::Budget { limit: 9 }),
                why: Why::Budget { limit: 9 },
            }],
            budget: Budget { lines: 17, limit: 9, dropped: vec!["history".into()] },
        };
        let doc = Text.document(&r);
        assert_eq!(
            doc,
            "# Majordomus context — 2026-09-03T20:00:00Z\n\
             # a projection of durable state, not a source of truth: validate every line against git\n\n\
             ## GIT\nrepository: .git\nbranch: main\nhead: NONE\nworking_tree: dirty (2 changed)\n\
             task_record: none (no active task)\n\n\
             ## EXCLUDED\n- history — context budget 9 lines\n\n\
             ## BUDGET\n17 of 9 lines (dropped: history)\n"
        );
        let blocks = Text.blocks(&r);
        assert_eq!(doc.lines().count(), blocks.iter().map(|b| b.lines().count()).sum::<usize>() + blocks.len() - 1);
    }
}
