//! `context` (SPEC §8.4): a bounded projection of durable state and git, selected by the
//! profile's `context` block and fitted to a line budget by dropping sections in a fixed order.
//!
//! Owns: what goes into the document, in what words, and what is dropped for the budget; the
//! `ContextReport` read model (its JSON is the `--json` document).
//! Must not touch: stdout, the wall clock, the environment. Read-only: writes nothing, not even
//! the ledger.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::derive::{touched_since, unresolved};
use super::handover::{label, Labelled};
use super::resolve::{resolve, resolve_task_or_any};
use super::task;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::labels::{age, branch_of, head_of, Anchor, Divergence};
use crate::model::policy::{Policy, Profile};
use crate::model::providers;
use crate::model::task::{in_scope, Outcome, Task};
use crate::render::records;
use crate::store::atomic::{guard, read_opt};
use crate::store::records::head7;
use crate::store::{decisions, ledger, session_context};

/// The documents a scope chain names, in the order they are looked for in each directory.
const DOCUMENTS: &[&str] = &["README.md", "AGENTS.md", "CLAUDE.md"];

/// The second header line: what the document is and is not.
const DISCLAIMER: &str = "# a projection of durable state, not a source of truth: validate every line against git";

/// Why a missing handover is named under EXCLUDED.
const NO_HANDOVER: &str = "no record for this worktree and branch — absence, not a stale match";

/// One step of the budget: drop a section, or degrade its body to a pointer.
#[derive(Debug, Clone, Copy)]
enum Step {
    Drop(&'static str),
    Degrade(&'static str),
}

/// The fixed drop order. Git, task, profile and open questions are never dropped.
const DROP_ORDER: &[Step] = &[
    Step::Drop("history"),
    Step::Drop("files"),
    Step::Drop("documents"),
    Step::Drop("reasoning"),
    Step::Drop("decisions"),
    Step::Degrade("checkpoint"),
    Step::Degrade("handover"),
    Step::Drop("checkpoint"),
    Step::Drop("handover"),
    Step::Drop("prompt"),
];

/// Parameters of `context`.
#[derive(Debug, Clone, Default)]
pub struct ContextParams {
    /// `--for <provider>`.
    pub provider: Option<String>,
    /// `--prompt <name>`.
    pub prompt: Option<String>,
    /// `--budget-lines <n>`; the policy's `context.builder_budget_lines` when absent.
    pub budget_lines: Option<usize>,
}

/// The context document (SPEC §8.4); its JSON form is the `--json` output.
#[derive(Debug, Clone, Serialize)]
pub struct ContextReport {
    /// Always 1.
    pub schema: u32,
    /// The clock's now.
    pub generated_at: String,
    /// The provider named with `--for`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// Where git stands.
    pub git: GitView,
    /// The active task, when the document shows one.
    pub task: Option<TaskView>,
    /// The sections printed, in order.
    pub sections: Vec<Section>,
    /// Everything left out, with why.
    pub excluded: Vec<Excluded>,
    /// The line budget.
    pub budget: Budget,
}

/// A provider and its always-loaded instructions file.
#[derive(Debug, Clone, Serialize)]
pub struct Provider {
    /// `claude-code` or `codex`.
    pub name: String,
    /// The file the provider always loads.
    pub always_loaded: String,
}

/// The git state the document was built at.
#[derive(Debug, Clone, Serialize)]
pub struct GitView {
    /// The git common dir, repository-relative when inside the checkout.
    pub repository: String,
    /// Branch or `DETACHED`.
    pub branch: String,
    /// Full SHA or `NONE`.
    pub head: String,
    /// `clean` or `dirty`.
    pub working_tree: String,
    /// The divergence label of the active task's recorded head, when there is a task.
    pub task_record: Option<String>,
}

/// The active task as the document shows it.
#[derive(Debug, Clone, Serialize)]
#[allow(missing_docs)]
pub struct TaskView {
    pub id: String,
    pub task: String,
    pub profile: String,
    pub owner: String,
    pub outcome: Outcome,
    pub started_at: String,
    pub checkpoint_at: String,
    pub scope: Vec<String>,
}

/// One printed section.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// `git`, `task`, `profile`, `questions`, `documents`, `decisions`, `reasoning`,
    /// `checkpoint`, `handover`, `files`, `history` or `prompt`.
    pub id: String,
    /// How many lines `text` has.
    pub lines: usize,
    /// The section as printed, heading included, without a trailing newline.
    pub text: String,
    /// The heading plus a pointer, for bodies that degrade under the budget.
    #[serde(skip)]
    brief: Option<String>,
}

/// One thing left out of the document.
#[derive(Debug, Clone, Serialize)]
pub struct Excluded {
    /// A section id, `<id>-body`, or a profile axis.
    pub item: String,
    /// Why (never empty).
    pub reason: String,
}

/// The line budget and what it cost.
#[derive(Debug, Clone, Serialize)]
pub struct Budget {
    /// Lines of the whole printed document, header and trailer included.
    pub lines: usize,
    /// The budget.
    pub limit: usize,
    /// What was dropped or degraded for the budget, in drop order.
    pub dropped: Vec<String>,
}

impl Section {
    /// A section of `lines`; its count is that of the joined text, so a value holding a
    /// newline is counted as the lines it prints.
    fn new(id: &str, lines: Vec<String>) -> Section {
        let text = lines.join("\n").trim_end().to_string();
        Section { id: id.to_string(), lines: text.lines().count(), text, brief: None }
    }

