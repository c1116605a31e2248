//! `continuity sync` (docs/REFERENCE.md#sync): fetch the remote's store into its remote-tracking ref, merge
//! the admitted records in-process, push (never forced, `--no-verify`, only our ref). A refused
//! push is classified (docs/SYNC.md#outcomes-and-what-to-do): a race is re-fetched, merged and pushed again (up to
//! [`PUSH_ATTEMPTS`] in all); a remote hook or policy is `continuity.push_rejected` (exit 10); an
//! unreachable remote is `continuity.remote_unreachable`; a failure on this side is an error (13).
//! Must not touch: another command or a query, any ref but ours, the terminal (the caller renders
//! the pre-push line).
//!
//! The pre-push hook's sync ([`pre_push`]) is the same push step, but it costs nothing when no
//! record is pending: it compares the local tip with the remote-tracking one without touching the
//! network, and pushes first (fetching is the fetch refspec's job) — it fetches only after a race.

use crate::continuity::admission::{Code, Severity};
use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;

use crate::continuity::admission::Diagnostic;
use crate::continuity::lineage::{LineComparison, RawId};
use crate::continuity::local::{LastSync, SyncOutcome};
use crate::continuity::portability::{scan_publish, SECRET};
use crate::continuity::view::RecordView;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::git::binary::NoPrompt;
use crate::git::net::{NetError, Pushed, RemoteRef};
use crate::model::policy::NETWORK_TIMEOUT_SECONDS;
use crate::oid::Oid;
use crate::services::continuity::committer;
use crate::services::continuity::loaded::{self, Loaded, Setup};
use crate::services::continuity::views::{refresh_offers, resumable_ids, store_view, views, StoreView, SHOWN};
use crate::services::continuity::{load_local, remote_ref, save_local, REF};
use crate::services::remotes::valid_remote;
use crate::text::first_line;

/// How many pushes a sync makes in all when the remote keeps moving under it.
pub const PUSH_ATTEMPTS: usize = 3;

/// What a sync itself has to say, beside admission's and the lineage's diagnostics: facts, each
/// with its severity and code decided here ([`Said::diagnostic`]) and its words chosen by the
/// caller's [`Words`] (the renderer), which become the diagnostic's `message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// No remote is configured: nothing was synced.
    NoRemote,
    /// The remote holds different bytes under `path`, a name the local store holds too.
    Collision {
        /// The store path.
        path: String,
    },
    /// The remote could not be reached for the fetch; `detail` is git's first line.
    Unreachable {
        /// The remote.
        remote: String,
        /// git's words, one line.
        detail: String,
    },
    /// The remote moved under each of `attempts` pushes.
    MovedUnder {
        /// The remote.
        remote: String,
        /// Pushes made.
        attempts: usize,
        /// git's words for the last refusal.
        why: String,
    },
    /// The remote's hook or policy rejected the push.
    Rejected {
        /// The remote.
        remote: String,
        /// git's summary of the rejection.
        summary: String,
        /// The remote's message lines, screened ([`screen`]).
        said: Vec<String>,
    },
    /// The remote could not be reached for the push; `why` is git's first line.
    PushUnreachable {
        /// The remote.
        remote: String,
        /// git's words, one line.
        why: String,
    },
}

impl Said {
    /// The diagnostic this says, its message in `words`.
    pub fn diagnostic(&self, words: &dyn Words) -> Diagnostic {
        let (severity, code, path) = match self {
            Said::NoRemote => (Severity::Info, Code::NoRemote, None),
            Said::Collision { path } => (Severity::Error, Code::Collision, Some(path.as_str())),
            Said::Unreachable { .. } | Said::PushUnreachable { .. } => (Severity::Warning, REMOTE_UNREACHABLE, None),
            Said::MovedUnder { .. } => (Severity::Warning, PUSH_REFUSED, None),
            Said::Rejected { .. } => (Severity::Error, PUSH_REJECTED, None),
        };
        Diagnostic::new(severity, code, path, words.said(self))
    }
}

