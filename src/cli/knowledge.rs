//! `git majordomus knowledge derive|candidates|promote|reject|check`.
//! Must not touch: git, record files, the candidates (`ops::commands::knowledge`), the terminal
//! except through `Ui`.

use super::{flush_warnings, read_body, CommandContext};
use crate::error::{Exit, Result};
use crate::model::finding::Findings;
use crate::ops::commands::knowledge;
use crate::ops::services::knowledge as derived;
use crate::render::knowledge as render;
use crate::ui::Ui;

/// Derive, review and curate what episodes taught the repository
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Derive candidates from an episode's ledger lines and git
    Derive {
        /// The episode (default: this process's)
        #[arg(long)]
        episode: Option<String>,
        /// Report what would be written; write nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// List the candidates awaiting review
    Candidates,
    /// Make a candidate verified (evidence on stdin)
    Promote {
        /// The candidate id
        id: String,
        /// fact, convention, constraint, memory or lesson
        #[arg(long)]
        class: Option<String>,
    },
    /// Reject a candidate (it is marked superseded in place)
    Reject {
        /// The candidate id
        id: String,
        /// Why (required)
        #[arg(long)]
        reason: Option<String>,
        /// The record that supersedes it
        #[arg(long)]
        by: Option<String>,
    },
    /// Check the integrity of the knowledge store
    Check,
}

/// Runs `knowledge`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    if matches!(a, Args::Promote { .. } | Args::Reject { .. }) {
        cc.no_json("knowledge promote/reject")?;
    }
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        let json = ui.json_mode();
        match a {
            Args::Derive { episode, dry_run } => {
                let r = derived::derive(&ctx, episode.as_deref(), dry_run)?;
                if json {
                    ui.json(&r);
                } else {
                    ui.text(&render::derive(&r));
                }
            }
            Args::Candidates => {
                let all = derived::candidates(&ctx)?;
                if json {
                    ui.json(&derived::Candidates { candidates: all });
                } else {
                    ui.text(&render::candidates(&all));
                }
            }
            Args::Promote { id, class } => {
                let evidence = read_body("knowledge promote")?;
                let p = knowledge::promote(&ctx, &id, class.as_deref(), &evidence)?;
                ui.line(&ctx.rel(&p));
            }
            Args::Reject { id, reason, by } => {
                let p = knowledge::reject(&ctx, &id, reason.as_deref().unwrap_or(""), by.as_deref())?;
                ui.line(&ctx.rel(&p));
            }
            Args::Check => {
                return Ok(super::print_findings(ui, Findings { findings: derived::check(&ctx)? }));
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
