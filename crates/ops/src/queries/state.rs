//! `continuity.state` (docs/REFERENCE.md#surfaces): what the lifecycle of this checkout is holding — the open
//! episode (read through the pointer only), the active task, the handover and checkpoint that
//! resolve here with both labels, the blockers and the tallies. One value for the CLI
//! (`state --json`), MCP (`majordomus_continuity`) and HTTP (`GET /api/v1/continuity`).
//!
//! The resolved handover with its body by section (`handover --resolve --json`,
//! `majordomus_handover`, `GET /api/v1/handover`) is here too: it carries the same [`Record`].
//!
//! Owns: the `Continuity` and `ResolvedHandover` read models. Must not touch: writes of any kind (it never writes),
//! resolution rules (it calls `resolve`, `labelled::label`, `resolve::shown_checkpoint`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::Anchor;
use crate::model::labels::{Divergence, FreshnessLabel, WorkingTree};
use crate::model::record::section_texts;
use crate::model::task::Outcome;
use crate::oid::Oid;
use crate::services::labelled::{label_preferred, resolve_labelled, Labelled, NextAction};
use crate::services::resolve::shown_checkpoint;
use crate::services::task;
use crate::store::questions::{self, Entry};
use crate::store::records::names;
use crate::store::sessions::{open_path, pointer_key, read_open};

/// What the lifecycle of this checkout is holding.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Continuity {
    /// Whether this checkout's lifecycle has ever run: a ledger line, a task, an episode or a
    /// record (not merely "the directory exists").
    pub present: bool,
    /// The worktree this answer is about.
    pub worktree: String,
    /// The branch, or `DETACHED`.
    pub branch: String,
    /// The commit this checkout is on (omitted on an unborn branch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<Oid>,
    /// `clean` or `dirty`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub working_tree: Option<WorkingTree>,
    /// The open episode the pointer resolves to, or null.
    pub session: Option<OpenSessionView>,
    /// The active task, or null.
    pub task: Option<ActiveTask>,
    /// The handover the next worker would resume from, or null.
    pub handover: Option<Record>,
    /// The newest checkpoint for this worktree and branch, or null.
    pub checkpoint: Option<Record>,
    /// Unresolved questions (the text after `- [unresolved] `).
    pub blockers: Vec<String>,
    /// Record counts: `handovers`, `checkpoints`, `blockers`, `ledger_lines`.
    pub tallies: BTreeMap<String, u64>,
    /// What a reader should know before trusting the above, one sentence each.
    pub findings: Vec<String>,
}

/// The open episode this checkout points at.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct OpenSessionView {
    /// The episode's id.
    pub session_id: String,
    /// When it opened.
    pub started_at: String,
    /// Who opened it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The worker identity, when one was supplied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// The provider whose event opened it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// That provider's own session identity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_session: Option<String>,
    /// The branch it opened on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The commit it opened at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_head: Option<String>,
    /// True when the episode file names another checkout.
    pub foreign: bool,
}

/// The active task of this checkout.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct ActiveTask {
    /// The task id.
    pub id: String,
    /// What is being worked on.
    pub task: String,
    /// The execution profile.
    pub profile: String,
    /// Its outcome so far.
    pub outcome: Outcome,
    /// The paths it claims.
    pub scope: Vec<String>,
    /// The obligations it owes before `completed`.
    pub requires: Vec<String>,
    /// When it started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// The commit it started at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
}

/// One resolved record, as much of it as a reader needs to decide whether to open the file.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Record {
    /// Repository-relative path.
    pub path: String,
    /// When the record says it was written.
    pub created_at: String,
    /// The task it belongs to, or `none`.
    pub task_id: String,
    /// The branch it was written on.
    pub branch: String,
    /// The commit it was written at.
    pub head: String,
    /// Whether the working tree was clean or dirty then.
    pub working_tree: String,
    /// Which tier of the resolution rule matched.
    pub matched: crate::services::resolve::Match,
    /// How far its commit is from this one (judged on the rewritten commit when `rewrite` is
    /// set).
    pub divergence: Divergence,
    /// The rewrite that earned the word, when one is proven: the recorded `head` became `to`
    /// (docs/REFERENCE.md#rewrites). Computed when read, never stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<crate::model::labels::Rewrite>,
    /// How old it is, judged against `session.freshness`.
    pub freshness: FreshnessLabel,
    /// Its age in whole minutes, when its timestamp parses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_minutes: Option<i64>,
    /// Why it was judged that way (never empty).
    pub freshness_reason: String,
    /// The `Next Action` section, when the record has one and is still current.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_action: Option<String>,
    /// Why `next_action` is absent although the record has one (stale or invalid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_action_withheld: Option<String>,
    /// Who wrote it: `authored` (a person or an agent) or `derived` (the tool, from its
    /// records and git).
    pub origin: crate::model::record::Origin,
    /// The newer derived record of the same task or episode this authored one was preferred to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed_over: Option<String>,
    /// For a handover resumed from another machine: the continuity record, the device label
    /// and the key id it came from (issue 39).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrived: Option<crate::services::labelled::Arrived>,
    /// The paths it cites, each labelled from git now (docs/REFERENCE.md#citations); absent
    /// for a record that cites nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citations: Vec<crate::services::citations::Checked>,
}