    fn with_brief(mut self, heading: &str, rel: &str) -> Section {
        self.brief = Some(format!("{heading}\nbody omitted for budget — read {rel}"));
        self
    }
}

impl ContextReport {
    /// The printed document as blocks, each without a trailing newline; the text form joins
    /// them with one blank line and ends with a newline.
    pub fn blocks(&self) -> Vec<String> {
        let mut header = vec![format!("# Majordomus context — {}", self.generated_at), DISCLAIMER.to_string()];
        if let Some(p) = &self.provider {
            header.push(format!("# provider {} — its always-loaded instructions are {}", p.name, p.always_loaded));
        }
        let mut blocks = vec![header.join("\n")];
        blocks.extend(self.sections.iter().map(|s| s.text.clone()));
        let mut excluded = vec!["## EXCLUDED".to_string()];
        excluded.extend(self.excluded.iter().map(|e| format!("- {} — {}", e.item, e.reason)));
        if self.excluded.is_empty() {
            excluded.push("- nothing".into());
        }
        blocks.push(excluded.join("\n"));
        blocks.push(format!("## BUDGET\n{}", self.budget_line()));
        blocks
    }

    /// `<lines> of <budget> lines[ (dropped: a b-body ...)]`.
    pub fn budget_line(&self) -> String {
        let mut s = format!("{} of {} lines", self.budget.lines, self.budget.limit);
        if !self.budget.dropped.is_empty() {
            s.push_str(&format!(" (dropped: {})", self.budget.dropped.join(" ")));
        }
        s
    }

    /// Fails with exit 10 when the sections that are never dropped alone exceed the budget.
    pub fn within_budget(&self) -> Result<()> {
        if self.budget.lines <= self.budget.limit {
            return Ok(());
        }
        Err(Error::refused(format!(
            "context: git, task, profile and open questions need {} lines with the header and trailer, over the budget of {}",
            self.budget.lines, self.budget.limit
        ))
        .hint(format!("pass --budget-lines {} or more (the default is policy context.builder_budget_lines)", self.budget.lines)))
    }

    /// Lines of the printed document: every block's lines plus one blank line between blocks.
    fn count(&self) -> usize {
        let blocks = self.blocks();
        blocks.iter().map(|b| b.lines().count()).sum::<usize>() + blocks.len() - 1
    }

    fn exclude(&mut self, item: &str, reason: String) {
        self.excluded.push(Excluded { item: item.to_string(), reason });
    }

    /// Applies the drop order until the document fits, then records its real line count.
    fn fit(&mut self) {
        for step in DROP_ORDER {
            if self.count() <= self.budget.limit {
                break;
            }
            self.apply(*step);
        }
        self.budget.lines = self.count();
    }

