//! `git majordomus context`.

use super::CommandContext;
use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

/// Print the briefing: a bounded projection of durable state and git
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Name the provider whose always-loaded instructions the briefing complements
    #[arg(long = "for", value_name = "PROVIDER")]
    pub provider: Option<String>,
    /// Append the prompt asset .ai/repo/prompts/<NAME>.md
    #[arg(long, value_name = "NAME")]
    pub prompt: Option<String>,
    /// Line budget (default: policy context.builder_budget_lines)
    #[arg(long, value_name = "N")]
    pub budget_lines: Option<usize>,
}

/// Runs `context`.
pub fn run(_cc: &CommandContext, _a: &Args, _ui: &mut Ui) -> Result<Exit> {
    Err(Error::io("context: not implemented yet"))
}
