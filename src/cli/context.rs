//! `git majordomus context`.
//! Must not touch: git, record files, the document (`ops::services::context`), the terminal except
//! through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::services::context::{self, ContextParams};
use crate::render;
use crate::ui::Ui;

/// Print the briefing: a bounded projection of durable state and git
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Name the provider whose always-loaded instructions the briefing complements
    #[arg(long = "for", value_name = "PROVIDER")]
    pub provider: Option<String>,
    /// Append the prompt asset .ai/repo/prompts/<NAME>.md
    #[arg(long, value_name = "NAME")]
    pub prompt: Option<String>,
    /// Line budget (default: policy context.builder_budget_lines)
    #[arg(long, value_name = "N")]
    pub budget_lines: Option<usize>,
}

/// Runs `context`: builds the document, refuses it (10) when what is never dropped does not fit.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    let ctx = cc.open()?;
    let params = ContextParams { provider: a.provider.clone(), prompt: a.prompt.clone(), budget_lines: a.budget_lines };
    let result = context::build(&ctx, &params, &render::context::Text).and_then(|report| {
        report.within_budget()?;
        if cc.global.json {
            ui.json(&report);
        } else {
            ui.text(&render::context::text(&report));
        }
        Ok(Exit::Ok)
    });
    flush_warnings(ui, &ctx);
    result
}
