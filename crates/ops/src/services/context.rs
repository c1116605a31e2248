//! `context` (docs/REFERENCE.md#context): a bounded projection of durable state and git, selected by the
//! profile's `context` block and fitted to a line budget by dropping sections in a fixed order.
//!
//! Owns: what goes into the document (each section's facts as data, [`Content`]; why anything
//! is left out, [`Why`]), the fixed drop order and the budget decision, and the `ContextReport`
//! read model (its JSON is the `--json` document).
//! Must not touch: stdout, the wall clock, the environment, the words and line formats of the
//! document (those are `render::context`). Read-only: writes nothing, not even the ledger.
//!
//! The budget counts printed lines (docs/REFERENCE.md#context: "render whole document; while line count >
//! budget drop"), so fitting needs the layout. The caller passes the layout in as a
//! [`Renderer`] (`cli` chooses `render::context::Text`; this module never names `render`), and
//! the decision stays here, in one place: [`ContextReport::fit`] asks the renderer for the
//! blocks, counts their lines, and drops or degrades in the fixed order. Each section's text and
//! each exclusion's reason are laid out once, when they enter the report, because the JSON
//! document carries them (`sections[].text`, `excluded[].reason`).

use std::collections::BTreeSet;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::Result;

/// What building the context refuses (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// The sections never dropped alone exceed the budget.
    #[error("context: git, task, profile and open questions need {lines} lines with the header and trailer, over the budget of {limit}")]
    OverBudget {
        /// The lines they need.
        lines: usize,
        /// The budget.
        limit: usize,
    },
    /// `--provider` names no known provider.
    #[error("unknown provider {0:?}")]
    UnknownProvider(String),
    /// `--prompt` is not a plain file name.
    #[error("--prompt {0:?}: a prompt is named by a plain file name")]
    PromptName(String),
    /// `--prompt` names no file.
    #[error("no prompt {name:?}: {path} does not exist")]
    NoPrompt {
        /// The name given.
        name: String,
        /// Where it was looked for.
        path: String,
    },
}
use crate::model::labels::{age, branch_of, head_of, Anchor, Divergence, Label, WorkingTree};
use crate::model::policy::{Policy, Profile};
use crate::model::providers;
use crate::model::task::{in_scope, Outcome, Task};
use crate::services::derive::{touched_since, unresolved};
use crate::services::labelled::{label_preferred, Labelled};
use crate::services::resolve::{resolve, resolve_task_or_any};
use crate::services::task;
use crate::store::atomic::{guard, read_opt};
use crate::store::{decisions, ledger, session_context};

/// The documents a scope chain names, in the order they are looked for in each directory.
const DOCUMENTS: &[&str] = &["README.md", "AGENTS.md", "CLAUDE.md"];

/// The ledger fields an event line names after its timestamp and event, in this order.
const EVENT_FIELDS: &[&str] = &["task_id", "checkpoint_path", "handover_path", "outcome"];

/// One step of the budget: drop a section, or degrade its body to a pointer.
#[derive(Debug, Clone, Copy)]
enum Step {
    Drop(SectionId),
    /// The handover's Current State cut short (`handover-state`, docs/REFERENCE.md#context).
    Trim(SectionId),
    Degrade(SectionId),
}

/// The fixed drop order. Git, task, profile and open questions are never dropped.
const DROP_ORDER: &[Step] = &[
    Step::Drop(SectionId::History),
    Step::Drop(SectionId::Files),
    Step::Drop(SectionId::Documents),
    Step::Drop(SectionId::Reasoning),
    Step::Drop(SectionId::Decisions),
    Step::Trim(SectionId::Handover),
    Step::Degrade(SectionId::Checkpoint),
    Step::Degrade(SectionId::Handover),
    Step::Drop(SectionId::Checkpoint),
    Step::Drop(SectionId::Handover),
    Step::Drop(SectionId::Prompt),
];

