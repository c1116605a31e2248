//! Episodes (docs/REFERENCE.md#sessions): one per provider session, opened, read and closed into a tracked
//! envelope of references derived from the ledger lines stamped with the episode's id.
//! Must not touch: another command or a query, the terminal; a closed record never quotes a
//! credential.

use std::path::PathBuf;

use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::Event;
use crate::model::labels::{head_of, Anchor};
use crate::model::session::{is_generated, ClosedSession, OpenSession};
use crate::services::context::Renderer;
use crate::services::identity::{path_free_repository_id, worktree_id};
use crate::services::records::refuse_identity;
use crate::services::task;
use crate::store::atomic::{create_new, ensure_dir, read_opt, Lock};
use crate::store::records::{random_hex, record_name};
use crate::store::sessions::{self, key_of, open_path, read_open};
use crate::store::{ledger, session_context};
use crate::text::short;

/// The key of hand-opened episodes.
pub const HAND: &str = "hand";

/// Parameters of `session start`.
#[derive(Debug, Clone, Default)]
pub struct StartParams {
    /// Owner (default `$USER`).
    pub owner: Option<String>,
    /// `provider/model`, when supplied.
    pub worker: Option<String>,
    /// `--if-open keep`: return the open episode of this key instead of refusing.
    pub keep: bool,
    /// Provider name (hooks).
    pub provider: Option<String>,
    /// Provider session id (hooks): the episode key.
    pub provider_session: Option<String>,
}

/// What `session start` did.
#[derive(Debug, Clone)]
pub enum StartReport {
    /// A new episode.
    Opened {
        /// The episode.
        session: OpenSession,
        /// Its working context, when it could be frozen.
        context: Option<PathBuf>,
    },
    /// `--if-open keep` and this key's episode was already open.
    Kept {
        /// The episode.
        session: OpenSession,
    },
}

/// The key `start`/`close` act on: the provider session given, else the strict key of the
/// environment, else `hand`.
fn key_for(ctx: &Ctx, provider_session: Option<&str>) -> String {
    key_of(provider_session.or(ctx.env.session_key.as_deref()).unwrap_or(HAND))
}

/// The lock every start and close holds while it changes the open files and the pointer.
const POINTER_LOCK: &str = "session-pointer";

/// `session start`; `renderer` lays out the context document frozen as the episode's working
/// context.
pub fn start(ctx: &Ctx, p: StartParams, renderer: &dyn Renderer) -> Result<StartReport> {
    ctx.require_layer()?;
    let key = key_for(ctx, p.provider_session.as_deref());
    let path = open_path(&ctx.layout, &key);
    let here = ctx.here();
    // Two starts of one key at once must not both see it free: the second would replace the
    // first's episode, which then is never closed.
    let _lock = Lock::acquire(&ctx.layout.locks(), &format!("session-start.{key}"))?;
    match read_open(&path) {
        Err(reason) => {
            return Err(Error::refused(format!("session start: {reason}"))
                .hint(format!("inspect or remove {}", ctx.rel(&path))));
        }
        Ok(Some(s)) if here.is_worktree(&s.worktree) => {
            if p.keep {
                ctx.set_session(Some(s.session_id.clone()));
                return Ok(StartReport::Kept { session: s });
            }
            return Err(Error::conflict(format!(
                "session {} is open here since {}; run git majordomus session close first",
                s.session_id, s.started_at
            )));
        }
        Ok(Some(s)) => ctx.warn(format!(
            "episode {} in {} names another checkout ({}); replacing it here",
            s.session_id,
            ctx.rel(&path),
            s.worktree
        )),
        Ok(None) => {}
    }
    let id = ctx.identity()?.clone();
    let s = OpenSession {
        session_id: format!("s-{}-{}", ctx.clock.id_stamp(), random_hex(4)),
        started_at: ctx.clock.stamp(),
        owner: p.owner.unwrap_or_else(|| ctx.default_owner()),
        worker: p.worker,
        provider: p.provider,
        provider_session: p.provider_session,
        repository_id: id.repository_id.clone(),
        worktree: id.worktree.clone(),
        branch: id.branch_text().into(),
        start_head: id.head_text().into(),
        start_working_tree: ctx.working_tree()?.into(),
    };
    {
        let _pointer = Lock::acquire(&ctx.layout.locks(), POINTER_LOCK)?;
        sessions::write_open(&ctx.layout, &key, &s)?;
        if let Some(w) = sessions::aim_pointer(&ctx.layout, &key)? {
            ctx.warn(w);
        }
    }
    ctx.set_session(Some(s.session_id.clone()));
    let mut fields = vec![
        ("owner", Value::from(s.owner.clone())),
        (crate::services::gap::TREE_FIELD, Value::from(crate::services::gap::tree_now(ctx, true)?)),
    ];
    if let Some(w) = &s.worker {
        fields.push(("worker", Value::from(w.clone())));
    }
    ctx.record_event(Event::SessionStarted, &fields)?;
    let context = match freeze_context(ctx, &s, renderer) {
        Ok(p) => Some(p),
        Err(e) => {
            ctx.warn(format!("working context not frozen: {}", e.message));
            None
        }
    };
    Ok(StartReport::Opened { session: s, context })
}