    fn apply(&mut self, step: Step) {
        let reason = format!("context budget {} lines", self.budget.limit);
        let item = match step {
            Step::Drop(id) => {
                let Some(i) = self.sections.iter().position(|s| s.id == id) else { return };
                self.sections.remove(i);
                id.to_string()
            }
            Step::Degrade(id) => {
                let Some(s) = self.sections.iter_mut().find(|s| s.id == id) else { return };
                let Some(brief) = s.brief.take().filter(|b| b.lines().count() + 1 < s.lines) else { return };
                s.lines = brief.lines().count();
                s.text = brief;
                format!("{id}-body")
            }
        };
        self.budget.dropped.push(item.clone());
        self.exclude(&item, reason);
    }
}

/// Builds the context document for this checkout.
///
/// The returned report may be over budget when the sections that are never dropped do not fit;
/// [`ContextReport::within_budget`] turns that into the refusal.
pub fn build(ctx: &Ctx, p: &ContextParams) -> Result<ContextReport> {
    let provider = p.provider.as_deref().map(provider).transpose()?;
    if let Some(name) = &p.prompt {
        check_prompt_name(name)?;
    }
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    let task = task::active(ctx)?;
    let profile = load_profile(ctx, policy, task.as_ref())?;
    let b = Builder { ctx, policy, profile: &profile, task: task.as_ref(), provider: provider.as_ref() };
    let limit = p.budget_lines.unwrap_or(policy.context.builder_budget_lines);
    let (git_section, git) = b.git()?;
    let mut report = ContextReport {
        schema: 1,
        generated_at: ctx.clock.stamp(),
        provider: provider.clone(),
        git,
        task: None,
        sections: vec![git_section],
        excluded: Vec::new(),
        budget: Budget { lines: 0, limit, dropped: Vec::new() },
    };
    b.fill(&mut report, p.prompt.as_deref())?;
    report.fit();
    Ok(report)
}

/// The active task's profile; when it cannot be loaded, the default profile with a warning.
fn load_profile(ctx: &Ctx, policy: &Policy, task: Option<&Task>) -> Result<Profile> {
    let default = policy.profiles.default.as_str();
    let Some(t) = task.filter(|t| t.profile != default) else { return ctx.profile(default) };
    ctx.profile(&t.profile).or_else(|e| {
        ctx.warn(format!("{}; context uses profiles.default ({default})", e.message));
        ctx.profile(default)
    })
}

fn provider(name: &str) -> Result<Provider> {
    let known = || providers::PROVIDERS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
    providers::find(name)
        .map(|p| Provider { name: p.name.to_string(), always_loaded: p.always_loaded.to_string() })
        .ok_or_else(|| Error::usage(format!("unknown provider {name:?}")).hint(format!("known providers: {}", known())))
}

fn check_prompt_name(name: &str) -> Result<()> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        return Ok(());
    }
    Err(Error::usage(format!("--prompt {name:?}: a prompt is named by a plain file name"))
        .hint("pass the name of .ai/repo/prompts/<name>.md without directories or the .md suffix"))
}

/// What every section builder reads.
struct Builder<'a> {
    ctx: &'a Ctx,
    policy: &'a Policy,
    profile: &'a Profile,
    task: Option<&'a Task>,
    provider: Option<&'a Provider>,
}

