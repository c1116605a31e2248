//! `git majordomus checkpoint`.
//! Must not touch: git, record files, the write (`ops::commands::checkpoint`), the terminal except
//! through `Ui`.

use super::{flush_warnings, read_body, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::checkpoint::{self, CheckpointReport};
use crate::ops::services::labelled::label_preferred;
use crate::ops::services::resolve::shown_checkpoint;
use crate::render;
use crate::ui::Ui;

/// Write a short progress note (body on stdin), or show and list checkpoints
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Derive the body from records and git instead of stdin
    #[arg(long, conflicts_with_all = ["show", "list"])]
    derive: bool,
    /// Show the checkpoint that resolves here
    #[arg(long, conflicts_with = "list")]
    show: bool,
    /// With --show: print only the path
    #[arg(long, requires = "show")]
    path: bool,
    /// List every checkpoint, newest first
    #[arg(long)]
    list: bool,
}

/// Runs `checkpoint`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("checkpoint")?;
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        if a.show {
            let r = shown_checkpoint(&ctx)?;
            match r.record {
                None => match r.task {
                    Some(t) => ui.line(&format!("No checkpoint for {t}.")),
                    None => ui.line("No checkpoint for this worktree and branch."),
                },
                Some(rec) => {
                    let rel = ctx.rel(&rec.path);
                    if a.path {
                        ui.line(&rel);
                    } else {
                        let l = label_preferred(&ctx, rec, r.passed_over.clone())?;
                        let cited = crate::ops::services::citations::check(&ctx, &l.record.meta);
                        ui.text(&render::records::checkpoint(&l, &rel, ctx.clock.now(), &cited));
                    }
                }
            }
            return Ok(Exit::Ok);
        }
        if a.list {
            super::print_record_list(ui, &ctx, &ctx.layout.checkpoints(), "no checkpoint records for this worktree")?;
            return Ok(Exit::Ok);
        }
        let body = if a.derive { String::new() } else { read_body("checkpoint")? };
        match checkpoint::write(&ctx, &body, a.derive)? {
            CheckpointReport::Written { path, .. } => ui.line(&ctx.rel(&path)),
            CheckpointReport::NoBody { task_id: Some(t) } => {
                ui.line(&format!("checkpoint: no body; checkpoint_at of {t} updated"))
            }
            CheckpointReport::NoBody { task_id: None } => {
                ui.line("checkpoint: no body; nothing written (no active task)")
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