/// Writes `.ai/local/session-contexts/<stamp>--<sid>.md`: what the episode was told at open, laid
/// out by `renderer`.
fn freeze_context(ctx: &Ctx, s: &OpenSession, renderer: &dyn Renderer) -> Result<PathBuf> {
    let task = task::local(ctx)?;
    let briefing = crate::services::context::text_for_session(ctx, renderer)?;
    let at_open = session_context::TaskAtOpen {
        id: task.as_ref().map(|t| t.id.clone()),
        profile: task.as_ref().map(|t| t.profile.clone()),
    };
    let text = session_context::render(s, &at_open, &briefing).map_err(|o| o.refusal("the working context"))?;
    Ok(session_context::write(&ctx.layout, &ctx.clock.compact(), s, &text)?)
}

/// Parameters of `session close`.
#[derive(Debug, Clone, Default)]
pub struct CloseParams {
    /// `closed` or `interrupted`.
    pub outcome: String,
    /// `--if-none ignore`.
    pub ignore_none: bool,
    /// Close this provider session's episode (strict).
    pub provider_session: Option<String>,
    /// An authored summary for the body.
    pub summary: String,
}

/// What `session close` did.
#[derive(Debug, Clone)]
pub struct CloseReport {
    /// The closed record.
    pub path: PathBuf,
    /// Whether it already existed (a second close of the same episode).
    pub reused: bool,
    /// The episode id.
    pub session_id: String,
}

/// Whether the ledger holds the `session.closed` line of episode `sid`, read from the tail.
/// Asked only when the closed record already exists (a second close of one episode, or the
/// close after a killed one), so the scan is rare. It does not stop at the episode's
/// `session.started`: `start` appends that line after the episode's file appears, so a close
/// that ran in between wrote its `session.closed` line *before* the `session.started` one, and
/// stopping there would close the episode a second time (found by the soak).
fn close_recorded(ctx: &Ctx, sid: &str) -> Result<bool> {
    let closed = Event::SessionClosed.as_str();
    let mine = |l: &crate::store::ledger::Line| l.str("session") == Some(sid) && l.event() == Some(closed);
    Ok(crate::store::ledger::last(&ctx.layout.ledger(), mine)?.is_some())
}

