//! A resolved handover or checkpoint with its labels (docs/REFERENCE.md#labels): divergence from
//! git (a proven rewrite included), freshness, landed work; what every reader of a record shows.
//!
//! Owns: labelling a resolved record.
//! Must not touch: a command or a query; writing records.

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::{
    freshness, Anchor, Divergence, Freshness, FreshnessLabel, Label, Landed, Rewrite, WorkingTree,
};
use crate::model::record::{section_text, withhold_next_action};
use crate::services::resolve::{resolve, Resolved};

/// A resolved record with both labels.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// The record.
    pub record: Resolved,
    /// Divergence from git ancestry (judged on the rewritten commit when `rewrite` is set).
    pub divergence: Divergence,
    /// The rewrite that earned the word, when one is proven (docs/REFERENCE.md#rewrites).
    pub rewrite: Option<Rewrite>,
    /// Freshness from age vs policy.
    pub freshness: Freshness,
    /// `Divergence: working tree was <x>, now <y>` when it differs.
    pub working_tree_now: Option<WorkingTree>,
    /// The newest derived record this authored one was preferred to (docs/REFERENCE.md#origin), by file name.
    pub passed_over: Option<String>,
}

impl Labelled {
    /// The git-state label as printed: the word, and the rewrite it was judged on.
    pub fn git_state(&self) -> String {
        Label { divergence: self.divergence, rewrite: self.rewrite.clone() }.describe()
    }

    /// What a reader is given of its Next Action ([`NextAction`]).
    pub fn next_action(&self) -> NextAction {
        next_action(&self.record.body, &self.freshness)
    }

    /// The body as shown: its Next Action withheld when the record is history (stale or invalid).
    pub fn shown_body(&self) -> String {
        match self.next_action() {
            NextAction::Withheld { label, reason, .. } => {
                withhold_next_action(&self.record.body, &format!("{}, {reason}", label.as_str()))
            }
            NextAction::Shown(_) | NextAction::Absent => self.record.body.clone(),
        }
    }
}

/// What every reader is given of a record's Next Action (docs/REFERENCE.md#freshness), decided
/// once here: the briefing, `handover --resolve`, `state` (so MCP, HTTP and the cockpit), the
/// context document and the derived handover each word this value, never judge it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextAction {
    /// The record is current and names a next action: the section's text.
    Shown(String),
    /// The record is current and has no Next Action (absent or empty).
    Absent,
    /// The record is history (stale or invalid): whatever it says is not the thing to do now.
    Withheld {
        /// Stale or invalid.
        label: FreshnessLabel,
        /// Why, in one phrase (the freshness reason).
        reason: String,
        /// Whether the record had a Next Action to withhold.
        had_text: bool,
    },
}

/// The [`NextAction`] of a record with `body`, judged `freshness`.
pub fn next_action(body: &str, freshness: &Freshness) -> NextAction {
    let text = section_text(body, "Next Action").filter(|t| !t.trim().is_empty());
    match text {
        _ if freshness.is_history() => {
            NextAction::Withheld { label: freshness.label, reason: freshness.reason.clone(), had_text: text.is_some() }
        }
        Some(t) => NextAction::Shown(t),
        None => NextAction::Absent,
    }
}

/// Where a resumed handover came from (issue 39): the continuity record, the label of the
/// device that published it and the key id of the key that signed it. Shown wherever the
/// handover is (`handover --resolve`, the briefing, `state`, MCP, the cockpit), so that a
/// Next Action from another machine is never just `authored`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Arrived {
    /// The continuity record's id (64 hex).
    pub record: String,
    /// The publishing device's label, as the record carried it (absent in handovers resumed
    /// before the label was kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The publishing device's node (32 hex).
    pub node: String,
    /// The minisign key id of the key that signed the record (16 uppercase hex).
    pub key_id: String,
}

impl Arrived {
    /// `<label> (key <key id>)`, `device <node12> (key <key id>)` without a label.
    pub fn describe(&self) -> String {
        match &self.device {
            Some(l) => format!("{l} (key {})", self.key_id),
            None => format!("device {} (key {})", crate::text::short_id(&self.node), self.key_id),
        }
    }
}

