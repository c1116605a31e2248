//! `question add|resolve|list` (docs/REFERENCE.md#questions): blockers as state.
//! Must not touch: any line but the one it appends or resolves, another command or a query.

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::services::logs::seed;
use crate::services::logs::{read_questions, QUESTIONS_LOCK};
use crate::services::task;
use crate::store::atomic::{append, replace, Lock};
use crate::store::questions::{parse, resolve_in, unresolved_line, Entry};

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
        let _lock = Lock::acquire(&ctx.layout.locks(), QUESTIONS_LOCK)?;
        seed(ctx, &path, "open-questions.md", crate::assets::QUESTIONS_TEMPLATE)?;
        let text = read_questions(ctx)?;
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
        let _lock = Lock::acquire(&ctx.layout.locks(), QUESTIONS_LOCK)?;
        let text = read_questions(ctx)?;
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
