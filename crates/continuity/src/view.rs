//! RecordView (docs/REFERENCE.md#sync): how one admitted record is shown by `status`, `records`, `plan`,
//! `publish` and `sync`. Pure: the trust, the device test and `now` are passed in.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::clock::parse_stamp;
use crate::mesh::Trust;
use crate::model::labels::Landed;
use crate::model::record::section_text;
use crate::readmodel::Summary;
use crate::record::{Device, Record};

/// One record as shown (docs/REFERENCE.md#sync). In JSON `id`, `line` and `parent` are full 64-hex ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct RecordView {
    /// The record id.
    pub id: String,
    /// Its line: the `line` field, or its own id for the first record of a line.
    pub line: String,
    /// The record it continues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The publishing device.
    pub device: Device,
    /// Whether this device published it.
    pub this_device: bool,
    /// The signer's standing (`this_device|trusted|untrusted|undeclared`).
    pub trust: Trust,
    /// The episode open at publish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The origin's branch (absent when detached).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The origin's head (full).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// `clean` or `dirty`.
    pub working_tree: String,
    /// How many paths were uncommitted at the origin.
    pub changed_total: u64,
    /// The publisher's clock, as recorded.
    pub published_at: String,
    /// Whole minutes since `published_at` (absent when unreadable or in the future).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_minutes: Option<i64>,
    /// The task's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The issue carried along the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
    /// The first line of the handover's `# Objective` (`""` when absent).
    pub objective: String,
    /// For a record of another branch than this checkout's: where its work landed in this
    /// branch (a squash or rebase merge, a cherry-pick), when a content proof says so (
    /// docs/REFERENCE.md#rewrites). Filled by the caller, which has git; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed: Option<Landed>,
}

impl RecordView {
    /// Builds the view of record `id`.
    pub fn new(id: &str, r: &Record, trust: Trust, this_device: bool, now: DateTime<Utc>) -> RecordView {
        RecordView::of(&Summary::of(id, "", "", r), trust, this_device, now)
    }

    /// Builds the view of a record from its read-model summary (no body needed).
    pub fn of(s: &Summary, trust: Trust, this_device: bool, now: DateTime<Utc>) -> RecordView {
        RecordView {
            id: s.id.clone(),
            line: s.line_id().to_string(),
            parent: s.parent.clone(),
            device: s.device.clone(),
            this_device,
            trust,
            session: s.session.clone(),
            branch: s.branch.clone(),
            head: s.head.clone(),
            working_tree: s.working_tree.clone(),
            changed_total: s.changed_total,
            published_at: s.published_at.clone(),
            age_minutes: s.published_time().and_then(|t| minutes_since(t, now)),
            task: s.task.clone(),
            issue: s.issue.clone(),
            objective: s.objective.clone(),
            landed: None,
        }
    }
}

/// The instant a record says it was published: `YYYY-MM-DDTHH:MM:SSZ`, else any RFC 3339 form.
pub fn published_at(r: &Record) -> Option<DateTime<Utc>> {
    parse_stamp(&r.published_at)
        .or_else(|| DateTime::parse_from_rfc3339(r.published_at.trim()).ok().map(|t| t.with_timezone(&Utc)))
}

/// Whole minutes from `published_at` to `now`; `None` when unreadable or in the future.
pub fn age_minutes(r: &Record, now: DateTime<Utc>) -> Option<i64> {
    minutes_since(published_at(r)?, now)
}

fn minutes_since(t: DateTime<Utc>, now: DateTime<Utc>) -> Option<i64> {
    let secs = (now - t).num_seconds();
    (secs >= 0).then_some(secs / 60)
}

/// A level-one section of a handover body, `""` when absent.
pub fn section(body: &str, name: &str) -> String {
    section_text(body, name).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{HandoverPart, Source, TaskIntent, SCHEMA};

    fn rec() -> Record {
        Record {
            schema: SCHEMA.into(),
            repository: "0".repeat(32),
            device: Device { node: "a".repeat(32), label: "macbook-pro".into() },
            session: Some("s-1".into()),
            episode: "open".into(),
            line: None,
            parent: None,
            published_at: "2026-09-03T20:00:00Z".into(),
            producer: "git-majordomus/0.1.0".into(),
            source: Source {
                branch: Some("feature/x".into()),
                head: Some("c".repeat(40)),
                working_tree: "dirty".into(),
                changed: vec!["lib/a".into()],
                changed_total: 1,
                fingerprint: Some("f".repeat(32)),
            },
            task: Some(TaskIntent {
                id: "t-1".into(),
                title: "Ship it".into(),
                profile: None,
                scope: vec![],
                outcome: None,
            }),
            decisions: vec![],
            questions: vec![],
            handover: HandoverPart {
                id: "0".repeat(32),
                task: None,
                issue: Some("#184".into()),
                milestone: None,
                branch: None,
                head: None,
                created_at: None,
                name: None,
                body: "# Objective\n\n  Move the parser.  \nmore\n# Next Action\nrun\n".into(),
            },
        }
    }

    fn at(s: &str) -> DateTime<Utc> {
        parse_stamp(s).unwrap()
    }

    #[test]
    fn view_fields_and_json_shape() {
        let id = "e".repeat(64);
        let v = RecordView::new(&id, &rec(), Trust::Trusted, false, at("2026-09-03T21:30:59Z"));
        assert_eq!(v.line, id, "a first record is its own line");
        assert_eq!(v.age_minutes, Some(90));
        assert_eq!(v.objective, "Move the parser.");
        assert_eq!(v.task.as_deref(), Some("Ship it"));
        let j = serde_json::to_value(&v).unwrap();
        assert_eq!(j["trust"], "trusted");
        assert_eq!(j["issue"], "#184");
        assert_eq!(j["branch"], "feature/x");
        assert!(j.get("parent").is_none());
        let keys: Vec<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
        for k in [
            "id",
            "line",
            "device",
            "this_device",
            "trust",
            "session",
            "branch",
            "head",
            "working_tree",
            "changed_total",
            "published_at",
            "age_minutes",
            "task",
            "issue",
            "objective",
        ] {
            assert!(keys.contains(&k), "{k} missing from {keys:?}");
        }
    }

    #[test]
    fn future_or_unreadable_time_has_no_age() {
        let now = at("2026-09-03T19:00:00Z");
        assert_eq!(age_minutes(&rec(), now), None);
        let mut r = rec();
        r.published_at = "yesterday".into();
        assert_eq!(age_minutes(&r, now), None);
        r.published_at = "2026-09-03T18:00:00+00:00".into();
        assert_eq!(age_minutes(&r, now), Some(60));
        r.handover.body = "# Current State\nx\n".into();
        assert_eq!(RecordView::new("x", &r, Trust::Undeclared, true, now).objective, "");
    }
}
