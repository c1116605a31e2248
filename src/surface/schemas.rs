//! The JSON Schemas under `schemas/`: `continuity-state.schema.json` is kept by hand (the contract
//! the state value was first written to); every other one is generated from the Rust type that
//! prints its document (schemars' serialize contract: what is always printed is required, and
//! no type allows a key beyond its own), checked in, and held equal to the types by a drift test:
//! the read models, and the `--json` documents of the commands ([`generated`]).
//!
//! Every schema is compiled into the binary ([`schema_text`]): the OpenAPI document embeds them
//! as components and each MCP tool declares its model's as `outputSchema`.
//!
//! Owns: the list of generated schemas, the embedded schema text of each read model.
//! Must not touch: I/O.

use crate::ops::queries::read::{Kind, Model, Param};

/// The checked-in schema text of a model's value.
pub fn schema_text(m: &Model) -> &'static str {
    match m {
        Model::State => include_str!("../../schemas/continuity-state.schema.json"),
        Model::Explain => include_str!("../../schemas/continuity-explain.schema.json"),
        Model::Episodes => include_str!("../../schemas/lifecycle-episodes.schema.json"),
        Model::Recovery => include_str!("../../schemas/lifecycle-recovery.schema.json"),
        Model::Runtime => include_str!("../../schemas/lifecycle-runtime.schema.json"),
        Model::Providers => include_str!("../../schemas/lifecycle-providers.schema.json"),
        Model::Closed => include_str!("../../schemas/lifecycle-closed.schema.json"),
        Model::ContinuityStatus => include_str!("../../schemas/continuity-status.schema.json"),
        Model::ContinuityRecords => include_str!("../../schemas/continuity-records.schema.json"),
        Model::ContinuityPlan(_) => include_str!("../../schemas/continuity-plan.schema.json"),
        Model::Handover => include_str!("../../schemas/handover-resolved.schema.json"),
        Model::Context => include_str!("../../schemas/context.schema.json"),
        Model::Decisions => include_str!("../../schemas/decisions.schema.json"),
        Model::Questions => include_str!("../../schemas/questions.schema.json"),
        Model::Search(_) => include_str!("../../schemas/search.schema.json"),
        Model::History(_) => include_str!("../../schemas/history.schema.json"),
    }
}

/// The dialect every schema is read in: JSON Schema 2020-12 (MCP 2026-07-28 requires it for
/// input and output schemas; earlier revisions default to it).
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A model's schema as a JSON object with its dialect stated: the checked-in text, plus
/// `"$schema":` [`DIALECT`] where the file leaves it implicit (the hand-kept state schema).
pub fn schema_object(m: &Model) -> serde_json::Map<String, serde_json::Value> {
    let mut o = match serde_json::from_str(schema_text(m)) {
        Ok(serde_json::Value::Object(o)) => o,
        _ => serde_json::Map::new(),
    };
    if !o.contains_key("$schema") {
        let mut stated = serde_json::Map::new();
        stated.insert("$schema".into(), DIALECT.into());
        stated.extend(o);
        o = stated;
    }
    o
}

/// The JSON Schema of one parameter's value: an MCP input property, an OpenAPI query
/// parameter's `schema`.
pub fn param_schema(p: &Param) -> serde_json::Value {
    let mut v = match p.kind {
        Kind::Text => serde_json::json!({"type": "string"}),
        Kind::Count => serde_json::json!({"type": "integer", "minimum": 1}),
    };
    if let Some(pattern) = p.pattern {
        v["pattern"] = pattern.into();
    }
    if p.kind == Kind::Text && p.required {
        v["minLength"] = 1.into();
    }
    v
}

