//! `git majordomus init`.

use super::CommandContext;
use crate::error::{Exit, Result};
use crate::ops;
use crate::ui::Ui;

/// Create the .ai/ layer: policy, profiles, templates and the .gitignore line
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `init`.
pub fn run(cc: &CommandContext, _a: &Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("init")?;
    let ctx = cc.open()?;
    let r = ops::init::run(&ctx)?;
    if r.created.is_empty() {
        ui.success("already initialised");
    }
    for p in &r.created {
        ui.line(p);
    }
    if !r.created.is_empty() {
        ui.next("git majordomus start \"<task>\" --scope <paths>");
    }
    Ok(Exit::Ok)
}
