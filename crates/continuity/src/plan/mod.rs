//! The resume plan (docs/REFERENCE.md#plans) as a pure function, and the resumable offers (docs/REFERENCE.md#sync).
//! Must not touch: files, git, the clock, the store (a plan writes nothing and runs nothing).
//!
//! Nothing here reads files, git or the clock: the caller passes the admitted records with their
//! trust, the lineage, the refused files, the offers, this checkout's position and `now`, and
//! answers the one git question (how the chosen record's head stands to local HEAD) through
//! [`SourceFacts`]. A plan recommends commands; it never runs them.

use crate::admission::Code;
use crate::model::vocabulary::vocabulary;
use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::lineage::{LineState, Lineage, Relation};
use crate::local::{LastSync, Offer};
use crate::mesh::Trust;
use crate::model::labels::{branch_text, Landed, Rewrite};
use crate::readmodel::Summary;
use crate::record::Record;
use crate::text::short_id;
use crate::view::{age_minutes, published_at, section, RecordView};

mod choose;
mod command;
mod judge;
mod offers;

pub use choose::{choose, Choice, Chosen};
pub use command::{shell_word, single_quote, start_command};
pub use judge::{judge, plan};
use offers::display_order;
pub use offers::{offer_of, offer_of_summary, resumable, resumable_of, Candidate};

/// What a resume restores (docs/REFERENCE.md#plans).
pub const RESTORES: &[&str] = &["handover", "intent", "issue", "decisions", "next_action", "lineage", "provenance"];
/// What the receiving checkout recomputes (docs/REFERENCE.md#plans).
pub const RECOMPUTES: &[&str] = &["worktree", "repository_id", "episode", "working_context", "local_source_state"];
/// The sync command plans recommend.
pub const SYNC_ACTION: &str = "git majordomus continuity sync";
/// An open episode younger than this many minutes may still be active at the origin.
pub const ACTIVE_MINUTES: i64 = 60;

vocabulary! {
    /// The plan's answer.
    pub enum PlanStatus {
        /// Resumable, nothing to say.
        Ready = "ready",
        /// Resumable, with warnings.
        ReadyWithWarnings = "ready_with_warnings",
        /// The source must be updated with git first.
        RequiresSourceUpdate = "requires_source_update",
        /// Resuming would pick between diverged work or reconcile diverged source.
        Conflict = "conflict",
        /// Several records qualify; name one with `--record`.
        ChooseRecord = "choose_record",
        /// There is nothing to resume.
        NothingToResume = "nothing_to_resume",
        /// The record must not be resumed here (untrusted signer).
        Refused = "refused",
    }
}

impl PlanStatus {
    /// Whether `resume` may proceed (`ready` or `ready_with_warnings`).
    pub fn is_resumable(self) -> bool {
        matches!(self, PlanStatus::Ready | PlanStatus::ReadyWithWarnings)
    }

    /// Whether `plan` exits 0 (`ready`, `ready_with_warnings`, `nothing_to_resume`; docs/REFERENCE.md#continuity-commands).
    pub fn exits_zero(self) -> bool {
        self.is_resumable() || self == PlanStatus::NothingToResume
    }
}

vocabulary! {
    /// How the record's head stands to local HEAD (docs/REFERENCE.md#plans), computed by the caller with git.
    #[derive(Default)]
    pub enum SourceRelation {
        /// The record's or the local head is missing.
        #[default]
        Unknown = "unknown",
        /// The record's head is not a commit here.
        HeadMissing = "head_missing",
        /// The record names a branch other than the local one.
        BranchDiffers = "branch_differs",
        /// Same commit.
        Exact = "exact",
        /// The record's head is an ancestor of local HEAD.
        LocalAhead = "local_ahead",
        /// Local HEAD is an ancestor of the record's head.
        LocalBehind = "local_behind",
        /// Neither is an ancestor of the other.
        Diverged = "diverged",
    }
}

vocabulary! {
    /// The plan's own notice codes (docs/REFERENCE.md#plans): the one place their names live; the JSON and
    /// the text print [`PlanCode::as_str`].
    pub enum PlanCode {
        RecordUnknown = "record_unknown",
        NothingPublished = "nothing_published",
        SeveralResumable = "several_resumable",
        OriginUntrusted = "origin_untrusted",
        OriginUndeclared = "origin_undeclared",
        LineDiverged = "line_diverged",
        LineageIncomplete = "lineage_incomplete",
        AlreadyResumed = "already_resumed",
        WouldDiverge = "would_diverge",
        OriginMayBeActive = "origin_may_be_active",
        LocalAhead = "local_ahead",
        LocalBehind = "local_behind",
        SourceDiverged = "source_diverged",
        HeadMissing = "head_missing",
        BranchDiffers = "branch_differs",
        SourceUnknown = "source_unknown",
        SourceIncomplete = "source_incomplete",
        LocalDirty = "local_dirty",
        Landed = "landed",
        EndsOnly = "ends_only",
        FilesDiffer = "files_differ",
    }
}

/// The code of a notice: one of the plan's, or the diagnostic code of the refused file a
/// blocker names (both print as their name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum NoticeCode {
    /// A code of the plan.
    Plan(PlanCode),
    /// The admission code of a refused file.
    Refused(Code),
}

impl NoticeCode {
    /// The name as printed.
    pub const fn as_str(self) -> &'static str {
        match self {
            NoticeCode::Plan(c) => c.as_str(),
            NoticeCode::Refused(c) => c.as_str(),
        }
    }
}

impl std::fmt::Display for NoticeCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<PlanCode> for NoticeCode {
    fn from(c: PlanCode) -> NoticeCode {
        NoticeCode::Plan(c)
    }
}

impl From<Code> for NoticeCode {
    fn from(c: Code) -> NoticeCode {
        NoticeCode::Refused(c)
    }
}

/// A blocker or a warning: `{code, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Notice {
    /// Stable code (`origin_untrusted`, `line_diverged`, ...).
    pub code: NoticeCode,
    /// One sentence.
    pub message: String,
}

