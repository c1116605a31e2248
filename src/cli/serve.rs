//! `git majordomus serve [--listen 127.0.0.1:8741] [--allow-remote]` and `serve ensure|status|stop`
//! (docs/REFERENCE.md#http).
//! Must not touch: the routes (`surface::http`), git, record files, the terminal except through
//! `Ui`.

use super::CommandContext;
use crate::error::{Error, Exit, Result};
use crate::ops::commands::server;
use crate::surface::http;
use crate::ui::Ui;

/// Serve the read-only HTTP API and the continuity cockpit on loopback
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// The address to bind (default 127.0.0.1:8741; `ensure` defaults to 127.0.0.1:0)
    #[arg(long, value_name = "ADDR", global = true)]
    pub listen: Option<String>,
    /// Allow binding an address other machines can reach (no Host check then)
    #[arg(long)]
    pub allow_remote: bool,
    /// Record this server in .ai/local/state/server.json and exit when that record goes
    #[arg(long, hide = true)]
    pub record: bool,
    #[command(subcommand)]
    pub action: Option<Action>,
}

/// What to do with the shared server.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Start one detached server for this checkout unless one answers
    Ensure,
    /// Show the recorded server and whether it answers
    Status,
    /// Stop the recorded server
    Stop,
}

/// Runs `serve`.
pub fn run(cc: &CommandContext, a: &Args, ui: &mut Ui) -> Result<Exit> {
    match &a.action {
        None => {
            cc.no_json("serve")?;
            let opts = http::Options {
                listen: a.listen.clone().unwrap_or_else(|| "127.0.0.1:8741".into()),
                allow_remote: a.allow_remote,
                repo: cc.global.repo.clone(),
                env: cc.env.clone(),
                record: a.record,
            };
            http::serve(opts, |url| {
                ui.status(&format!("serving {url} (read-only; Ctrl-C stops it)"));
                ui.flush();
            })?;
            Ok(Exit::Ok)
        }
        Some(Action::Ensure) => {
            let ctx = cc.open()?;
            if let Some(l) = &a.listen {
                http::check_bind(l, false)?;
            }
            let exe = std::env::current_exe().map_err(|e| Error::io(format!("serve ensure: {e}")))?;
            match server::ensure(&ctx, &exe, a.listen.as_deref()) {
                Ok(r) => {
                    if cc.global.json {
                        ui.json(&r);
                    } else {
                        ui.line(&format!("Shared server: ready {} pid {}", r.url, r.pid));
                    }
                    Ok(Exit::Ok)
                }
                Err(e) => {
                    if !cc.global.json {
                        ui.line(&format!("Shared server: not ensured: {}", e.message));
                    }
                    Err(e)
                }
            }
        }
        Some(Action::Status) => {
            let ctx = cc.open()?;
            let st = server::status(&ctx)?;
            if cc.global.json {
                ui.json(&st);
            } else {
                match &st.server {
                    Some(r) => ui.line(&format!("Shared server: {} {} pid {}", st.state, r.url, r.pid)),
                    None => ui.line("Shared server: none recorded for this checkout"),
                }
            }
            Ok(Exit::Ok)
        }
        Some(Action::Stop) => {
            let ctx = cc.open()?;
            let r = server::stop(&ctx)?;
            if cc.global.json {
                ui.json(&serde_json::json!({ "stopped": r }));
            } else {
                match r {
                    Some(r) => ui.line(&format!("Shared server: stopped pid {} ({})", r.pid, r.url)),
                    None => ui.line("Shared server: none was running"),
                }
            }
            Ok(Exit::Ok)
        }
    }
}