/// How the document is laid out in text; the budget is counted in its lines.
///
/// `cli` passes `render::context::Text`; the use cases that freeze the document into an
/// episode's working context take it from their caller too.
pub trait Renderer {
    /// A section as printed, heading included, without a trailing newline.
    fn section(&self, content: &Content) -> String;
    /// A body that degrades under the budget (checkpoint, handover): its heading and a pointer
    /// to the file (a handover keeps its Objective and Next Action); `None` for the sections
    /// that do not degrade.
    fn brief(&self, content: &Content) -> Option<String>;
    /// The handover with its Current State cut short and marked, before its body degrades;
    /// `None` for other sections, or when there is nothing to cut.
    fn trimmed(&self, _content: &Content) -> Option<String> {
        None
    }
    /// Why an item is left out, as printed under EXCLUDED.
    fn reason(&self, why: &Why) -> String;
    /// The printed document as blocks, each without a trailing newline, from the report's
    /// section texts, exclusions and budget.
    fn blocks(&self, report: &ContextReport) -> Vec<String>;
    /// The whole printed document; its line count is the report's `budget.lines`.
    fn document(&self, report: &ContextReport) -> String;
}

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

/// The context document (docs/REFERENCE.md#context); its JSON form is the `--json` output.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
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
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Provider {
    /// `claude-code` or `codex`.
    pub name: String,
    /// The file the provider always loads.
    pub always_loaded: String,
}

/// The git state the document was built at.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct GitView {
    /// The git common dir, repository-relative when inside the checkout.
    pub repository: String,
    /// Branch or `DETACHED`.
    pub branch: String,
    /// Full SHA or `NONE`.
    pub head: String,
    /// `clean` or `dirty`.
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "String"))]
    pub working_tree: WorkingTree,
    /// The divergence label of the active task's recorded head, when there is a task.
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "Option<String>"))]
    pub task_record: Option<Divergence>,
    /// The rewrite that earned `task_record`'s word, when one is proven (docs/REFERENCE.md#rewrites).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_record_rewrite: Option<crate::model::labels::Rewrite>,
}

/// The active task as the document shows it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
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

/// A section's id (docs/REFERENCE.md#context): JSON `sections[].id`, EXCLUDED items and BUDGET `dropped`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum SectionId {
    Git,
    Task,
    Profile,
    Questions,
    Documents,
    Decisions,
    Reasoning,
    Checkpoint,
    Handover,
    Files,
    History,
    Prompt,
}

impl SectionId {
    /// The id as printed.
    pub const fn as_str(self) -> &'static str {
        match self {
            SectionId::Git => "git",
            SectionId::Task => "task",
            SectionId::Profile => "profile",
            SectionId::Questions => "questions",
            SectionId::Documents => "documents",
            SectionId::Decisions => "decisions",
            SectionId::Reasoning => "reasoning",
            SectionId::Checkpoint => "checkpoint",
            SectionId::Handover => "handover",
            SectionId::Files => "files",
            SectionId::History => "history",
            SectionId::Prompt => "prompt",
        }
    }
}

/// One printed section: its facts, and the text the renderer made of them.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Section {
    /// Which section.
    pub id: SectionId,
    /// How many lines `text` has.
    pub lines: usize,
    /// The section as printed, heading included, without a trailing newline.
    pub text: String,
    /// What the section says.
    #[serde(skip)]
    pub content: Content,
    /// Its body was degraded to a pointer for the budget.
    #[serde(skip)]
    pub degraded: bool,
}

/// What a section says, as data; `render::context` lays it out.
#[derive(Debug, Clone)]
pub enum Content {
    /// `## GIT`.
    Git(GitFacts),
    /// `## TASK`: the active task, or none.
    Task(Option<TaskFacts>),
    /// `## PROFILE <name>`.
    Profile(Box<Profile>),
    /// `## OPEN QUESTIONS`: every unresolved entry, `(task, question)`, in file order.
    Questions(Vec<(String, String)>),
    /// `## CONTEXT DOCUMENTS`.
    Documents(Vec<Document>),
    /// `## DECISIONS`.
    Decisions(DecisionsFacts),
    /// `## REASONING`: the profile's reasoning axis.
    Reasoning(String),
    /// `## LATEST CHECKPOINT`.
    Checkpoint(CheckpointFacts),
    /// `## LATEST COMPATIBLE HANDOVER`.
    Handover(Box<HandoverFacts>),
    /// `## FILES TOUCHED IN SCOPE`: touched files in scope, outside `.ai/`.
    Files(Bounded<String>),
    /// `## RECENT HISTORY`: the newest valid ledger lines.
    History(Bounded<Event>),
    /// `## PROMPT <name>`.
    Prompt {
        /// The prompt's name.
        name: String,
        /// Its file's text.
        body: String,
    },
}

