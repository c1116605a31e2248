//! `git majordomus search`.
//! Must not touch: git, record files, the search (`ops::queries::search`), the terminal except
//! through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::queries::search::{self, SearchParams};
use crate::render;
use crate::ui::Ui;

/// Literal, case-insensitive search across the records in authority order
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The text to find
    pub text: String,
    /// Only these kinds: handover, checkpoint, decision, question, prompt, history (repeatable)
    #[arg(long)]
    pub kind: Vec<String>,
    /// Only records of this task
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// At most N hits per kind (default 40)
    #[arg(long)]
    pub limit: Option<usize>,
}

/// Runs `search`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    let params = SearchParams { text: a.text.clone(), kinds: a.kind.clone(), task: a.task.clone(), limit: a.limit };
    // A usage error (unknown kind, empty text) is reported before the checkout is opened.
    search::kinds(&params.kinds)?;
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        let r = search::search(&ctx, &params)?;
        if cc.global.json {
            ui.json(&r);
        } else if r.hits.is_empty() {
            ui.line(&render::search::no_match(&a.text, &r.kinds));
        } else {
            for h in &r.hits {
                ui.line(&render::search::hit(h));
            }
            ui.line(&render::search::trailer(r.count));
        }
        Ok(if r.hits.is_empty() { Exit::NotFound } else { Exit::Ok })
    })();
    flush_warnings(ui, &ctx);
    result
}