/// One diagnostic of a sync as it is gathered: admission's or the lineage's (worded where they
/// are decided, in the continuity crate), or the sync's own, worded at the end.
#[derive(Debug)]
enum Note {
    Store(Diagnostic),
    Said(Said),
}

/// The diagnostics gathered, in order, each of the sync's own worded by `words`.
fn worded(notes: Vec<Note>, words: &dyn Words) -> Vec<Diagnostic> {
    notes
        .into_iter()
        .map(|n| match n {
            Note::Store(d) => d,
            Note::Said(s) => s.diagnostic(words),
        })
        .collect()
}

/// How a surface words what a sync says (`src/render` implements it).
pub trait Words {
    /// The one sentence of `said`.
    fn said(&self, said: &Said) -> String;
}

/// What stops a sync (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// git could not be run, or could not read or write this clone, while taking in the
    /// remote's store.
    #[error("continuity sync: this clone could not take in {remote}'s store")]
    ThisSide {
        /// The remote.
        remote: String,
        /// What git said.
        #[source]
        source: NetError,
    },
    /// git fetched, yet kept the remote's tip out (a shallow repository's history).
    #[error("the store of {remote} cannot be taken in: git did not take in its tip {} (a shallow repository's history is refused)", crate::text::short_id(tip))]
    NotTakenIn {
        /// The remote.
        remote: String,
        /// The tip the remote advertised.
        tip: String,
    },
    /// The remote's ref names something that is not a commit.
    #[error("the store of {remote} cannot be taken in: its tip {} is not a commit", crate::text::short_id(tip))]
    NotACommit {
        /// The remote.
        remote: String,
        /// What the ref names.
        tip: String,
    },
    /// The fetched tip could not be looked at.
    #[error("continuity sync: {remote}'s store: {source}")]
    Unlooked {
        /// The remote.
        remote: String,
        /// What the object database said.
        #[source]
        source: crate::git::Error,
    },
    /// The store, as fetched, could not be read on this side.
    #[error("continuity sync: {remote}'s store, as fetched, could not be read on this side")]
    Unreadable {
        /// The remote.
        remote: String,
        /// Why.
        #[source]
        source: Box<Error>,
    },
    /// The remote's records could not be merged into the local store.
    #[error("continuity merge: {0}")]
    Merge(#[source] crate::git::Error),
    /// A ref of the store could not be read.
    #[error("continuity: {reference}: {source}")]
    Ref {
        /// The ref.
        reference: String,
        /// What the object database said.
        #[source]
        source: crate::git::Error,
    },
    /// Whether one store commit descends from another could not be told.
    #[error("continuity: {0}")]
    Ancestry(#[source] crate::git::Error),
    /// `--remote` (or the chosen remote) names no remote of this repository.
    #[error("no remote named {0}")]
    NoSuchRemote(String),
    /// `--remote` is not an acceptable remote name.
    #[error("{0:?} is not a remote name")]
    BadRemoteName(String),
    /// Several remotes, none chosen, none named.
    #[error("continuity sync: {} remotes ({}) and none chosen for the records", .0.len(), .0.join(", "))]
    NoneChosen(Vec<String>),
    /// The push failed on this side.
    #[error("continuity sync: the push to {remote} failed on this side")]
    PushFailed {
        /// The remote.
        remote: String,
        /// What git said.
        #[source]
        source: NetError,
    },
}

majordomus_core::vocabulary! {
    /// What a sync did: the `action` of its report.
    pub enum SyncAction {
        /// Records went both ways.
        Exchanged = "exchanged",
        /// Records came from the remote only.
        Fetched = "fetched",
        /// Records went to the remote only.
        Published = "published",
        /// Both stores held the same records.
        None = "none",
        /// No remote is configured.
        NoRemote = "no_remote",
        /// The remote could not be reached.
        Unreachable = "unreachable",
    }
}

/// `continuity sync`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct SyncReport {
    /// The remote (`null` when none is configured).
    pub remote: Option<String>,
    /// `exchanged|fetched|published|none|no_remote|unreachable`.
    pub action: SyncAction,
    /// Records fetched (remote ones this store lacked).
    pub fetched: usize,
    /// Records published (local ones the remote lacked, when the push went through).
    pub published: usize,
    /// `ok`, `partial` (fetched but not published: refused, rejected or unreachable for the
    /// push) or `unreachable`; what `last_sync.outcome` records.
    pub outcome: SyncOutcome,
    /// Pushes made (0 when nothing was pending).
    pub push_attempts: usize,
    /// Per-line comparison of the local store before the merge and the remote store.
    pub lines: Vec<LineComparison>,
    /// The store after the sync.
    pub store: StoreView,
    /// The newest records resumable here (at most 20).
    pub resumable: Vec<RecordView>,
    /// How many records are resumable here.
    pub resumable_total: usize,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
    /// A sync with a remote that is not the chosen one (`--remote fork`): what went there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elsewhere: Option<Elsewhere>,
}