/// A section, or why it is left out.
type Part = std::result::Result<Section, (&'static str, String)>;

impl Builder<'_> {
    /// Adds every section after `git`, in document order.
    fn fill(&self, r: &mut ContextReport, prompt: Option<&str>) -> Result<()> {
        r.task = self.task.filter(|_| self.profile.context.task).map(view);
        if self.profile.context.failing_output {
            r.exclude(
                "failing_output",
                self.axis("failing_output: true", "but context does not capture command output"),
            );
        }
        let parts = vec![
            self.task_section(),
            Ok(self.profile_section()),
            Ok(self.questions()?),
            Ok(self.documents()),
            self.decisions()?,
            Ok(self.reasoning()),
            self.checkpoint()?,
            self.handover()?,
            self.files()?,
            self.history()?,
        ];
        for part in parts {
            push(r, part);
        }
        if let Some(name) = prompt {
            push(r, self.prompt(name)?);
        }
        Ok(())
    }

    fn axis(&self, setting: &str, tail: &str) -> String {
        let s = format!("profile {} sets context.{setting}", self.profile.name);
        if tail.is_empty() {
            s
        } else {
            format!("{s}, {tail}")
        }
    }

    fn off(&self, id: &'static str, setting: &str) -> Part {
        Err((id, self.axis(setting, "")))
    }

    /// How the working context of this process's episode compares with HEAD (SPEC §6.8).
    fn briefing_line(&self) -> Option<String> {
        let sid = self.ctx.session_id()?;
        let doc = session_context::find(&self.ctx.layout, &sid)?;
        let (label, head, since) = context_label(self.ctx, &doc);
        Some(match label {
            Divergence::Exact => format!("briefing exact at {}", head7(&head)),
            Divergence::Advanced => {
                format!("briefing advanced — {since} commit(s) since it was frozen at {}", head7(&head))
            }
            other => format!(
                "WARNING: briefing {} at {} — it no longer describes this checkout",
                other.as_str(),
                head7(&head)
            ),
        })
    }

    fn git(&self) -> Result<(Section, GitView)> {
        let id = self.ctx.identity()?;
        let wt = self.ctx.working_tree()?;
        let changed = self.ctx.changed_files()?.len();
        let repository = self.ctx.rel(Path::new(&id.repository_id));
        let mut lines = vec![
            "## GIT".to_string(),
            format!("repository: {repository}"),
            format!("branch: {}", id.branch_text()),
            format!("head: {}", id.head_text()),
            if changed == 0 {
                format!("working_tree: {wt}")
            } else {
                format!("working_tree: {wt} ({changed} changed)")
            },
        ];
        let label = self.task.map(|t| (t, self.ctx.divergence_of(&t)));
        match label {
            None => lines.push("task_record: none (no active task)".into()),
            Some((t, l)) => {
                lines.push(format!("task_record: {} (recorded head {})", l.as_str(), head7(&t.head)));
                if matches!(l, Divergence::Diverged | Divergence::DifferentContext) {
                    lines.push(format!(
                        "WARNING: the task was recorded on {} at {}, which is {} from here — validate the task against git before acting on it",
                        t.branch,
                        head7(&t.head),
                        l.as_str()
                    ));
                }
            }
        }
        lines.extend(self.briefing_line());
        let view = GitView {
            repository,
            branch: id.branch_text().into(),
            head: id.head_text().into(),
            working_tree: wt.to_string(),
            task_record: label.map(|(_, l)| l.as_str().to_string()),
        };
        Ok((Section::new("git", lines), view))
    }

    fn task_section(&self) -> Part {
        if !self.profile.context.task {
            return self.off("task", "task: false");
        }
        let Some(t) = self.task else {
            return Ok(Section::new(
                "task",
                vec!["## TASK".into(), "none active — run: git majordomus start \"<task>\" --scope <path>".into()],
            ));
        };
        let now = self.ctx.clock.now();
        Ok(Section::new(
            "task",
            vec![
                "## TASK".into(),
                format!("id: {}", t.id),
                format!("task: {}", t.task),
                format!("profile: {}", t.profile),
                format!("owner: {}", t.owner),
                format!("outcome: {}", t.outcome),
                format!("scope: {}", t.scope.join(", ")),
                format!("started: {} ({})", t.started_at, age(&t.started_at, now)),
                format!(
                    "checkpoint: {} ({}; interval {})",
                    t.checkpoint_at,
                    age(&t.checkpoint_at, now),
                    self.profile.checkpoint_interval
                ),
            ],
        ))
    }

    fn profile_section(&self) -> Section {
        let p = self.profile;
        let v = &p.verification;
        Section::new(
            "profile",
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
            ],
        )
    }

    fn questions(&self) -> Result<Section> {
        let open = unresolved(self.ctx)?;
        let mut lines = vec![format!(
            "## OPEN QUESTIONS ({} unresolved — every one refuses finish --outcome completed)",
            open.len()
        )];
        lines.extend(open.iter().map(|(t, q)| format!("- [unresolved] {t} — {q}")));
        if open.is_empty() {
            lines.push("- none".into());
        }
        Ok(Section::new("questions", lines))
    }

    fn documents(&self) -> Section {
        let root = self.ctx.layout.root();
        let scope = self.task.map_or_else(|| vec![".".to_string()], |t| t.scope.clone());
        let mut seen = BTreeSet::new();
        let mut found = Vec::new();
        for p in &scope {
            let start = root.join(p);
            for dir in start.ancestors().filter(|d| d.starts_with(root)) {
                for name in DOCUMENTS {
                    let f = dir.join(name);
                    if f.is_file() && guard(root, &f).is_ok() && seen.insert(f.clone()) {
                        found.push(self.document_line(&f));
                    }
                }
            }
        }
        let mut lines =
            vec![format!("## CONTEXT DOCUMENTS ({}, from the scope paths up to the root; not quoted)", found.len())];
        if found.is_empty() {
            lines.push("- none".into());
        }
        lines.extend(found);
        Section::new("documents", lines)
    }

    fn document_line(&self, f: &Path) -> String {
        let rel = self.ctx.rel(f);
        let n = read_opt(f).ok().flatten().map_or(0, |t| t.lines().count());
        let loaded = self
            .provider
            .filter(|p| p.always_loaded == rel)
            .map(|p| format!("; always loaded by {}", p.name))
            .unwrap_or_default();
        format!("- {rel} ({n} line{}{loaded})", if n == 1 { "" } else { "s" })
    }

    fn decisions(&self) -> Result<Part> {
        let c = &self.profile.context;
        if !c.architecture_notes && !c.decisions {
            return Ok(self.off("decisions", "decisions: false"));
        }
        let mine = self.task.map(|t| t.id.as_str()).filter(|_| !c.architecture_notes);
        let log = read_opt(&self.ctx.layout.decisions())?.unwrap_or_default();
        let all = decisions::parse(&log);
        let picked: Vec<&decisions::Decision> = all
            .iter()
            .rev()
            .filter(|d| mine.is_none_or(|t| d.task.as_deref() == Some(t)))
            .take(self.policy.context.recent_decisions)
            .collect();
        let scope = if mine.is_some() { "for this task" } else { "in this repository" };
        let mut lines = vec![format!("## DECISIONS ({} most recent {scope})", picked.len())];
        for d in &picked {
            let mut s = format!("- {} — {}", d.date, d.title);
            if let Some(why) = d.why.as_deref().filter(|w| !w.is_empty()) {
                s.push_str(&format!(" — why: {why}"));
            }
            if let Some(by) = decisions::superseded_by(&all, &d.title) {
                s.push_str(&format!(" (superseded by: {by})"));
            }
            lines.push(s);
        }
        if picked.is_empty() {
            lines.push("- none recorded".into());
        }
        Ok(Ok(Section::new("decisions", lines)))
    }

    fn reasoning(&self) -> Section {
        let r = self.profile.reasoning.as_str();
        let how = match r {
            "direct" => "act directly: make the routine change, verify it, stop",
            "stepwise" => "work in small verified steps: plan, change, run the checks, checkpoint",
            "hypothesis-driven" => "reproduce first, then state a hypothesis, test it, and keep what refuted it; fix with a regression test",
            "deliberate" => "deliberate before changing: read the decisions and scope documents, weigh the alternatives, record the decision and why",
            _ => "follow the profile's reasoning axis as named",
        };
        Section::new("reasoning", vec!["## REASONING".into(), format!("{r}: {how}")])
    }

    fn checkpoint(&self) -> Result<Part> {
        if !self.profile.context.current_state {
            return Ok(self.off("checkpoint", "current_state: false"));
        }
        let res = resolve(self.ctx, &self.ctx.layout.checkpoints(), self.task.map(|t| t.id.as_str()))?;
        let Some(w) = res.winner else {
            let whose = self.task.map_or_else(
                || "this worktree and branch".to_string(),
                |t| format!("task {} on this worktree and branch", t.id),
            );
            return Ok(Err(("checkpoint", format!("no checkpoint for {whose}"))));
        };
        let l = label(self.ctx, w)?;
        let rel = self.ctx.rel(&l.record.path);
        let heading = format!(
            "## LATEST CHECKPOINT ({rel}, {}, {})",
            age(l.record.meta.judged_at(), self.ctx.clock.now()),
            l.divergence.as_str()
        );
        let mut lines = vec![heading.clone()];
        lines.extend(non_blank(l.record.body.lines()));
        Ok(Ok(Section::new("checkpoint", lines).with_brief(&heading, &rel)))
    }

    /// The handover: the active task's first, then any task's.
    fn handover(&self) -> Result<Part> {
        if !self.profile.context.current_state {
            return Ok(self.off("handover", "current_state: false"));
        }
        let res = resolve_task_or_any(self.ctx, &self.ctx.layout.handovers(), self.task.map(|t| t.id.as_str()))?;
        let Some(w) = res.winner else { return Ok(Err(("handover", NO_HANDOVER.to_string()))) };
        let l = label(self.ctx, w)?;
        Ok(Ok(self.handover_section(&l)))
    }

    fn handover_section(&self, l: &Labelled) -> Section {
        let rel = self.ctx.rel(&l.record.path);
        let heading = format!("## LATEST COMPATIBLE HANDOVER ({rel})");
        let mut lines = vec![heading.clone()];
        if l.freshness.is_history() {
            lines.push(format!("HISTORY: this handover is {} — read it as background, not as the thing to do now; its Next Action is withheld", l.freshness.label.as_str()));
        }
        if !l.divergence.trustworthy() {
            lines.push(format!(
                "WARNING: its commit is {} from here — validate it against git before acting on it",
                l.divergence.as_str()
            ));
        }
        let resolved = records::handover(l, &rel, self.ctx.clock.now());
        lines.extend(non_blank(resolved.lines().skip(1)));
        Section::new("handover", lines).with_brief(&heading, &rel)
    }

    fn files(&self) -> Result<Part> {
        if !self.profile.context.relevant_files {
            return Ok(self.off("files", "relevant_files: false"));
        }
        let Some(t) = self.task else {
            return Ok(Err((
                "files",
                "no active task: touched files are counted from a task's start and scope".to_string(),
            )));
        };
        let touched: Vec<String> = touched_since(self.ctx, t)?
            .into_iter()
            .filter(|f| f != ".ai" && !f.starts_with(".ai/") && t.scope.iter().any(|s| in_scope(f, s)))
            .collect();
        let mut lines = vec![format!("## FILES TOUCHED IN SCOPE ({})", touched.len())];
        lines.extend(bounded(
            touched.iter().map(|f| format!("- {f}")).collect(),
            self.policy.context.max_list_items,
            "more",
        ));
        if touched.is_empty() {
            lines.push("- none".into());
        }
        Ok(Ok(Section::new("files", lines)))
    }

    fn history(&self) -> Result<Part> {
        let depth = self.profile.context.recent_history_depth;
        if depth == 0 {
            return Ok(self.off("history", "recent_history_depth: 0"));
        }
        // The newest `depth` valid lines, read from the ledger's tail (SPEC §A.16).
        let mut recent = Vec::new();
        for l in ledger::backward(&self.ctx.layout.ledger())?.into_iter().flatten() {
            let l = l?;
            if recent.len() == depth {
                break;
            }
            if l.is_valid() {
                recent.push(l);
            }
        }
        let mut events: Vec<String> = recent.iter().map(event_line).collect();
        events = bounded(events, self.policy.context.max_list_items, "earlier");
        events.reverse();
        let mut lines = vec![format!("## RECENT HISTORY (last {} events)", recent.len())];
        if recent.is_empty() {
            lines.push("- none".into());
        }
        lines.extend(events);
        Ok(Ok(Section::new("history", lines)))
    }

    fn prompt(&self, name: &str) -> Result<Part> {
        let path = self.ctx.layout.prompts().join(format!("{name}.md"));
        guard(self.ctx.layout.root(), &path)?;
        let Some(body) = read_opt(&path)? else {
            return Err(Error::not_found(format!("no prompt {name:?}: {} does not exist", self.ctx.rel(&path)))
                .hint("prompts live in .ai/repo/prompts/<name>.md; pass an existing name"));
        };
        if body.lines().any(|l| l.trim() == "{{CONTEXT}}") {
            return Ok(Err((
                "prompt",
                format!("{name} holds {{{{CONTEXT}}}} alone on a line: it wraps the context rather than adding to it"),
            )));
        }
        let mut lines = vec![format!("## PROMPT {name}")];
        lines.extend(body.trim_end().lines().map(str::to_string));
        Ok(Ok(Section::new("prompt", lines)))
    }
}