/// `session close`; `Ok(None)` when nothing is open and `--if-none ignore` was given.
pub fn close(ctx: &Ctx, p: CloseParams) -> Result<Option<CloseReport>> {
    ctx.require_layer()?;
    if !matches!(p.outcome.as_str(), "closed" | "interrupted") {
        return Err(Error::usage(format!("session close: unknown outcome {:?}; use closed or interrupted", p.outcome)));
    }
    refuse_identity("session close", &p.summary)?;
    let here = ctx.here();
    let strict = p.provider_session.as_deref().or(ctx.env.session_key.as_deref());
    let found = match strict {
        Some(k) => read_open(&open_path(&ctx.layout, k)).ok().flatten().map(|s| (key_of(k), s)),
        None => sessions::own_episode(&ctx.layout, here, None, &ctx.env.provider_sessions)
            .map(|(k, s, _)| (k, s))
            .or_else(|| {
                let k = sessions::pointer_key(&ctx.layout)?;
                read_open(&open_path(&ctx.layout, &k)).ok().flatten().map(|s| (k, s))
            }),
    };
    let Some((key, s)) = found else {
        if p.ignore_none {
            return Ok(None);
        }
        return Err(Error::not_found("session close: no open session in this worktree")
            .hint("git majordomus session status shows what is open"));
    };
    if !here.is_worktree(&s.worktree) {
        return Err(Error::conflict(format!(
            "session close: episode {} belongs to another checkout ({})",
            s.session_id, s.worktree
        ))
        .hint("close it from that checkout"));
    }
    let sid = s.session_id.clone();
    ctx.set_session(Some(sid.clone()));
    let _lock = Lock::acquire_file(&ctx.layout.locks(), &format!("session-close.{sid}"))?;
    let (path, reused) = match sessions::find_closed(&ctx.layout, &sid)? {
        Some(p) => (p, true),
        None => (write_closed(ctx, &s, &p)?, false),
    };
    // A close killed between writing the record and its ledger line is finished by the next
    // close: derivation and the line happen once, whichever run gets there.
    let unfinished = !reused || !close_recorded(ctx, &sid)?;
    if unfinished && ctx.policy().is_ok_and(|p| p.session.knowledge_on_end) {
        if let Err(e) = crate::services::knowledge::derive(ctx, Some(&sid), false) {
            ctx.warn(format!("knowledge derive on close: {}", e.message));
        }
    }
    if unfinished {
        ctx.record_event(
            Event::SessionClosed,
            &[("outcome", Value::from(p.outcome.clone())), ("session_path", Value::from(ctx.rel(&path)))],
        )?;
    }
    // Removing the open files and re-aiming the pointer is one step for every start and close
    // of this checkout: two closes at once would each still see the other's episode and leave
    // the last one without a pointer.
    let _pointer = Lock::acquire(&ctx.layout.locks(), POINTER_LOCK)?;
    for (k, parsed) in sessions::list_open(&ctx.layout)? {
        if parsed.as_ref().is_ok_and(|o| o.session_id == sid) {
            crate::store::atomic::remove(&open_path(&ctx.layout, &k))?;
        }
    }
    let pointer = sessions::pointer_key(&ctx.layout);
    let dangling = pointer.as_ref().is_some_and(|k| !open_path(&ctx.layout, k).exists());
    // No pointer (an earlier close removed it while others were open) counts as a dangling one:
    // the single episode left must stay reachable by a plain `session close`.
    if pointer.as_deref() == Some(key.as_str()) || dangling || pointer.is_none() {
        sessions::remove_pointer(&ctx.layout)?;
        let remaining: Vec<String> = sessions::list_open(&ctx.layout)?
            .into_iter()
            .filter(|(_, o)| o.as_ref().is_ok_and(|o| here.is_worktree(&o.worktree)))
            .map(|(k, _)| k)
            .collect();
        if let [only] = remaining.as_slice() {
            if let Some(w) = sessions::aim_pointer(&ctx.layout, only)? {
                ctx.warn(w);
            }
        }
    }
    if !reused {
        if let Some(doc) = session_context::find(&ctx.layout, &sid) {
            let id = ctx.identity()?;
            session_context::append_close(&doc, &ctx.clock.stamp(), &p.outcome, id.head_text(), &ctx.rel(&path))?;
        }
    }
    // The per-episode lock files of episodes closed long ago (307 were left after 150 sessions).
    if let Some(now) = _lock.now() {
        crate::store::atomic::sweep_locks(&ctx.layout.locks(), &["session-start.", "session-close."], now, LOCK_AGE);
    }
    ctx.set_session(None);
    Ok(Some(CloseReport { path, reused, session_id: sid }))
}

