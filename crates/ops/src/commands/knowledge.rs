//! `knowledge promote` and `knowledge reject` (docs/REFERENCE.md#knowledge): a person's verdict on
//! a candidate the episode's close derived (`services::knowledge`).
//! Must not touch: deriving candidates (`services::knowledge`), another command or a query, the
//! terminal.

use std::path::PathBuf;

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::services::knowledge::{candidates_dir, curated_dir, is_transcript, valid_id, Knowledge, CLASSES};
use crate::store::atomic::{guard, read_opt, replace};

fn find_candidate(ctx: &Ctx, id: &str) -> Result<(PathBuf, Knowledge)> {
    if !valid_id(id) {
        return Err(Error::not_found(format!("no knowledge record {id:?}")));
    }
    let path = candidates_dir(ctx).join(format!("{id}.md"));
    if let Some(text) = read_opt(&path)? {
        let k = Knowledge::parse(&text)
            .ok_or_else(|| Error::refused(format!("{} does not parse as a knowledge record", ctx.rel(&path))))?;
        return Ok((path, k));
    }
    if curated_dir(ctx).join(format!("{id}.md")).exists() {
        return Err(Error::refused(format!("knowledge {id} is already promoted (verified); it is not a candidate")));
    }
    Err(Error::not_found(format!("no knowledge record {id}")).hint("git majordomus knowledge candidates lists them"))
}

/// `knowledge promote <id> [--class] < evidence`: the candidate becomes verified under `curated/`.
pub fn promote(ctx: &Ctx, id: &str, class: Option<&str>, evidence: &str) -> Result<PathBuf> {
    ctx.require_layer()?;
    let (path, mut k) = find_candidate(ctx, id)?;
    if k.status != "candidate" {
        return Err(Error::refused(format!("knowledge {id} is {}, not a candidate", k.status)));
    }
    if evidence.trim().is_empty() {
        return Err(Error::refused("knowledge promote: evidence on stdin is required")
            .hint("say why this is true, e.g. the test or commit that shows it"));
    }
    if is_transcript(evidence) {
        return Err(Error::refused(
            "knowledge promote: the evidence looks like a transcript; state the evidence instead",
        ));
    }
    if let Some(c) = class {
        if !CLASSES.contains(&c) {
            return Err(Error::refused(format!(
                "knowledge promote: unknown class {c:?}; use one of {}",
                CLASSES.join(", ")
            )));
        }
        k.class = c.into();
    }
    k.status = "verified".into();
    k.date = ctx.clock.date();
    k.extra = format!("{}\n# Evidence\n{}\n", k.extra, evidence.trim_end());
    let dest = curated_dir(ctx).join(format!("{id}.md"));
    guard(ctx.layout.root(), &dest)?;
    let text = k.render().map_err(|o| o.refusal(&format!("knowledge promote {id}")))?;
    replace(&dest, text.as_bytes())?;
    std::fs::remove_file(&path).map_err(|e| Error::io_at(&path, e))?;
    ctx.record_event(Event::KnowledgePromoted, &[("id", Value::from(id)), ("path", Value::from(ctx.rel(&dest)))])?;
    Ok(dest)
}

/// `knowledge reject <id> --reason [--by]`: the candidate is marked superseded in place.
pub fn reject(ctx: &Ctx, id: &str, reason: &str, by: Option<&str>) -> Result<PathBuf> {
    ctx.require_layer()?;
    if reason.trim().is_empty() {
        return Err(Error::usage("knowledge reject: --reason is required and must not be empty"));
    }
    let (path, mut k) = find_candidate(ctx, id)?;
    if k.status != "candidate" {
        return Err(Error::refused(format!("knowledge {id} is {}, not a candidate", k.status)));
    }
    if let Some(b) = by {
        let exists = valid_id(b)
            && b != id
            && (candidates_dir(ctx).join(format!("{b}.md")).exists()
                || curated_dir(ctx).join(format!("{b}.md")).exists());
        if !exists {
            return Err(Error::refused(format!("knowledge reject: --by {b} names no other knowledge record")));
        }
        k.superseded_by = Some(b.into());
    }
    k.status = "superseded".into();
    k.extra = format!("{}\n# Rejected\n{}\n", k.extra, reason.trim());
    let text = k.render().map_err(|o| o.refusal(&format!("knowledge reject {id}")))?;
    replace(&path, text.as_bytes())?;
    ctx.record_event(
        Event::KnowledgeRejected,
        &[
            ("id", Value::from(id)),
            ("reason", Value::from(reason.trim())),
            ("superseded_by", by.map(Value::from).unwrap_or(Value::Null)),
        ],
    )?;
    Ok(path)
}
