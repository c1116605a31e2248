//! `decision list` and `decision show` (docs/REFERENCE.md#decisions): the decision log as read;
//! `commands::decision` appends to it.
//! Must not touch: a command, writes (the log is read as it is).

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::services::logs::read_decisions;
use crate::store::decisions::{parse, superseded_by, Decision};
/// Every decision, newest first, optionally for one task, at most `limit`.
pub fn list(ctx: &Ctx, task: Option<&str>, limit: Option<usize>) -> Result<(Vec<Decision>, Vec<Decision>)> {
    ctx.require_layer()?;
    let all = parse(&read_decisions(ctx)?);
    let mut v: Vec<Decision> =
        all.iter().filter(|d| task.is_none_or(|t| d.task.as_deref() == Some(t))).cloned().collect();
    v.reverse();
    if let Some(l) = limit {
        v.truncate(l);
    }
    Ok((v, all))
}

/// `decision list --json` (MCP `majordomus_decisions`, HTTP `GET /api/v1/decisions`): the
/// entries `decision list` shows, newest first.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct DecisionList {
    /// The decisions, newest first.
    pub decisions: Vec<ListedDecision>,
}

/// One decision as listed: the entry, and the later one that superseded it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct ListedDecision {
    /// The entry.
    #[serde(flatten)]
    pub decision: Decision,
    /// The title of the later decision that supersedes this one (`(superseded by: …)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// [`list`] as its JSON report.
pub fn listing(ctx: &Ctx, task: Option<&str>, limit: Option<usize>) -> Result<DecisionList> {
    let (list, all) = list(ctx, task, limit)?;
    let decisions = list
        .into_iter()
        .map(|d| ListedDecision { superseded_by: superseded_by(&all, &d.title).map(str::to_string), decision: d })
        .collect();
    Ok(DecisionList { decisions })
}

/// The first entry (file order) whose title contains `text`; 12 when none.
pub fn show(ctx: &Ctx, text: &str) -> Result<(Decision, Vec<Decision>)> {
    ctx.require_layer()?;
    let all = parse(&read_decisions(ctx)?);
    let d = all.iter().find(|d| d.title.contains(text)).cloned().ok_or_else(|| {
        Error::not_found(format!("no decision whose title contains {text:?}"))
            .hint("git majordomus decision list shows the titles")
    })?;
    Ok((d, all))
}