/// How long after its last use an episode's lock file is swept.
const LOCK_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Pushes `v` unless present (first appearance wins).
fn push_unique(list: &mut Vec<String>, v: &str) {
    if !v.is_empty() && v != "none" && !list.iter().any(|x| x == v) {
        list.push(v.to_string());
    }
}

/// Derives and writes the closed record of episode `s` from the ledger lines stamped with its id.
fn write_closed(ctx: &Ctx, s: &OpenSession, p: &CloseParams) -> Result<PathBuf> {
    let policy = ctx.policy().ok();
    let id = ctx.identity()?.clone();
    let files = ctx.changed_files()?;
    let (changed_files, changed_total) = ctx.changed_list(|e| holds_real_work(e, files))?;
    let mut c = ClosedSession {
        created_at: ctx.clock.stamp(),
        repository_id: path_free_repository_id(ctx)?,
        worktree_id: worktree_id(ctx),
        branch: id.branch_text().into(),
        head: id.head_text().into(),
        working_tree: ctx.working_tree()?.into(),
        changed_files,
        changed_total: Some(changed_total),
        session_id: s.session_id.clone(),
        started_at: s.started_at.clone(),
        closed_at: ctx.clock.stamp(),
        outcome: p.outcome.clone(),
        worker: s.worker.clone().unwrap_or_default(),
        start_head: s.start_head.clone(),
        start_working_tree: s.start_working_tree.clone(),
        ..Default::default()
    };
    for l in ledger::episode(&ctx.layout.ledger(), &s.session_id)?.into_iter().flatten() {
        let l = l?;
        let Some(pairs) = &l.pairs else { continue };
        if pairs.str("session") != Some(s.session_id.as_str()) {
            continue;
        }
        if let Some(t) = pairs.str("task_id") {
            push_unique(&mut c.tasks, t);
        }
        match l.event() {
            Some("task.checkpoint") => {
                pairs.str("checkpoint_path").into_iter().for_each(|x| push_unique(&mut c.checkpoints, x))
            }
            Some("task.handed_over") => {
                pairs.str("handover_path").into_iter().for_each(|x| push_unique(&mut c.handovers, x))
            }
            Some("decision.recorded") => {
                pairs.str("decision").into_iter().for_each(|x| push_unique(&mut c.decisions, x))
            }
            Some("question.opened") | Some("question.resolved") => {
                pairs.str("question").into_iter().for_each(|x| push_unique(&mut c.questions, x))
            }
            _ => {}
        }
    }
    c.commits = episode_commits(ctx, &s.start_head)?;
    let task = task::local(ctx)?;
    let named = task.as_ref().filter(|t| c.tasks.contains(&t.id));
    c.task_id = named.map(|t| t.id.clone()).or_else(|| c.tasks.last().cloned()).unwrap_or_else(|| "none".into());
    c.profile = named.map(|t| t.profile.clone()).unwrap_or_else(|| "none".into());
    c.title =
        named.map(|t| t.task.clone()).unwrap_or_else(|| format!("Session {} on {}", s.session_id, id.branch_text()));
    let body = if p.summary.trim().is_empty() {
        let sections = policy.and_then(|p| p.session.record_sections.clone()).unwrap_or_else(|| {
            ["What Happened", "Progress Notes", "Decisions", "Open Questions", "Outcome"].map(String::from).to_vec()
        });
        composed_body(ctx, &c, &sections)
    } else {
        p.summary.clone()
    };
    // The record goes into tracked `.ai/repo/`: no credential reaches it (docs/SECURITY.md). What
    // the ledger carried is withheld line by line; a summary the caller typed is refused.
    if let Some(what) = crate::services::knowledge::credential_in(&p.summary) {
        return Err(Error::refused(format!("session close: the summary holds {what}; nothing written"))
            .hint("remove it: the closed record is written into tracked .ai/repo/sessions/"));
    }
    let body = crate::services::knowledge::withhold_credentials(&body);
    for item in std::iter::once(&mut c.title).chain(c.decisions.iter_mut()).chain(c.questions.iter_mut()) {
        if let Some(what) = crate::services::knowledge::credential_in(item) {
            *item = format!("(withheld: it holds {what})");
        }
    }
    let dir = ctx.layout.sessions();
    ensure_dir(&dir)?;
    let name = record_name(&ctx.clock.compact(), &[&s.session_id], id.branch_text(), id.head_text());
    let text = c.render(&body).map_err(|o| o.refusal("session close: the closed session record"))?;
    Ok(create_new(&dir, name, text.as_bytes())?)
}

