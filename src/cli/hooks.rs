//! `git majordomus hooks install|uninstall`.

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::install::{self, Targets};
use crate::ui::Ui;

/// What to (un)install; all three when no flag is given
#[derive(Debug, Clone, clap::Args)]
pub struct Which {
    /// Claude Code hooks in .claude/settings.json
    #[arg(long)]
    claude_code: bool,
    /// The git hooks pre-push and post-checkout
    #[arg(long)]
    git: bool,
    /// The continuity fetch refspec of REMOTE (default: the branch's remote, else origin)
    #[arg(long, value_name = "REMOTE", num_args = 0..=1, default_missing_value = "")]
    fetch_refspec: Option<String>,
}

impl Which {
    fn targets(&self) -> Targets {
        Targets {
            claude_code: self.claude_code,
            git: self.git,
            fetch_refspec: self.fetch_refspec.as_ref().map(|r| Some(r.clone()).filter(|r| !r.is_empty())),
        }
    }
}

/// Install or remove the agent and git hooks
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Install (idempotent)
    Install(Which),
    /// Remove only what install added
    Uninstall(Which),
}

/// Runs `hooks`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    cc.no_json("hooks")?;
    let ctx = cc.open()?;
    let r = match a {
        Args::Install(w) => install::install(&ctx, w.targets()),
        Args::Uninstall(w) => install::uninstall(&ctx, w.targets()),
    };
    flush_warnings(ui, &ctx);
    for l in r? {
        ui.line(&l);
    }
    Ok(Exit::Ok)
}
