//! `git majordomus mcp`: the MCP stdio server (docs/REFERENCE.md#mcp).
//! Must not touch: the protocol (`surface::mcp`), git, record files, stdout beyond the transport.

use std::sync::Arc;

use super::CommandContext;
use crate::error::{Exit, Result};
use crate::ui::Ui;

/// Serve the read models over MCP on stdin/stdout (read-only tools and resources)
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `mcp` until stdin closes; diagnostics go to stderr, stdout carries only the protocol.
pub fn run(cc: &CommandContext, _a: &Args, _ui: &mut Ui) -> Result<Exit> {
    cc.no_json("mcp")?;
    crate::surface::mcp::run(cc.global.repo.clone(), cc.env.clone(), Arc::new(crate::ui::note))?;
    Ok(Exit::Ok)
}
