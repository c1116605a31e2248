//! `git majordomus hook <provider> <event>`: run from a provider's agent hooks; always exits 0.
//! Must not touch: the lifecycle steps (`ops::hook`), the exit code (always 0), the terminal except
//! through `Ui`.

use std::io::Read;

use super::CommandContext;
use crate::error::{Exit, Result};
use crate::ops::hook;
use crate::render;
use crate::ui::Ui;

/// How much of a payload is read; the rest is discarded (a hook never refuses its provider).
const PAYLOAD_READ_CAP: u64 = 4 * 1024 * 1024;

/// Run a provider lifecycle hook (payload on stdin); prints the briefing on start
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider: claude-code, codex, gemini-cli, cursor or copilot-cli
    provider: String,
    /// The event: start, compact or end
    event: String,
    /// For `git post-rewrite`: the command that rewrote (amend or rebase)
    #[arg(hide = true)]
    arg: Option<String>,
}

/// Runs `hook`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    let mut payload = Vec::new();
    let stdin = std::io::stdin();
    if !std::io::IsTerminal::is_terminal(&stdin) {
        let _ = stdin.lock().take(PAYLOAD_READ_CAP).read_to_end(&mut payload);
        let _ = std::io::copy(&mut stdin.lock(), &mut std::io::sink());
    }
    if a.provider == "git" && a.event == "post-rewrite" {
        // Installed by `hooks install --git`; like every hook it never fails its caller.
        if let Ok(ctx) = cc.open() {
            let _ = crate::ops::services::rewrite::capture(
                &ctx,
                a.arg.as_deref().unwrap_or(""),
                &String::from_utf8_lossy(&payload),
            );
        }
        return Ok(Exit::Ok);
    }
    let r = hook::run(
        cc.global.repo.as_deref(),
        &cc.env,
        &a.provider,
        &a.event,
        &payload,
        &render::context::Text,
        &render::briefing::Briefing,
    );
    for l in &r.stderr {
        ui.status(&render::hook::say(l));
    }
    for l in &r.stdout {
        ui.line(l);
    }
    Ok(Exit::Ok)
}
