//! `decision add|list|show` (docs/REFERENCE.md#decisions): the append-only decision log.

use serde::Serialize;
use serde_json::Value;

use super::task;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::labels::Anchor;
use crate::store::atomic::{append, create_if_absent, guard, read_opt, Lock};
use crate::store::decisions::{parse, render_entry, superseded_by, Decision};

/// The lock every writer of `decisions.md` takes.
pub const LOCK: &str = "decisions";

/// Parameters of `decision add`.
#[derive(Debug, Clone, Default)]
pub struct AddParams {
    /// Title (one line).
    pub title: String,
    /// Why (required, one line).
    pub why: String,
    /// What was rejected.
    pub rejected: Option<String>,
    /// Evidence.
    pub evidence: Option<String>,
    /// A unique part of an earlier title.
    pub supersedes: Option<String>,
}

fn one_line(what: &str, s: &str) -> Result<String> {
    let t = s.trim();
    if t.contains('\n') || t.contains('\r') {
        return Err(Error::usage(format!("decision add: {what} must be a single line")));
    }
    Ok(t.to_string())
}

/// Reads the log text ("" when absent).
pub fn read_log(ctx: &Ctx) -> Result<String> {
    let p = ctx.layout.decisions();
    guard(ctx.layout.root(), &p)?;
    Ok(read_opt(&p)?.unwrap_or_default())
}

/// Seeds the store from its template when absent (the repository's template, else the built-in one).
pub fn seed(ctx: &Ctx, path: &std::path::Path, template: &str, builtin: &str) -> Result<()> {
    guard(ctx.layout.root(), path)?;
    if path.exists() {
        return Ok(());
    }
    let tpl = ctx.layout.templates().join(template);
    guard(ctx.layout.root(), &tpl)?;
    let text = read_opt(&tpl)?.unwrap_or_else(|| builtin.to_string());
    create_if_absent(path, text.as_bytes())?;
    Ok(())
}

/// Runs `decision add`; returns the recorded title.
pub fn add(ctx: &Ctx, p: AddParams) -> Result<String> {
    ctx.require_layer()?;
    ctx.policy()?;
    let title = one_line("the title", &p.title)?;
    if title.is_empty() {
        return Err(Error::usage("decision add: the title is empty"));
    }
    let why = one_line("--why", &p.why)?;
    if why.is_empty() {
        return Err(Error::usage("decision add: --why is required").hint("say why in one line: --why \"<reason>\""));
    }
    let rejected = one_line("--rejected", p.rejected.as_deref().unwrap_or(""))?;
    let evidence = one_line("--evidence", p.evidence.as_deref().unwrap_or(""))?;
    let task_id = task::local(ctx)?.map(|t| t.id).unwrap_or_else(|| "none".into());
    let head = ctx.identity()?.head_text().to_string();
    let path = ctx.layout.decisions();
    {
        let _lock = Lock::acquire(&ctx.layout.locks(), LOCK)?;
        seed(ctx, &path, "decisions.md", crate::assets::DECISIONS_TEMPLATE)?;
        let supersedes = match p.supersedes.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => "-".to_string(),
            Some(part) => {
                let all = parse(&read_log(ctx)?);
                let hits: Vec<&Decision> = all.iter().filter(|d| d.title.contains(part)).collect();
                match hits.len() {
                    1 => hits[0].title.clone(),
                    0 => {
                        return Err(Error::usage(format!(
                            "decision add: --supersedes {part:?} matches no decision title"
                        ))
                        .hint("git majordomus decision list shows the titles"))
                    }
                    n => {
                        return Err(Error::usage(format!(
                            "decision add: --supersedes {part:?} matches {n} decision titles"
                        ))
                        .hint("give a longer part of the title"))
                    }
                }
            }
        };
        let dash = |s: &str| if s.is_empty() { "-".to_string() } else { s.to_string() };
        let entry = render_entry(
            &ctx.clock.date(),
            &title,
            &task_id,
            &head,
            &why,
            &dash(&rejected),
            &dash(&evidence),
            &supersedes,
        );
        append(&path, entry.as_bytes())?;
    }
    ctx.record_event(
        Event::DecisionRecorded,
        &[("task_id", Value::from(task_id)), ("decision", Value::from(title.clone()))],
    )?;
    Ok(title)
}

/// Every decision, newest first, optionally for one task, at most `limit`.
pub fn list(ctx: &Ctx, task: Option<&str>, limit: Option<usize>) -> Result<(Vec<Decision>, Vec<Decision>)> {
    ctx.require_layer()?;
    let all = parse(&read_log(ctx)?);
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
    let all = parse(&read_log(ctx)?);
    let d = all.iter().find(|d| d.title.contains(text)).cloned().ok_or_else(|| {
        Error::not_found(format!("no decision whose title contains {text:?}"))
            .hint("git majordomus decision list shows the titles")
    })?;
    Ok((d, all))
}
