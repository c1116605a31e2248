//! `question add|resolve|list` (docs/REFERENCE.md#questions): blockers as state.

use serde::Serialize;
use serde_json::Value;

use super::decision::seed;
use super::task;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::store::atomic::{append, guard, read_opt, replace, Lock};
use crate::store::questions::{parse, resolve_in, unresolved_line, Entry};

/// The lock every writer of `open-questions.md` takes.
pub const LOCK: &str = "questions";

fn read(ctx: &Ctx) -> Result<String> {
    let p = ctx.layout.questions();
    guard(ctx.layout.root(), &p)?;
    Ok(read_opt(&p)?.unwrap_or_default())
}

/// Every `- [` entry, file order.
pub fn entries(ctx: &Ctx) -> Result<Vec<Entry>> {
    Ok(parse(&read(ctx)?))
}

/// One question as `question list` shows it; its JSON is tagged by `status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Listed {
    /// An unresolved entry and its number among all unresolved ones (`question resolve <n>`).
    Unresolved {
        /// 1-based, counted over every unresolved entry, shown or not.
        n: usize,
        /// The task it belongs to.
        task: String,
        /// The question.
        question: String,
        /// When it was opened.
        opened: String,
    },
    /// A resolved entry (`--all`).
    Resolved {
        /// When it was resolved.
        date: String,
        /// The task it belongs to.
        task: String,
        /// The entry's text.
        text: String,
    },
}

/// `question list [--all] [--task id]`: the entries shown, in store order. A malformed line is
/// a warning, not an entry.
pub fn list(ctx: &Ctx, all: bool, task: Option<&str>) -> Result<Vec<Listed>> {
    ctx.require_layer()?;
    let mut n = 0;
    let mut out = Vec::new();
    for e in entries(ctx)? {
        match e {
            Entry::Unresolved { task: t, question, opened, .. } => {
                n += 1;
                if task.is_none_or(|f| f == t) {
                    out.push(Listed::Unresolved { n, task: t, question, opened });
                }
            }
            Entry::Resolved { date, task: t, text, .. } if all && task.is_none_or(|f| f == t) => {
                out.push(Listed::Resolved { date, task: t, text })
            }
            Entry::Malformed { line, raw } => {
                ctx.warn(format!(".ai/local/state/open-questions.md:{line}: not a question entry: {raw}"))
            }
            Entry::Resolved { .. } => {}
        }
    }
    Ok(out)
}

/// `question list --json` (MCP `majordomus_questions`, HTTP `GET /api/v1/questions`): the
/// entries `question list` shows, in store order.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct QuestionList {
    /// The questions shown: every unresolved one (numbered as `question resolve <n>` takes
    /// them), and with `--all` the resolved ones too.
    pub questions: Vec<Listed>,
}

/// [`list`] as its JSON report.
pub fn listing(ctx: &Ctx, all: bool, task: Option<&str>) -> Result<QuestionList> {
    Ok(QuestionList { questions: list(ctx, all, task)? })
}

fn single_line(what: &str, s: &str) -> Result<String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(Error::usage(format!("{what} is empty")));
    }
    if t.contains('\n') || t.contains('\r') {
        return Err(Error::usage(format!("{what} must be a single line")));
    }
    Ok(t.to_string())
}

/// `question add`: returns (task id, question).
pub fn add(ctx: &Ctx, question: &str) -> Result<(String, String)> {
    ctx.require_layer()?;
    ctx.policy()?;
    let q = single_line("question add: the question", question)?;
    if q.contains(" — ") {
        return Err(Error::usage(
            "question add: ` — ` separates fields in open-questions.md and cannot appear in a question",
        ));
    }
    let task = task::active(ctx)?.ok_or_else(|| {
        Error::not_found("question add: no active task")
            .hint("run git majordomus start first; a question blocks the task that asks it")
    })?;
    let path = ctx.layout.questions();
    {
        let _lock = Lock::acquire(&ctx.layout.locks(), LOCK)?;
        seed(ctx, &path, "open-questions.md", crate::assets::QUESTIONS_TEMPLATE)?;
        let text = read(ctx)?;
        let sep = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
        append(&path, format!("{sep}{}\n", unresolved_line(&task.id, &q, &ctx.clock.date())).as_bytes())?;
    }
    ctx.record_event(
        Event::QuestionOpened,
        &[("task_id", Value::from(task.id.clone())), ("question", Value::from(q.clone()))],
    )?;
    Ok((task.id, q))
}

/// `question resolve <n|text> --answer`: returns (task id of the question, question).
pub fn resolve(ctx: &Ctx, selector: &str, answer: &str) -> Result<(String, String)> {
    ctx.require_layer()?;
    ctx.policy()?;
    let answer = single_line("question resolve: --answer", answer)?;
    let resolver = task::local(ctx)?.map(|t| t.id).unwrap_or_else(|| "none".into());
    let path = ctx.layout.questions();
    let (task_id, question) = {
        let _lock = Lock::acquire(&ctx.layout.locks(), LOCK)?;
        let text = read(ctx)?;
        let open: Vec<(usize, String, String)> = parse(&text)
            .into_iter()
            .filter_map(|e| match e {
                Entry::Unresolved { line, task, question, .. } => Some((line, task, question)),
                _ => None,
            })
            .collect();
        let sel = selector.trim();
        let chosen = if let Ok(n) = sel.parse::<usize>() {
            open.get(n.wrapping_sub(1)).cloned().ok_or_else(|| {
                Error::not_found(format!("question resolve: no unresolved question number {n} ({} open)", open.len()))
                    .hint("git majordomus question list shows the numbers")
            })?
        } else {
            let hits: Vec<&(usize, String, String)> = open.iter().filter(|(_, _, q)| q.contains(sel)).collect();
            match hits.len() {
                1 => hits[0].clone(),
                0 => {
                    return Err(Error::not_found(format!("question resolve: no unresolved question contains {sel:?}"))
                        .hint("git majordomus question list shows them"))
                }
                n => {
                    return Err(Error::usage(format!("question resolve: {sel:?} matches {n} unresolved questions"))
                        .hint("use the number git majordomus question list prints"))
                }
            }
        };
        let next = resolve_in(&text, chosen.0, &ctx.clock.date(), &answer)
            .ok_or_else(|| Error::io("question resolve: the store changed while resolving; try again"))?;
        replace(&path, next.as_bytes())?;
        (chosen.1, chosen.2)
    };
    ctx.record_event(
        Event::QuestionResolved,
        &[
            ("task_id", Value::from(resolver)),
            ("question", Value::from(question.clone())),
            ("answer", Value::from(answer)),
        ],
    )?;
    Ok((task_id, question))
}
