//! `question list` (docs/REFERENCE.md#questions): the blockers as read; `commands::question`
//! opens and resolves them.
//! Must not touch: a command, writes (the file is read as it is).

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::services::logs::question_entries;
use crate::store::questions::Entry;
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
    for e in question_entries(ctx)? {
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
