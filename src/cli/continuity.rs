//! `git majordomus continuity <sub>`: cross-machine continuity (docs/REFERENCE.md#continuity-commands).

use std::path::PathBuf;

use serde::Serialize;

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::continuity::{device, publish, resume, sync};
use crate::ops::queries::continuity as status;
use crate::render::continuity as render;
use crate::ui::Ui;

/// Signed handover records that travel between machines over a git remote
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Show (or create) this machine's device key; --label renames it
    Device {
        /// A new label (letters, digits, '.', '_', '-')
        #[arg(long)]
        label: Option<String>,
        /// Print the minisign public key file instead
        #[arg(long)]
        public_key_file: bool,
    },
    /// Sign the newest (or a named) handover into the local store (offline)
    Publish {
        /// The handover file name under .ai/local/state/handovers/
        #[arg(long, value_name = "FILE.md")]
        handover: Option<String>,
        /// The issue the work belongs to (carried along the line)
        #[arg(long)]
        issue: Option<String>,
        /// The milestone (carried along the line)
        #[arg(long)]
        milestone: Option<String>,
        /// Print exactly what would leave the machine; write nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Fetch, merge and push refs/majordomus/continuity (never forced)
    Sync {
        /// The remote (default: continuity.remote, else origin, else the only one)
        #[arg(long)]
        remote: Option<String>,
        /// Run as the installed pre-push hook does: nothing unless records are pending, one line
        /// of outcome, exit 0 whatever the remote said
        #[arg(long, hide = true, requires = "remote")]
        pre_push: bool,
    },
    /// This device, the store, the diverged lines and the newest resumable records (no network)
    Status {
        /// List every line and every resumable record, not only the diverged lines and the newest 20
        #[arg(long)]
        all: bool,
    },
    /// Every admitted record and line
    Records {
        /// Show only the first N records (by line, then id)
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
    },
    /// What a resume would do (writes nothing)
    Plan {
        /// A record id or prefix (the empty prefix lists every record)
        #[arg(long, value_name = "ID")]
        record: Option<String>,
    },
    /// Resume a record on a ready plan: its handover, decisions and questions
    Resume {
        /// A record id or prefix
        #[arg(long, value_name = "ID")]
        record: Option<String>,
    },
    /// Admit every record and judge every signer (the CI step)
    Verify {
        /// Also verify refs/majordomus/remotes/<REMOTE>/continuity
        #[arg(long)]
        remote: Option<String>,
        /// `github` adds a workflow annotation per refused or untrusted record
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Write <id>.msg, <id>.msg.minisig and <id>.pub for the stock minisign tool
    Export {
        /// A unique prefix (at least 4 hex) of the record id
        id: String,
        /// The directory to write to
        #[arg(long)]
        dir: PathBuf,
    },
}

/// How `verify` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The summary and one line per problem
    Text,
    /// GitHub Actions workflow annotations (`::error title=…::…`), then the text
    Github,
}

fn emit<T: Serialize>(ui: &mut Ui, value: &T, text: impl FnOnce(&T) -> String) {
    if ui.json_mode() {
        ui.json(value);
    } else {
        ui.text(&text(value));
    }
}

fn exit_if(ok: bool) -> Exit {
    if ok {
        Exit::Ok
    } else {
        Exit::Refused
    }
}

/// Runs `continuity`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    if matches!(a, Args::Verify { format: Format::Github, .. }) {
        // A runner reads every line that follows, on stdout and stderr: only the annotations
        // may begin a workflow command.
        ui.workflow_commands();
    }
    // The readers that need no working tree also read a bare repository (a server-side hook,
    // a CI mirror).
    let ctx = if matches!(a, Args::Records { .. } | Args::Verify { .. }) { cc.open_bare_ok()? } else { cc.open()? };
    if !ctx.git.is_bare()
        && matches!(
            a,
            Args::Status { .. } | Args::Records { .. } | Args::Plan { .. } | Args::Resume { .. } | Args::Verify { .. }
        )
    {
        // Best effort: a hint is never a reason to fail the command.
        if let Ok(Some(h)) = sync::fresh_clone_hint(&ctx) {
            ui.status(&format!("hint: {h}"));
        }
    }
    let result = (|| -> Result<Exit> {
        match a {
            Args::Device { label, public_key_file } => {
                let r = device::device(&ctx, label.as_deref())?;
                if public_key_file && !ui.json_mode() {
                    ui.text(&r.public_key_file);
                } else {
                    emit(ui, &r, render::device);
                }
                Ok(Exit::Ok)
            }
            Args::Publish { handover, issue, milestone, dry_run } => {
                let r = publish::publish(&ctx, publish::PublishParams { handover, issue, milestone, dry_run })?;
                emit(ui, &r, render::publish);
                Ok(exit_if(!r.is_refused()))
            }
            Args::Sync { remote: Some(remote), pre_push: true } => {
                let r = sync::pre_push(&ctx, &remote)?;
                if ui.json_mode() {
                    ui.json(&r);
                } else if let Some(line) = crate::render::pre_push::line(&r) {
                    ui.line(&line);
                }
                Ok(Exit::Ok)
            }
            Args::Sync { remote, .. } => {
                let r = sync::sync(&ctx, remote.as_deref())?;
                emit(ui, &r, render::sync);
                Ok(exit_if(!r.refused()))
            }
            Args::Status { all } => {
                emit(ui, &status::status(&ctx, all)?, render::status);
                Ok(Exit::Ok)
            }
            Args::Records { limit } => {
                // Written as the records are made: memory does not grow with the store.
                let listing = status::Listing::open(&ctx, limit)?;
                if ui.json_mode() {
                    ui.json(&listing.document(&ctx));
                } else {
                    ui.text(&render::records_head(listing.shown(), listing.records_total()));
                    listing.each(&ctx, |v| ui.text(&render::record_line(&v)));
                    ui.text(&render::records_tail(&listing.diagnostics()));
                }
                Ok(Exit::Ok)
            }
            Args::Plan { record } => {
                let r = crate::ops::services::continuity::plan::plan(&ctx, record.as_deref())?;
                emit(ui, &r, render::plan);
                Ok(exit_if(r.status.exits_zero()))
            }
            Args::Resume { record } => {
                let r = resume::resume(&ctx, record.as_deref())?;
                emit(ui, &r, render::resume);
                Ok(exit_if(r.resumed))
            }
            Args::Verify { remote, format } => {
                if format == Format::Github && ui.json_mode() {
                    return Err(crate::error::Error::usage("--format github and --json cannot be combined"));
                }
                let r = device::verify(&ctx, remote.as_deref())?;
                match format {
                    Format::Text => emit(ui, &r, render::verify),
                    Format::Github => {
                        for command in crate::render::annotations::commands(&r) {
                            ui.workflow_command(&command);
                        }
                        ui.text(&render::verify(&r));
                    }
                }
                Ok(exit_if(r.ok()))
            }
            Args::Export { id, dir } => {
                let files = device::export(&ctx, &id, &dir)?;
                if ui.json_mode() {
                    ui.json(&serde_json::json!({ "files": files }));
                } else {
                    for f in files {
                        ui.line(&f);
                    }
                }
                Ok(Exit::Ok)
            }
        }
    })();
    flush_warnings(ui, &ctx);
    result
}
