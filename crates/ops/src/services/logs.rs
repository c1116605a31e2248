//! The two Markdown logs, `decisions.md` and `open-questions.md`: the locks their writers take,
//! seeding from a template, reading.
//!
//! Owns: nothing beyond the two files' names and locks (their format is `store::{decisions,
//! questions}`).
//! Must not touch: a command or a query.

use crate::ctx::Ctx;
use crate::error::Result;
use crate::store::atomic::{create_if_absent, guard, read_opt};
use crate::store::questions::{parse, Entry};

/// The lock every writer of `decisions.md` takes.
pub const DECISIONS_LOCK: &str = "decisions";

/// The decision log's text ("" when absent).
pub fn read_decisions(ctx: &Ctx) -> Result<String> {
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

/// The lock every writer of `open-questions.md` takes.
pub const QUESTIONS_LOCK: &str = "questions";

/// The question log's text ("" when absent).
pub fn read_questions(ctx: &Ctx) -> Result<String> {
    let p = ctx.layout.questions();
    guard(ctx.layout.root(), &p)?;
    Ok(read_opt(&p)?.unwrap_or_default())
}

/// Every `- [` entry, file order.
pub fn question_entries(ctx: &Ctx) -> Result<Vec<Entry>> {
    Ok(parse(&read_questions(ctx)?))
}