impl Content {
    /// The section this content is.
    pub const fn id(&self) -> SectionId {
        match self {
            Content::Git(_) => SectionId::Git,
            Content::Task(_) => SectionId::Task,
            Content::Profile(_) => SectionId::Profile,
            Content::Questions(_) => SectionId::Questions,
            Content::Documents(_) => SectionId::Documents,
            Content::Decisions(_) => SectionId::Decisions,
            Content::Reasoning(_) => SectionId::Reasoning,
            Content::Checkpoint(_) => SectionId::Checkpoint,
            Content::Handover(_) => SectionId::Handover,
            Content::Files(_) => SectionId::Files,
            Content::History(_) => SectionId::History,
            Content::Prompt { .. } => SectionId::Prompt,
        }
    }
}

/// The facts of `## GIT` beyond [`GitView`].
#[derive(Debug, Clone)]
pub struct GitFacts {
    /// The JSON `git` object.
    pub view: GitView,
    /// Files changed in the working tree.
    pub changed: usize,
    /// The active task's recorded anchor and its label, when there is a task.
    pub task: Option<TaskAnchor>,
    /// How this episode's frozen working context compares with HEAD (docs/REFERENCE.md#working-context).
    pub briefing: Option<BriefingLabel>,
}

/// Where the active task was recorded, and how that stands to HEAD.
#[derive(Debug, Clone)]
pub struct TaskAnchor {
    /// The label of the recorded head, with its proven rewrite.
    pub label: Label,
    /// The recorded head.
    pub head: String,
    /// The recorded branch.
    pub branch: String,
}

/// The label of this episode's working context (docs/REFERENCE.md#working-context).
#[derive(Debug, Clone)]
pub struct BriefingLabel {
    /// Its label against HEAD.
    pub label: Divergence,
    /// The head it was frozen at.
    pub head: String,
    /// Commits since, when it is `advanced`.
    pub since: usize,
}

/// The active task with its ages.
#[derive(Debug, Clone)]
pub struct TaskFacts {
    /// The task.
    pub view: TaskView,
    /// Age of `started_at`.
    pub started_age: String,
    /// Age of `checkpoint_at`.
    pub checkpoint_age: String,
    /// The profile's checkpoint interval.
    pub interval: String,
}

/// One context document a scope chain names.
#[derive(Debug, Clone)]
pub struct Document {
    /// Repository-relative path.
    pub path: String,
    /// Its line count.
    pub lines: usize,
    /// The provider that always loads it, when `--for` names that provider's file.
    pub always_loaded_by: Option<String>,
}

/// The decisions shown.
#[derive(Debug, Clone)]
pub struct DecisionsFacts {
    /// Only the active task's (`decisions: true` without `architecture_notes`).
    pub for_task: bool,
    /// The most recent first.
    pub entries: Vec<DecisionEntry>,
}

/// One decision as shown.
#[derive(Debug, Clone)]
pub struct DecisionEntry {
    /// Its date.
    pub date: String,
    /// Its title.
    pub title: String,
    /// Why, when given and not empty.
    pub why: Option<String>,
    /// The title of the decision that supersedes it.
    pub superseded_by: Option<String>,
}

/// The latest checkpoint.
#[derive(Debug, Clone)]
pub struct CheckpointFacts {
    /// Repository-relative path.
    pub path: String,
    /// Its age.
    pub age: String,
    /// Its label against HEAD, with its proven rewrite.
    pub label: Label,
    /// Who wrote it.
    pub origin: crate::model::record::Origin,
    /// The newer derived checkpoint it was preferred to, by path.
    pub passed_over: Option<String>,
    /// Its body.
    pub body: String,
}