fn push(r: &mut ContextReport, part: Part) {
    match part {
        Ok(s) => r.sections.push(s),
        Err((id, reason)) => r.exclude(id, reason),
    }
}

fn view(t: &Task) -> TaskView {
    TaskView {
        id: t.id.clone(),
        task: t.task.clone(),
        profile: t.profile.clone(),
        owner: t.owner.clone(),
        outcome: t.outcome,
        started_at: t.started_at.clone(),
        checkpoint_at: t.checkpoint_at.clone(),
        scope: t.scope.clone(),
    }
}

/// The label of a working context document against HEAD, the head it was frozen at, and the
/// commits since (SPEC §6.8).
pub fn context_label(ctx: &Ctx, path: &Path) -> (Divergence, String, usize) {
    let Some((head, branch)) = session_context::anchor(path) else {
        return (Divergence::Unknown, String::new(), 0);
    };
    let label = ctx.divergence(head_of(&head), branch_of(&branch));
    let since = match (label, ctx.git.head()) {
        (Divergence::Advanced, Ok(Some(h))) => {
            let base = head_of(&head).and_then(|c| ctx.git.commit_id(c));
            if head_of(&head).is_none() || base.is_some() {
                ctx.git.commits_between(base, h).map(|v| v.len()).unwrap_or(0)
            } else {
                0
            }
        }
        _ => 0,
    };
    (label, head, since)
}

