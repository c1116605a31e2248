//! `git majordomus continuity <sub>`: cross-machine continuity (docs/REFERENCE.md#continuity-commands).
//! Must not touch: git, record files, the store (`ops::commands::continuity`,
//! `ops::queries::continuity`), the terminal except through `Ui`.

use std::path::PathBuf;

use serde::Serialize;

use super::{flush_warnings, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::continuity::{device, publish, resume, snapshot, sync, trust};
use crate::ops::queries::continuity as status;
use crate::render::continuity as render;
use crate::ui::Ui;

/// Signed handover records that travel between machines over a git remote
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Show (or create) this machine's device key; --label renames it; `rotate` replaces it
    #[command(args_conflicts_with_subcommands = true)]
    Device {
        #[command(subcommand)]
        action: Option<DeviceAction>,
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
    /// End a head of a line without resuming it: a signed record that continues it, carrying no handover
    Supersede {
        /// A unique prefix (at least 4 hex) of the head's record id
        id: String,
    },
    /// Add a signed snapshot of this store's read model, for a fresh clone that trusts this device by name to read
    Snapshot,
    /// Admit every record and judge every signer (the CI step)
    Verify {
        /// Also verify refs/majordomus/remotes/<REMOTE>/continuity
        #[arg(long)]
        remote: Option<String>,
        /// `github` adds a workflow annotation per refused or untrusted record
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// The team's trust list: list, add or revoke a device's key
    #[command(subcommand)]
    Trust(TrustArgs),
    /// Write <id>.msg, <id>.msg.minisig and <id>.pub for the stock minisign tool
    Export {
        /// A unique prefix (at least 4 hex) of the record id
        id: String,
        /// The directory to write to
        #[arg(long)]
        dir: PathBuf,
    },
}

/// `continuity device <action>`.
#[derive(Debug, clap::Subcommand)]
pub enum DeviceAction {
    /// Make a new key for this machine and print the mesh change a teammate makes
    Rotate {
        /// Make that change here too (only while this device's current key is trusted)
        #[arg(long)]
        apply: bool,
        /// With --apply: sync with this remote (for the revocation's pin) instead of the chosen one
        #[arg(long, requires = "apply")]
        remote: Option<String>,
    },
}

/// `continuity trust`.
#[derive(Debug, clap::Subcommand)]
pub enum TrustArgs {
    /// Every key the mesh names or the store holds records of, with its standing
    List,
    /// Trust a device's key (what `continuity device` prints on that device)
    Add {
        /// The minisign public key (RW…) or the 64-hex raw key
        key: String,
        /// The name the team gives the device
        #[arg(long)]
        label: String,
        /// With no enabled declaration, write .ai/repo/mesh/team.yaml (policy deny_unknown)
        #[arg(long)]
        create: bool,
    },
    /// Revoke a key (or the one key a label names): sync, then pin the store commit on the remote
    Revoke {
        /// A key (RW… or 64 hex) or a label
        key: String,
        /// Sync with this remote instead of the chosen one
        #[arg(long)]
        remote: Option<String>,
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
        if let Ok(true) = sync::fresh_clone_hint(&ctx) {
            ui.status(&format!("hint: {}", crate::render::sync::FRESH_CLONE));
        }
    }
    let result = (|| -> Result<Exit> {
        match a {
            Args::Device { action: Some(DeviceAction::Rotate { apply, remote }), .. } => {
                let r = rotate(&ctx, apply, remote.as_deref(), ui)?;
                emit(ui, &r, render::rotate);
                Ok(Exit::Ok)
            }
            Args::Device { label, public_key_file, .. } => {
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
                let r = sync::pre_push(&ctx, &remote, &crate::render::sync::Sync)?;
                if ui.json_mode() {
                    ui.json(&r);
                } else if let Some(line) = crate::render::pre_push::line(&r) {
                    ui.line(&line);
                }
                Ok(Exit::Ok)
            }
            Args::Sync { remote, .. } => {
                let r = sync::sync(&ctx, remote.as_deref(), &crate::render::sync::Sync)?;
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
            Args::Trust(t) => trust(&ctx, t, ui),
            Args::Supersede { id } => {
                emit(ui, &publish::supersede(&ctx, &id)?, render::supersede);
                Ok(Exit::Ok)
            }
            Args::Snapshot => {
                emit(ui, &snapshot::snapshot(&ctx)?, render::snapshot);
                Ok(Exit::Ok)
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

/// `continuity device rotate [--apply]`: with `--apply`, while this device's key is trusted,
/// the sync and the revocation of the old key (pinned) and the trust of the new one, as a
/// teammate's `trust revoke` and `trust add` would make them.
fn rotate(ctx: &crate::ops::ctx::Ctx, apply: bool, remote: Option<&str>, ui: &mut Ui) -> Result<device::RotateReport> {
    if !apply {
        return device::rotate(ctx);
    }
    device::may_apply_rotation(ctx)?;
    let pin = pin_by_sync(ctx, remote, ui)?;
    let mut r = device::rotate(ctx)?;
    let old = trust::target(ctx, &r.rotated)?;
    trust::revoke(ctx, &old, pin.as_deref())?;
    let added = trust::add(ctx, &r.public_key, &r.label, false)?;
    r.applied = true;
    r.next = added.next;
    Ok(r)
}

/// Syncs with `remote` (else the chosen one) for a revocation's pin: the store commit the remote
/// holds; `None`, said on stderr, when the sync did not finish.
fn pin_by_sync(ctx: &crate::ops::ctx::Ctx, remote: Option<&str>, ui: &mut Ui) -> Result<Option<String>> {
    let synced = sync::sync(ctx, remote, &crate::render::sync::Sync)?;
    let pin = synced.pin();
    if pin.is_none() && !ui.json_mode() {
        ui.status(&format!(
            "warning: the sync with {} did not finish ({}): the key is revoked without a pin",
            synced.remote.as_deref().unwrap_or("no remote"),
            synced.action.as_str()
        ));
    }
    Ok(pin)
}

/// `continuity trust`: a revocation syncs first, so that its pin is a store commit the chosen
/// remote holds (docs/SYNC.md#revocation-is-a-decision-not-an-alarm); without a remote, or when the
/// sync fails, the key is revoked without a pin and the output says so.
fn trust(ctx: &crate::ops::ctx::Ctx, t: TrustArgs, ui: &mut Ui) -> Result<Exit> {
    match t {
        TrustArgs::List => emit(ui, &crate::ops::queries::trust::list(ctx)?, render::trust_list),
        TrustArgs::Add { key, label, create } => {
            emit(ui, &trust::add(ctx, &key, &label, create)?, render::trust_change)
        }
        TrustArgs::Revoke { key, remote } => {
            let raw = trust::target(ctx, &key)?;
            let pin = pin_by_sync(ctx, remote.as_deref(), ui)?;
            emit(ui, &trust::revoke(ctx, &raw, pin.as_deref())?, render::trust_change);
        }
    }
    Ok(Exit::Ok)
}
