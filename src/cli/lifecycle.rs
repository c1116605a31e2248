//! `git majordomus lifecycle <episodes|recovery|runtime|providers|closed>` (docs/REFERENCE.md#surfaces).
//! Must not touch: git, record files, the read models (`ops::queries::lifecycle`), the terminal
//! except through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::queries::read::{self, Model};
use crate::ui::Ui;

/// Read the episode store: open episodes, recovery, runtime, providers, closed records
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Every open episode and where it stands (current, open, foreign, stranded)
    Episodes,
    /// The pointer, stranded episodes, orphan temporary files, the started/closed balance
    Recovery,
    /// The git state answered about against the repository's now
    Runtime,
    /// Each provider's declared events and the hook entries wired to it
    Providers,
    /// Closed session records: total, on this branch, the newest 20
    Closed,
}

/// Runs `lifecycle <x>`: a short text, or with `--json` the value every surface returns.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    let model = match a {
        Args::Episodes => Model::Episodes,
        Args::Recovery => Model::Recovery,
        Args::Runtime => Model::Runtime,
        Args::Providers => Model::Providers,
        Args::Closed => Model::Closed,
    };
    print_model(cc, &model, ui)
}

/// Prints one read model: its short text, or with `--json` its value (docs/REFERENCE.md#surfaces).
pub fn print_model(cc: &CommandContext, model: &Model, ui: &mut Ui) -> Result<Exit> {
    let ctx = cc.open()?;
    let result = read::value(&ctx, model, None, &crate::render::context::Text).map(|v| {
        if ui.json_mode() {
            ui.json(&v);
        } else {
            ui.text(&match model {
                Model::State => crate::render::read::state(&v),
                Model::Explain => crate::render::read::explain(&v),
                _ => crate::render::read::outline(&v),
            });
        }
        Exit::Ok
    });
    flush_warnings(ui, &ctx);
    result
}
