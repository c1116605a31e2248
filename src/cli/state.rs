//! `git majordomus state`: the `continuity.state` read model (docs/REFERENCE.md#surfaces).
//! Must not touch: git, record files, the read model (`ops::queries::state`), the terminal except
//! through `Ui`.

use super::CommandContext;
use crate::error::{Exit, Result};
use crate::ops::queries::read::Model;
use crate::ui::Ui;

/// Show what the lifecycle of this checkout holds (the MCP/HTTP continuity.state value)
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `state`: a short text, or with `--json` the continuity.state value.
pub fn run(cc: &CommandContext, _a: &Args, ui: &mut Ui) -> Result<Exit> {
    super::lifecycle::print_model(cc, &Model::State, ui)
}
