//! The one read-model layer the three surfaces call (SPEC §11): the CLI (`state`, `explain`,
//! `lifecycle <x>`, `continuity status|records|plan` with `--json`), MCP (`majordomus_*` tools)
//! and HTTP (`GET /api/v1/...`) all ask [`value`] for a [`Model`] and serialise what it returns,
//! so the three give the same JSON value for the same state.
//!
//! Owns: the list of read models, their names on each surface, the schema file of each.
//! Must not touch: writes (every model here is read-only), protocol framing.

use serde::Serialize;
use serde_json::Value;

use super::continuity::{resume, status};
use super::lifecycle::GitState;
use super::{explain, lifecycle, state};
use crate::ctx::Ctx;
use crate::error::{Error, Result};

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
}

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
        }
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

/// The JSON value of `model` for this checkout. `served` is a long-running server's git state
/// as of its start (`lifecycle.runtime`); `None` for a one-shot command.
pub fn value(ctx: &Ctx, model: &Model, served: Option<&GitState>) -> Result<Value> {
    match model {
        Model::State => to_value(state::state(ctx)?),
        Model::Explain => to_value(explain::explain(ctx)?),
        Model::Episodes => to_value(lifecycle::episodes(ctx)?),
        Model::Recovery => to_value(lifecycle::recovery(ctx)?),
        Model::Runtime => to_value(lifecycle::runtime(ctx, served)?),
        Model::Providers => to_value(lifecycle::providers(ctx)?),
        Model::Closed => to_value(lifecycle::closed(ctx)?),
        Model::ContinuityStatus => to_value(status::status(ctx, false)?),
        Model::ContinuityRecords => to_value(status::records(ctx, None)?),
        Model::ContinuityPlan(prefix) => to_value(resume::plan(ctx, prefix.as_deref())?),
    }
}
