//! `git majordomus session start|status|close|list|show|latest|context`.

use super::{flush_warnings, read_body, CommandContext};
use crate::error::{Exit, Result};
use crate::model::labels::Divergence;
use crate::ops::session::{self, CloseParams, StartParams, StartReport};
use crate::store::records::head7;
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

fn warning_for(label: Divergence) -> Option<String> {
    matches!(label, Divergence::Diverged | Divergence::DifferentContext)
        .then(|| format!("WARNING: its commit is {}; trust git, not the record", label.as_str()))
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
                )? {
                    StartReport::Kept { session } => ui.status(&format!(
                        "session {} already open here since {}; kept",
                        session.session_id, session.started_at
                    )),
                    StartReport::Opened { session, context } => {
                        ui.line(&format!(
                            "session {} opened at {} (head {})",
                            session.session_id,
                            session.started_at,
                            head7(&session.start_head)
                        ));
                        if let Some(p) = context {
                            ui.line(&format!("working context: {}", ctx.rel(&p)));
                        }
                        ui.next("work; git majordomus session close when the episode ends");
                    }
                }
            }
            Args::Status => {
                let r = session::status(&ctx)?;
                if json {
                    ui.json(&r);
                    return Ok(Exit::Ok);
                }
                match &r.open {
                    None => {
                        ui.line("No open session in this worktree.");
                        ui.next("git majordomus session start");
                    }
                    Some(v) => {
                        let o = &v.session;
                        ui.line(&format!("Session: {}", o.session_id));
                        ui.line(&format!("Opened: {} ({})", o.started_at, session::opened_age(&ctx, &o.started_at)));
                        ui.line(&format!("Owner: {}", o.owner));
                        ui.line(&format!("Worker: {}", o.worker.as_deref().unwrap_or("-")));
                        if let Some(p) = &o.provider {
                            ui.line(&format!(
                                "Provider: {p} (session {})",
                                o.provider_session.as_deref().unwrap_or("-")
                            ));
                        }
                        ui.line(&format!("Branch: {}", o.branch));
                        ui.line(&format!("Start head: {} ({})", head7(&o.start_head), v.label.as_str()));
                        if let Some(w) = warning_for(v.label) {
                            ui.line(&w);
                        }
                    }
                }
                for other in &r.others {
                    ui.line(&format!("Also open:  {} ({})", other.session_id, other.key));
                }
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
                let (views, skipped) = session::list(&ctx, all)?;
                if json {
                    ui.json(&serde_json::json!({"sessions": views, "skipped": skipped}));
                    return Ok(Exit::Ok);
                }
                if views.is_empty() {
                    ui.line("No closed sessions for this worktree and branch.");
                }
                for v in &views {
                    ui.line(&format!(
                        "{}  {:<24} {:<12} {:<18} {}",
                        v.created_at,
                        v.session_id,
                        v.outcome,
                        v.label.as_str(),
                        v.path
                    ));
                }
                if skipped > 0 {
                    ui.line(&format!("({skipped} file(s) of another schema or unreadable skipped)"));
                }
            }
            Args::Show { sid } => {
                let v = session::show(&ctx, &sid)?;
                show(ui, &v, json);
            }
            Args::Latest { path } => match session::latest(&ctx)? {
                None if json => ui.json(&serde_json::Value::Null),
                None => ui.line("No closed session for this worktree and branch."),
                Some(v) if path && !json => ui.line(&v.path),
                Some(v) => show(ui, &v, json),
            },
            Args::Context { sid } => {
                let r = session::context(&ctx, sid.as_deref())?;
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

fn show(ui: &mut Ui, v: &session::ClosedView, json: bool) {
    if json {
        ui.json(v);
        return;
    }
    ui.line(&format!("Session: {}", v.session_id));
    ui.line(&format!("Record: {}", v.path));
    if let Some(m) = v.matched {
        ui.line(&format!("Match: {}", m.as_str()));
    }
    ui.line(&format!("Git state: {}", v.label.as_str()));
    if let Some(w) = warning_for(v.label) {
        ui.line(&w);
    }
    ui.line(&format!("Closed: {} ({})", v.created_at, v.outcome));
    ui.line("---");
    ui.text(&v.body);
}
