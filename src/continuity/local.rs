//! `.ai/local/state/continuity.json` (SPEC §6.13): this checkout's positions, offers and last sync.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The schema string of the local state.
pub const SCHEMA: &str = "majordomus-continuity-local/v1";

/// Where this checkout stands on a branch: the record the next publication continues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Position {
    /// The line.
    pub line: String,
    /// The record (the parent of the next publication on the branch).
    pub record: String,
    /// `published` or `resumed`.
    pub via: String,
    /// When.
    pub at: String,
}

/// A resumable record from another device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Offer {
    pub record: String,
    /// The device label.
    pub device: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    pub published_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
}

/// The outcome of the last sync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct LastSync {
    pub remote: String,
    pub at: String,
    /// `ok`, `partial` or `unreachable`.
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct LocalState {
    pub schema: String,
    #[serde(default)]
    pub branches: BTreeMap<String, Position>,
    /// The newest resumable records (at most 20, SPEC §A.18).
    #[serde(default)]
    pub offers: Vec<Offer>,
    /// How many records are resumable (absent in files written before the cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offers_total: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sync: Option<LastSync>,
}

impl Default for LocalState {
    fn default() -> Self {
        LocalState {
            schema: SCHEMA.into(),
            branches: BTreeMap::new(),
            offers: Vec::new(),
            offers_total: None,
            last_sync: None,
        }
    }
}

impl LocalState {
    /// Parses the file; another schema or malformed JSON is an error (never silently replaced).
    pub fn parse(text: &str) -> Result<LocalState, String> {
        let s: LocalState = serde_json::from_str(text).map_err(|e| format!("does not parse: {e}"))?;
        if s.schema != SCHEMA {
            return Err(format!("schema {:?}, expected {SCHEMA}", s.schema));
        }
        Ok(s)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_schema() {
        let mut s = LocalState::default();
        s.branches.insert(
            "main".into(),
            Position { line: "a".into(), record: "b".into(), via: "published".into(), at: "t".into() },
        );
        let back = LocalState::parse(std::str::from_utf8(&s.to_bytes()).unwrap()).unwrap();
        assert_eq!(back, s);
        assert!(LocalState::parse(r#"{"schema":"other"}"#).is_err());
        assert!(LocalState::parse("nope").is_err());
    }
}
