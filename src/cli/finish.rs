//! `git majordomus finish`.

use super::CommandContext;
use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

/// The outcomes `finish` accepts.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Outcome {
    /// The work is done; refused while any question is unresolved
    Completed,
    /// Part of it is done; needs a note with # Next Action
    Partial,
    /// Blocked; needs a note with # Next Action
    Blocked,
    /// Nothing to do; needs a note with # Reason
    NoMatch,
    /// It failed; needs a note with # Reason
    Failed,
}

/// Close the active task against its contract
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How the task ended
    #[arg(long, value_enum)]
    pub outcome: Outcome,
    /// A command that verifies the work (run as sh -c in the worktree root)
    #[arg(long, value_name = "CMD")]
    pub verify_command: Option<String>,
    /// A note file (copied to .ai/local/state/completed/<id>.md)
    #[arg(long, value_name = "FILE")]
    pub note: Option<std::path::PathBuf>,
    /// Evaluate the contract and write nothing
    #[arg(long)]
    pub check: bool,
}

/// Runs `finish`.
pub fn run(_cc: &CommandContext, _a: &Args, _ui: &mut Ui) -> Result<Exit> {
    Err(Error::io("finish: not implemented yet"))
}
