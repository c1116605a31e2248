//! `git majordomus check`, `watch` and `doctor`.

use super::CommandContext;
use crate::error::{Error, Exit, Result};
use crate::ui::Ui;

/// Check the active task: scope, state, checkpoints, blockers, store integrity
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Also move the task's checkpoint_at to now (the one write)
    #[arg(long)]
    pub checkpoint: bool,
}

/// Report drift between the records, the ledger and git (exit 10 FAIL, 11 DRIFT)
#[derive(Debug, clap::Args)]
pub struct WatchArgs {}

/// Check the health of the whole store (exit 10 on any FAIL)
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

/// Runs `check`.
pub fn run_check(_cc: &CommandContext, _a: &CheckArgs, _ui: &mut Ui) -> Result<Exit> {
    Err(Error::io("check: not implemented yet"))
}

/// Runs `watch`.
pub fn run_watch(_cc: &CommandContext, _a: &WatchArgs, _ui: &mut Ui) -> Result<Exit> {
    Err(Error::io("watch: not implemented yet"))
}

/// Runs `doctor`.
pub fn run_doctor(_cc: &CommandContext, _a: &DoctorArgs, _ui: &mut Ui) -> Result<Exit> {
    Err(Error::io("doctor: not implemented yet"))
}