/// Whether an entry of the change list is real work for a closed record (docs/REFERENCE.md#closed-sessions): a path
/// that is not generated output, or an untracked directory `dir/` holding at least one file
/// that is not (`files`, every changed file, sorted): `web/` holding only `web/node_modules/`
/// is generated output as well.
fn holds_real_work(entry: &str, files: &[String]) -> bool {
    if !entry.ends_with('/') {
        return !is_generated(entry);
    }
    let start = files.partition_point(|f| f.as_str() < entry);
    files[start..].iter().take_while(|f| f.starts_with(entry)).any(|f| !is_generated(f))
}

/// `start_head..HEAD`, first 12 hex each, oldest first; `[diverged]` when the start is no
/// longer an ancestor.
fn episode_commits(ctx: &Ctx, start_head: &str) -> Result<Vec<String>> {
    let Some(head) = ctx.git.head()? else { return Ok(Vec::new()) };
    let base = match head_of(start_head) {
        None => None,
        Some(start_head) => match ctx.git.commit_id(start_head) {
            Some(b) if ctx.git.is_ancestor(b, head)? => Some(b),
            _ => return Ok(vec!["diverged".into()]),
        },
    };
    Ok(ctx.git.commits_between(base, head)?.into_iter().map(|(id, _)| id.to_string()[..12].to_string()).collect())
}

/// The body composed from the envelope when no summary was given: never empty, never invented.
fn composed_body(ctx: &Ctx, c: &ClosedSession, sections: &[String]) -> String {
    let mut s = String::new();
    for name in sections {
        s.push_str(&format!("# {name}\n"));
        let lines: Vec<String> = match name.as_str() {
            "What Happened" => {
                if c.commits.is_empty() {
                    vec![format!("No commits between {} and {}.", short(&c.start_head), short(&c.head))]
                } else {
                    c.commits.iter().map(|h| format!("- commit {h}")).collect()
                }
            }
            "Progress Notes" => c
                .checkpoints
                .iter()
                .map(|p| {
                    let first = read_opt(&ctx.layout.root().join(p)).ok().flatten().and_then(|t| {
                        crate::store::format::record::parse(&t).ok().and_then(|(m, b)| {
                            crate::services::derive::note_line(b, m.origin == crate::model::record::Origin::Derived)
                                .map(str::to_string)
                        })
                    });
                    format!("- {p}: {}", first.unwrap_or_else(|| "(unreadable)".into()))
                })
                .collect(),
            "Decisions" => c.decisions.iter().map(|d| format!("- {d}")).collect(),
            "Open Questions" => c.questions.iter().map(|q| format!("- {q}")).collect(),
            "Outcome" => vec![format!(
                "{} at {}; tasks: {}.",
                c.outcome,
                short(&c.head),
                if c.tasks.is_empty() { "none".to_string() } else { c.tasks.join(", ") }
            )],
            _ => Vec::new(),
        };
        if lines.is_empty() {
            s.push_str("None recorded in this episode.\n");
        }
        for l in lines {
            s.push_str(&l);
            s.push('\n');
        }
        s.push('\n');
    }
    s.push_str("---\nComposed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.\n");
    s
}