/// What an explicit sync with another remote than the chosen one left there (issue 40 item 6):
/// every record of the store goes, teammates' too.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Elsewhere {
    /// The chosen remote, if any.
    pub chosen: Option<String>,
    /// Records published there by this sync.
    pub published: usize,
    /// The command that deletes the store there.
    pub delete: String,
}

impl SyncReport {
    /// Whether the remote could not be reached (exit 10).
    pub fn unreachable(&self) -> bool {
        self.action == SyncAction::Unreachable
    }

    /// Whether the remote's hook or policy rejected the push (exit 10).
    pub fn push_rejected(&self) -> bool {
        self.diagnostics.iter().any(|d| d.code == PUSH_REJECTED)
    }

    /// The store commit the remote holds after this sync, when it finished (`ok`): its
    /// remote-tracking tip, which a push that went through sets. What a revocation pins.
    pub fn pin(&self) -> Option<String> {
        let remote_tip = self.store.remote_tip.as_ref().map(|t| t.to_string());
        (self.outcome == SyncOutcome::Ok && self.remote.is_some()).then_some(remote_tip).flatten()
    }

    /// Whether the sync's answer is "no" (exit 10): unreachable, or a push the remote rejected.
    pub fn refused(&self) -> bool {
        self.unreachable() || self.push_rejected()
    }
}

/// The diagnostic of a push the remote's own hook or policy rejected.
pub const PUSH_REJECTED: Code = Code::PushRejected;
/// The diagnostic of a push that lost the race every time.
pub const PUSH_REFUSED: Code = Code::PushRefused;
/// The diagnostic of a remote that could not be reached.
pub const REMOTE_UNREACHABLE: Code = Code::RemoteUnreachable;

/// How the network steps of this process avoid every prompt and every hang: ssh in batch mode
/// on top of the user's own ssh command, and one deadline for them all,
/// `continuity.network_timeout` (the rest is in [`crate::git::binary::run_network`]).
fn no_prompt(ctx: &Ctx) -> Result<NoPrompt> {
    let var = |k: &str| ctx.env.vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let budget = ctx.policy_if_layer()?.map_or(Duration::from_secs(NETWORK_TIMEOUT_SECONDS), |p| p.network_timeout());
    Ok(NoPrompt::new(var("GIT_SSH_COMMAND"), ctx.git.ssh_command().as_deref(), var("GIT_SSH")).within(budget))
}

/// A network step that failed on this side (git could not be started, or could not read or
/// write this clone): an error (13), never the remote's standing — `last_sync` is not touched.
fn local_failure(remote: &str, e: NetError) -> Error {
    SyncError::ThisSide { remote: remote.to_string(), source: e }.into()
}

/// The remote's failure as one detail line (unreachable, or a refusal of a fetch, which git
/// reports as its words too); this side's is an error ([`local_failure`]).
fn remote_side(remote: &str, e: NetError) -> Result<String> {
    if e.is_local() {
        Err(local_failure(remote, e))
    } else {
        Ok(e.to_string())
    }
}

