//! `git majordomus question add|resolve|list`.
//! Must not touch: git, record files, the store (`ops::commands::question`), the terminal except
//! through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::question;
use crate::ops::queries::questions;
use crate::render;
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
    if !matches!(a, Args::List { .. }) {
        cc.no_json("question add|resolve")?;
    }
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
            Args::List { all, task } if cc.global.json => ui.json(&questions::listing(&ctx, all, task.as_deref())?),
            Args::List { all, task } => {
                ui.text(&render::records::questions(&questions::list(&ctx, all, task.as_deref())?))
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