/// The latest compatible handover, resolved and labelled as `handover --resolve` shows it.
#[derive(Debug, Clone)]
pub struct HandoverFacts {
    /// Repository-relative path.
    pub path: String,
    /// The record with its labels.
    pub labelled: Labelled,
    /// The clock's now, for its age.
    pub now: DateTime<Utc>,
    /// Its citations labelled from git (docs/REFERENCE.md#citations).
    pub cited: Vec<crate::services::citations::Checked>,
}

/// A list bounded by `context.max_list_items`.
#[derive(Debug, Clone)]
pub struct Bounded<T> {
    /// The items shown, in printed order.
    pub shown: Vec<T>,
    /// How many there are in all.
    pub total: usize,
}

impl<T> Bounded<T> {
    /// How many are not shown.
    pub fn omitted(&self) -> usize {
        self.total - self.shown.len()
    }
}

/// One ledger event as the history shows it.
#[derive(Debug, Clone)]
pub struct Event {
    /// Its timestamp, when the line has one.
    pub ts: Option<String>,
    /// Its event name, when the line has one.
    pub event: Option<String>,
    /// The values of `task_id`, `checkpoint_path`, `handover_path`, `outcome` it has, in that
    /// order.
    pub fields: Vec<String>,
}

/// One thing left out of the document.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Excluded {
    /// A section id, `<id>-body`, or a profile axis.
    pub item: String,
    /// Why (never empty), as printed.
    pub reason: String,
    /// Why, as data.
    #[serde(skip)]
    pub why: Why,
}

/// Why something is left out.
#[derive(Debug, Clone)]
pub enum Why {
    /// The profile turns it off: `context.<key>` is `<value>`.
    ProfileOff {
        /// The profile.
        profile: String,
        /// The `context` key.
        key: &'static str,
        /// Its value.
        value: &'static str,
    },
    /// The profile asks for failing output, which the document does not capture.
    OutputNotCaptured {
        /// The profile.
        profile: String,
    },
    /// No checkpoint, for the active task when there is one.
    NoCheckpoint {
        /// The active task.
        task: Option<String>,
    },
    /// No handover for this worktree and branch (an absence, not a stale match).
    NoHandover,
    /// Touched files are counted from a task's start, and no task is active.
    NoTask,
    /// The prompt wraps the context (`{{CONTEXT}}` alone on a line).
    PromptWraps {
        /// The prompt's name.
        name: String,
    },
    /// Dropped or degraded for the budget.
    Budget {
        /// The budget.
        limit: usize,
    },
}

/// The line budget and what it cost.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Budget {
    /// Lines of the whole printed document, header and trailer included.
    pub lines: usize,
    /// The budget.
    pub limit: usize,
    /// What was dropped or degraded for the budget, in drop order.
    pub dropped: Vec<String>,
}

impl ContextReport {
    /// Fails with exit 10 when the sections that are never dropped alone exceed the budget.
    pub fn within_budget(&self) -> Result<()> {
        if self.budget.lines <= self.budget.limit {
            return Ok(());
        }
        Err(ContextError::OverBudget { lines: self.budget.lines, limit: self.budget.limit }.into())
    }

    /// Adds a section, laid out by `out`.
    fn push(&mut self, content: Content, out: &dyn Renderer) {
        let text = out.section(&content);
        self.sections.push(Section { id: content.id(), lines: text.lines().count(), text, content, degraded: false });
    }

    /// Names an item under EXCLUDED.
    fn exclude(&mut self, item: &str, why: Why, out: &dyn Renderer) {
        self.excluded.push(Excluded { item: item.to_string(), reason: out.reason(&why), why });
    }

    /// Lines of the printed document: every block's lines plus one blank line between blocks.
    fn count(&self, out: &dyn Renderer) -> usize {
        let blocks = out.blocks(self);
        blocks.iter().map(|b| b.lines().count()).sum::<usize>() + blocks.len() - 1
    }

    /// Applies the drop order until the document fits, then records its real line count.
    fn fit(&mut self, out: &dyn Renderer) {
        for step in DROP_ORDER {
            if self.count(out) <= self.budget.limit {
                break;
            }
            self.apply(*step, out);
        }
        self.budget.lines = self.count(out);
    }