/// Fetches and admits the remote's store; `Ok(None)` when the remote has none, `Err(detail)`
/// when it could not be reached. A failure on this side (git not started, a write cut short, a
/// lock held) is an error (13). A remote that was reached but whose store is not a store commit
/// (its ref names a blob, a tree or a tag) is a refusal (10), never "unreachable"; a store that
/// cannot be read here once fetched is this side's (13). The local store is left as it was.
fn fetch(ctx: &Ctx, s: &Setup, remote: &str, np: &NoPrompt) -> Result<std::result::Result<Option<Loaded>, String>> {
    let want = match ctx.git.ls_remote(remote, REF, np) {
        Err(e) => return remote_side(remote, e).map(Err),
        Ok(RemoteRef::Absent) => return Ok(Ok(None)),
        Ok(RemoteRef::Present(want)) => want,
    };
    let before = tip(ctx, &remote_ref(remote))?;
    if let Err(e) = ctx.git.fetch_continuity(remote, np) {
        return remote_side(remote, e).map(Err);
    }
    // git exits 0 yet keeps the ref out when the remote is shallow. (A tracking ref that
    // moved elsewhere is fine: the remote moved on between ls-remote and fetch.)
    let after = tip(ctx, &remote_ref(remote))?;
    if after.as_deref() != Some(want.as_str()) && after == before {
        return Err(SyncError::NotTakenIn { remote: remote.to_string(), tip: want.to_string() }.into());
    }
    if let Some(t) = &after {
        let unlooked = |source| SyncError::Unlooked { remote: remote.to_string(), source };
        if !ctx.git.is_commit(t).map_err(unlooked)? {
            return Err(SyncError::NotACommit { remote: remote.to_string(), tip: t.to_string() }.into());
        }
    }
    loaded::load(ctx, s, &remote_ref(remote))
        .map(|l| Ok(Some(l)))
        .map_err(|e| SyncError::Unreadable { remote: remote.to_string(), source: Box::new(e) }.into())
}

/// Merges the admitted (and too-new) records of `theirs` into the local store.
fn merge(ctx: &Ctx, theirs: &Loaded, diags: &mut Vec<Note>) -> Result<()> {
    let Some(tip) = &theirs.tip else { return Ok(()) };
    let include = |p: &str| theirs.may_merge(p);
    let out = ctx
        .git
        .store_merge(REF, tip, &include, "majordomus continuity: merge", &committer(ctx))
        .map_err(SyncError::Merge)?;
    diags.extend(out.collisions.into_iter().map(|path| Note::Said(Said::Collision { path })));
    Ok(())
}

/// The tip of `reference`, if it exists.
fn tip(ctx: &Ctx, reference: &str) -> Result<Option<Oid>> {
    ctx.git.ref_tip(reference).map_err(|source| SyncError::Ref { reference: reference.to_string(), source }.into())
}

/// The remote store as the last fetch left it in the remote-tracking ref (no network).
fn tracked(ctx: &Ctx, s: &Setup, remote: &str) -> Result<Option<Loaded>> {
    let reference = remote_ref(remote);
    match tip(ctx, &reference)? {
        None => Ok(None),
        Some(_) => loaded::load(ctx, s, &reference).map(Some),
    }
}

/// How a sync reaches its remote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `continuity sync`: ls-remote, fetch, merge, push.
    Full,
    /// The pre-push hook: merge what the fetch refspec brought, push; fetch only after a race.
    PushFirst,
}

/// Runs `sync`.
pub fn sync(ctx: &Ctx, remote: Option<&str>, words: &dyn Words) -> Result<SyncReport> {
    run(ctx, remote, Mode::Full, words)
}

