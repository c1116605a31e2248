//! The two independent labels every record read carries: divergence and freshness (docs/REFERENCE.md#labels).
//! Must not touch: git (the caller passes the ancestry answer), reading the clock (`now` is passed
//! in), files.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::clock::parse_stamp;
use crate::model::vocabulary::vocabulary;
use crate::oid::Oid;
use crate::text::short;

/// What files and output write for an unborn HEAD (docs/REFERENCE.md#identity). Inside the code an unborn HEAD is
/// `None`; this text exists only at the edges, through [`head_text`] and [`head_of`].
pub const UNBORN_HEAD: &str = "NONE";

/// What files and output write for the branch of a detached HEAD (docs/REFERENCE.md#identity); `None` in the code.
pub const DETACHED_BRANCH: &str = "DETACHED";

/// The text a file or output writes for `head`.
pub fn head_text(head: Option<&str>) -> &str {
    head.unwrap_or(UNBORN_HEAD)
}

/// The commit a file's `head` text names; `None` for an unborn HEAD.
pub fn head_of(text: &str) -> Option<&str> {
    (text != UNBORN_HEAD).then_some(text)
}

/// The text a file or output writes for `branch`.
pub fn branch_text(branch: Option<&str>) -> &str {
    branch.unwrap_or(DETACHED_BRANCH)
}

/// The branch a file's `branch` text names; `None` for a detached HEAD.
pub fn branch_of(text: &str) -> Option<&str> {
    (text != DETACHED_BRANCH).then_some(text)
}

/// A record that names the commit and branch it was written at, as its file writes them.
pub trait Anchor {
    /// The `head` text as written.
    fn head_text(&self) -> &str;
    /// The `branch` text as written.
    fn branch_text(&self) -> &str;
    /// The commit; `None` when written at an unborn HEAD.
    fn anchor_head(&self) -> Option<&str> {
        head_of(self.head_text())
    }
    /// The branch; `None` when written on a detached HEAD.
    fn anchor_branch(&self) -> Option<&str> {
        branch_of(self.branch_text())
    }
}

impl<T: Anchor> Anchor for &T {
    fn head_text(&self) -> &str {
        (*self).head_text()
    }
    fn branch_text(&self) -> &str {
        (*self).branch_text()
    }
}

vocabulary! {
    /// Whether the working tree had changes when a fact was taken (docs/REFERENCE.md#identity), as
    /// files and output write it.
    pub enum WorkingTree {
        /// No tracked change and no untracked file.
        Clean = "clean",
        /// Something changed.
        Dirty = "dirty",
    }
}

impl From<WorkingTree> for String {
    fn from(w: WorkingTree) -> String {
        w.as_str().to_string()
    }
}

vocabulary! {
    /// Where a record's commit sits relative to HEAD.
    pub enum Divergence {
        /// Written at this commit.
        Exact = "exact",
        /// Git has moved forward since.
        Advanced = "advanced",
        /// The recorded commit is not an ancestor.
        Diverged = "diverged",
        /// Another branch.
        DifferentContext = "different_context",
        /// The repository could not be read.
        Unknown = "unknown",
    }
}

impl Divergence {
    /// `exact` and `advanced` are trustworthy; the others are warnings.
    pub fn trustworthy(self) -> bool {
        matches!(self, Divergence::Exact | Divergence::Advanced)
    }
}

vocabulary! {
    /// What turned a recorded commit into the one HEAD builds on (docs/REFERENCE.md#rewrites).
    pub enum RewriteBy {
        Amend = "amend",
        Rebase = "rebase",
        Squash = "squash",
        CherryPick = "cherry-pick",
        SquashMerge = "squash-merge",
        Unknown = "unknown",
    }
}

vocabulary! {
    /// The kind of evidence a rewrite or a landing rests on, strongest first (docs/REFERENCE.md#rewrites).
    pub enum ProofKind {
        Reflog = "reflog",
        PostRewrite = "post-rewrite",
        Tree = "tree",
        PatchId = "patch-id",
        RangePatchId = "range-patch-id",
    }
}