    fn apply(&mut self, step: Step, out: &dyn Renderer) {
        let item = match step {
            Step::Drop(id) => {
                let Some(i) = self.sections.iter().position(|s| s.id == id) else { return };
                self.sections.remove(i);
                id.as_str().to_string()
            }
            Step::Trim(id) => {
                let Some(s) = self.sections.iter_mut().find(|s| s.id == id && !s.degraded) else { return };
                let Some(cut) = out.trimmed(&s.content).filter(|b| b.lines().count() < s.lines) else { return };
                s.lines = cut.lines().count();
                s.text = cut;
                format!("{}-state", id.as_str())
            }
            Step::Degrade(id) => {
                let Some(s) = self.sections.iter_mut().find(|s| s.id == id && !s.degraded) else { return };
                let Some(brief) = out.brief(&s.content).filter(|b| b.lines().count() + 1 < s.lines) else { return };
                s.lines = brief.lines().count();
                s.text = brief;
                s.degraded = true;
                format!("{}-body", id.as_str())
            }
        };
        self.budget.dropped.push(item.clone());
        self.exclude(&item, Why::Budget { limit: self.budget.limit }, out);
    }
}

/// Builds the context document for this checkout, laid out by `out`.
///
/// The returned report may be over budget when the sections that are never dropped do not fit;
/// [`ContextReport::within_budget`] turns that into the refusal.
pub fn build(ctx: &Ctx, p: &ContextParams, out: &dyn Renderer) -> Result<ContextReport> {
    let provider = p.provider.as_deref().map(provider).transpose()?;
    if let Some(name) = &p.prompt {
        check_prompt_name(name)?;
    }
    ctx.require_layer()?;
    let policy = ctx.policy()?;
    let task = task::active(ctx)?;
    let profile = load_profile(ctx, policy, task.as_ref())?;
    let b = Builder { ctx, policy, profile: &profile, task: task.as_ref(), provider: provider.as_ref(), out };
    let limit = p.budget_lines.unwrap_or(policy.context.builder_budget_lines);
    let git = b.git()?;
    let mut report = ContextReport {
        schema: 1,
        generated_at: ctx.clock.stamp(),
        provider: provider.clone(),
        git: git.view.clone(),
        task: None,
        sections: Vec::new(),
        excluded: Vec::new(),
        budget: Budget { lines: 0, limit, dropped: Vec::new() },
    };
    report.push(Content::Git(git), out);
    b.fill(&mut report, p.prompt.as_deref())?;
    report.fit(out);
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
    providers::find(name)
        .map(|p| Provider { name: p.name.to_string(), always_loaded: p.always_loaded.to_string() })
        .ok_or_else(|| ContextError::UnknownProvider(name.into()).into())
}

fn check_prompt_name(name: &str) -> Result<()> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        return Ok(());
    }
    Err(ContextError::PromptName(name.into()).into())
}

/// What every section builder reads.
struct Builder<'a> {
    ctx: &'a Ctx,
    policy: &'a Policy,
    profile: &'a Profile,
    task: Option<&'a Task>,
    provider: Option<&'a Provider>,
    out: &'a dyn Renderer,
}

/// A section, or the item left out and why.
type Part = std::result::Result<Content, (SectionId, Why)>;