impl Record {
    /// The view of a labelled record.
    pub fn of(ctx: &Ctx, l: &Labelled) -> Record {
        let m = &l.record.meta;
        let (next_action, next_action_withheld) = match l.next_action() {
            NextAction::Shown(text) => (Some(text), None),
            NextAction::Withheld { label, reason, had_text: true } => {
                (None, Some(format!("{}: {reason}", label.as_str())))
            }
            NextAction::Withheld { had_text: false, .. } | NextAction::Absent => (None, None),
        };
        Record {
            path: ctx.rel(&l.record.path),
            created_at: m.created_at.clone(),
            task_id: m.task_id.clone(),
            branch: m.branch.clone(),
            head: m.head.clone(),
            working_tree: m.working_tree.clone(),
            matched: l.record.matched,
            divergence: l.divergence,
            rewrite: l.rewrite.clone(),
            freshness: l.freshness.label,
            age_minutes: l.freshness.age_minutes,
            freshness_reason: l.freshness.reason.clone(),
            next_action,
            next_action_withheld,
            origin: m.origin,
            passed_over: l.passed_over_path(ctx),
            arrived: l.arrived(),
            citations: crate::services::citations::check(ctx, m),
        }
    }
}

/// `handover --resolve --json` (MCP `majordomus_handover`, HTTP `GET /api/v1/handover`): the
/// handover that resolves for this worktree and branch with the labels `handover --resolve`
/// prints, and its body by section as it shows it — the Next Action withheld when the record
/// is history (stale or invalid).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct ResolvedHandover {
    /// The record and its labels, as `continuity.state` gives them (the proven `rewrite`
    /// included); `null` when no handover resolves.
    pub handover: Option<Record>,
    /// The working tree now, when it differs from the one the record was written with
    /// (`Divergence: working tree was <x>, now <y>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "Option<String>"))]
    pub working_tree_now: Option<WorkingTree>,
    /// When the continuity record a resumed handover came from was written (`Created: <this>,
    /// resumed here <created_at>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuity_created_at: Option<String>,
    /// The body's level-one sections by heading (`Objective`, `Current State`, `Next
    /// Action`, ...), each as shown: a history record's Next Action reads `(Next Action
    /// withheld: <why>)`. Empty when no handover resolves.
    pub sections: BTreeMap<String, String>,
}

/// The resolved handover, optionally only among those written under `task`.
pub fn resolved_handover(ctx: &Ctx, task: Option<&str>) -> Result<ResolvedHandover> {
    Ok(match resolve_labelled(ctx, task)? {
        None => ResolvedHandover {
            handover: None,
            working_tree_now: None,
            continuity_created_at: None,
            sections: BTreeMap::new(),
        },
        Some(l) => ResolvedHandover {
            handover: Some(Record::of(ctx, &l)),
            working_tree_now: l.working_tree_now,
            continuity_created_at: l.record.meta.continuity_created_at.clone(),
            sections: section_texts(&l.shown_body()),
        },
    })
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// The open episode the pointer resolves to (the pointer only, docs/REFERENCE.md#surfaces).
pub fn pointed_session(ctx: &Ctx) -> Option<OpenSessionView> {
    let key = pointer_key(&ctx.layout)?;
    let s = read_open(&open_path(&ctx.layout, &key)).ok().flatten()?;
    Some(OpenSessionView {
        foreign: !ctx.here().is_worktree(&s.worktree),
        owner: non_empty(&s.owner),
        worker: s.worker.filter(|w| !w.is_empty()),
        provider: s.provider.filter(|w| !w.is_empty()),
        provider_session: s.provider_session.filter(|w| !w.is_empty()),
        branch: non_empty(&s.branch),
        start_head: non_empty(&s.start_head),
        session_id: s.session_id,
        started_at: s.started_at,
    })
}

/// The unresolved questions of this checkout, as `<task> — <question> (<opened>)`.
pub fn blockers(ctx: &Ctx) -> Result<Vec<String>> {
    let text = crate::store::atomic::read_opt(&ctx.layout.questions())?.unwrap_or_default();
    Ok(questions::parse(&text)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Unresolved { task, question, opened, .. } => Some(format!("{task} — {question} ({opened})")),
            _ => None,
        })
        .collect())
}