/// What the pre-push hook's sync did.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "pre_push", rename_all = "snake_case")]
pub enum PrePush {
    /// The push goes to a URL or to something that is not a configured remote name.
    NotARemote {
        /// What git passed as the remote.
        remote: String,
    },
    /// The push goes to a remote that is not where records go (`continuity.remote`): nothing
    /// is published there.
    NotChosen {
        /// The remote pushed to.
        remote: String,
        /// Where records go, if anywhere.
        chosen: Option<String>,
    },
    /// The local store holds nothing the remote-tracking ref lacks: no network, nothing done.
    NothingPending,
    /// Records were pending, but another continuity writer (a sync, a publish) holds the lock:
    /// the hook does not wait for it.
    Busy {
        /// The remote.
        remote: String,
    },
    /// Records were pending: the push step ran.
    Synced(Box<SyncReport>),
}

/// The writers' lock of [`crate::services::continuity::writer_lock`] (the same file), taken without waiting: `None`
/// while another writer holds it. Dropping the file releases it.
fn try_writer_lock(ctx: &Ctx) -> Result<Option<std::fs::File>> {
    let dir = ctx.git.common_dir().join("majordomus");
    crate::store::atomic::ensure_dir(&dir)?;
    let path = dir.join("continuity.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io_at(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io_at(&path, e)),
    }
}

/// The pre-push hook's sync with `remote` (docs/SYNC.md#the-pre-push-hook): when the local store's tip is
/// absent, equal to the remote-tracking tip or an ancestor of it, nothing is pending and nothing
/// runs (no network, no lock); otherwise the push step of [`sync`] runs from what the fetch
/// refspec last brought. It never waits for another writer: while one holds the lock, it answers
/// [`PrePush::Busy`].
pub fn pre_push(ctx: &Ctx, remote: &str, words: &dyn Words) -> Result<PrePush> {
    if !valid_remote(remote) || !ctx.git.remote_names().iter().any(|n| n == remote) {
        return Ok(PrePush::NotARemote { remote: remote.to_string() });
    }
    let Some(local) = tip(ctx, REF)? else { return Ok(PrePush::NothingPending) };
    // Records go to one remote only; a push of code elsewhere (a fork) carries none.
    let chosen = crate::services::remotes::chosen_remote(ctx)?;
    if chosen.as_deref() != Some(remote) {
        return Ok(PrePush::NotChosen { remote: remote.to_string(), chosen });
    }
    if let Some(theirs) = tip(ctx, &remote_ref(remote))? {
        if theirs == local || ctx.git.commit_is_ancestor(&local, &theirs).map_err(SyncError::Ancestry)? {
            return Ok(PrePush::NothingPending);
        }
    }
    let Some(_lock) = try_writer_lock(ctx)? else { return Ok(PrePush::Busy { remote: remote.to_string() }) };
    Ok(PrePush::Synced(Box::new(run(ctx, Some(remote), Mode::PushFirst, words)?)))
}

/// The marker under `<common dir>/majordomus/` that says the fresh-clone hint was given.
const FRESH_CLONE_MARKER: &str = "fresh-clone-hint-given";

/// The one-time hint for a fresh clone (issue 10): `git clone` never brings
/// `refs/majordomus/continuity`, so a clone with remotes, no local store and no remote-tracking
/// store is told once — by the first continuity command that reads the store — how to get the
/// records (its words: `src/render`). `Ok(false)` every other time; no network.
pub fn fresh_clone_hint(ctx: &Ctx) -> Result<bool> {
    let remotes = ctx.git.remote_names();
    if remotes.is_empty() || tip(ctx, REF)?.is_some() {
        return Ok(false);
    }
    for r in &remotes {
        if tip(ctx, &remote_ref(r))?.is_some() {
            return Ok(false);
        }
    }
    let dir = ctx.git.common_dir().join("majordomus");
    let marker = dir.join(FRESH_CLONE_MARKER);
    if marker.exists() {
        return Ok(false);
    }
    crate::store::atomic::ensure_dir(&dir)?;
    crate::store::atomic::replace(&marker, ctx.clock.stamp().as_bytes())?;
    Ok(true)
}

