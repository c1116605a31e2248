//! `decision add|list|show` (docs/REFERENCE.md#decisions): the append-only decision log.
//! Must not touch: an entry already written, another command or a query, the terminal.

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::labels::Anchor;
use crate::services::logs::{read_decisions, seed, DECISIONS_LOCK};
use crate::services::task;
use crate::store::atomic::{append, Lock};
use crate::store::decisions::{parse, render_entry, Decision};

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
        let _lock = Lock::acquire(&ctx.layout.locks(), DECISIONS_LOCK)?;
        seed(ctx, &path, "decisions.md", crate::assets::DECISIONS_TEMPLATE)?;
        let supersedes = match p.supersedes.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => "-".to_string(),
            Some(part) => {
                let all = parse(&read_decisions(ctx)?);
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
