//! `git majordomus session start|status|close|list|show|latest|context`.
//! Must not touch: git, record files, the episodes (`ops::commands::session`), the terminal except
//! through `Ui`.

use super::{flush_warnings, read_body, CommandContext};
use crate::error::{Exit, Result};
use crate::ops::commands::session::{self, CloseParams, StartParams, StartReport};
use crate::ops::queries::sessions;
use crate::render::session as render;
use crate::ui::Ui;

/// What to do when this key's episode is already open.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum IfOpen {
    /// Exit 15
    Refuse,
    /// Keep the open episode (exit 0)
    Keep,
}

/// What to do when nothing is open.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum IfNone {
    /// Exit 12
    Refuse,
    /// Exit 0 silently
    Ignore,
}

/// How an episode ended.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Outcome {
    /// Ended deliberately
    Closed,
    /// Ended otherwise
    Interrupted,
}

/// Open, inspect and close episodes (one per provider session)
#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Open an episode (keyed by --provider-session, else `hand`)
    Start {
        /// Owner (default $USER)
        #[arg(long)]
        owner: Option<String>,
        /// The worker, e.g. provider/model
        #[arg(long)]
        worker: Option<String>,
        /// When this key's episode is open already
        #[arg(long, value_enum, default_value = "refuse")]
        if_open: IfOpen,
        /// Provider name (set by hooks)
        #[arg(long)]
        provider: Option<String>,
        /// Provider session id: the episode key
        #[arg(long)]
        provider_session: Option<String>,
    },
    /// Show this process's episode and the others open here
    Status,
    /// Close the episode into its tracked record (optional summary on stdin)
    Close {
        /// How it ended
        #[arg(long, value_enum, default_value = "closed")]
        outcome: Outcome,
        /// When nothing is open
        #[arg(long, value_enum, default_value = "refuse")]
        if_none: IfNone,
        /// Close this provider session's episode
        #[arg(long)]
        provider_session: Option<String>,
    },
    /// List closed episodes of this repository and branch, newest first
    List {
        /// Every closed record, whatever repository or branch
        #[arg(long)]
        all: bool,
    },
    /// Show one closed episode
    Show {
        /// The session id
        sid: String,
    },
    /// Show the closed episode that resolves for this worktree and branch
    Latest {
        /// Print only the path
        #[arg(long)]
        path: bool,
    },
    /// Print the path of an episode's working context
    Context {
        /// The session id (default: this process's episode)
        sid: Option<String>,
    },
}

/// Runs `session`.
pub fn run(cc: &CommandContext, a: Args, ui: &mut Ui) -> Result<Exit> {
    let json_ok =
        matches!(a, Args::Status | Args::List { .. } | Args::Show { .. } | Args::Latest { .. } | Args::Context { .. });
    if !json_ok {
        cc.no_json("this session command")?;
    }
    let ctx = cc.open()?;
    let result = (|| -> Result<Exit> {
        let json = ui.json_mode();
        match a {
            Args::Start { owner, worker, if_open, provider, provider_session } => {
                match session::start(
                    &ctx,
                    StartParams { owner, worker, keep: matches!(if_open, IfOpen::Keep), provider, provider_session },
                    &crate::render::context::Text,
                )? {
                    StartReport::Kept { session } => ui.status(&format!(
                        "session {} already open here since {}; kept",
                        session.session_id, session.started_at
                    )),
                    StartReport::Opened { session, context } => {
                        ui.text(&render::opened(&session, context.map(|p| ctx.rel(&p)).as_deref()));
                        ui.next("work; git majordomus session close when the episode ends");
                    }
                }
            }
            Args::Status => {
                let r = sessions::status(&ctx)?;
                if json {
                    ui.json(&r);
                    return Ok(Exit::Ok);
                }
                let age =
                    r.open.as_ref().map(|v| sessions::opened_age(&ctx, &v.session.started_at)).unwrap_or_default();
                ui.text(&render::status(&r, &age));
                if r.open.is_none() {
                    ui.next("git majordomus session start");
                }
                ui.text(&render::others(&r));
            }
            Args::Close { outcome, if_none, provider_session } => {
                let summary = read_body("session close")?;
                let outcome = match outcome {
                    Outcome::Closed => "closed",
                    Outcome::Interrupted => "interrupted",
                };
                let r = session::close(
                    &ctx,
                    CloseParams {
                        outcome: outcome.into(),
                        ignore_none: matches!(if_none, IfNone::Ignore),
                        provider_session,
                        summary,
                    },
                )?;
                if let Some(r) = r {
                    if r.reused {
                        ui.status(&format!("session {} was already closed; its record is kept", r.session_id));
                    }
                    ui.line(&ctx.rel(&r.path));
                }
            }
            Args::List { all } => {
                let (views, skipped) = sessions::list(&ctx, all)?;
                if json {
                    ui.json(&sessions::SessionList { sessions: views, skipped });
                    return Ok(Exit::Ok);
                }
                ui.text(&render::list(&views, skipped));
            }
            Args::Show { sid } => {
                let v = sessions::show(&ctx, &sid)?;
                show(ui, &v, json);
            }
            Args::Latest { path } => match sessions::latest(&ctx)? {
                None if json => ui.json(&serde_json::Value::Null),
                None => ui.line("No closed session for this worktree and branch."),
                Some(v) if path && !json => ui.line(&v.path),
                Some(v) => show(ui, &v, json),
            },
            Args::Context { sid } => {
                let r = sessions::context(&ctx, sid.as_deref())?;
                if json {
                    ui.json(&r);
                } else {
                    ui.line(&r.path);
                }
            }
        }
        Ok(Exit::Ok)
    })();
    flush_warnings(ui, &ctx);
    result
}

fn show(ui: &mut Ui, v: &sessions::ClosedView, json: bool) {
    if json {
        ui.json(v);
    } else {
        ui.text(&render::closed(v));
    }
}
