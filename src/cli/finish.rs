//! `git majordomus finish`.
//! Must not touch: git, record files, the contract (`ops::commands::finish`), the terminal except
//! through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Error, Exit, Result};
use crate::model::task::Outcome;
use crate::ops::commands::finish::{self, FinishParams};
use crate::ui::Ui;

/// The outcomes `finish` accepts.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum FinishOutcome {
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

impl From<FinishOutcome> for Outcome {
    fn from(o: FinishOutcome) -> Outcome {
        match o {
            FinishOutcome::Completed => Outcome::Completed,
            FinishOutcome::Partial => Outcome::Partial,
            FinishOutcome::Blocked => Outcome::Blocked,
            FinishOutcome::NoMatch => Outcome::NoMatch,
            FinishOutcome::Failed => Outcome::Failed,
        }
    }
}

/// Close the active task against its contract
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How the task ended
    #[arg(long, value_enum)]
    pub outcome: FinishOutcome,
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
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("finish")?;
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        let note = a.note.as_deref().map(finish::read_note).transpose()?;
        let r = finish::run(
            &ctx,
            FinishParams { outcome: a.outcome.into(), verify_command: a.verify_command.clone(), note, check: a.check },
        )?;
        let Some(task) = &r.task else {
            ui.line("no active task");
            return Ok(Exit::Ok);
        };
        for f in r.findings(a.outcome.into()) {
            ui.finding(&f);
        }
        if r.unmet > 0 {
            if a.check {
                ui.line(&format!("finish --check: {} unmet", r.unmet));
                return Ok(Exit::Refused);
            }
            return Err(Error::refused(format!("finish: refused, {} unmet", r.unmet)).hint("resolve what the FAIL lines name, or finish with an honest outcome (partial, blocked, no_match, failed)"));
        }
        if a.check {
            ui.line(&format!("finish --check: {} would be accepted as {}", task.id, Outcome::from(a.outcome)));
        } else {
            ui.line(&format!("finished {}: {}", task.id, Outcome::from(a.outcome)));
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
