//! `git majordomus hook <provider> <event>`: run from a provider's agent hooks; always exits 0.

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
    /// The provider: claude-code or codex
    provider: String,
    /// The event: start, compact or end
    event: String,
}

/// Runs `hook`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    let mut payload = Vec::new();
    let stdin = std::io::stdin();
    if !std::io::IsTerminal::is_terminal(&stdin) {
        let _ = stdin.lock().take(PAYLOAD_READ_CAP).read_to_end(&mut payload);
        let _ = std::io::copy(&mut stdin.lock(), &mut std::io::sink());
    }
    let r = hook::run(cc.global.repo.as_deref(), &cc.env, &a.provider, &a.event, &payload, &render::context::Text);
    for l in &r.stderr {
        ui.status(l);
    }
    for l in &r.stdout {
        ui.line(l);
    }
    Ok(Exit::Ok)
}
