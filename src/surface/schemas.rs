//! The JSON Schemas under `schemas/`: `continuity-state.schema.json` is the seed's, copied
//! verbatim; the lifecycle and explain schemas are generated from their Rust types (schemars),
//! checked in, and held equal to the types by a drift test, as are the continuity status,
//! records and plan schemas.
//!
//! Owns: the list of generated schemas. Must not touch: I/O.

/// The generated schemas: (file name under `schemas/`, pretty JSON text with a final newline).
#[cfg(feature = "mcp")]
pub fn generated() -> Vec<(&'static str, String)> {
    use crate::ops::read::Model;
    use crate::ops::{explain, lifecycle};
    fn text<T: schemars::JsonSchema>() -> String {
        let v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
        format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
    }
    vec![
        (Model::Explain.schema_file(), text::<explain::Explain>()),
        (Model::Episodes.schema_file(), text::<lifecycle::Episodes>()),
        (Model::Recovery.schema_file(), text::<lifecycle::Recovery>()),
        (Model::Runtime.schema_file(), text::<lifecycle::Runtime>()),
        (Model::Providers.schema_file(), text::<lifecycle::Providers>()),
        (Model::Closed.schema_file(), text::<lifecycle::Closed>()),
        (Model::ContinuityStatus.schema_file(), text::<crate::ops::continuity::status::StatusReport>()),
        (Model::ContinuityRecords.schema_file(), text::<crate::ops::continuity::status::RecordsReport>()),
        (Model::ContinuityPlan(None).schema_file(), text::<crate::ops::continuity::resume::ResumePlan>()),
    ]
}

/// The schema of the state value as this build derives it (for comparison with the seed's).
#[cfg(feature = "mcp")]
pub fn state_derived() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(crate::ops::state::Continuity)).unwrap_or_default()
}
