//! The one read-model layer the three surfaces call (docs/REFERENCE.md#surfaces): the CLI (`state`, `explain`,
//! `lifecycle <x>`, `continuity status|records|plan`, `handover --resolve`, `context`,
//! `decision list`, `question list`, `search`, `history`, each with `--json`), MCP
//! (`majordomus_*` tools) and HTTP (`GET /api/v1/...`) all ask [`value`] for a [`Model`] and
//! serialise what it returns, so the three give the same JSON value for the same state.
//!
//! A model's arguments ([`Param`]: the plan's record, the search text, the history limit) are
//! declared here once; MCP builds its input schemas and HTTP its query parameters (and the
//! OpenAPI document its `parameters`) from that list, and both bind them with [`Model::bind`].
//!
//! Owns: the list of read models, their names on each surface, their parameters, the schema
//! file of each. Must not touch: writes (every model here is read-only), protocol framing.

use serde::Serialize;
use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::queries::history::{self, Filter, Listing};
use crate::queries::lifecycle::GitState;
use crate::queries::search::{self, SearchParams};
use crate::queries::{continuity, decisions, explain, lifecycle, questions, state};
use crate::services::context::{self, ContextParams, Renderer};
use crate::services::continuity::plan;

/// A read model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Model {
    /// `continuity.state`.
    State,
    /// `continuity.explain`.
    Explain,
    /// `lifecycle.episodes`.
    Episodes,
    /// `lifecycle.recovery`.
    Recovery,
    /// `lifecycle.runtime`.
    Runtime,
    /// `lifecycle.providers`.
    Providers,
    /// `lifecycle.closed`.
    Closed,
    /// `continuity status`.
    ContinuityStatus,
    /// `continuity records`.
    ContinuityRecords,
    /// `continuity plan [--record <prefix>]` (writes nothing).
    ContinuityPlan(Option<String>),
    /// `handover --resolve`: the handover that resolves here, its labels, its body by section.
    Handover,
    /// `context`: the bounded briefing at the policy's budget.
    Context,
    /// `decision list`: every decision, newest first.
    Decisions,
    /// `question list`: the unresolved questions.
    Questions,
    /// `search <text>`.
    Search(String),
    /// `history [--limit N]`: the newest ledger lines (20 without a limit).
    History(Option<usize>),
}

/// What a parameter's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Text,
    /// A whole number ≥ 1.
    Count,
}

/// One argument a model takes: an MCP tool's input property, an HTTP query parameter.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Its name on both surfaces.
    pub name: &'static str,
    /// What its value is.
    pub kind: Kind,
    /// Whether the model needs it.
    pub required: bool,
    /// One sentence on it.
    pub description: &'static str,
    /// A pattern a text value must match (for the OpenAPI document and the input schema).
    pub pattern: Option<&'static str>,
}

const RECORD: Param = Param {
    name: "record",
    kind: Kind::Text,
    required: false,
    description: "A record id or prefix (hex)",
    pattern: Some("^[0-9a-f]{0,64}$"),
};
const QUERY: Param = Param {
    name: "query",
    kind: Kind::Text,
    required: true,
    description: "The text to find: literal, case-insensitive",
    pattern: None,
};
const LIMIT: Param = Param {
    name: "limit",
    kind: Kind::Count,
    required: false,
    description: "Show the newest N matching ledger lines (default 20)",
    pattern: None,
};

/// Every model, in the order the surfaces list them (the plan without a record).
pub const ALL: &[Model] = &[
    Model::State,
    Model::Explain,
    Model::Episodes,
    Model::Recovery,
    Model::Runtime,
    Model::Providers,
    Model::Closed,
    Model::ContinuityStatus,
    Model::ContinuityRecords,
    Model::ContinuityPlan(None),
    Model::Handover,
    Model::Context,
    Model::Decisions,
    Model::Questions,
    Model::Search(String::new()),
    Model::History(None),
];