/// The lines that are not blank: inside a section, a blank line would read as a section break.
fn non_blank<'a>(lines: impl Iterator<Item = &'a str> + 'a) -> impl Iterator<Item = String> + 'a {
    lines.filter(|x| !x.trim().is_empty()).map(str::to_string)
}

/// Keeps the first `max` items and says how many more there are.
fn bounded(mut items: Vec<String>, max: usize, what: &str) -> Vec<String> {
    if items.len() > max {
        let more = items.len() - max;
        items.truncate(max);
        items.push(format!("... and {more} {what} (context.max_list_items)"));
    }
    items
}

/// `- <ts> <event>[ <task>][ <path>]`.
fn event_line(l: &ledger::Line) -> String {
    let mut s = format!("- {} {}", l.ts().unwrap_or("?"), l.event().unwrap_or("?"));
    if let Some(p) = &l.pairs {
        for key in ["task_id", "checkpoint_path", "handover_path", "outcome"] {
            if let Some(v) = p.str(key) {
                s.push(' ');
                s.push_str(v);
            }
        }
    }
    s
}

/// The document as frozen into a new episode's working context (default parameters).
pub fn text_for_session(ctx: &Ctx) -> Result<String> {
    let r = build(ctx, &ContextParams::default())?;
    Ok(format!("{}\n", r.blocks().join("\n\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(sections: Vec<Section>, limit: usize) -> ContextReport {
        ContextReport {
            schema: 1,
            generated_at: "2026-09-03T20:00:00Z".into(),
            provider: None,
            git: GitView {
                repository: ".git".into(),
                branch: "main".into(),
                head: "NONE".into(),
                working_tree: "clean".into(),
                task_record: None,
            },
            task: None,
            sections,
            excluded: Vec::new(),
            budget: Budget { lines: 0, limit, dropped: Vec::new() },
        }
    }

    fn sec(id: &str, n: usize) -> Section {
        let mut lines = vec![format!("## {id}")];
        lines.extend((1..n).map(|i| format!("line {i}")));
        Section::new(id, lines)
    }

    #[test]
    fn count_matches_blocks_joined_by_blank_lines() {
        let mut r = report(vec![sec("git", 3), sec("history", 5)], 100);
        r.fit();
        let text = crate::render::context::text(&r);
        assert_eq!(text.lines().count(), r.budget.lines);
        assert!(r.budget.dropped.is_empty());
    }

    #[test]
    fn drops_in_order_until_it_fits() {
        let cp = sec("checkpoint", 10).with_brief("## checkpoint", "cp.md");
        let mut r = report(vec![sec("git", 3), sec("files", 4), sec("history", 6), cp], 22);
        r.fit();
        assert_eq!(r.budget.dropped, vec!["history", "files", "checkpoint-body"]);
        assert!(r.budget.lines <= 22, "{}", r.budget.lines);
        assert!(r.sections.iter().any(|s| s.text.ends_with("body omitted for budget — read cp.md")));
        assert!(r.within_budget().is_ok());
    }

    #[test]
    fn undroppable_sections_over_budget_refuse() {
        let mut r = report(vec![sec("git", 30), sec("history", 3)], 10);
        r.fit();
        assert_eq!(r.budget.dropped, vec!["history"]);
        assert_eq!(r.within_budget().unwrap_err().exit, crate::error::Exit::Refused);
    }

    #[test]
    fn unknown_provider_is_a_usage_error() {
        assert_eq!(provider("claude-code").unwrap().always_loaded, "CLAUDE.md");
        assert_eq!(provider("codex").unwrap().always_loaded, "AGENTS.md");
        assert_eq!(provider("vim").unwrap_err().exit, crate::error::Exit::Usage);
        assert!(check_prompt_name("../x").is_err());
        assert!(check_prompt_name("review").is_ok());
    }
}