/// The evidence of a rewrite: its kind and what a reader can check it with (a reflog entry, the
/// captured pair, a tree or patch id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Proof {
    /// The kind of evidence.
    pub kind: ProofKind,
    /// The evidence itself.
    pub value: String,
}

/// A recorded commit proven rewritten into another (docs/REFERENCE.md#rewrites). Computed at read time, never
/// stored in a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Rewrite {
    /// The recorded commit.
    pub from: String,
    /// The commit it became: HEAD or an ancestor of HEAD.
    pub to: Oid,
    /// What rewrote it (`unknown` when content is the only proof).
    pub by: RewriteBy,
    /// Why this is believed.
    pub proof: Proof,
}

/// A record's divergence word with the rewrite that earned it, when one was proven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// The word: judged on the rewritten commit when `rewrite` is set.
    pub divergence: Divergence,
    /// The proven rewrite.
    pub rewrite: Option<Rewrite>,
}

impl Label {
    /// A label without a rewrite.
    pub fn plain(divergence: Divergence) -> Label {
        Label { divergence, rewrite: None }
    }

    /// The word, and for a proven rewrite what it was judged on: `exact (rewritten from
    /// 6d4af53 by amend — reflog)`.
    pub fn describe(&self) -> String {
        match &self.rewrite {
            None => self.divergence.as_str().to_string(),
            Some(r) => format!("{} ({})", self.divergence.as_str(), r.describe("rewritten from", &r.from)),
        }
    }
}

impl Rewrite {
    fn describe(&self, what: &str, commit: &str) -> String {
        let by = match self.by {
            RewriteBy::Unknown => String::new(),
            by => format!(" by {by}"),
        };
        format!("{what} {}{by} — {}", short(commit), self.proof.kind)
    }
}

/// A record of another branch whose work is in HEAD's history (docs/REFERENCE.md#rewrites): merged, or
/// squash- or rebase-merged as a commit with the same content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Landed {
    /// The branch it landed in (HEAD's).
    pub branch: String,
    /// The commit that carries it.
    pub commit: Oid,
    /// How it got there.
    pub by: RewriteBy,
    /// Why this is believed.
    pub proof: Proof,
}

impl Landed {
    /// `landed in main as 1a2b3c4 (squash-merge — range-patch-id)`.
    pub fn describe(&self) -> String {
        let by = match self.by {
            RewriteBy::Unknown => String::new(),
            by => format!("{by} — "),
        };
        format!("landed in {} as {} ({by}{})", self.branch, short(&self.commit), self.proof.kind)
    }
}

vocabulary! {
    /// How old a record is against the policy's thresholds.
    pub enum FreshnessLabel {
        /// Younger than `fresh_minutes`.
        Fresh = "fresh",
        /// Between the thresholds.
        Aging = "aging",
        /// At least `stale_minutes` old.
        Stale = "stale",
        /// No timestamp, or no thresholds.
        Unknown = "unknown",
        /// Unparseable or in the future.
        Invalid = "invalid",
    }
}

/// A freshness judgement with its reason (never empty) and age.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Freshness {
    /// The label.
    pub label: FreshnessLabel,
    /// Why, in one phrase.
    pub reason: String,
    /// Whole minutes since the timestamp, when it parses.
    pub age_minutes: Option<i64>,
}

impl Freshness {
    /// Stale and invalid records are history: their Next Action is withheld.
    pub fn is_history(&self) -> bool {
        matches!(self.label, FreshnessLabel::Stale | FreshnessLabel::Invalid)
    }
}

/// Thresholds from `session.freshness`; either may be absent from policy.
#[derive(Debug, Clone, Copy, Default)]
pub struct Thresholds {
    /// `session.freshness.fresh_minutes`.
    pub fresh_minutes: Option<i64>,
    /// `session.freshness.stale_minutes`.
    pub stale_minutes: Option<i64>,
}