impl Model {
    /// The MCP tool name.
    pub fn tool(&self) -> &'static str {
        match self {
            Model::State => "majordomus_continuity",
            Model::Explain => "majordomus_continuity_explain",
            Model::Episodes => "majordomus_lifecycle_episodes",
            Model::Recovery => "majordomus_lifecycle_recovery",
            Model::Runtime => "majordomus_lifecycle_runtime",
            Model::Providers => "majordomus_lifecycle_providers",
            Model::Closed => "majordomus_lifecycle_closed",
            Model::ContinuityStatus => "majordomus_continuity_status",
            Model::ContinuityRecords => "majordomus_continuity_records",
            Model::ContinuityPlan(_) => "majordomus_continuity_plan",
            Model::Handover => "majordomus_handover",
            Model::Context => "majordomus_context",
            Model::Decisions => "majordomus_decisions",
            Model::Questions => "majordomus_questions",
            Model::Search(_) => "majordomus_search",
            Model::History(_) => "majordomus_history",
        }
    }

    /// The HTTP path (without a query).
    pub fn route(&self) -> &'static str {
        match self {
            Model::State => "/api/v1/continuity",
            Model::Explain => "/api/v1/continuity/explain",
            Model::Episodes => "/api/v1/lifecycle/episodes",
            Model::Recovery => "/api/v1/lifecycle/recovery",
            Model::Runtime => "/api/v1/lifecycle/runtime",
            Model::Providers => "/api/v1/lifecycle/providers",
            Model::Closed => "/api/v1/lifecycle/closed",
            Model::ContinuityStatus => "/api/v1/continuity/status",
            Model::ContinuityRecords => "/api/v1/continuity/records",
            Model::ContinuityPlan(_) => "/api/v1/continuity/plan",
            Model::Handover => "/api/v1/handover",
            Model::Context => "/api/v1/context",
            Model::Decisions => "/api/v1/decisions",
            Model::Questions => "/api/v1/questions",
            Model::Search(_) => "/api/v1/search",
            Model::History(_) => "/api/v1/history",
        }
    }

    /// The capability name (`continuity.state`, `lifecycle.episodes`, ...), the OpenAPI operationId.
    pub fn capability(&self) -> &'static str {
        match self {
            Model::State => "continuity.state",
            Model::Explain => "continuity.explain",
            Model::Episodes => "lifecycle.episodes",
            Model::Recovery => "lifecycle.recovery",
            Model::Runtime => "lifecycle.runtime",
            Model::Providers => "lifecycle.providers",
            Model::Closed => "lifecycle.closed",
            Model::ContinuityStatus => "continuity.status",
            Model::ContinuityRecords => "continuity.records",
            Model::ContinuityPlan(_) => "continuity.plan",
            Model::Handover => "handover.resolved",
            Model::Context => "context.briefing",
            Model::Decisions => "decisions.list",
            Model::Questions => "questions.open",
            Model::Search(_) => "records.search",
            Model::History(_) => "ledger.history",
        }
    }

    /// The schema file under `schemas/` describing its value.
    pub fn schema_file(&self) -> &'static str {
        match self {
            Model::State => "continuity-state.schema.json",
            Model::Explain => "continuity-explain.schema.json",
            Model::Episodes => "lifecycle-episodes.schema.json",
            Model::Recovery => "lifecycle-recovery.schema.json",
            Model::Runtime => "lifecycle-runtime.schema.json",
            Model::Providers => "lifecycle-providers.schema.json",
            Model::Closed => "lifecycle-closed.schema.json",
            Model::ContinuityStatus => "continuity-status.schema.json",
            Model::ContinuityRecords => "continuity-records.schema.json",
            Model::ContinuityPlan(_) => "continuity-plan.schema.json",
            Model::Handover => "handover-resolved.schema.json",
            Model::Context => "context.schema.json",
            Model::Decisions => "decisions.schema.json",
            Model::Questions => "questions.schema.json",
            Model::Search(_) => "search.schema.json",
            Model::History(_) => "history.schema.json",
        }
    }

    /// One sentence on what it answers.
    pub fn description(&self) -> &'static str {
        match self {
            Model::State => "The open episode, the active task, the handover and checkpoint that resolve for this worktree and branch with their divergence and freshness labels, the blockers and the tallies.",
            Model::Explain => "Why continuity.state answered what it did: each answer with a reason and citations.",
            Model::Episodes => "Every open episode file and where it stands: current, open, foreign or stranded.",
            Model::Recovery => "The pointer layout, stranded episodes, orphan temporary files and the started/closed/open balance.",
            Model::Runtime => "The git state this process answers about against the repository's state now.",
            Model::Providers => "Each provider's declared lifecycle events and the hook entries wired to it.",
            Model::Closed => "Closed session records: how many, how many on this branch, the newest 20.",
            Model::ContinuityStatus => "This device, the continuity store, its lines and what is resumable (no network).",
            Model::ContinuityRecords => "Every admitted continuity record and line.",
            Model::ContinuityPlan(_) => "What a resume would do; writes nothing.",
            Model::Handover => "The handover that resolves for this worktree and branch: its labels (match, divergence with any proven rewrite, freshness, origin) and its body by section; the Next Action withheld when the record is history.",
            Model::Context => "The bounded briefing (context --json): git, the task, the profile, open questions, decisions, the latest checkpoint and handover, within the policy's line budget.",
            Model::Decisions => "Every decision in the log, newest first, with what superseded it.",
            Model::Questions => "The unresolved questions that block completion, numbered.",
            Model::Search(_) => "Literal, case-insensitive search across the records in authority order (handovers, checkpoints, decisions, questions, prompts, history).",
            Model::History(_) => "The newest ledger lines (oldest first), each as its JSON object.",
        }
    }

    /// The arguments it takes.
    pub fn params(&self) -> &'static [Param] {
        match self {
            Model::ContinuityPlan(_) => &[RECORD],
            Model::Search(_) => &[QUERY],
            Model::History(_) => &[LIMIT],
            _ => &[],
        }
    }

    /// The model with its arguments bound: `arg(name)` is a parameter's value as text, `None`
    /// when absent. Fails (exit 2) on a missing required value or a count that is not one.
    pub fn bind(&self, arg: impl Fn(&str) -> Option<String>) -> Result<Model> {
        let count = |p: &Param| -> Result<Option<usize>> {
            arg(p.name)
                .map(|v| {
                    v.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
                        Error::usage(format!("{}: {} must be a whole number ≥ 1, got {v:?}", self.tool(), p.name))
                    })
                })
                .transpose()
        };
        Ok(match self {
            Model::ContinuityPlan(_) => Model::ContinuityPlan(arg(RECORD.name)),
            Model::Search(_) => Model::Search(
                arg(QUERY.name).ok_or_else(|| Error::usage(format!("{}: {} is required", self.tool(), QUERY.name)))?,
            ),
            Model::History(_) => Model::History(count(&LIMIT)?),
            m => m.clone(),
        })
    }

    /// The model a tool name names.
    pub fn from_tool(name: &str) -> Option<Model> {
        ALL.iter().find(|m| m.tool() == name).cloned()
    }

    /// The model an HTTP path names.
    pub fn from_route(path: &str) -> Option<Model> {
        ALL.iter().find(|m| m.route() == path).cloned()
    }
}

