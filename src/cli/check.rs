//! `git majordomus check`, `watch` and `doctor`.
//! Must not touch: git, record files, the rules (`ops::health`), the terminal except through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::ctx::Ctx;
use crate::error::{Exit, Result};
use crate::model::finding::Findings;
use crate::ops::health;
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
pub fn run_check(cc: &CommandContext, a: &CheckArgs, ui: &mut Ui) -> Result<Exit> {
    run(cc, ui, |ctx| health::check(ctx, a.checkpoint))
}

/// Runs `watch`.
pub fn run_watch(cc: &CommandContext, _a: &WatchArgs, ui: &mut Ui) -> Result<Exit> {
    run(cc, ui, health::watch)
}

/// Runs `doctor`.
pub fn run_doctor(cc: &CommandContext, _a: &DoctorArgs, ui: &mut Ui) -> Result<Exit> {
    run(cc, ui, health::doctor)
}

/// Opens the checkout, runs one of the three, prints the findings (or the JSON document) and
/// maps them to the exit code: 10 on any FAIL, else 11 on any DRIFT, else 0.
fn run(cc: &CommandContext, ui: &mut Ui, op: impl FnOnce(&Ctx) -> Result<Findings>) -> Result<Exit> {
    let ctx = cc.open()?;
    let result = op(&ctx);
    flush_warnings(ui, &ctx);
    Ok(super::print_findings(ui, result?))
}
