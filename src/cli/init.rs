//! `git majordomus init`.
//! Must not touch: git, record files, the layer (`ops::commands::init`), the terminal except
//! through `Ui`.

use super::CommandContext;
use crate::error::{Exit, Result};
use crate::ops;
use crate::ui::Ui;

/// What `init` tells the user to do next (docs/REFERENCE.md#identity): commit the layer's
/// tracked half and the `.gitignore` line before `start` (an uncommitted `.gitignore` is work
/// outside the first task's scope, and `finish` refuses it). The README's tour runs this commit.
const NEXT: &str = "git add .ai/repo .gitignore && git commit -m \"Add the majordomus layer\", then git majordomus start \"<task>\" --scope <path>";

/// Create the .ai/ layer: policy, profiles, templates and the .gitignore line
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `init`.
pub fn run(cc: &CommandContext, _a: &Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("init")?;
    let ctx = cc.open()?;
    let r = ops::commands::init::run(&ctx)?;
    if r.created.is_empty() {
        ui.success("already initialised");
    }
    for p in &r.created {
        ui.line(p);
    }
    if !r.created.is_empty() {
        ui.next(NEXT);
    }
    Ok(Exit::Ok)
}
