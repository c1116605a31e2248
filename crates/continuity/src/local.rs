//! `.ai/local/state/continuity.json` (docs/REFERENCE.md#local-state): this checkout's positions, offers and last sync.
//! Must not touch: files (the caller reads and writes `continuity.json` through `store::atomic`),
//! git, stdout.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::vocabulary::vocabulary;

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
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "String"))]
    pub via: Via,
    /// When.
    pub at: String,
    /// The other heads of its line the next publication ends: set by a resume on a diverged
    /// line, so that the record it writes names them all (issue 40 item 4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ends: Vec<String>,
}

vocabulary! {
    /// How a branch position was set: `published` or `resumed`.
    pub enum Via {
        /// This checkout published the record.
        Published = "published",
        /// This checkout resumed it.
        Resumed = "resumed",
    }
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
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "String"))]
    pub outcome: SyncOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

vocabulary! {
    /// How a sync ended: its report's `outcome`, and what `last_sync.outcome` records.
    pub enum SyncOutcome {
        /// Done.
        Ok = "ok",
        /// Fetched, but not published: the push was refused, rejected or unreachable.
        Partial = "partial",
        /// The remote could not be reached.
        Unreachable = "unreachable",
    }
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct LocalState {
    pub schema: String,
    #[serde(default)]
    pub branches: BTreeMap<String, Position>,
    /// The newest resumable records (at most 20, docs/REFERENCE.md#local-state).
    #[serde(default)]
    pub offers: Vec<Offer>,
    /// How many records are resumable (absent in files written before the cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offers_total: Option<usize>,
    /// The last sync with the chosen remote (`continuity.remote`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sync: Option<LastSync>,
    /// The last sync with each other remote (`sync --remote <other>`), kept apart: a failed
    /// sync with a fork never replaces the chosen remote's standing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other_syncs: BTreeMap<String, LastSync>,
}

impl Default for LocalState {
    fn default() -> Self {
        LocalState {
            schema: SCHEMA.into(),
            branches: BTreeMap::new(),
            offers: Vec::new(),
            offers_total: None,
            last_sync: None,
            other_syncs: BTreeMap::new(),
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

    /// Records a sync's outcome: as `last_sync` when it was with the `chosen` remote, else
    /// among the other remotes' (where a `last_sync` of a remote no longer chosen moves too).
    pub fn record_sync(&mut self, chosen: Option<&str>, sync: LastSync) {
        if let Some(old) = self.last_sync.take_if(|l| Some(l.remote.as_str()) != chosen) {
            self.other_syncs.insert(old.remote.clone(), old);
        }
        if Some(sync.remote.as_str()) == chosen {
            self.other_syncs.remove(&sync.remote);
            self.last_sync = Some(sync);
        } else {
            self.other_syncs.insert(sync.remote.clone(), sync);
        }
    }

    /// The last sync with the `chosen` remote, and every other remote's, by name.
    pub fn syncs(&self, chosen: Option<&str>) -> (Option<LastSync>, Vec<LastSync>) {
        let mut others: BTreeMap<String, LastSync> = self.other_syncs.clone();
        let mut mine = None;
        if let Some(l) = &self.last_sync {
            if Some(l.remote.as_str()) == chosen {
                mine = Some(l.clone());
            } else {
                others.entry(l.remote.clone()).or_insert_with(|| l.clone());
            }
        }
        if let Some(c) = chosen {
            if let Some(l) = others.remove(c) {
                mine.get_or_insert(l);
            }
        }
        (mine, others.into_values().collect())
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
            Position { line: "a".into(), record: "b".into(), via: Via::Published, at: "t".into(), ends: Vec::new() },
        );
        let back = LocalState::parse(std::str::from_utf8(&s.to_bytes()).unwrap()).unwrap();
        assert_eq!(back, s);
        assert!(LocalState::parse(r#"{"schema":"other"}"#).is_err());
        assert!(LocalState::parse("nope").is_err());
    }

    #[test]
    fn a_sync_with_another_remote_never_replaces_the_chosen_ones() {
        let at = |remote: &str, outcome: &str| LastSync {
            remote: remote.into(),
            at: "t".into(),
            outcome: SyncOutcome::parse(outcome).unwrap(),
            detail: None,
        };
        let mut s = LocalState::default();
        s.record_sync(Some("origin"), at("origin", "ok"));
        s.record_sync(Some("origin"), at("fork", "unreachable"));
        assert_eq!(s.syncs(Some("origin")), (Some(at("origin", "ok")), vec![at("fork", "unreachable")]));
        let back = LocalState::parse(std::str::from_utf8(&s.to_bytes()).unwrap()).unwrap();
        assert_eq!(back, s);
        // The chosen remote changes: the old one's standing is listed among the others.
        s.record_sync(Some("fork"), at("fork", "ok"));
        assert_eq!(s.syncs(Some("fork")), (Some(at("fork", "ok")), vec![at("origin", "ok")]));
        // None chosen: every remote is another.
        assert_eq!(s.syncs(None).0, None);
        assert_eq!(s.syncs(None).1.len(), 2);
    }
}