impl Labelled {
    /// Where the record came from, when it is a resumed handover.
    pub fn arrived(&self) -> Option<Arrived> {
        let m = &self.record.meta;
        let record = m.continuity_record.clone()?;
        let node = m.continuity_device.clone().unwrap_or_default();
        let key_id = m.continuity_key_id.clone().unwrap_or_else(|| crate::continuity::view::key_id(&node));
        Some(Arrived { record, device: m.continuity_label.clone(), node, key_id })
    }

    /// The repository-relative path of the derived record this one was preferred to.
    pub fn passed_over_path(&self, ctx: &Ctx) -> Option<String> {
        self.passed_over.as_ref().map(|name| ctx.rel(&self.record.path.with_file_name(name)))
    }
}

/// Labels a resolved record that was preferred to `passed_over` (a file name beside it).
pub fn label_preferred(ctx: &Ctx, record: Resolved, passed_over: Option<String>) -> Result<Labelled> {
    Ok(Labelled { passed_over, ..label(ctx, record)? })
}

/// Labels a resolved record.
pub fn label(ctx: &Ctx, record: Resolved) -> Result<Labelled> {
    let Label { divergence, rewrite } = crate::services::rewrite::label_of(ctx, &record.meta);
    let thresholds = ctx.policy().map(|p| p.thresholds()).unwrap_or_default();
    let freshness = freshness(record.meta.judged_at(), ctx.clock.now(), thresholds);
    let now_wt = ctx.working_tree()?;
    let working_tree_now = (!record.meta.working_tree.is_empty()
        && record.meta.working_tree != now_wt.as_str()
        && record.meta.continuity_record.is_none())
    .then_some(now_wt);
    Ok(Labelled { record, divergence, rewrite, freshness, working_tree_now, passed_over: None })
}

/// When `handover --resolve --task <id>` finds nothing here: the task's newest handover on
/// another branch, by path, when its work landed in this branch (a squash or rebase merge,
/// docs/REFERENCE.md#rewrites). Resolution itself never crosses branches; this only says where the work went.
pub fn landed_elsewhere(ctx: &Ctx, task: &str) -> Result<Option<(String, String, Landed)>> {
    let here = ctx.identity()?.branch.clone();
    let newest = crate::services::resolve::list(ctx, &ctx.layout.handovers())?
        .into_iter()
        .find(|(_, _, m, _)| m.task_id == task && Some(m.branch.as_str()) != here.as_deref());
    Ok(newest.and_then(|(_, path, m, _)| {
        crate::services::rewrite::landed(ctx, m.anchor_head()).map(|l| (ctx.rel(&path), m.branch.clone(), l))
    }))
}

/// `handover --resolve [--task]`: the labelled winner, or none.
pub fn resolve_labelled(ctx: &Ctx, task: Option<&str>) -> Result<Option<Labelled>> {
    ctx.require_layer()?;
    let res = resolve(ctx, &ctx.layout.handovers(), task)?;
    res.winner.map(|w| label_preferred(ctx, w, res.passed_over)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(label: FreshnessLabel) -> Freshness {
        Freshness { label, reason: "older than 1440 minutes".into(), age_minutes: Some(2000) }
    }

    #[test]
    fn the_next_action_is_withheld_exactly_when_the_record_is_history() {
        let body = "# Objective\no\n\n# Next Action\nRun the tests.\n";
        assert_eq!(next_action(body, &judged(FreshnessLabel::Fresh)), NextAction::Shown("Run the tests.".into()));
        assert_eq!(next_action(body, &judged(FreshnessLabel::Aging)), NextAction::Shown("Run the tests.".into()));
        for label in [FreshnessLabel::Stale, FreshnessLabel::Invalid] {
            assert_eq!(
                next_action(body, &judged(label)),
                NextAction::Withheld { label, reason: "older than 1440 minutes".into(), had_text: true }
            );
        }
        let none = "# Objective\no\n\n# Next Action\n   \n";
        assert_eq!(next_action(none, &judged(FreshnessLabel::Fresh)), NextAction::Absent);
        assert!(matches!(
            next_action(none, &judged(FreshnessLabel::Stale)),
            NextAction::Withheld { had_text: false, .. }
        ));
    }
}
