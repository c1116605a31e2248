//! `git majordomus handover`.
//! Must not touch: git, record files, the write and resolution (`ops::commands::handover`), the
//! terminal except through `Ui`.

use super::{flush_warnings, read_body, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::handover::{self, HandoverParams};
use crate::render;
use crate::ui::Ui;

/// Write a handover (body on stdin), or resolve and list handovers
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Mark an active task handed_over
    #[arg(long, conflicts_with_all = ["resolve", "list"])]
    close: bool,
    /// Write without a task record (task_id: none)
    #[arg(long, conflicts_with_all = ["resolve", "list"])]
    no_task: bool,
    /// Derive the body from records and git instead of stdin
    #[arg(long, conflicts_with_all = ["resolve", "list"])]
    derive: bool,
    /// Show the handover that resolves for this worktree and branch
    #[arg(long, conflicts_with = "list")]
    resolve: bool,
    /// With --resolve: only handovers written under this task
    #[arg(long, requires = "resolve", value_name = "ID")]
    task: Option<String>,
    /// With --resolve: print only the path
    #[arg(long, requires = "resolve")]
    path: bool,
    /// List every handover, newest first
    #[arg(long)]
    list: bool,
}

/// Runs `handover`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    if !a.resolve || a.path {
        cc.no_json(if a.resolve { "handover --resolve --path" } else { "handover without --resolve" })?;
    }
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        if a.resolve && cc.global.json {
            ui.json(&crate::ops::queries::state::resolved_handover(&ctx, a.task.as_deref())?);
            return Ok(Exit::Ok);
        }
        if a.resolve {
            match crate::ops::services::labelled::resolve_labelled(&ctx, a.task.as_deref())? {
                None => {
                    ui.line("No relevant handover.");
                    if let Some((path, branch, landed)) = a
                        .task
                        .as_deref()
                        .filter(|_| !a.path)
                        .map(|t| crate::ops::services::labelled::landed_elsewhere(&ctx, t))
                        .transpose()?
                        .flatten()
                    {
                        ui.line(&format!("This task's newest handover, on {branch}, {}: {path}", landed.describe()));
                    }
                }
                Some(l) => {
                    let rel = ctx.rel(&l.record.path);
                    if a.path {
                        ui.line(&rel);
                    } else {
                        let cited = crate::ops::services::citations::check(&ctx, &l.record.meta);
                        ui.text(&render::records::handover(&l, &rel, ctx.clock.now(), &cited));
                    }
                }
            }
            return Ok(Exit::Ok);
        }
        if a.list {
            super::print_record_list(ui, &ctx, &ctx.layout.handovers(), "no handover records for this worktree")?;
            // A removed worktree's handovers, kept under the git directory: listed with the
            // worktree they came from, resolved nowhere until adopted (D60).
            for k in crate::ops::services::kept::orphans(&ctx).iter().filter(|k| !k.handovers.is_empty()) {
                let adopt = k.checkout.name.as_deref().unwrap_or(&k.checkout.id);
                ui.line(&format!(
                    "kept from the removed worktree {} (git majordomus worktree adopt {adopt}):",
                    k.checkout.last_path()
                ));
                for (name, meta) in &k.handovers {
                    let label = crate::ops::services::rewrite::shown(&ctx, meta);
                    ui.line(&crate::render::records::list_line(meta, &label, name));
                }
            }
            return Ok(Exit::Ok);
        }
        let body = if a.derive { String::new() } else { read_body("handover")? };
        let r = handover::write(&ctx, HandoverParams { body, derive: a.derive, close: a.close, no_task: a.no_task })?;
        ui.line(&ctx.rel(&r.path));
        if r.closed {
            ui.status(&format!("task {} is now handed_over", r.task_id));
        }
        ui.next("the next session runs git majordomus handover --resolve (or context)");
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
