//! `session status`, `latest`, `list`, `show` and `context` (docs/REFERENCE.md#sessions): the
//! episodes as read; `commands::session` opens and closes them.
//! Must not touch: a command, writes (episodes are read as they are).

use std::path::PathBuf;

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::labels::{age, Anchor, Divergence};
use crate::model::session::{ClosedSession, OpenSession};
use crate::services::identity::{path_free_repository_id, worktree_id_of};
use crate::services::resolve::{resolve_with, Facts, Found, Here, Match, Trace};
use crate::store::atomic::read_opt;
use crate::store::ledger;
use crate::store::records::names;
use crate::store::{session_context, sessions};

/// `session status` (`schemas/session-status.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct StatusReport {
    /// Always 1.
    pub schema: u32,
    /// This process's episode.
    pub open: Option<OpenView>,
    /// The other open episodes of the store.
    pub others: Vec<OtherView>,
}

/// An open episode as reported: the file's fields, whether it is foreign, and its label.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct OpenView {
    /// The episode file.
    #[serde(flatten)]
    pub session: OpenSession,
    /// Its worktree is another checkout.
    pub foreign: bool,
    /// Divergence of its start head.
    pub label: Divergence,
}

/// Another open episode.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct OtherView {
    /// Its id.
    pub session_id: String,
    /// Its file key.
    pub key: String,
}

/// `session status`: the episode of this process and the others.
pub fn status(ctx: &Ctx) -> Result<StatusReport> {
    ctx.require_layer()?;
    let all = sessions::list_open(&ctx.layout)?;
    for (k, parsed) in &all {
        if let Err(reason) = parsed {
            return Err(Error::refused(format!("session status: sessions-open/{k}.yaml: {reason}"))
                .hint("git majordomus doctor names every broken episode file"));
        }
    }
    let own =
        sessions::own_episode(&ctx.layout, ctx.here(), ctx.env.session_key.as_deref(), &ctx.env.provider_sessions);
    let open =
        own.as_ref().map(|(_, s, _)| OpenView { session: s.clone(), foreign: false, label: ctx.divergence_of(&s) });
    let own_id = own.map(|(_, s, _)| s.session_id);
    let others = all
        .into_iter()
        .filter_map(|(k, p)| p.ok().map(|s| (k, s)))
        .filter(|(_, s)| Some(&s.session_id) != own_id.as_ref())
        .map(|(key, s)| OtherView { session_id: s.session_id, key })
        .collect();
    Ok(StatusReport { schema: 1, open, others })
}

/// A closed record as listed and shown (`session show|latest`: `schemas/session-record.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
#[allow(missing_docs)]
pub struct ClosedView {
    pub session_id: String,
    pub created_at: String,
    pub outcome: String,
    pub branch: String,
    pub head: String,
    pub title: String,
    pub path: String,
    pub label: Divergence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<Match>,
    #[serde(skip)]
    pub body: String,
}

fn view(ctx: &Ctx, c: &ClosedSession, path: &std::path::Path, body: &str, matched: Option<Match>) -> ClosedView {
    ClosedView {
        session_id: c.session_id.clone(),
        created_at: c.created_at.clone(),
        outcome: c.outcome.clone(),
        branch: c.branch.clone(),
        head: c.head.clone(),
        title: c.title.clone(),
        path: ctx.rel(path),
        label: ctx.divergence_of(&c),
        matched,
        body: body.to_string(),
    }
}

/// The branch key a closed record's name carries (`<stamp>--<sid>--<key>--<head7>--<hex>.md`).
fn closed_name_key(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".md")?;
    let rest = stem.get(18..)?;
    let (_, rest) = rest.split_once("--")?;
    let mut it = rest.rsplitn(3, "--");
    let (_hex, _head, key) = (it.next()?, it.next()?, it.next()?);
    Some(key)
}

/// A closed record as loaded for the resolver: its path, and its facts and payload or why not.
type LoadedClosed = (PathBuf, std::result::Result<(Facts, (ClosedSession, String)), String>);

fn load_closed(ctx: &Ctx, name: &str) -> LoadedClosed {
    let path = ctx.layout.sessions().join(name);
    let parsed = (|| {
        crate::store::atomic::guard(ctx.layout.root(), &path).map_err(|e| e.to_string())?;
        let text = read_opt(&path).map_err(|e| e.to_string())?.ok_or_else(|| "vanished while reading".to_string())?;
        let (c, body) = ClosedSession::parse(&text).map_err(str::to_string)?;
        let facts = Facts {
            repository_id: c.repository_id.clone(),
            worktree: c.worktree_id.clone(),
            branch: c.branch.clone(),
            created_at: c.created_at.clone(),
            task_id: c.task_id.clone(),
            origin: crate::model::record::Origin::Authored,
            session: c.session_id.clone(),
        };
        Ok((facts, (c, body.to_string())))
    })();
    (path, parsed)
}

