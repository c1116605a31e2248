//! `git majordomus search`.

use super::CommandContext;
use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

/// Literal, case-insensitive search across the records in authority order
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The text to find
    pub text: String,
    /// Only these kinds: handover, checkpoint, decision, question, prompt, history (repeatable)
    #[arg(long)]
    pub kind: Vec<String>,
    /// Only records of this task
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// At most N hits per kind (default 40)
    #[arg(long)]
    pub limit: Option<usize>,
}

/// Runs `search`.
pub fn run(_cc: &CommandContext, _a: &Args, _ui: &mut Ui) -> Result<Exit> {
    Err(Error::io("search: not implemented yet"))
}
