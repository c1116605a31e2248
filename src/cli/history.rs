//! `git majordomus history`.

use super::CommandContext;
use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

/// Read the ledger back, validate it, or rotate it
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only events of this task
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Only events of this name
    #[arg(long)]
    pub event: Option<String>,
    /// Only events since Nm|Nh|Nd|Ns ago or an ISO time
    #[arg(long)]
    pub since: Option<String>,
    /// Show the newest N matches (default 20)
    #[arg(long, conflicts_with = "all")]
    pub limit: Option<usize>,
    /// Show every match
    #[arg(long)]
    pub all: bool,
    /// Check every line; FAIL per malformed line or unregistered event
    #[arg(long, conflicts_with = "rotate")]
    pub validate: bool,
    /// Move the oldest lines past ledger.retention_max_lines into a dated archive
    #[arg(long)]
    pub rotate: bool,
}

/// Runs `history`.
pub fn run(_cc: &CommandContext, _a: &Args, _ui: &mut Ui) -> Result<Exit> {
    Err(Error::io("history: not implemented yet"))
}