/// Judges `created_at` at `now` (docs/REFERENCE.md#freshness).
pub fn freshness(created_at: &str, now: DateTime<Utc>, t: Thresholds) -> Freshness {
    let raw = created_at.trim();
    if raw.is_empty() {
        return Freshness { label: FreshnessLabel::Unknown, reason: "no timestamp".into(), age_minutes: None };
    }
    let Some(at) = parse_stamp(raw) else {
        return Freshness {
            label: FreshnessLabel::Invalid,
            reason: format!("timestamp {raw:?} is not YYYY-MM-DDTHH:MM:SSZ"),
            age_minutes: None,
        };
    };
    let secs = (now - at).num_seconds();
    if secs < 0 {
        return Freshness {
            label: FreshnessLabel::Invalid,
            reason: format!("timestamp {raw} is in the future ({} ahead of now)", span(-secs / 60)),
            age_minutes: None,
        };
    }
    let age = secs / 60;
    let (Some(fresh), Some(stale)) = (t.fresh_minutes, t.stale_minutes) else {
        let missing = if t.fresh_minutes.is_none() {
            "session.freshness.fresh_minutes"
        } else {
            "session.freshness.stale_minutes"
        };
        return Freshness {
            label: FreshnessLabel::Unknown,
            reason: format!("policy has no {missing}"),
            age_minutes: Some(age),
        };
    };
    let (label, reason) = if age < fresh {
        (FreshnessLabel::Fresh, format!("{} old, under session.freshness.fresh_minutes ({fresh} min)", span(age)))
    } else if age < stale {
        (FreshnessLabel::Aging, format!("{} old, past session.freshness.fresh_minutes ({fresh} min)", span(age)))
    } else {
        (FreshnessLabel::Stale, format!("{} old, past session.freshness.stale_minutes ({stale} min)", span(age)))
    };
    Freshness { label, reason, age_minutes: Some(age) }
}

/// A human span of whole minutes: `Nm` under 90 min, `Nh` under 48 h, else `Nd`.
pub fn span(minutes: i64) -> String {
    if minutes < 90 {
        format!("{minutes}m")
    } else if minutes < 48 * 60 {
        format!("{}h", minutes / 60)
    } else {
        format!("{}d", minutes / (24 * 60))
    }
}

/// A human age of a timestamp at `now` (`37m ago`), or `unknown age`.
pub fn age(created_at: &str, now: DateTime<Utc>) -> String {
    match parse_stamp(created_at) {
        Some(at) if at <= now => format!("{} ago", span((now - at).num_seconds() / 60)),
        Some(_) => "in the future".into(),
        None => "unknown age".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn t() -> Thresholds {
        // Test thresholds are built from arithmetic so the default values never appear as literals.
        Thresholds { fresh_minutes: Some(12 * 60), stale_minutes: Some(48 * 60) }
    }

    fn at(now: DateTime<Utc>, minutes: i64) -> String {
        crate::clock::stamp(now - Duration::minutes(minutes))
    }

    #[test]
    fn boundaries_are_inclusive() {
        let now = parse_stamp("2026-09-11T12:00:00Z").unwrap();
        let f = |m| freshness(&at(now, m), now, t()).label;
        assert_eq!(f(1), FreshnessLabel::Fresh);
        assert_eq!(f(12 * 60 - 1), FreshnessLabel::Fresh);
        assert_eq!(f(12 * 60), FreshnessLabel::Aging);
        assert_eq!(f(48 * 60 - 1), FreshnessLabel::Aging);
        assert_eq!(f(48 * 60), FreshnessLabel::Stale);
        assert_eq!(f(6 * 24 * 60), FreshnessLabel::Stale);
        assert_eq!(f(-60), FreshnessLabel::Invalid);
        assert!(freshness(&at(now, -60), now, t()).reason.contains("future"));
        assert_eq!(freshness("", now, t()).label, FreshnessLabel::Unknown);
        assert_eq!(freshness("garbage", now, t()).label, FreshnessLabel::Invalid);
        let none = freshness(&at(now, 5), now, Thresholds::default());
        assert_eq!(none.label, FreshnessLabel::Unknown);
        assert!(none.reason.contains("session.freshness.fresh_minutes"));
    }

    #[test]
    fn spans() {
        assert_eq!(span(89), "89m");
        assert_eq!(span(90), "1h");
        assert_eq!(span(48 * 60 - 1), "47h");
        assert_eq!(span(48 * 60), "2d");
        assert_eq!(span(6 * 24 * 60 + 5), "6d");
    }
}