/// `session latest`: the docs/REFERENCE.md#resolution resolver over the closed records.
pub fn latest(ctx: &Ctx) -> Result<Option<ClosedView>> {
    ctx.require_layer()?;
    let here = Here {
        repositories: vec![path_free_repository_id(ctx)?],
        worktrees: ctx.here().worktrees.iter().map(|w| worktree_id_of(w)).collect(),
        branch: ctx.identity()?.branch_text().into(),
    };
    let ans = resolve_with(ctx, &ctx.layout.sessions(), &here, None, closed_name_key, Trace::ThisBranch, |n| {
        load_closed(ctx, n)
    })?;
    Ok(ans.winner.map(|f: Found<(ClosedSession, String)>| view(ctx, &f.item.0, &f.path, &f.item.1, Some(f.matched))))
}

/// `session list --json` (`schemas/session-list.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct SessionList {
    /// The closed records, newest first.
    pub sessions: Vec<ClosedView>,
    /// Closed records left out because they could not be read.
    pub skipped: usize,
}

/// `session list [--all]`: closed records newest first; `(views, skipped)`.
pub fn list(ctx: &Ctx, all: bool) -> Result<(Vec<ClosedView>, usize)> {
    ctx.require_layer()?;
    let repo = path_free_repository_id(ctx)?;
    let branch = ctx.identity()?.branch_text().to_string();
    let dir = ctx.layout.sessions();
    let mut v = Vec::new();
    let mut skipped = 0;
    for name in names(&dir)? {
        let (path, parsed) = load_closed(ctx, &name);
        match parsed {
            Ok((f, (c, body))) => {
                if all || (f.repository_id == repo && f.branch == branch) {
                    v.push((name, view(ctx, &c, &path, &body, None)));
                }
            }
            Err(_) => skipped += 1,
        }
    }
    let refs: Vec<&str> = v.iter().map(|x| x.0.as_str()).collect();
    let ranks = ledger::ranks(&ctx.layout.ledger(), &refs)?;
    let mut keyed: Vec<_> = v.into_iter().zip(ranks).collect();
    keyed.sort_by(|a, b| (&b.0 .1.created_at, b.1, &b.0 .0).cmp(&(&a.0 .1.created_at, a.1, &a.0 .0)));
    Ok((keyed.into_iter().map(|x| x.0 .1).collect(), skipped))
}

/// `session show <sid>`.
pub fn show(ctx: &Ctx, sid: &str) -> Result<ClosedView> {
    ctx.require_layer()?;
    let path = sessions::find_closed(&ctx.layout, sid)?.ok_or_else(|| {
        Error::not_found(format!("no closed session {sid}")).hint("git majordomus session list --all shows them")
    })?;
    let text = read_opt(&path)?.unwrap_or_default();
    let (c, body) = ClosedSession::parse(&text).map_err(|r| Error::io(format!("{}: {r}", ctx.rel(&path))))?;
    Ok(view(ctx, &c, &path, body, None))
}

/// `session context [<sid>] --json` (`schemas/session-context.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
#[cfg_attr(feature = "mcp", schemars(rename = "SessionContext"))]
pub struct ContextReport {
    /// The document.
    pub path: String,
    /// Divergence of its recorded head.
    pub label: Divergence,
    /// Commits since it was frozen (when `advanced`).
    pub commits_since: usize,
    /// The head it was frozen at.
    pub recorded_head: String,
}

/// `session context [<sid>]`: the working context of an episode (this process's by default).
pub fn context(ctx: &Ctx, sid: Option<&str>) -> Result<ContextReport> {
    ctx.require_layer()?;
    let sid = match sid {
        Some(s) => s.to_string(),
        None => ctx.session_id().ok_or_else(|| {
            Error::not_found("no open session in this worktree").hint("name one: git majordomus session context <sid>")
        })?,
    };
    let path = session_context::find(&ctx.layout, &sid)
        .ok_or_else(|| Error::not_found(format!("no working context for session {sid}")))?;
    let (label, recorded_head, commits_since) = crate::services::context::context_label(ctx, &path);
    Ok(ContextReport { path: ctx.rel(&path), label, commits_since, recorded_head })
}

/// A human age for status lines.
pub fn opened_age(ctx: &Ctx, started_at: &str) -> String {
    age(started_at, ctx.clock.now())
}
