//! `git majordomus question add|resolve|list`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::question;
use crate::store::questions::Entry;
use crate::ui::Ui;

/// Open, resolve and list the questions that block completion
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Open a question under the active task; it refuses finish --outcome completed until resolved
    Add {
        /// The question (one line)
        question: String,
    },
    /// Resolve a question by its number in `question list` or a unique part of its text
    Resolve {
        /// Number or text fragment
        selector: String,
        /// The answer (one line)
        #[arg(long)]
        answer: Option<String>,
    },
    /// List unresolved questions (numbered)
    List {
        /// Also show resolved ones
        #[arg(long)]
        all: bool,
        /// Only questions opened under this task
        #[arg(long, value_name = "ID")]
        task: Option<String>,
    },
}

/// Runs `question`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("question")?;
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        match a {
            Args::Add { question } => {
                let (t, q) = question::add(&ctx, &question)?;
                ui.success(&format!("opened for {t}: {q}"));
            }
            Args::Resolve { selector, answer } => {
                let answer =
                    answer.ok_or_else(|| crate::error::Error::usage("question resolve: --answer is required"))?;
                let (t, q) = question::resolve(&ctx, &selector, &answer)?;
                ui.success(&format!("resolved for {t}: {q}"));
            }
            Args::List { all, task } => {
                ctx.require_layer()?;
                let mut n = 0;
                let mut shown = 0;
                for e in question::entries(&ctx)? {
                    match e {
                        Entry::Unresolved { task: t, question, opened, .. } => {
                            n += 1;
                            if task.as_deref().is_none_or(|f| f == t) {
                                ui.line(&format!("{n}  [unresolved] {t} — {question} ({opened})"));
                                shown += 1;
                            }
                        }
                        Entry::Resolved { date, task: t, text, .. }
                            if all && task.as_deref().is_none_or(|f| f == t) =>
                        {
                            ui.line(&format!("-  [resolved {date}] {t} — {text}"));
                            shown += 1;
                        }
                        Entry::Malformed { line, raw } => {
                            ctx.warn(format!(".ai/local/state/open-questions.md:{line}: not a question entry: {raw}"))
                        }
                        _ => {}
                    }
                }
                if shown == 0 {
                    ui.line("no open questions");
                }
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