/// Lines of the ledger, counted in a stream (never held whole).
pub fn ledger_lines(ctx: &Ctx) -> Result<u64> {
    use std::io::Read;
    let path = ctx.layout.ledger();
    let mut f = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(crate::error::Error::io_at(&path, e)),
    };
    let mut buf = [0u8; 64 * 1024];
    let (mut n, mut last) = (0u64, b'\n');
    loop {
        let k = f.read(&mut buf).map_err(|e| crate::error::Error::io_at(&path, e))?;
        if k == 0 {
            break;
        }
        n += buf[..k].iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[k - 1];
    }
    Ok(if last == b'\n' { n } else { n + 1 })
}

/// `continuity.state`.
pub fn state(ctx: &Ctx) -> Result<Continuity> {
    ctx.require_layer()?;
    let id = ctx.identity()?.clone();
    let session = pointed_session(ctx);
    let task = task::local(ctx)?.map(|t| ActiveTask {
        started_at: non_empty(&t.started_at),
        head: non_empty(&t.head),
        id: t.id,
        task: t.task,
        profile: t.profile,
        outcome: t.outcome,
        scope: t.scope,
        requires: t.requires,
    });
    let handover = resolve_labelled(ctx, None)?;
    let shown = shown_checkpoint(ctx)?;
    let checkpoint = shown.record.map(|r| label_preferred(ctx, r, shown.passed_over)).transpose()?;
    let blockers = blockers(ctx)?;
    let mut tallies = BTreeMap::new();
    tallies.insert("handovers".to_string(), names(&ctx.layout.handovers())?.len() as u64);
    tallies.insert("checkpoints".to_string(), names(&ctx.layout.checkpoints())?.len() as u64);
    tallies.insert("blockers".to_string(), blockers.len() as u64);
    tallies.insert("ledger_lines".to_string(), ledger_lines(ctx)?);
    let skipped = ctx.take_warnings();
    let mut findings = Vec::new();
    let n_skipped = skipped.iter().filter(|w| w.starts_with("skipped ")).count();
    for w in skipped {
        ctx.warn(w);
    }
    if n_skipped > 0 {
        findings.push(format!("{n_skipped} file(s) skipped as unreadable records; git majordomus doctor names them."));
    }
    if let Some(s) = session.as_ref().filter(|s| s.foreign) {
        findings.push(format!(
            "The open episode {} names another checkout; it is not this checkout's episode.",
            s.session_id
        ));
    }
    for (kind, l) in [("handover", &handover), ("checkpoint", &checkpoint)] {
        let Some(l) = l else { continue };
        if !l.divergence.trustworthy() {
            findings.push(format!(
                "The resolved {kind} {} is not trustworthy ({}): trust git, not the record.",
                ctx.rel(&l.record.path),
                l.git_state()
            ));
        }
        if let NextAction::Withheld { label, reason, .. } = l.next_action() {
            findings.push(format!(
                "The resolved {kind} {} is {} ({reason}); it is history and its next action is withheld.",
                ctx.rel(&l.record.path),
                label.as_str(),
            ));
        }
    }
    if !blockers.is_empty() {
        findings.push(format!(
            "{} unresolved question(s) refuse finish --outcome completed until each is resolved.",
            blockers.len()
        ));
    }
    if let Some(t) = task::local(ctx)? {
        if let Some(l) = crate::services::rewrite::task_landed_here(ctx, &t) {
            findings.push(format!(
                "Task {}'s work {}: nothing is left to do here but git majordomus finish --outcome completed.",
                t.id, l.text
            ));
        }
    }
    findings.extend(crate::services::kept::orphans(ctx).iter().map(crate::services::kept::sentence));
    let present = session.is_some() || task.is_some() || tallies.values().any(|&n| n > 0);
    Ok(Continuity {
        present,
        worktree: ctx.layout.root().display().to_string(),
        branch: id.branch_text().into(),
        head: id.head.clone(),
        working_tree: Some(ctx.working_tree()?),
        session,
        task,
        handover: handover.as_ref().map(|l| Record::of(ctx, l)),
        checkpoint: checkpoint.as_ref().map(|l| Record::of(ctx, l)),
        blockers,
        tallies,
        findings,
    })
}
