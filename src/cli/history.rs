//! `git majordomus history`.
//! Must not touch: git, record files, the ledger (`ops::queries::history`), the terminal except
//! through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Error, Exit, Result};
use crate::model::finding::Findings;
use crate::ops::queries::history::{self, Filter, Listing, Rotation};
use crate::render;
use crate::store::ledger::Line;
use crate::ui::Ui;

/// Read the ledger back, validate it, or rotate it
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only events of this task
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Only events of this name
    #[arg(long)]
    pub event: Option<String>,
    /// Only events since Nm|Nh|Nd|Ns ago or an ISO time
    #[arg(long)]
    pub since: Option<String>,
    /// Show the newest N matches (default 20)
    #[arg(long, conflicts_with = "all")]
    pub limit: Option<usize>,
    /// Show every match
    #[arg(long)]
    pub all: bool,
    /// Check every line; FAIL per malformed line or unregistered event
    #[arg(long, conflicts_with = "rotate")]
    pub validate: bool,
    /// Move the oldest lines past ledger.retention_max_lines into a dated archive
    #[arg(long)]
    pub rotate: bool,
}

/// Runs `history`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    let json = cc.global.json;
    let filtered = a.task.is_some() || a.event.is_some() || a.since.is_some() || a.limit.is_some() || a.all;
    if (a.validate || a.rotate) && filtered {
        return Err(Error::usage(
            "history: --validate and --rotate take no filters (--task, --event, --since, --limit, --all)",
        ));
    }
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        if a.validate {
            return Ok(super::print_findings(ui, Findings { findings: history::validate(&ctx)? }));
        }
        if a.rotate {
            let r = history::rotate(&ctx)?;
            if json {
                ui.json(&r);
                return Ok(Exit::Ok);
            }
            match &r {
                Rotation::Nothing { lines, cap } => ui.line(&format!("nothing to rotate: {lines} lines, cap {cap}")),
                Rotation::Rotated { archived, kept, archive } => {
                    ui.success(&format!("rotated: {archived} line(s) to {archive}, {kept} kept"))
                }
            }
            return Ok(Exit::Ok);
        }
        let filter = Filter::new(a.task.clone(), a.event.clone(), a.since.as_deref(), a.limit, a.all, ctx.clock.now())?;
        let mut emit = |l: &Line| {
            // JSON Lines: the matching lines verbatim, so duplicate keys survive.
            if json {
                ui.line(&l.raw);
            } else {
                ui.line(&render::history::line(l));
            }
        };
        let listing = history::list(&ctx, &filter, &mut emit)?;
        match listing {
            Listing::NoLedger { path } => {
                if json {
                    ui.status(&format!("no ledger yet ({path} does not exist)"));
                } else {
                    ui.line(&format!("no ledger yet ({path} is written by the first command that records an event)"));
                }
            }
            Listing::Events { shown, matched } => {
                if !json {
                    if shown == 0 {
                        ui.line("no matching events");
                    } else if let Some(t) = render::history::trailer(shown, matched) {
                        ui.line(&t);
                    }
                }
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}
