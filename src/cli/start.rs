//! `git majordomus start`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::start::{self, StartParams};
use crate::ui::Ui;

/// Open a task in this checkout
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What is being worked on (one line)
    task: String,
    /// Paths the task may touch (repeatable, comma-separated)
    #[arg(long, value_name = "PATHS")]
    scope: Vec<String>,
    /// Profile name (default: policy profiles.default)
    #[arg(long)]
    profile: Option<String>,
    /// Who owns the task (default: $USER)
    #[arg(long)]
    owner: Option<String>,
}

/// Runs `start`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("start")?;
    let ctx = cc.open()?;
    let r = start::run(&ctx, StartParams { task: a.task, scope: a.scope, profile: a.profile, owner: a.owner });
    flush_warnings(ui, &ctx);
    let r = r?;
    if let Some(old) = &r.archived {
        ui.status(&format!("archived {old} to .ai/local/state/archive/{old}.yaml"));
    }
    ui.line(&format!("started {}  profile={}  scope={}", r.task.id, r.task.profile, r.task.scope.join(",")));
    for f in &r.findings {
        ui.finding(f);
    }
    ui.next("git majordomus context");
    Ok(Exit::Ok)
}