/// One sync, in its steps: [`target`] (which remote), the writers' lock and the store before,
/// [`fetch`] (or the tracked ref for the pre-push hook), [`Exchange::merge`], [`push`], and
/// [`report`] on the store after.
fn run(ctx: &Ctx, remote: Option<&str>, mode: Mode, words: &dyn Words) -> Result<SyncReport> {
    let s = loaded::setup(ctx)?;
    if let Some(e) = s.revoked_here() {
        return Err(e);
    }
    let (remote, chosen) = target(ctx, remote)?;
    // The pre-push hook took the writers' lock already (without waiting, see `pre_push`).
    let _lock = match mode {
        Mode::Full => Some(crate::services::continuity::writer_lock(ctx)?),
        Mode::PushFirst => None,
    };
    let mut local_state = load_local(ctx)?;
    let before = loaded::load(ctx, &s, REF)?;
    let mut diags = Vec::new();
    let Some(remote) = remote else {
        diags.push(Note::Said(Said::NoRemote));
        let diags = worded(diags, words);
        return report(ctx, &s, &before, &local_state, None, SyncAction::NoRemote, Tally::default(), Vec::new(), diags);
    };
    if !ctx.git.remote_names().contains(&remote) {
        return Err(SyncError::NoSuchRemote(remote).into());
    }
    // The hook must not delay the user's push by more than a bounded time (docs/SYNC.md#the-pre-push-hook), nor a
    // sync wait on a remote that never answers (docs/SYNC.md#explicit-sync).
    let np = no_prompt(ctx)?;
    let fetched_now = match mode {
        Mode::Full => fetch(ctx, &s, &remote, &np)?,
        Mode::PushFirst => Ok(tracked(ctx, &s, &remote)?),
    };
    let theirs = match fetched_now {
        Ok(t) => t.unwrap_or_default(),
        Err(detail) => {
            let detail = first_line(&detail);
            diags.push(Note::Said(Said::Unreachable { remote: remote.clone(), detail: detail.to_string() }));
            let last = LastSync {
                remote: remote.clone(),
                at: ctx.clock.stamp(),
                outcome: SyncOutcome::Unreachable,
                detail: Some(detail.to_string()),
            };
            local_state.record_sync(chosen.as_deref(), last);
            save_local(ctx, &local_state)?;
            let tally = Tally { outcome: SyncOutcome::Unreachable, ..Tally::default() };
            let action = SyncAction::Unreachable;
            let diags = worded(diags, words);
            return report(ctx, &s, &before, &local_state, Some(remote), action, tally, Vec::new(), diags);
        }
    };
    let mut ex = Exchange::merge(ctx, before, theirs, &mut diags)?;
    let tally = if ex.published > 0 { push(ctx, &s, &remote, &np, &mut ex, &mut diags)? } else { Tally::default() };
    let tally = Tally { fetched: ex.fetched, ..tally };
    ctx.git.gc_auto();
    let action = match (tally.fetched > 0, tally.published > 0) {
        (true, true) => SyncAction::Exchanged,
        (true, false) => SyncAction::Fetched,
        (false, true) => SyncAction::Published,
        (false, false) => SyncAction::None,
    };
    let last = LastSync {
        remote: remote.clone(),
        at: ctx.clock.stamp(),
        outcome: tally.outcome,
        detail: tally.detail.clone(),
    };
    local_state.record_sync(chosen.as_deref(), last);
    let lines = ex.into_lines();
    // The store after the merge, read once: incrementally from the state before it.
    let after = loaded::load(ctx, &s, REF)?;
    refresh_offers(&s, &after, &after.lineage(), &mut local_state);
    save_local(ctx, &local_state)?;
    let elsewhere = (chosen.as_deref() != Some(remote.as_str())).then(|| Elsewhere {
        chosen: chosen.clone(),
        published: tally.published,
        delete: format!("git push {remote} :{REF}"),
    });
    let mut r = report(ctx, &s, &after, &local_state, Some(remote), action, tally, lines, worded(diags, words))?;
    r.elsewhere = elsewhere;
    Ok(r)
}

