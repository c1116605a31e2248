//! `git majordomus hooks install|uninstall`.
//! Must not touch: git, record files, the settings files (`ops::commands::install`), the terminal
//! except through `Ui`.

use super::{flush_warnings, CommandContext};
use crate::error::{Error, Exit, Result};
use crate::model::providers;
use crate::ops::commands::install::{self, Scope, Targets};
use crate::ui::Ui;

/// What to (un)install; Claude Code (project), the git hooks and the refspec when no flag is given
#[derive(Debug, Clone, clap::Args)]
pub struct Which {
    /// Claude Code hooks: .claude/settings.json (project), .claude/settings.local.json (local) or ~/.claude/settings.json (user)
    #[arg(long, value_name = "SCOPE", num_args = 0..=1, default_missing_value = "project")]
    claude_code: Option<String>,
    /// Codex hooks: .codex/hooks.json (project) or ~/.codex/hooks.json (user)
    #[arg(long, value_name = "SCOPE", num_args = 0..=1, default_missing_value = "project")]
    codex: Option<String>,
    /// Gemini CLI hooks: .gemini/settings.json (project) or ~/.gemini/settings.json (user)
    #[arg(long, value_name = "SCOPE", num_args = 0..=1, default_missing_value = "project")]
    gemini_cli: Option<String>,
    /// Cursor hooks: .cursor/hooks.json (project) or ~/.cursor/hooks.json (user)
    #[arg(long, value_name = "SCOPE", num_args = 0..=1, default_missing_value = "project")]
    cursor: Option<String>,
    /// GitHub Copilot CLI hooks: .github/hooks/majordomus.json (project)
    #[arg(long, value_name = "SCOPE", num_args = 0..=1, default_missing_value = "project")]
    copilot_cli: Option<String>,
    /// The git hooks pre-push, post-checkout and post-rewrite
    #[arg(long)]
    git: bool,
    /// The continuity fetch refspec of REMOTE (default: the branch's remote, else origin)
    #[arg(long, value_name = "REMOTE", num_args = 0..=1, default_missing_value = "")]
    fetch_refspec: Option<String>,
}

impl Which {
    fn targets(&self) -> Result<Targets> {
        let hosts = [
            ("claude-code", &self.claude_code),
            ("codex", &self.codex),
            ("gemini-cli", &self.gemini_cli),
            ("cursor", &self.cursor),
            ("copilot-cli", &self.copilot_cli),
        ];
        let mut agents = Vec::new();
        for (name, scope) in hosts {
            let (Some(scope), Some(p)) = (scope, providers::find(name)) else { continue };
            let Some(s) = Scope::parse(scope) else {
                return Err(Error::usage(format!("--{name}={scope}: the scope is project, local or user")));
            };
            agents.push((p, s));
        }
        Ok(Targets {
            agents,
            git: self.git,
            fetch_refspec: self.fetch_refspec.as_ref().map(|r| Some(r.clone()).filter(|r| !r.is_empty())),
        })
    }
}

/// Install or remove the agent and git hooks
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Install (idempotent)
    Install(Which),
    /// Remove only what install added
    Uninstall(Which),
    /// What is installed where: every host and scope, the git hooks, the fetch refspecs
    Status,
}

/// Runs `hooks`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    if let Args::Status = a {
        let ctx = cc.open()?;
        let r = install::status(&ctx)?;
        if ui.json_mode() {
            ui.json(&r);
        } else {
            ui.text(&crate::render::records::hooks_status(&r));
        }
        return Ok(Exit::Ok);
    }
    cc.no_json("hooks")?;
    let ctx = cc.open()?;
    let r = match a {
        Args::Status => return Ok(Exit::Ok),
        Args::Install(w) => install::install(&ctx, w.targets()?),
        Args::Uninstall(w) => install::uninstall(&ctx, w.targets()?),
    };
    flush_warnings(ui, &ctx);
    for l in r? {
        ui.line(&l);
    }
    Ok(Exit::Ok)
}
