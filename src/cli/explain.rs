//! `git majordomus explain`: the `continuity.explain` read model (docs/REFERENCE.md#surfaces).
//! Must not touch: git, record files, the read model (`ops::queries::explain`), the terminal except
//! through `Ui`.

use super::CommandContext;
use crate::error::{Exit, Result};
use crate::ops::queries::read::Model;
use crate::ui::Ui;

/// Explain why state answered what it did: each answer with its reason and citations
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `explain`: a short text, or with `--json` the continuity.explain value.
pub fn run(cc: &CommandContext, _a: &Args, ui: &mut Ui) -> Result<Exit> {
    super::lifecycle::print_model(cc, &Model::Explain, ui)
}