/// The remote a sync talks to (`--remote`, else the chosen one) and the chosen one (whose sync is
/// `last_sync`); `None` when there is no remote. Several remotes and none chosen is a usage error.
fn target(ctx: &Ctx, remote: Option<&str>) -> Result<(Option<String>, Option<String>)> {
    if let Some(r) = remote {
        if !valid_remote(r) {
            return Err(SyncError::BadRemoteName(r.to_string()).into());
        }
    }
    let chosen = crate::services::remotes::chosen_remote(ctx)?;
    let remote = match remote {
        Some(r) => Some(r.to_string()),
        None if chosen.is_none() && ctx.git.remote_names().len() > 1 => {
            return Err(SyncError::NoneChosen(ctx.git.remote_names()).into())
        }
        None => chosen.clone(),
    };
    Ok((remote, chosen))
}

/// What a sync counted and how it ended.
#[derive(Debug)]
struct Tally {
    /// Records fetched.
    fetched: usize,
    /// Records published (0 unless the push went through).
    published: usize,
    /// Pushes made.
    attempts: usize,
    /// `ok` unless the push failed (`partial`) or the remote was unreachable.
    outcome: SyncOutcome,
    /// Why, in one line, when not `ok`.
    detail: Option<String>,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally { fetched: 0, published: 0, attempts: 0, outcome: SyncOutcome::Ok, detail: None }
    }
}

/// The two stores' ids after the merge: what each lacked, and the per-line comparison of the
/// local store before the merge with the remote one.
struct Exchange {
    local_ids: BTreeSet<RawId>,
    remote_ids: BTreeSet<RawId>,
    fetched: usize,
    published: usize,
    lines: Vec<LineComparison>,
}

impl Exchange {
    /// Compares the stores, then merges the remote's admitted records into the local ref.
    fn merge(ctx: &Ctx, before: Loaded, theirs: Loaded, diags: &mut Vec<Note>) -> Result<Exchange> {
        diags.extend(theirs.diagnostics.iter().cloned().map(Note::Store));
        let local_ids = before.ids();
        let remote_ids = theirs.ids();
        let fetched = remote_ids.difference(&local_ids).count();
        let published = local_ids.difference(&remote_ids).count();
        let lines = compare(&before, &theirs, &local_ids, &remote_ids);
        // One read model at a time: the store after the merge is read (by the caller) without these two.
        drop(before);
        merge(ctx, &theirs, diags)?;
        drop(theirs);
        Ok(Exchange { local_ids, remote_ids, fetched, published, lines })
    }

    /// The per-line comparison; the id sets are done with (the store after the merge is read
    /// without them).
    fn into_lines(self) -> Vec<LineComparison> {
        self.lines
    }
}

