//! `git majordomus worktree list|adopt`.
//! Must not touch: git, record files, the kept records (`ops::commands::worktree`), the terminal
//! except through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::worktree;
use crate::ops::queries::worktrees;
use crate::render;
use crate::ui::Ui;

/// The records of removed worktrees: list them, adopt them into this checkout
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// List the checkouts of this clone whose records are kept under the git directory
    List,
    /// Bring a removed worktree's records into this checkout (its task, handovers, checkpoints,
    /// decisions and questions); only then do they join its resolution and gate its finish
    Adopt {
        /// The removed worktree: git's name for it, a path it was at, or its id
        worktree: String,
    },
}

/// Runs `worktree`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        match a {
            Args::List if cc.global.json => ui.json(&worktrees::list(&ctx)?),
            Args::List => ui.text(&render::records::kept_list(&worktrees::list(&ctx)?)),
            Args::Adopt { worktree } => {
                let done = worktree::adopt(&ctx, &worktree)?;
                if cc.global.json {
                    ui.json(&done);
                } else {
                    ui.success(&render::records::adopted(&done));
                }
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