/// The generated schemas: (file name under `schemas/`, pretty JSON text with a final newline).
#[cfg(feature = "mcp")]
pub fn generated() -> Vec<(&'static str, String)> {
    use crate::ops::queries::{explain, lifecycle};
    // What `T` prints (schemars' serialize contract): a member is required unless it is skipped
    // (`skip_serializing_if`), so an `Option` printed as `null` is required, and nullable.
    fn printed<T: schemars::JsonSchema>() -> String {
        pretty(
            schemars::generate::SchemaSettings::default().for_serialize().into_generator().into_root_schema_for::<T>(),
        )
    }
    fn pretty(s: schemars::Schema) -> String {
        let v = serde_json::to_value(s).unwrap_or_default();
        format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
    }
    vec![
        (Model::Explain.schema_file(), printed::<explain::Explain>()),
        (Model::Episodes.schema_file(), printed::<lifecycle::Episodes>()),
        (Model::Recovery.schema_file(), printed::<lifecycle::Recovery>()),
        (Model::Runtime.schema_file(), printed::<lifecycle::Runtime>()),
        (Model::Providers.schema_file(), printed::<lifecycle::Providers>()),
        (Model::Closed.schema_file(), printed::<lifecycle::Closed>()),
        (Model::ContinuityStatus.schema_file(), printed::<crate::ops::queries::continuity::StatusReport>()),
        (Model::ContinuityRecords.schema_file(), printed::<crate::ops::queries::continuity::RecordsReport>()),
        (Model::ContinuityPlan(None).schema_file(), printed::<crate::ops::services::continuity::plan::ResumePlan>()),
        (Model::Handover.schema_file(), printed::<crate::ops::queries::state::ResolvedHandover>()),
        (Model::Context.schema_file(), printed::<crate::ops::services::context::ContextReport>()),
        (Model::Decisions.schema_file(), printed::<crate::ops::queries::decisions::DecisionList>()),
        (Model::Questions.schema_file(), printed::<crate::ops::queries::questions::QuestionList>()),
        (Model::Search(String::new()).schema_file(), printed::<crate::ops::queries::search::SearchReport>()),
        (Model::History(None).schema_file(), printed::<crate::ops::queries::read::HistoryLines>()),
        // The findings of `check`, `watch`, `doctor`, `history --validate`, `knowledge check`.
        ("findings.schema.json", printed::<crate::model::finding::Findings>()),
        // What a command prints on stderr under `--json` when it produced no result.
        ("error.schema.json", printed::<crate::error::ErrorDocument>()),
        // The documents of the continuity commands (device, publish, sync, resume, verify, …).
        ("continuity-device.schema.json", printed::<crate::ops::commands::continuity::device::DeviceReport>()),
        ("continuity-rotate.schema.json", printed::<crate::ops::commands::continuity::device::RotateReport>()),
        ("continuity-publish.schema.json", printed::<crate::ops::commands::continuity::publish::PublishReport>()),
        ("continuity-supersede.schema.json", printed::<crate::ops::commands::continuity::publish::SupersedeReport>()),
        ("continuity-snapshot.schema.json", printed::<crate::ops::commands::continuity::snapshot::SnapshotReport>()),
        ("continuity-sync.schema.json", printed::<crate::ops::commands::continuity::sync::SyncReport>()),
        ("continuity-resume.schema.json", printed::<crate::ops::commands::continuity::resume::ResumeReport>()),
        ("continuity-verify.schema.json", printed::<crate::ops::commands::continuity::device::VerifyReport>()),
        ("continuity-trust-list.schema.json", printed::<crate::ops::queries::trust::TrustList>()),
        ("continuity-trust-change.schema.json", printed::<crate::ops::commands::continuity::trust::TrustChange>()),
        // The documents of the other commands (session, knowledge, history --rotate, …).
        ("history-rotate.schema.json", printed::<crate::ops::queries::history::Rotation>()),
        ("session-status.schema.json", printed::<crate::ops::queries::sessions::StatusReport>()),
        ("session-record.schema.json", printed::<crate::ops::queries::sessions::ClosedView>()),
        ("session-list.schema.json", printed::<crate::ops::queries::sessions::SessionList>()),
        ("session-context.schema.json", printed::<crate::ops::queries::sessions::ContextReport>()),
        ("knowledge-derive.schema.json", printed::<crate::ops::services::knowledge::DeriveReport>()),
        ("knowledge-candidates.schema.json", printed::<crate::ops::services::knowledge::Candidates>()),
    ]
}

/// The schema of the state value as this build derives it (for comparison with the hand-kept one).
#[cfg(feature = "mcp")]
pub fn state_derived() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(crate::ops::queries::state::Continuity)).unwrap_or_default()
}