impl Notice {
    /// A notice with its code and sentence.
    pub fn new(code: impl Into<NoticeCode>, message: String) -> Notice {
        Notice { code: code.into(), message }
    }
}

/// The intent a record carries: `{id, title, profile?, scope[]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct PlanTask {
    /// Task id at the origin.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Its scope.
    pub scope: Vec<String>,
}

/// The source comparison of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct SourceView {
    /// The record's branch.
    pub expected_branch: Option<String>,
    /// The record's head.
    pub expected_head: Option<String>,
    /// This checkout's branch.
    pub local_branch: Option<String>,
    /// This checkout's head.
    pub local_head: Option<String>,
    /// How the two stand.
    pub relation: SourceRelation,
    /// The proven rewrite the relation was judged on (docs/REFERENCE.md#rewrites): the record's head is not in
    /// this history, a commit with its content is. Content proofs only: the origin's reflog is
    /// not here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
    /// Whether the origin's tree was dirty.
    pub origin_dirty: bool,
    /// The origin's uncommitted paths (at most 200).
    pub origin_changed: Vec<String>,
    /// How many paths were uncommitted at the origin.
    pub origin_changed_total: u64,
    /// Whether this checkout's tree is dirty.
    pub local_dirty: bool,
    /// Whether both trees hold the same uncommitted change (only when both are dirty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_uncommitted_work: Option<bool>,
}

/// The plan (docs/REFERENCE.md#plans output shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct ResumePlan {
    /// The answer.
    pub status: PlanStatus,
    /// The chosen record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordView>,
    /// The records to choose between (`choose_record`).
    pub candidates: Vec<RecordView>,
    /// The source comparison of the chosen record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceView>,
    /// relation(this checkout's position, chosen), when the position is in the store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lineage: Option<Relation>,
    /// The carried intent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<PlanTask>,
    /// The carried milestone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub milestone: Option<String>,
    /// Titles of the carried decisions.
    pub decisions: Vec<String>,
    /// Set (to the record's trust) when the chosen record is `untrusted` or `revoked`: it is
    /// named by id, device label, key id and verdict only — `task`, `milestone`, `decisions`,
    /// `source`, `objective`, `current_state` and `next_action` are not given and no command is
    /// built from it (issue 39, docs/SECURITY.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<Trust>,
    /// The handover's `# Objective` (`""` when absent; absent when `withheld`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objective: Option<String>,
    /// The handover's `# Current State` (`""` when absent; absent when `withheld`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_state: Option<String>,
    /// The handover's `# Next Action` (`""` when absent; absent when `withheld`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_action: Option<String>,
    /// What stops a resume.
    pub blockers: Vec<Notice>,
    /// What a resume should know.
    pub warnings: Vec<Notice>,
    /// Recommended commands (never run); when resumable, the first is the resume.
    pub actions: Vec<String>,
    /// What a resume restores.
    pub restores: Vec<String>,
    /// What the receiving checkout recomputes.
    pub recomputes: Vec<String>,
}

impl ResumePlan {
    fn empty(status: PlanStatus) -> ResumePlan {
        ResumePlan {
            status,
            record: None,
            candidates: Vec::new(),
            source: None,
            lineage: None,
            task: None,
            milestone: None,
            decisions: Vec::new(),
            withheld: None,
            objective: Some(String::new()),
            current_state: Some(String::new()),
            next_action: Some(String::new()),
            blockers: Vec::new(),
            warnings: Vec::new(),
            actions: Vec::new(),
            restores: Vec::new(),
            recomputes: Vec::new(),
        }
    }
}

/// One admitted record as the plan sees it: what the read model keeps of it, which is all a
/// choice between records reads, and the record whole when the caller has read it (the one
/// the plan judges is read whole: [`plan`]).
#[derive(Debug, Clone, Copy)]
pub struct PlanRecord<'a> {
    /// Its id.
    pub id: &'a str,
    /// What the read model keeps of it.
    pub summary: &'a Summary,
    /// The record, when read.
    pub record: Option<&'a Record>,
    /// The signer's standing (a `revoked` record is never chosen).
    pub trust: Trust,
    /// Whether this device published it.
    pub this_device: bool,
}

/// A refused store file: its path and diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedFile {
    /// Store path (`records/ab/cd/<id>.json`).
    pub path: String,
    /// Diagnostic code (`continuity.id_mismatch`, ...).
    pub code: Code,
    /// Diagnostic message.
    pub message: String,
}

/// What the caller found with git about the chosen record's source (the default: nothing known).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFacts {
    /// How the record's head stands to local HEAD (judged on the rewritten commit when
    /// `rewrite` is set).
    pub relation: SourceRelation,
    /// The rewrite a content proof found for a head the plain ancestry calls diverged.
    pub rewrite: Option<Rewrite>,
    /// For a record of another branch (`branch_differs`): where its work landed in this
    /// branch, when it did.
    pub landed: Option<Landed>,
    /// This checkout's branch (`None` when detached).
    pub local_branch: Option<String>,
    /// This checkout's head (`None` when unborn).
    pub local_head: Option<String>,
    /// Whether this checkout's tree is dirty.
    pub local_dirty: bool,
    /// This checkout's dirty-tree fingerprint (only when dirty).
    pub local_fingerprint: Option<String>,
}

/// Everything the plan needs, loaded by the caller.
#[derive(Debug, Clone, Copy)]
pub struct PlanInput<'a> {
    /// The admitted records with their trust.
    pub records: &'a [PlanRecord<'a>],
    /// The lineage over those records.
    pub lineage: &'a Lineage,
    /// The refused files of the store (for the `--record` prefix rule).
    pub refused: &'a [RefusedFile],
    /// The resumable record ids ([`resumable`]), in display order.
    pub offers: &'a [String],
    /// `--record`: any prefix, the empty one included.
    pub record_prefix: Option<&'a str>,
    /// The current branch (`None` when detached).
    pub branch: Option<&'a str>,
    /// This checkout's position on the branch (the record id in `continuity.json`).
    pub position: Option<&'a str>,
    /// The last sync, if any.
    pub last_sync: Option<&'a LastSync>,
    /// The default remote, if any.
    pub default_remote: Option<&'a str>,
    /// The instant of the plan.
    pub now: DateTime<Utc>,
}

