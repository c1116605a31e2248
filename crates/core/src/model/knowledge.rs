//! A knowledge record (docs/REFERENCE.md#knowledge): one assertion derived from an episode, a candidate until a
//! person promotes or rejects it. Its on-disk form is `store::format::knowledge`.
//! Must not touch: files, git, which candidates exist (`services::knowledge`).

use serde::Serialize;

/// The classes a knowledge record may have.
pub const CLASSES: &[&str] = &["fact", "convention", "constraint", "memory", "lesson"];

/// One knowledge record (candidate or curated).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
#[allow(missing_docs)]
pub struct Knowledge {
    pub id: String,
    pub class: String,
    pub title: String,
    pub description: String,
    pub status: String,
    pub epistemics: String,
    pub date: String,
    pub tags: Vec<String>,
    pub derived_from: Vec<String>,
    /// `relates_to` targets (`file:<path>`).
    pub relations: Vec<String>,
    pub superseded_by: Option<String>,
    /// Sections after the description (`# Evidence`, `# Rejected`).
    #[serde(skip)]
    pub extra: String,
}
