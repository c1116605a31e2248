//! A record's citations checked against git at read time (docs/REFERENCE.md#citations): each
//! cited path labelled `unchanged`, `changed` (in N commits since, the newest's id and author),
//! `deleted`, `renamed` (to where its blob is now), `uncommitted` (changes in the working tree)
//! or `absent` (named, and not there when the record was written, nor now).
//!
//! Owns: the labels and their one-line words. Must not touch: the record files, a command.

use crate::ctx::Ctx;
use crate::model::citations::{named_paths, Citation};
use crate::model::record::RecordMeta;
use crate::text::short;

/// How many commits a path's history is walked back at most ("more than N" past it).
pub const WALK: usize = 200;
/// How many tree entries a search for a moved blob reads at most.
const TREE_ENTRIES: usize = 200_000;

/// One citation with its label.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Checked {
    /// The cited path.
    pub path: String,
    /// `unchanged`, `changed`, `deleted`, `renamed`, `uncommitted` or `absent`.
    pub label: String,
    /// `changed`: in how many commits since (counted within the walk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commits: Option<usize>,
    /// `changed`: the walk ended before the record's head, so "more than" `commits`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<bool>,
    /// `changed`: the newest such commit (7 hex) and its author.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[allow(missing_docs)]
    pub author: Option<String>,
    /// `renamed`: where its blob is now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_to: Option<String>,
}

impl Checked {
    fn new(path: &str, label: &str) -> Checked {
        Checked {
            path: path.to_string(),
            label: label.into(),
            commits: None,
            more: None,
            newest: None,
            author: None,
            renamed_to: None,
        }
    }

    /// `` `src/a.rs` changed in 2 commits since this handover, newest a1b2c3d by Dana ``, or
    /// `deleted`, `renamed to …`, `has uncommitted changes`, `named, absent` (`kind`: the
    /// record's kind).
    pub fn describe(&self, kind: &str) -> String {
        let what = match self.label.as_str() {
            "changed" if self.commits.is_none() => format!("changed since this {kind}"),
            "changed" => {
                let n = self.commits.unwrap_or(0);
                let more = if self.more == Some(true) { "more than " } else { "" };
                let newest = match (&self.newest, &self.author) {
                    (Some(c), Some(a)) if !a.is_empty() => format!(", newest {c} by {a}"),
                    (Some(c), _) => format!(", newest {c}"),
                    _ => String::new(),
                };
                format!("changed in {more}{n} commit(s) since this {kind}{newest}")
            }
            "renamed" => format!("renamed to `{}`", self.renamed_to.as_deref().unwrap_or("?")),
            "uncommitted" => "has uncommitted changes".into(),
            "absent" => "named, absent".into(),
            other => other.to_string(),
        };
        format!("`{}` {what}", self.path)
    }
}

/// Each citation of `meta` with its label, in the record's order (none for a record written
/// before citations).
pub fn check(ctx: &Ctx, meta: &RecordMeta) -> Vec<Checked> {
    check_where(ctx, meta, |_| true)
}

/// [`check`] of the citations whose path `keep` accepts: the others are not looked up.
fn check_where(ctx: &Ctx, meta: &RecordMeta, keep: impl Fn(&str) -> bool) -> Vec<Checked> {
    let cited: Vec<Citation> =
        meta.citations.iter().filter_map(|f| Citation::parse(f)).filter(|c| keep(&c.path)).collect();
    if cited.is_empty() {
        return Vec::new();
    }
    let head = ctx.git.head().ok().flatten();
    let since = ctx.git.commit_id(&meta.head);
    let dirty = ctx.changed_files().map(|f| f.to_vec()).unwrap_or_default();
    cited.iter().map(|c| label(ctx, c, head, since, &dirty)).collect()
}

fn label(
    ctx: &Ctx,
    c: &Citation,
    head: Option<crate::git::ObjectId>,
    since: Option<crate::git::ObjectId>,
    dirty: &[String],
) -> Checked {
    let now = ctx.git.blob_at(head, &c.path).ok().flatten().map(|b| b.to_string());
    let then = c.blob.clone();
    let mut out = if now == then {
        match (&then, dirty.contains(&c.path)) {
            (_, true) => Checked::new(&c.path, "uncommitted"),
            (Some(_), false) => Checked::new(&c.path, "unchanged"),
            (None, false) => Checked::new(&c.path, "absent"),
        }
    } else if now.is_none() {
        let moved = then
            .as_deref()
            .and_then(|b| crate::git::ObjectId::from_hex(b.as_bytes()).ok())
            .and_then(|b| head.and_then(|h| ctx.git.path_of_blob(h, b, TREE_ENTRIES).ok().flatten()));
        match moved {
            Some(to) => Checked { renamed_to: Some(to), ..Checked::new(&c.path, "renamed") },
            None => Checked::new(&c.path, "deleted"),
        }
    } else {
        Checked::new(&c.path, "changed")
    };
    // Counted only from a record head this repository holds: a record from another machine
    // whose head is not here says `changed` without a count.
    if out.label == "changed" && since.is_some() {
        if let Some(h) = head.and_then(|h| ctx.git.path_history(h, since, &c.path, WALK).ok()) {
            out.commits = Some(h.commits);
            out.more = Some(h.more);
            out.newest = h.newest.as_ref().map(|(id, _)| short(&id.to_string()).to_string());
            out.author = h.newest.map(|(_, a)| a);
        }
    }
    out
}

/// The labels of the files `next_action` names that changed since its record (the briefing's
/// "check first" line): `None` when every one is unchanged (unchanged citations cost no words). Only the
/// citations it names are looked up (the start hook's path).
pub fn check_first(ctx: &Ctx, meta: &RecordMeta, next_action: &str, kind: &str) -> Option<Vec<String>> {
    let named = named_paths(next_action);
    if named.is_empty() || meta.citations.is_empty() {
        return None;
    }
    let moved: Vec<String> = check_where(ctx, meta, |p| named.iter().any(|n| n == p))
        .iter()
        .filter(|c| !matches!(c.label.as_str(), "unchanged" | "absent"))
        .map(|c| c.describe(kind))
        .collect();
    (!moved.is_empty()).then_some(moved)
}