/// Pushes the local store (never forced): a race is fetched, merged and pushed again, up to
/// [`PUSH_ATTEMPTS`] in all; a refusal, a rejection or an unreachable remote leaves the records
/// pending (`partial`); a failure on this side is an error (13).
fn push(ctx: &Ctx, s: &Setup, remote: &str, np: &NoPrompt, ex: &mut Exchange, diags: &mut Vec<Note>) -> Result<Tally> {
    let mut known = &ex.local_ids | &ex.remote_ids;
    let mut attempts = 0;
    let pushed = loop {
        attempts += 1;
        match ctx.git.push_continuity(remote, np) {
            Ok(Pushed::Race(_)) if attempts < PUSH_ATTEMPTS => match fetch(ctx, s, remote, np)? {
                // Another machine pushed first: take its records in, push from the fresh tip.
                Ok(Some(again)) => {
                    let ids = again.ids();
                    ex.fetched += ids.difference(&known).count();
                    ex.published = ex.local_ids.difference(&ids).count();
                    known.extend(ids);
                    diags.extend(again.diagnostics.iter().cloned().map(Note::Store));
                    merge(ctx, &again, diags)?;
                }
                Ok(None) => {}
                Err(e) => break Err(NetError::Unreachable(e)),
            },
            other => break other,
        }
    };
    let partial =
        |detail: String| Tally { attempts, outcome: SyncOutcome::Partial, detail: Some(detail), ..Tally::default() };
    Ok(match pushed {
        Ok(Pushed::Done) => {
            if let Ok(Some(tip)) = ctx.git.ref_tip(REF) {
                // Best effort: status reads the remote as in sync without network; a failure
                // here only makes the next status say `pending` until the next sync.
                let _ = ctx.git.set_ref(&remote_ref(remote), &tip, None, &committer(ctx));
            }
            Tally { published: ex.published, attempts, ..Tally::default() }
        }
        Ok(Pushed::Race(why)) => {
            diags.push(Note::Said(Said::MovedUnder { remote: remote.to_string(), attempts, why: why.to_string() }));
            partial(format!("push refused: {why}"))
        }
        Err(NetError::Rejected { summary, remote: said }) => {
            let said = screen(ctx, &said);
            diags.push(Note::Said(Said::Rejected { remote: remote.to_string(), summary: summary.clone(), said }));
            partial(format!("push rejected: {summary}"))
        }
        Err(NetError::Unreachable(why)) => {
            let why = first_line(&why);
            diags.push(Note::Said(Said::PushUnreachable { remote: remote.to_string(), why: why.to_string() }));
            partial(why.to_string())
        }
        Err(e) => {
            return Err(SyncError::PushFailed { remote: remote.to_string(), source: e }.into());
        }
    })
}

fn compare(before: &Loaded, theirs: &Loaded, local: &BTreeSet<RawId>, remote: &BTreeSet<RawId>) -> Vec<LineComparison> {
    before.lineage_with(theirs).compare_stores(local, remote)
}

/// The report on `store` (the store after the sync): its lineage findings join the diagnostics.
#[allow(clippy::too_many_arguments)]
fn report(
    ctx: &Ctx,
    s: &Setup,
    store: &Loaded,
    local: &crate::continuity::local::LocalState,
    remote: Option<String>,
    action: SyncAction,
    tally: Tally,
    lines: Vec<LineComparison>,
    mut diagnostics: Vec<Diagnostic>,
) -> Result<SyncReport> {
    let lineage = store.lineage();
    // The lineage findings of the store after the sync (`continuity.diverged` names the heads).
    diagnostics.extend(lineage.findings(&|p| store.refused(p)));
    let ids = resumable_ids(s, store, &lineage, local);
    let resumable = views(ctx, s, store, &ids[..ids.len().min(SHOWN)]);
    Ok(SyncReport {
        store: store_view(ctx, store, remote.as_deref())?,
        remote,
        action,
        fetched: tally.fetched,
        published: tally.published,
        outcome: tally.outcome,
        push_attempts: tally.attempts,
        lines,
        resumable,
        resumable_total: ids.len(),
        diagnostics,
        elsewhere: None,
    })
}

/// The remote's message lines as they may be shown: a line that looks like a credential (or holds
/// the value of a secret-named environment variable) is withheld, never echoed.
fn screen(ctx: &Ctx, lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            let leaks = scan_publish(&serde_json::Value::String(l.clone()), &ctx.env.vars, "");
            if leaks.iter().any(|k| k.code == SECRET) {
                "(a line withheld: it looks like a credential)".to_string()
            } else {
                l.chars().take(200).collect()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_actions_and_outcomes_serialise_as_the_words_they_print() {
        use SyncAction as A;
        for a in [A::Exchanged, A::Fetched, A::Published, A::None, A::NoRemote, A::Unreachable] {
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
        for o in [SyncOutcome::Ok, SyncOutcome::Partial, SyncOutcome::Unreachable] {
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
        }
        assert_eq!(A::NoRemote.as_str(), "no_remote");
    }
}