fn to_value<T: Serialize>(v: T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::io(format!("internal: cannot serialise the result: {e}")))
}

/// The ledger lines `history --json` prints, as one value: each line's JSON object (a line
/// that is not JSON stays its text), oldest first.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct HistoryLines {
    /// The lines shown, oldest first; `history --json` prints each on its own line.
    pub events: Vec<Value>,
}

/// `history [--limit N]` as one value (the CLI's JSON Lines, collected).
pub fn history_lines(ctx: &Ctx, limit: Option<usize>) -> Result<HistoryLines> {
    let filter = Filter::new(None, None, None, limit, false, ctx.clock.now())?;
    let mut events = Vec::new();
    let listing = history::list(ctx, &filter, &mut |l| {
        events.push(serde_json::from_str(&l.raw).unwrap_or_else(|_| Value::String(l.raw.clone())));
    })?;
    if let Listing::NoLedger { .. } = listing {
        events.clear();
    }
    Ok(HistoryLines { events })
}

/// The JSON value of `model` for this checkout. `served` is a long-running server's git state
/// as of its start (`lifecycle.runtime`); `None` for a one-shot command. `layout` lays out the
/// context document's section texts (the CLI's, `render::context::Text`, on every surface).
pub fn value(ctx: &Ctx, model: &Model, served: Option<&GitState>, layout: &dyn Renderer) -> Result<Value> {
    match model {
        Model::State => to_value(state::state(ctx)?),
        Model::Explain => to_value(explain::explain(ctx)?),
        Model::Episodes => to_value(lifecycle::episodes(ctx)?),
        Model::Recovery => to_value(lifecycle::recovery(ctx)?),
        Model::Runtime => to_value(lifecycle::runtime(ctx, served)?),
        Model::Providers => to_value(lifecycle::providers(ctx)?),
        Model::Closed => to_value(lifecycle::closed(ctx)?),
        Model::ContinuityStatus => to_value(continuity::status(ctx, false)?),
        Model::ContinuityRecords => to_value(continuity::records(ctx, None)?),
        Model::ContinuityPlan(prefix) => to_value(plan::plan(ctx, prefix.as_deref())?),
        Model::Handover => to_value(state::resolved_handover(ctx, None)?),
        Model::Context => {
            let report = context::build(ctx, &ContextParams::default(), layout)?;
            report.within_budget()?;
            to_value(report)
        }
        Model::Decisions => to_value(decisions::listing(ctx, None, None)?),
        Model::Questions => to_value(questions::listing(ctx, false, None)?),
        Model::Search(text) => {
            to_value(search::search(ctx, &SearchParams { text: text.clone(), ..SearchParams::default() })?)
        }
        Model::History(limit) => to_value(history_lines(ctx, *limit)?),
    }
}