impl PlanRecord<'_> {
    /// The record whole: that of the record judged ([`plan`] reads it).
    fn whole(&self) -> &Record {
        self.record.expect("the record a plan judges is read whole")
    }
}

impl<'a> PlanInput<'a> {
    fn find(&self, id: &str) -> Option<&PlanRecord<'a>> {
        self.records.iter().find(|p| p.id == id && p.trust != Trust::Revoked)
    }

    /// The remote the actions name: the last sync's, else the default, else `origin`.
    pub fn remote(&self) -> &str {
        self.last_sync.map(|s| s.remote.as_str()).or(self.default_remote).unwrap_or("origin")
    }

    fn view(&self, p: &PlanRecord<'_>) -> RecordView {
        RecordView::of(p.summary, p.trust, p.this_device, self.now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_stamp;
    use crate::record::{blake3_hex, CarriedDecision, Device, HandoverPart, Source, TaskIntent};

    const ME: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const OTHER: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    const HEAD: &str = "1111111111111111111111111111111111111111";
    const LOCAL_HEAD: &str = "2222222222222222222222222222222222222222";
    const NOW: &str = "2026-09-03T22:00:00Z";
    const BODY: &str = "# Objective\nMove the parser.\n\n# Current State\nHalf done.\n\n# Next Action\nFinish lib/a.\n";

    fn rid(n: &str) -> String {
        blake3_hex(n.as_bytes())
    }

    /// A first record published by the other device on `main` at HEAD, clean, with a task.
    fn rec() -> Record {
        Record {
            repository: "0".repeat(32),
            device: Device { node: OTHER.into(), label: "macbook-pro".into() },
            source: Source {
                branch: Some("main".into()),
                head: Some(HEAD.into()),
                working_tree: "clean".into(),
                changed: vec![],
                changed_total: 0,
                fingerprint: None,
            },
            task: Some(TaskIntent {
                id: "t-1".into(),
                title: "Ship it".into(),
                profile: Some("deep-work".into()),
                scope: vec!["src".into(), "docs".into()],
                outcome: None,
            }),
            decisions: vec![CarriedDecision { title: "Use a lexer".into(), text: "because".into() }],
            ends: Vec::new(),
            handover: HandoverPart {
                id: "0".repeat(32),
                task: Some("t-1".into()),
                issue: Some("#184".into()),
                milestone: Some("m1".into()),
                branch: Some("main".into()),
                head: Some(HEAD.into()),
                created_at: None,
                name: None,
                body: BODY.into(),
                citations: Vec::new(),
            },
            ..crate::record::tests::sample()
        }
    }

    /// A record continuing `parent` on `line` (names).
    fn cont(mut r: Record, parent: &str, line: &str) -> Record {
        r.parent = Some(rid(parent));
        r.line = Some(rid(line));
        r
    }

    fn mine(mut r: Record) -> Record {
        r.device = Device { node: ME.into(), label: "mac-mini".into() };
        r
    }

    fn facts(relation: SourceRelation) -> SourceFacts {
        SourceFacts {
            relation,
            rewrite: None,
            landed: None,
            local_branch: Some("main".into()),
            local_head: Some(LOCAL_HEAD.into()),
            local_dirty: false,
            local_fingerprint: None,
        }
    }

    #[derive(Clone)]
    struct World {
        recs: Vec<(String, Record, Trust)>,
        refused: Vec<RefusedFile>,
        prefix: Option<String>,
        branch: Option<String>,
        position: Option<String>,
        last_sync: Option<LastSync>,
        default_remote: Option<String>,
        now: DateTime<Utc>,
    }

    impl World {
        fn new() -> World {
            World {
                recs: vec![],
                refused: vec![],
                prefix: None,
                branch: Some("main".into()),
                position: None,
                last_sync: None,
                default_remote: None,
                now: parse_stamp(NOW).unwrap(),
            }
        }

        fn with(mut self, name: &str, r: Record, trust: Trust) -> World {
            let trust = if r.device.node == ME { Trust::ThisDevice } else { trust };
            self.recs.push((rid(name), r, trust));
            self
        }

        fn record(&self, prefix: &str) -> World {
            let mut w = self.clone();
            w.prefix = Some(prefix.into());
            w
        }

        fn at(mut self, position: &str) -> World {
            self.position = Some(rid(position));
            self
        }

        /// The plan, the records given whole or read only when chosen (as `continuity plan`
        /// does): the same plan either way.
        fn run(&self, f: SourceFacts) -> ResumePlan {
            let given = self.run_with(f.clone(), false);
            assert_eq!(self.run_with(f, true), given, "reading only the chosen record whole changes the plan");
            given
        }

        fn run_with(&self, f: SourceFacts, unread: bool) -> ResumePlan {
            let lineage = Lineage::new(self.recs.iter().map(|(i, r, _)| (i.as_str(), r)));
            let summaries: Vec<Summary> = self.recs.iter().map(|(i, r, _)| Summary::of(i, "", "", r)).collect();
            let records: Vec<PlanRecord<'_>> = self
                .recs
                .iter()
                .zip(&summaries)
                .map(|((i, r, t), s)| PlanRecord {
                    id: i,
                    summary: s,
                    record: (!unread).then_some(r),
                    trust: *t,
                    this_device: r.device.node == ME,
                })
                .collect();
            let whole = |p: &PlanRecord<'_>| self.recs.iter().find(|(i, _, _)| i == p.id).map(|(_, r, _)| r.clone());
            let positions: Vec<&str> = self.position.iter().map(String::as_str).collect();
            let offers = resumable(self.recs.iter().map(|(i, r, _)| (i.as_str(), r)), &lineage, Some(ME), &positions);
            let input = PlanInput {
                records: &records,
                lineage: &lineage,
                refused: &self.refused,
                offers: &offers,
                record_prefix: self.prefix.as_deref(),
                branch: self.branch.as_deref(),
                position: self.position.as_deref(),
                last_sync: self.last_sync.as_ref(),
                default_remote: self.default_remote.as_deref(),
                now: self.now,
            };
            plan(&input, &whole, &|_, _| f.clone())
        }
    }

    fn codes(n: &[Notice]) -> Vec<&str> {
        n.iter().map(|n| n.code.as_str()).collect()
    }

    fn resume_action(name: &str) -> String {
        format!("git majordomus continuity resume --record {}", &rid(name)[..12])
    }

    #[test]
    fn ready_plan_restores_everything() {
        let p = World::new().with("r1", rec(), Trust::Trusted).run(facts(SourceRelation::Exact));
        assert_eq!(p.status, PlanStatus::Ready);
        assert!(p.blockers.is_empty() && p.warnings.is_empty(), "{p:?}");
        assert_eq!(
            p.actions,
            vec![
                resume_action("r1"),
                "git majordomus start 'Ship it' --scope src,docs --profile deep-work".to_string()
            ]
        );
        assert_eq!(p.restores, ["handover", "intent", "issue", "decisions", "next_action", "lineage", "provenance"]);
        assert_eq!(p.recomputes, ["worktree", "repository_id", "episode", "working_context", "local_source_state"]);
        assert_eq!(
            (p.objective.as_deref().unwrap(), p.current_state.as_deref().unwrap(), p.next_action.as_deref().unwrap()),
            ("Move the parser.", "Half done.", "Finish lib/a.")
        );
        assert_eq!(p.decisions, ["Use a lexer"]);
        assert_eq!(p.milestone.as_deref(), Some("m1"));
        assert_eq!(
            p.task,
            Some(PlanTask {
                id: "t-1".into(),
                title: "Ship it".into(),
                profile: Some("deep-work".into()),
                scope: vec!["src".into(), "docs".into()]
            })
        );
        let v = p.record.as_ref().unwrap();
        assert_eq!(
            (v.id.as_str(), v.trust, v.this_device, v.issue.as_deref()),
            (rid("r1").as_str(), Trust::Trusted, false, Some("#184"))
        );
        assert_eq!(p.lineage, None, "no position on this branch");
        let s = p.source.as_ref().unwrap();
        assert_eq!((s.relation, s.origin_dirty, s.same_uncommitted_work), (SourceRelation::Exact, false, None));
        assert_eq!(s.expected_head.as_deref(), Some(HEAD));

        let j = serde_json::to_value(&p).unwrap();
        assert_eq!(j["status"], "ready");
        assert_eq!(j["source"]["relation"], "exact");
        assert!(j["source"].get("same_uncommitted_work").is_none());
        assert!(j.get("lineage").is_none());
        for k in [
            "status",
            "record",
            "candidates",
            "source",
            "task",
            "milestone",
            "decisions",
            "objective",
            "current_state",
            "next_action",
            "blockers",
            "warnings",
            "actions",
            "restores",
            "recomputes",
        ] {
            assert!(j.get(k).is_some(), "{k} missing");
        }
        for k in [
            "expected_branch",
            "expected_head",
            "local_branch",
            "local_head",
            "relation",
            "origin_dirty",
            "origin_changed",
            "origin_changed_total",
            "local_dirty",
        ] {
            assert!(j["source"].get(k).is_some(), "source.{k} missing");
        }
    }

    #[test]
    fn task_without_scope_or_profile_and_no_task() {
        let mut r = rec();
        r.task = Some(TaskIntent {
            id: "t-2".into(),
            title: "Don't panic".into(),
            profile: None,
            scope: vec![],
            outcome: None,
        });
        let p = World::new().with("r1", r, Trust::Trusted).run(facts(SourceRelation::Exact));
        assert_eq!(p.actions[1], r"git majordomus start 'Don'\''t panic'");
        let mut r = rec();
        r.task = None;
        let p = World::new().with("r1", r, Trust::Trusted).run(facts(SourceRelation::Exact));
        assert_eq!(p.actions, vec![resume_action("r1")]);
        assert_eq!(p.task, None);
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(single_quote("it's"), r"'it'\''s'");
        assert_eq!(single_quote(""), "''");
        assert_eq!(
            start_command("Fix Bob's parser", &["src/a".into(), "b".into()], Some("routine")),
            r"git majordomus start 'Fix Bob'\''s parser' --scope src/a,b --profile routine"
        );
        assert_eq!(shell_word("feature/x"), "feature/x");
        assert_eq!(shell_word("x;rm -rf ~"), "'x;rm -rf ~'");
        assert_eq!(shell_word("$(id)"), "'$(id)'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("#184"), "'#184'");
        assert_eq!(start_command("t", &["my dir".into()], None), "git majordomus start 't' --scope 'my dir'");
    }

    #[test]
    fn untrusted_is_refused_and_undeclared_warns() {
        let p = World::new().with("r1", rec(), Trust::Untrusted).run(facts(SourceRelation::Exact));
        assert_eq!(p.status, PlanStatus::Refused);
        assert_eq!(codes(&p.blockers), ["origin_untrusted"]);
        assert!(p.blockers[0].message.contains("trust.allow") && p.blockers[0].message.contains(".ai/repo/mesh/"));
        assert_eq!(p.record.as_ref().unwrap().trust, Trust::Untrusted);
        assert!(!p.actions.iter().any(|a| a.contains("resume")));
        assert_eq!(serde_json::to_value(&p).unwrap()["record"]["trust"], "untrusted");
        // Withheld (issue 39): nothing of its text, no command built from it.
        assert_eq!(p.withheld, Some(Trust::Untrusted));
        assert_eq!((p.objective.as_ref(), p.current_state.as_ref(), p.next_action.as_ref()), (None, None, None));
        assert!(p.task.is_none() && p.decisions.is_empty() && p.source.is_none() && p.milestone.is_none());
        assert!(p.actions.is_empty(), "{:?}", p.actions);
        let j = serde_json::to_value(&p).unwrap();
        assert_eq!(j["withheld"], "untrusted");
        assert!(j.get("next_action").is_none() && j.get("objective").is_none());
        for text in ["Move the parser", "Half done", "Finish lib/a", "start '"] {
            assert!(!j.to_string().contains(text), "{text} quoted: {j}");
        }

        let p = World::new().with("r1", rec(), Trust::Undeclared).run(facts(SourceRelation::Exact));
        assert_eq!(p.status, PlanStatus::ReadyWithWarnings);
        assert_eq!(codes(&p.warnings), ["origin_undeclared"]);
        assert!(p.blockers.is_empty());
        assert_eq!(p.actions[0], resume_action("r1"));
    }

    #[test]
    fn revoked_records_are_never_chosen() {
        let w = World::new().with("r1", rec(), Trust::Revoked);
        assert_eq!(w.run(facts(SourceRelation::Exact)).status, PlanStatus::NothingToResume);
        let p = w.record(&rid("r1")[..6]).run(facts(SourceRelation::Exact));
        assert_eq!((p.status, codes(&p.blockers)), (PlanStatus::NothingToResume, vec!["record_unknown"]));
    }

    /// docs/REFERENCE.md#plans / scenario 823: A published r1; B resumed it and published r2; A published
    /// r3 from r1. B's plan.
    fn diverged_world() -> World {
        World::new()
            .with("r1", rec(), Trust::Trusted)
            .with("r2", mine(cont(rec(), "r1", "r1")), Trust::ThisDevice)
            .with("r3", cont(rec(), "r1", "r1"), Trust::Trusted)
            .at("r2")
    }

    #[test]
    fn diverged_line_implicit_is_a_conflict() {
        let p = diverged_world().run(facts(SourceRelation::Exact));
        assert_eq!(p.status, PlanStatus::Conflict);
        assert_eq!(p.record.as_ref().unwrap().id, rid("r3"));
        assert_eq!(codes(&p.blockers), ["line_diverged", "would_diverge"]);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.lineage, Some(Relation::Diverged));
        assert!(!p.actions.iter().any(|a| a.contains("continuity resume")));
        assert!(
            p.blockers[0].message.contains(short_id(&rid("r2")))
                && p.blockers[0].message.contains(short_id(&rid("r3")))
        );
    }

    #[test]
    fn diverged_line_explicit_is_ready_with_warnings() {
        let p = diverged_world().record(&rid("r3")).run(facts(SourceRelation::Exact));
        assert_eq!(p.status, PlanStatus::ReadyWithWarnings);
        assert!(p.blockers.is_empty(), "{:?}", p.blockers);
        assert_eq!(codes(&p.warnings), ["line_diverged", "would_diverge"]);
        assert_eq!(p.actions[0], resume_action("r3"));
        let j = serde_json::to_value(&p).unwrap();
        assert_eq!(j["lineage"], "diverged");
        assert_eq!(j["status"], "ready_with_warnings");
    }

    #[test]
    fn position_relations() {
        // equal: resuming again.
        let w = World::new().with("r1", rec(), Trust::Trusted).at("r1").record(&rid("r1")[..12]);
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!(
            (p.status, p.lineage, codes(&p.warnings)),
            (PlanStatus::ReadyWithWarnings, Some(Relation::Equal), vec!["already_resumed"])
        );
        // older: this checkout continued past the chosen record.
        let w = World::new()
            .with("r1", rec(), Trust::Trusted)
            .with("r2", mine(cont(rec(), "r1", "r1")), Trust::ThisDevice)
            .at("r2")
            .record(&rid("r1"));
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!((p.lineage, codes(&p.warnings)), (Some(Relation::Older), vec!["already_resumed"]));
        // newer: the other device continued this checkout's record (scenario 821, A after B).
        let w = World::new()
            .with("r1", mine(rec()), Trust::ThisDevice)
            .with("r2", cont(rec(), "r1", "r1"), Trust::Trusted)
            .at("r1");
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!((p.status, p.lineage), (PlanStatus::Ready, Some(Relation::Newer)));
        assert_eq!(p.record.unwrap().id, rid("r2"));
        // independent: a position on another line.
        let w = World::new().with("r1", rec(), Trust::Trusted).with("x", mine(rec()), Trust::ThisDevice).at("x");
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!((p.status, p.lineage), (PlanStatus::Ready, Some(Relation::Independent)));
        // a position not in the store: no lineage.
        let w = World::new().with("r1", rec(), Trust::Trusted).at("gone");
        assert_eq!(w.run(facts(SourceRelation::Exact)).lineage, None);
    }

    #[test]
    fn lineage_incomplete() {
        let p = World::new().with("r2", cont(rec(), "r1", "r1"), Trust::Trusted).run(facts(SourceRelation::Exact));
        assert_eq!((p.status, codes(&p.warnings)), (PlanStatus::ReadyWithWarnings, vec!["lineage_incomplete"]));
    }

    #[test]
    fn origin_may_be_active() {
        let mut r = rec();
        r.episode = "open".into();
        r.published_at = "2026-09-03T21:30:00Z".into();
        let p = World::new().with("r1", r.clone(), Trust::Trusted).run(facts(SourceRelation::Exact));
        assert_eq!((p.status, codes(&p.warnings)), (PlanStatus::ReadyWithWarnings, vec!["origin_may_be_active"]));
        assert!(p.warnings[0].message.contains("30 minute(s)"));
        let mut old = r.clone();
        old.published_at = "2026-09-03T21:00:00Z".into();
        assert!(
            World::new().with("r1", old, Trust::Trusted).run(facts(SourceRelation::Exact)).warnings.is_empty(),
            "60 minutes is no longer active"
        );
        let p =
            World::new().with("r1", mine(r.clone()), Trust::ThisDevice).record("").run(facts(SourceRelation::Exact));
        assert!(p.warnings.is_empty(), "this device's own episode: {:?}", p.warnings);
        let mut closed = r;
        closed.episode = "none".into();
        assert!(World::new().with("r1", closed, Trust::Trusted).run(facts(SourceRelation::Exact)).warnings.is_empty());
    }

    #[test]
    fn source_relations() {
        let w = World::new().with("r1", rec(), Trust::Trusted);
        let p = w.run(facts(SourceRelation::LocalAhead));
        assert_eq!((p.status, codes(&p.warnings)), (PlanStatus::ReadyWithWarnings, vec!["local_ahead"]));
        assert_eq!(p.actions[0], resume_action("r1"));

        let p = w.run(facts(SourceRelation::LocalBehind));
        assert_eq!((p.status, codes(&p.blockers)), (PlanStatus::RequiresSourceUpdate, vec!["local_behind"]));
        assert_eq!(p.actions[0], "git pull --ff-only origin main");

        let p = w.run(facts(SourceRelation::Diverged));
        assert_eq!((p.status, codes(&p.blockers)), (PlanStatus::Conflict, vec!["source_diverged"]));

        let p = w.run(facts(SourceRelation::HeadMissing));
        assert_eq!((p.status, codes(&p.blockers)), (PlanStatus::RequiresSourceUpdate, vec!["head_missing"]));
        assert_eq!(p.actions[0], "git fetch origin");
        assert!(!p.actions.iter().any(|a| a.contains("continuity resume")));

        let p = w.run(facts(SourceRelation::Unknown));
        assert_eq!((p.status, codes(&p.warnings)), (PlanStatus::ReadyWithWarnings, vec!["source_unknown"]));

        // A record without a head is unknown whatever the caller says.
        let mut r = rec();
        r.source.head = None;
        let p = World::new().with("r1", r, Trust::Trusted).run(facts(SourceRelation::Exact));
        assert_eq!(p.source.unwrap().relation, SourceRelation::Unknown);
        let mut f = facts(SourceRelation::Exact);
        f.local_head = None;
        assert_eq!(w.run(f).source.unwrap().relation, SourceRelation::Unknown);
    }

    #[test]
    fn remote_for_actions() {
        let mut w = World::new().with("r1", rec(), Trust::Trusted);
        w.default_remote = Some("upstream".into());
        assert_eq!(w.run(facts(SourceRelation::HeadMissing)).actions[0], "git fetch upstream");
        w.last_sync = Some(LastSync {
            remote: "lab".into(),
            at: "2026-09-03T21:00:00Z".into(),
            outcome: crate::local::SyncOutcome::Ok,
            detail: None,
        });
        assert_eq!(w.run(facts(SourceRelation::LocalBehind)).actions[0], "git pull --ff-only lab main");
    }

    /// docs/REFERENCE.md#plans / scenario 824: two devices, two branches, two lines.
    #[test]
    fn other_branch_needs_a_switch_only() {
        let mut theirs = rec();
        theirs.source.branch = Some("feature/x".into());
        theirs.handover.issue = Some("#2".into());
        let w = World::new().with("a1", theirs, Trust::Trusted).with("b1", mine(rec()), Trust::ThisDevice).at("b1");
        let lineage = Lineage::new(w.recs.iter().map(|(i, r, _)| (i.as_str(), r)));
        assert!(lineage.lines().iter().all(|l| l.state == LineState::Linear));
        assert!(lineage.findings(&|_| None).is_empty());
        let mut f = facts(SourceRelation::BranchDiffers);
        f.local_head = Some(HEAD.into());
        let p = w.run(f);
        assert_eq!(p.status, PlanStatus::RequiresSourceUpdate);
        assert_eq!(codes(&p.blockers), ["branch_differs"]);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.actions[0], "git switch feature/x");
        assert_eq!(p.lineage, Some(Relation::Independent));
        assert_eq!(p.record.unwrap().issue.as_deref(), Some("#2"));
    }

    fn proof(kind: crate::model::labels::ProofKind) -> crate::model::labels::Proof {
        crate::model::labels::Proof { kind, value: "9".repeat(40) }
    }

    /// Issue 22: a record of another branch whose work landed here is nothing to resume — no
    /// `git switch` to go and resume it, no `start`, and `resume` refuses (not resumable).
    #[test]
    fn work_that_landed_here_is_nothing_to_resume() {
        use crate::model::labels::{ProofKind, RewriteBy};
        let mut theirs = rec();
        theirs.source.branch = Some("feature/x".into());
        let w = World::new().with("a1", theirs, Trust::Trusted);
        let landed = Landed {
            branch: "main".into(),
            commit: majordomus_core::oid::Oid::parse(LOCAL_HEAD).unwrap(),
            by: RewriteBy::SquashMerge,
            proof: proof(ProofKind::RangePatchId),
        };
        let mut f = facts(SourceRelation::BranchDiffers);
        f.landed = Some(landed.clone());
        let p = w.run(f.clone());
        assert_eq!(p.status, PlanStatus::NothingToResume);
        assert!(!p.status.is_resumable() && p.status.exits_zero());
        assert_eq!(codes(&p.blockers), ["landed"]);
        assert_eq!(
            p.blockers[0].message,
            "this record's work landed in main as 2222222 (squash-merge — range-patch-id): nothing to resume"
        );
        assert!(p.actions.is_empty(), "{:?}", p.actions);
        assert_eq!(p.record.as_ref().and_then(|r| r.landed.clone()), Some(landed.clone()));
        // An untrusted origin still refuses.
        let w2 = World::new().with("a1", w.recs[0].1.clone(), Trust::Untrusted);
        assert_eq!(w2.run(f.clone()).status, PlanStatus::Refused);
        // A landing only counts for a record of another branch.
        f.relation = SourceRelation::Exact;
        let p = w.run(f);
        assert_eq!(p.status, PlanStatus::Ready);
        assert!(p.record.unwrap().landed.is_none());
    }

    /// Issue 22: a proven rewrite travels beside the relation it earned, never beside another.
    #[test]
    fn a_rewrite_is_shown_beside_the_relation_it_earned() {
        use crate::model::labels::{ProofKind, RewriteBy};
        let w = World::new().with("a1", rec(), Trust::Trusted);
        let rw = Rewrite {
            from: HEAD.into(),
            to: majordomus_core::oid::Oid::parse(LOCAL_HEAD).unwrap(),
            by: RewriteBy::Unknown,
            proof: proof(ProofKind::PatchId),
        };
        let mut f = facts(SourceRelation::Exact);
        f.rewrite = Some(rw.clone());
        let p = w.run(f.clone());
        assert_eq!((p.status, p.source.unwrap().rewrite), (PlanStatus::Ready, Some(rw.clone())));
        f.relation = SourceRelation::LocalAhead;
        let p = w.run(f.clone());
        assert_eq!(codes(&p.warnings), ["local_ahead"]);
        assert!(p.warnings[0]
            .message
            .contains("after 2222222, which holds the record's head 111111111111 rewritten (patch-id)"));
        f.relation = SourceRelation::Diverged;
        assert_eq!(w.run(f).source.unwrap().rewrite, None);
    }

    #[test]
    fn dirty_origin_and_fingerprints() {
        let mut r = rec();
        r.source.working_tree = "dirty".into();
        r.source.changed = vec!["lib/a".into(), "lib/new".into()];
        r.source.changed_total = 2;
        r.source.fingerprint = Some("f".repeat(32));
        let w = World::new().with("r1", r, Trust::Trusted);

        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!((p.status, codes(&p.warnings)), (PlanStatus::ReadyWithWarnings, vec!["source_incomplete"]));
        let s = p.source.unwrap();
        assert_eq!(s.origin_changed, ["lib/a", "lib/new"]);
        assert_eq!((s.origin_dirty, s.origin_changed_total, s.same_uncommitted_work), (true, 2, None));

        let mut same = facts(SourceRelation::Exact);
        same.local_dirty = true;
        same.local_fingerprint = Some("f".repeat(32));
        let p = w.run(same.clone());
        assert_eq!(p.status, PlanStatus::Ready, "{:?}", p.warnings);
        assert_eq!(p.source.as_ref().unwrap().same_uncommitted_work, Some(true));
        assert_eq!(serde_json::to_value(&p).unwrap()["source"]["same_uncommitted_work"], true);

        let mut other = same;
        other.local_fingerprint = Some("e".repeat(32));
        let p = w.run(other);
        assert_eq!(codes(&p.warnings), ["source_incomplete", "local_dirty"]);
        assert_eq!(p.source.unwrap().same_uncommitted_work, Some(false));

        let mut local_only = facts(SourceRelation::Exact);
        local_only.local_dirty = true;
        local_only.local_fingerprint = Some("f".repeat(32));
        let p = World::new().with("r1", rec(), Trust::Trusted).run(local_only);
        assert_eq!(codes(&p.warnings), ["local_dirty"]);
        assert_eq!(p.source.unwrap().same_uncommitted_work, None);
    }

    #[test]
    fn status_precedence() {
        let mut r = cont(rec(), "r0", "r0");
        r.episode = "open".into();
        r.published_at = "2026-09-03T21:59:00Z".into();
        let w = World::new().with("r0", rec(), Trust::Untrusted).with("r1", r.clone(), Trust::Untrusted).with(
            "r2",
            cont(rec(), "r0", "r0"),
            Trust::Trusted,
        );
        // refused > conflict > requires_source_update.
        let p = w.record(&rid("r1")).run(facts(SourceRelation::Diverged));
        assert_eq!(p.status, PlanStatus::Refused);
        let w = World::new()
            .with("r0", rec(), Trust::Trusted)
            .with("r1", r, Trust::Trusted)
            .with("r2", mine(cont(rec(), "r0", "r0")), Trust::ThisDevice)
            .at("r2");
        let p = w.run(facts(SourceRelation::HeadMissing));
        assert_eq!(p.status, PlanStatus::Conflict);
        assert_eq!(codes(&p.blockers), ["line_diverged", "would_diverge", "head_missing"]);
        assert_eq!(codes(&p.warnings), ["origin_may_be_active"]);
        assert_eq!(p.actions[0], "git fetch origin");
    }

    #[test]
    fn record_prefix_rules() {
        let w = World::new().with("r1", rec(), Trust::Trusted).with("r2", cont(rec(), "r1", "r1"), Trust::Trusted);
        // unique → it, even a record that is not offered.
        let p = w.record(&rid("r1")[..10]).run(facts(SourceRelation::Exact));
        assert_eq!(p.record.unwrap().id, rid("r1"));
        assert_eq!(p.lineage, None);
    }

    #[test]
    fn record_prefix_none_or_several() {
        let mut r2 = cont(rec(), "r1", "r1");
        r2.published_at = "2026-09-03T21:00:00Z".into();
        let mut w = World::new().with("r1", rec(), Trust::Trusted).with("r2", r2, Trust::Trusted);
        let p = w.record("zz").run(facts(SourceRelation::Exact));
        assert_eq!(p.status, PlanStatus::NothingToResume);
        assert_eq!(codes(&p.blockers), ["record_unknown"]);
        assert_eq!(p.actions, [SYNC_ACTION]);
        assert!(p.record.is_none() && p.candidates.is_empty() && p.restores.is_empty());

        let bad = "deadbeef".repeat(8);
        w.refused.push(RefusedFile {
            path: format!("records/de/ad/{bad}.json"),
            code: Code::IdMismatch,
            message: "digest differs".into(),
        });
        let mut w = w.record("deadbe");
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!((p.status, codes(&p.blockers)), (PlanStatus::NothingToResume, vec!["continuity.id_mismatch"]));
        assert_eq!(p.actions, [SYNC_ACTION]);

        w.prefix = Some(String::new());
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!(p.status, PlanStatus::ChooseRecord);
        let ids: Vec<&str> = p.candidates.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, [rid("r2").as_str(), rid("r1").as_str()], "newest published_at first");
        assert!(p.record.is_none() && p.source.is_none());
        assert_eq!(serde_json::to_value(&p).unwrap()["status"], "choose_record");
    }

    #[test]
    fn implicit_choice() {
        // Nothing offered, never synced: warning and the sync action.
        let w = World::new().with("r1", mine(rec()), Trust::ThisDevice);
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!(
            (p.status, codes(&p.warnings), p.actions.clone()),
            (PlanStatus::NothingToResume, vec!["nothing_published"], vec![SYNC_ACTION.to_string()])
        );
        assert!(p.blockers.is_empty());
        // After an (unreachable) sync: only the warning, naming it.
        let mut w = World::new();
        w.last_sync = Some(LastSync {
            remote: "origin".into(),
            at: "2026-09-03T21:00:00Z".into(),
            outcome: crate::local::SyncOutcome::Unreachable,
            detail: None,
        });
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!(codes(&p.warnings), ["nothing_published"]);
        assert!(p.actions.is_empty() && p.blockers.is_empty());
        assert!(p.warnings[0].message.contains("origin") && p.warnings[0].message.contains("unreachable"));

        // Two lines on this branch: a choice, not a conflict.
        let mut other_branch = rec();
        other_branch.source.branch = Some("feature/x".into());
        let w = World::new().with("a", rec(), Trust::Trusted).with("b", rec(), Trust::Trusted).with(
            "c",
            other_branch.clone(),
            Trust::Trusted,
        );
        let p = w.run(facts(SourceRelation::Exact));
        assert_eq!((p.status, codes(&p.blockers)), (PlanStatus::ChooseRecord, vec!["several_resumable"]));
        assert_eq!(p.candidates.len(), 2, "only the offers on this branch");
        // One on this branch, one elsewhere: the one here.
        let w = World::new().with("a", rec(), Trust::Trusted).with("c", other_branch.clone(), Trust::Trusted);
        assert_eq!(w.run(facts(SourceRelation::Exact)).record.unwrap().id, rid("a"));
        // None on this branch: all offers.
        let mut w = World::new().with("c", other_branch, Trust::Trusted);
        w.branch = None;
        assert_eq!(w.run(facts(SourceRelation::BranchDiffers)).record.unwrap().id, rid("c"));
    }

    #[test]
    fn resumable_offers() {
        let mut late = cont(rec(), "r1", "r1");
        late.published_at = "2026-09-03T21:00:00Z".into();
        let x = rec();
        let mut y = rec();
        y.handover.body = "# Objective\ny\n".into();
        let recs =
            [(rid("r1"), rec()), (rid("r2"), late), (rid("x"), x.clone()), (rid("y"), y), (rid("m"), mine(rec()))];
        let lineage = Lineage::new(recs.iter().map(|(i, r)| (i.as_str(), r)));
        let all = |pos: &[&str]| resumable(recs.iter().map(|(i, r)| (i.as_str(), r)), &lineage, Some(ME), pos);
        let mut same_time = vec![rid("x"), rid("y")];
        same_time.sort();
        let want: Vec<String> = std::iter::once(rid("r2")).chain(same_time.clone()).collect();
        assert_eq!(all(&[]), want, "heads of other devices, newest first then id; r1 is continued, m is mine");
        let r2 = rid("r2");
        assert_eq!(all(&[r2.as_str()]), same_time, "a position equal to a head");
        let mine_on = mine(cont(rec(), "x", "x"));
        let recs2 = [(rid("x"), x), (rid("mx"), mine_on)];
        let lineage2 = Lineage::new(recs2.iter().map(|(i, r)| (i.as_str(), r)));
        let mx = rid("mx");
        assert!(
            resumable(recs2.iter().map(|(i, r)| (i.as_str(), r)), &lineage2, Some(ME), &[mx.as_str()]).is_empty(),
            "my own head descends from x, which is then no head"
        );
        assert_eq!(
            resumable(recs.iter().map(|(i, r)| (i.as_str(), r)), &lineage, None, &[]).len(),
            4,
            "no device identity: every head is another's"
        );

        let o = offer_of(&rid("r1"), &rec());
        assert_eq!(
            (o.device.as_str(), o.branch.as_deref(), o.task.as_deref(), o.issue.as_deref()),
            ("macbook-pro", Some("main"), Some("Ship it"), Some("#184"))
        );
    }

    #[test]
    fn judge_unknown_id_and_statuses() {
        let recs: Vec<PlanRecord<'_>> = Vec::new();
        let lineage = Lineage::default();
        let input = PlanInput {
            records: &recs,
            lineage: &lineage,
            refused: &[],
            offers: &[],
            record_prefix: None,
            branch: None,
            position: None,
            last_sync: None,
            default_remote: None,
            now: parse_stamp(NOW).unwrap(),
        };
        let p = judge(&input, &Chosen { id: "abc".into(), explicit: true }, None, &facts(SourceRelation::Exact));
        assert_eq!((p.status, codes(&p.blockers)), (PlanStatus::NothingToResume, vec!["record_unknown"]));
        assert_eq!(input.remote(), "origin");
        assert!(matches!(choose(&input), Choice::Settled(_)));
        for (s, ok, word) in [
            (PlanStatus::Ready, true, "ready"),
            (PlanStatus::ReadyWithWarnings, true, "ready_with_warnings"),
            (PlanStatus::NothingToResume, true, "nothing_to_resume"),
            (PlanStatus::RequiresSourceUpdate, false, "requires_source_update"),
            (PlanStatus::Conflict, false, "conflict"),
            (PlanStatus::ChooseRecord, false, "choose_record"),
            (PlanStatus::Refused, false, "refused"),
        ] {
            assert_eq!((s.exits_zero(), s.as_str()), (ok, word));
            assert_eq!(serde_json::to_value(s).unwrap(), word);
        }
        for r in [
            SourceRelation::Unknown,
            SourceRelation::HeadMissing,
            SourceRelation::BranchDiffers,
            SourceRelation::Exact,
            SourceRelation::LocalAhead,
            SourceRelation::LocalBehind,
            SourceRelation::Diverged,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }
}