impl Builder<'_> {
    /// Adds every section after `git`, in document order.
    fn fill(&self, r: &mut ContextReport, prompt: Option<&str>) -> Result<()> {
        r.task = self.task.filter(|_| self.profile.context.task).map(view);
        if self.profile.context.failing_output {
            r.exclude("failing_output", Why::OutputNotCaptured { profile: self.profile.name.clone() }, self.out);
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
            self.add(r, part);
        }
        if let Some(name) = prompt {
            self.add(r, self.prompt(name)?);
        }
        Ok(())
    }

    fn add(&self, r: &mut ContextReport, part: Part) {
        match part {
            Ok(c) => r.push(c, self.out),
            Err((id, why)) => r.exclude(id.as_str(), why, self.out),
        }
    }

    fn off(&self, id: SectionId, key: &'static str, value: &'static str) -> Part {
        Err((id, Why::ProfileOff { profile: self.profile.name.clone(), key, value }))
    }

    /// How the working context of this process's episode compares with HEAD (docs/REFERENCE.md#working-context).
    fn briefing(&self) -> Option<BriefingLabel> {
        let sid = self.ctx.session_id()?;
        let doc = session_context::find(&self.ctx.layout, &sid)?;
        let (label, head, since) = context_label(self.ctx, &doc);
        Some(BriefingLabel { label, head, since })
    }

    fn git(&self) -> Result<GitFacts> {
        let id = self.ctx.identity()?;
        let wt = self.ctx.working_tree()?;
        let changed = self.ctx.changes()?.entries().len();
        let task = self.task.map(|t| TaskAnchor {
            label: crate::services::rewrite::label_of(self.ctx, &t),
            head: t.head.clone(),
            branch: t.branch.clone(),
        });
        let view = GitView {
            repository: self.ctx.rel(Path::new(&id.repository_id)),
            branch: id.branch_text().into(),
            head: id.head_text().into(),
            working_tree: wt,
            task_record: task.as_ref().map(|a| a.label.divergence),
            task_record_rewrite: task.as_ref().and_then(|a| a.label.rewrite.clone()),
        };
        Ok(GitFacts { view, changed, task, briefing: self.briefing() })
    }

    fn task_section(&self) -> Part {
        if !self.profile.context.task {
            return self.off(SectionId::Task, "task", "false");
        }
        let now = self.ctx.clock.now();
        Ok(Content::Task(self.task.map(|t| TaskFacts {
            view: view(t),
            started_age: age(&t.started_at, now),
            checkpoint_age: age(&t.checkpoint_at, now),
            interval: self.profile.checkpoint_interval.clone(),
        })))
    }

    fn profile_section(&self) -> Content {
        Content::Profile(Box::new(self.profile.clone()))
    }

    fn questions(&self) -> Result<Content> {
        Ok(Content::Questions(unresolved(self.ctx)?))
    }

    fn documents(&self) -> Content {
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
                        found.push(self.document(&f));
                    }
                }
            }
        }
        Content::Documents(found)
    }

    fn document(&self, f: &Path) -> Document {
        let path = self.ctx.rel(f);
        let lines = read_opt(f).ok().flatten().map_or(0, |t| t.lines().count());
        let always_loaded_by = self.provider.filter(|p| p.always_loaded == path).map(|p| p.name.clone());
        Document { path, lines, always_loaded_by }
    }

    fn decisions(&self) -> Result<Part> {
        let c = &self.profile.context;
        if !c.architecture_notes && !c.decisions {
            return Ok(self.off(SectionId::Decisions, "decisions", "false"));
        }
        let mine = self.task.map(|t| t.id.as_str()).filter(|_| !c.architecture_notes);
        let log = read_opt(&self.ctx.layout.decisions())?.unwrap_or_default();
        let all = decisions::parse(&log);
        let entries = all
            .iter()
            .rev()
            .filter(|d| mine.is_none_or(|t| d.task.as_deref() == Some(t)))
            .take(self.policy.context.recent_decisions)
            .map(|d| DecisionEntry {
                date: d.date.clone(),
                title: d.title.clone(),
                why: d.why.clone().filter(|w| !w.is_empty()),
                superseded_by: decisions::superseded_by(&all, &d.title).map(str::to_string),
            })
            .collect();
        Ok(Ok(Content::Decisions(DecisionsFacts { for_task: mine.is_some(), entries })))
    }

    fn reasoning(&self) -> Content {
        Content::Reasoning(self.profile.reasoning.clone())
    }

    fn checkpoint(&self) -> Result<Part> {
        if !self.profile.context.current_state {
            return Ok(self.off(SectionId::Checkpoint, "current_state", "false"));
        }
        let res = resolve(self.ctx, &self.ctx.layout.checkpoints(), self.task.map(|t| t.id.as_str()))?;
        let Some(w) = res.winner else {
            return Ok(Err((SectionId::Checkpoint, Why::NoCheckpoint { task: self.task.map(|t| t.id.clone()) })));
        };
        let l = label_preferred(self.ctx, w, res.passed_over)?;
        Ok(Ok(Content::Checkpoint(CheckpointFacts {
            path: self.ctx.rel(&l.record.path),
            age: age(l.record.meta.judged_at(), self.ctx.clock.now()),
            label: Label { divergence: l.divergence, rewrite: l.rewrite.clone() },
            origin: l.record.meta.origin,
            passed_over: l.passed_over_path(self.ctx),
            body: l.record.body,
        })))
    }

    /// The handover: the active task's first, then any task's.
    fn handover(&self) -> Result<Part> {
        if !self.profile.context.current_state {
            return Ok(self.off(SectionId::Handover, "current_state", "false"));
        }
        let res = resolve_task_or_any(self.ctx, &self.ctx.layout.handovers(), self.task.map(|t| t.id.as_str()))?;
        let Some(w) = res.winner else { return Ok(Err((SectionId::Handover, Why::NoHandover))) };
        let labelled = label_preferred(self.ctx, w, res.passed_over)?;
        let path = self.ctx.rel(&labelled.record.path);
        let cited = crate::services::citations::check(self.ctx, &labelled.record.meta);
        Ok(Ok(Content::Handover(Box::new(HandoverFacts { path, labelled, now: self.ctx.clock.now(), cited }))))
    }

    fn files(&self) -> Result<Part> {
        if !self.profile.context.relevant_files {
            return Ok(self.off(SectionId::Files, "relevant_files", "false"));
        }
        let Some(t) = self.task else { return Ok(Err((SectionId::Files, Why::NoTask))) };
        let touched: Vec<String> = touched_since(self.ctx, t)?
            .into_iter()
            .filter(|f| f != ".ai" && !f.starts_with(".ai/") && t.scope.iter().any(|s| in_scope(f, s)))
            .collect();
        Ok(Ok(Content::Files(bounded(touched, self.policy.context.max_list_items))))
    }

    fn history(&self) -> Result<Part> {
        let depth = self.profile.context.recent_history_depth;
        if depth == 0 {
            return Ok(self.off(SectionId::History, "recent_history_depth", "0"));
        }
        // The newest `depth` valid lines, read from the ledger's tail (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow).
        let mut recent = Vec::new();
        for l in ledger::backward(&self.ctx.layout.ledger())?.into_iter().flatten() {
            let l = l?;
            if recent.len() == depth {
                break;
            }
            if l.is_valid() {
                recent.push(event(&l));
            }
        }
        // The newest `max_list_items` are shown, oldest first.
        let mut events = bounded(recent, self.policy.context.max_list_items);
        events.shown.reverse();
        Ok(Ok(Content::History(events)))
    }

    fn prompt(&self, name: &str) -> Result<Part> {
        let path = self.ctx.layout.prompts().join(format!("{name}.md"));
        guard(self.ctx.layout.root(), &path)?;
        let Some(body) = read_opt(&path)? else {
            return Err(ContextError::NoPrompt { name: name.into(), path: self.ctx.rel(&path) }.into());
        };
        if body.lines().any(|l| l.trim() == "{{CONTEXT}}") {
            return Ok(Err((SectionId::Prompt, Why::PromptWraps { name: name.to_string() })));
        }
        Ok(Ok(Content::Prompt { name: name.to_string(), body }))
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
/// commits since (docs/REFERENCE.md#working-context).
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

/// Keeps the first `max` items; the rest are counted in `total`.
fn bounded<T>(mut items: Vec<T>, max: usize) -> Bounded<T> {
    let total = items.len();
    items.truncate(max);
    Bounded { shown: items, total }
}

/// A ledger line as the history shows it.
fn event(l: &ledger::Line) -> Event {
    let fields = match &l.pairs {
        Some(p) => EVENT_FIELDS.iter().filter_map(|k| p.str(k)).map(str::to_string).collect(),
        None => Vec::new(),
    };
    Event { ts: l.ts().map(str::to_string), event: l.event().map(str::to_string), fields }
}

/// The document as frozen into a new episode's working context (default parameters), laid out
/// by `out`.
pub fn text_for_session(ctx: &Ctx, out: &dyn Renderer) -> Result<String> {
    let r = build(ctx, &ContextParams::default(), out)?;
    Ok(out.document(&r))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layout of the fewest words: each section is `## <id>` and one line per item, so the
    /// budget decision is tested apart from the real layout (`render::context` tests that).
    struct Plain;

    impl Renderer for Plain {
        fn section(&self, content: &Content) -> String {
            let items: Vec<String> = match content {
                Content::Files(f) => f.shown.clone(),
                Content::Checkpoint(c) => c.body.lines().map(str::to_string).collect(),
                Content::Git(g) => (0..g.changed).map(|i| format!("line {i}")).collect(),
                _ => Vec::new(),
            };
            let mut lines = vec![format!("## {}", content.id().as_str())];
            lines.extend(items);
            lines.join("\n")
        }

        fn brief(&self, content: &Content) -> Option<String> {
            match content {
                Content::Checkpoint(c) => Some(format!("## checkpoint\nread {}", c.path)),
                _ => None,
            }
        }

        fn reason(&self, why: &Why) -> String {
            format!("{why:?}")
        }

        fn blocks(&self, r: &ContextReport) -> Vec<String> {
            let mut blocks = vec!["# header".to_string()];
            blocks.extend(r.sections.iter().map(|s| s.text.clone()));
            blocks.push(format!("## EXCLUDED ({})", r.excluded.len()));
            blocks
        }

        fn document(&self, r: &ContextReport) -> String {
            format!("{}\n", self.blocks(r).join("\n\n"))
        }
    }

    fn report(limit: usize) -> ContextReport {
        ContextReport {
            schema: 1,
            generated_at: "2026-09-03T20:00:00Z".into(),
            provider: None,
            git: git().view,
            task: None,
            sections: Vec::new(),
            excluded: Vec::new(),
            budget: Budget { lines: 0, limit, dropped: Vec::new() },
        }
    }

    fn git() -> GitFacts {
        let view = GitView {
            repository: ".git".into(),
            branch: "main".into(),
            head: "NONE".into(),
            working_tree: WorkingTree::Clean,
            task_record: None,
            task_record_rewrite: None,
        };
        GitFacts { view, changed: 0, task: None, briefing: None }
    }

    fn with(limit: usize, git_lines: usize, files: usize, checkpoint: usize) -> ContextReport {
        let mut r = report(limit);
        r.push(Content::Git(GitFacts { changed: git_lines - 1, ..git() }), &Plain);
        let f: Vec<String> = (1..files).map(|i| format!("- f{i}")).collect();
        r.push(Content::Files(Bounded { total: f.len(), shown: f }), &Plain);
        if checkpoint > 0 {
            let body = (1..checkpoint).map(|i| format!("c{i}")).collect::<Vec<_>>().join("\n");
            let facts = CheckpointFacts {
                path: "cp.md".into(),
                age: "1m ago".into(),
                label: Label::plain(Divergence::Exact),
                origin: crate::model::record::Origin::Authored,
                passed_over: None,
                body,
            };
            r.push(Content::Checkpoint(facts), &Plain);
        }
        r
    }

    #[test]
    fn count_is_the_documents_lines() {
        let mut r = with(100, 3, 5, 0);
        r.fit(&Plain);
        assert_eq!(Plain.document(&r).lines().count(), r.budget.lines);
        assert!(r.budget.dropped.is_empty());
        assert_eq!(r.sections.iter().map(|s| s.lines).collect::<Vec<_>>(), vec![3, 5]);
    }

    #[test]
    fn drops_in_order_until_it_fits() {
        let mut r = with(10, 3, 4, 10);
        r.fit(&Plain);
        assert_eq!(r.budget.dropped, vec!["files", "checkpoint-body"]);
        assert!(r.budget.lines <= 10, "{}", r.budget.lines);
        let cp = r.sections.iter().find(|s| s.id == SectionId::Checkpoint).unwrap();
        assert!(cp.degraded && cp.text == "## checkpoint\nread cp.md", "{}", cp.text);
        assert_eq!(r.excluded.iter().map(|e| e.item.as_str()).collect::<Vec<_>>(), vec!["files", "checkpoint-body"]);
        assert!(matches!(r.excluded[1].why, Why::Budget { limit: 10 }));
        assert!(r.within_budget().is_ok());
    }

    #[test]
    fn undroppable_sections_over_budget_refuse() {
        let mut r = with(10, 30, 3, 0);
        r.fit(&Plain);
        assert_eq!(r.budget.dropped, vec!["files"]);
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
