//! `git majordomus start`.
//! Must not touch: git, record files, the task (`ops::commands::start`), the terminal except
//! through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::start::{self, StartParams};
use crate::ui::Ui;

/// Open a task in this checkout, or reopen a handed-over one with --resume
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What is being worked on (one line)
    #[arg(required_unless_present = "resume")]
    task: Option<String>,
    /// Paths the task may touch (repeatable, comma-separated)
    #[arg(long, value_name = "PATHS")]
    scope: Vec<String>,
    /// Profile name (default: policy profiles.default)
    #[arg(long)]
    profile: Option<String>,
    /// Who owns the task (default: $USER, else git config user.name)
    #[arg(long)]
    owner: Option<String>,
    /// Make a handed-over (or partial, or blocked) task, current or archived, active again under
    /// its own id, with the task text, scope, profile and owner it was started with
    #[arg(long, value_name = "TASK_ID", conflicts_with_all = ["task", "scope", "profile", "owner"])]
    resume: Option<String>,
}

/// Runs `start`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("start")?;
    let ctx = cc.open()?;
    if let Some(id) = &a.resume {
        let r = start::resume(&ctx, id);
        flush_warnings(ui, &ctx);
        let r = r?;
        if let Some(old) = &r.archived {
            ui.status(&format!("archived {old} to .ai/local/state/archive/{old}.yaml"));
        }
        ui.line(&format!(
            "resumed {}  profile={}  scope={}  was={}",
            r.task.id,
            r.task.profile,
            r.task.scope.join(","),
            r.previous
        ));
        for f in &r.findings {
            ui.finding(f);
        }
        ui.next("git majordomus handover --resolve, then git majordomus context");
        return Ok(Exit::Ok);
    }
    let params = StartParams { task: a.task.unwrap_or_default(), scope: a.scope, profile: a.profile, owner: a.owner };
    let r = start::run(&ctx, params);
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
