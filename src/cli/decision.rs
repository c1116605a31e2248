//! `git majordomus decision add|list|show`.
//! Must not touch: git, record files, the log (`ops::commands::decision`), the terminal except
//! through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::decision::{self, AddParams};
use crate::ops::queries::decisions;
use crate::render;
use crate::ui::Ui;

/// Record and read decisions (append-only)
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Append a decision to the log
    Add {
        /// The decision, as a one-line title
        title: String,
        /// Why it was decided (required, one line)
        #[arg(long)]
        why: Option<String>,
        /// What was rejected
        #[arg(long)]
        rejected: Option<String>,
        /// Evidence for it
        #[arg(long)]
        evidence: Option<String>,
        /// Part of the title of the earlier decision this one replaces
        #[arg(long)]
        supersedes: Option<String>,
    },
    /// List decisions, newest first
    List {
        /// Only decisions recorded under this task
        #[arg(long, value_name = "ID")]
        task: Option<String>,
        /// At most this many
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Show the first decision whose title contains the text
    Show {
        /// Part of a title
        text: String,
    },
}

/// Runs `decision`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    if !matches!(a, Args::List { .. }) {
        cc.no_json("decision add|show")?;
    }
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        match a {
            Args::Add { title, why, rejected, evidence, supersedes } => {
                let t = decision::add(
                    &ctx,
                    AddParams { title, why: why.unwrap_or_default(), rejected, evidence, supersedes },
                )?;
                ui.success(&format!("recorded: {t}"));
            }
            Args::List { task, limit } if cc.global.json => {
                ui.json(&decisions::listing(&ctx, task.as_deref(), limit)?);
            }
            Args::List { task, limit } => {
                let (list, all) = decisions::list(&ctx, task.as_deref(), limit)?;
                if list.is_empty() {
                    ui.line("(none)");
                }
                for d in &list {
                    ui.line(&render::records::decision_line(d, &all));
                }
            }
            Args::Show { text } => {
                let (d, all) = decisions::show(&ctx, &text)?;
                ui.text(&render::records::decision(&d, &all));
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
