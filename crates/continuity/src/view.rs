//! RecordView (docs/REFERENCE.md#sync): how one admitted record is shown by `status`, `records`, `plan`,
//! `publish` and `sync`. Pure: the trust, the device test and `now` are passed in.
//! Must not touch: stdout, files, git, the clock (`now` is passed in).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::mesh::Trust;
use crate::model::labels::Landed;
use crate::model::record::section_text;
use crate::readmodel::Summary;
pub use crate::record::published_at;
use crate::record::{Device, Record};

/// One record as shown (docs/REFERENCE.md#sync). In JSON `id`, `line` and `parent` are full 64-hex ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct RecordView {
    /// The record id.
    pub id: String,
    /// Its line: the `line` field, or its own id for the first record of a line.
    pub line: String,
    /// The record it continues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The publishing device (its label is what the device calls itself).
    pub device: Device,
    /// The label the mesh declaration gives the signer's key (`trust.labels`), when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_label: Option<String>,
    /// The signer's minisign key id, 16 uppercase hex as `minisign` prints it (the first 8
    /// bytes of BLAKE3 of the public key, which the node extends): a label is what a device
    /// says it is called, the key id is who signed.
    pub key_id: String,
    /// Whether this device published it.
    pub this_device: bool,
    /// The signer's standing (`this_device|trusted|untrusted|undeclared`).
    pub trust: Trust,
    /// Set (to the trust) when the signer is `untrusted` or `revoked`: the record is shown by
    /// id, device label, key id and verdict only — its task, issue, objective, session, branch
    /// and head are not quoted (issue 39, docs/SECURITY.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<Trust>,
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
    /// The first line of the handover's `# Objective` (`""` when absent; absent when
    /// `withheld`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objective: Option<String>,
    /// For a record of another branch than this checkout's: where its work landed in this
    /// branch (a squash or rebase merge, a cherry-pick), when a content proof says so (
    /// docs/REFERENCE.md#rewrites). Filled by the caller, which has git; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landed: Option<Landed>,
    /// The other heads of its line this record ends besides its parent (a v2 record).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ends: Vec<String>,
    /// Set when it carries no handover: it only ends its parent (`continuity supersede`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ends_only: bool,
}

impl RecordView {
    /// Builds the view of record `id`.
    pub fn new(id: &str, r: &Record, trust: Trust, this_device: bool, now: DateTime<Utc>) -> RecordView {
        RecordView::of(&Summary::of(id, "", "", r), trust, this_device, now)
    }

    /// Builds the view of a record from its read-model summary (no body needed).
    /// A record signed by an `untrusted` or `revoked` key is shown withheld: by id, device
    /// label, key id and verdict, none of its text.
    pub fn of(s: &Summary, trust: Trust, this_device: bool, now: DateTime<Utc>) -> RecordView {
        let withheld = withheld(trust);
        let quoted = |v: &Option<String>| if withheld.is_some() { None } else { v.clone() };
        RecordView {
            id: s.id.clone(),
            line: s.line_id().to_string(),
            parent: s.parent.clone(),
            device: s.device.clone(),
            team_label: None,
            key_id: key_id(&s.device.node),
            this_device,
            trust,
            withheld,
            session: quoted(&s.session),
            branch: quoted(&s.branch),
            head: quoted(&s.head),
            working_tree: s.working_tree.clone(),
            changed_total: s.changed_total,
            published_at: s.published_at.clone(),
            age_minutes: s.published_time().and_then(|t| minutes_since(t, now)),
            task: quoted(&s.task),
            issue: quoted(&s.issue),
            objective: quoted(&Some(s.objective.clone())),
            landed: None,
            ends: s.ends.clone(),
            ends_only: s.terminal,
        }
    }
}

/// The trust a record is withheld under: `untrusted` and `revoked` records are named, never
/// quoted (issue 39: content from a key this repository does not trust is data no one vouched
/// for, and an agent reading it could take it as instructions).
pub fn withheld(trust: Trust) -> Option<Trust> {
    matches!(trust, Trust::Untrusted | Trust::Revoked).then_some(trust)
}

/// The minisign key id of the key whose node is `node` (32 hex): the node is the first 16
/// bytes of BLAKE3 of the public key and the key id its first 8, which minisign prints as a
/// little-endian number, 16 uppercase hex (as in `minisign public key <key id>`). Admission
/// checks that a record's node is its signer's, so this names the signer. `?` for a node that
/// is not hex.
pub fn key_id(node: &str) -> String {
    let Some(bytes) = node.get(..16).and_then(crate::hex::decode) else { return "?".into() };
    bytes.iter().rev().map(|b| format!("{b:02X}")).collect()
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
            ends: Vec::new(),
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
                citations: Vec::new(),
            },
        }
    }

    fn at(s: &str) -> DateTime<Utc> {
        crate::clock::parse_stamp(s).unwrap()
    }

    #[test]
    fn view_fields_and_json_shape() {
        let id = "e".repeat(64);
        let v = RecordView::new(&id, &rec(), Trust::Trusted, false, at("2026-09-03T21:30:59Z"));
        assert_eq!(v.line, id, "a first record is its own line");
        assert_eq!(v.age_minutes, Some(90));
        assert_eq!(v.objective.as_deref(), Some("Move the parser."));
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
        assert_eq!(RecordView::new("x", &r, Trust::Undeclared, true, now).objective.as_deref(), Some(""));
    }

    /// An untrusted or revoked record is shown by id, device label, key id and verdict: none of
    /// its text (issue 39, docs/REFERENCE.md#plans).
    #[test]
    fn untrusted_and_revoked_records_are_withheld() {
        let now = at("2026-09-03T21:00:00Z");
        for trust in [Trust::Untrusted, Trust::Revoked] {
            let v = RecordView::new(&"e".repeat(64), &rec(), trust, false, now);
            assert_eq!(v.withheld, Some(trust));
            assert_eq!(
                (v.task, v.issue, v.objective, v.branch, v.head, v.session),
                (None, None, None, None, None, None)
            );
            assert_eq!(v.device.label, "macbook-pro");
            let j = serde_json::to_value(RecordView::new(&"e".repeat(64), &rec(), trust, false, now)).unwrap();
            assert_eq!(j["withheld"], trust.as_str());
            assert!(j.get("objective").is_none() && j.get("task").is_none());
            assert!(!j.to_string().contains("Ship it") && !j.to_string().contains("Move the parser"));
        }
        for trust in [Trust::Undeclared, Trust::Trusted, Trust::ThisDevice] {
            let v = RecordView::new("x", &rec(), trust, false, now);
            assert_eq!((v.withheld, v.task.as_deref()), (None, Some("Ship it")));
            assert!(serde_json::to_value(&v).unwrap().get("withheld").is_none());
        }
    }

    /// The key id is minisign's: what the public key file's comment names.
    #[test]
    fn key_id_is_minisigns() {
        let k = crate::signing::DeviceKey::from_seed([7; 32], Some("a".into()), "2026-01-01T00:00:00Z");
        let id = key_id(&k.node());
        assert_eq!(id.len(), 16);
        assert!(k.public_key_file().starts_with(&format!("untrusted comment: minisign public key {id}\n")));
        assert_eq!(key_id("zz"), "?");
    }
}
