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
use crate::git::store::Committer;
use crate::model::policy::NETWORK_TIMEOUT_SECONDS;
use crate::oid::Oid;
use crate::services::continuity::loaded::{self, Loaded, Setup};
use crate::services::continuity::views::{refresh_offers, resumable_ids, store_view, views, StoreView, SHOWN};
use crate::services::continuity::{load_local, remote_ref, save_local, REF};
use crate::services::remotes::valid_remote;
use crate::text::first_line;

/// How many pushes a sync makes in all when the remote keeps moving under it.
pub const PUSH_ATTEMPTS: usize = 3;

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

fn committer(ctx: &Ctx) -> Committer {
    let (name, email) = ctx.git.store_identity();
    Committer::new(name, email, ctx.clock.now().timestamp())
}

/// A network step that failed on this side (git could not be started, or could not read or
/// write this clone): an error (13), never the remote's standing — `last_sync` is not touched.
fn local_failure(remote: &str, e: NetError) -> Error {
    let hint = match &e {
        NetError::Spawn(_) => "put git on PATH (git --version must run); the local store and the last sync are unchanged",
        NetError::Local(t) if crate::git::net::is_local_lock(t) => {
            "another git process holds that lock; when none is running, remove the .lock file git names"
        }
        _ => "free disk space, lift the file-size limit or repair what git names (git fsck); the local store and the last sync are unchanged",
    };
    Error::io(format!("continuity sync: this clone could not take in {remote}'s store")).hint(hint).caused_by(e)
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
    let refused = |what: String| {
        Error::refused(format!("the store of {remote} cannot be taken in: {what}")).hint(format!(
            "the local store is unchanged; {remote}'s {REF} must be a whole store commit — ask whoever writes {remote} to repair it"
        ))
    };
    // git exits 0 yet keeps the ref out when the remote is shallow. (A tracking ref that
    // moved elsewhere is fine: the remote moved on between ls-remote and fetch.)
    let after = tip(ctx, &remote_ref(remote))?;
    if after.as_deref() != Some(want.as_str()) && after == before {
        return Err(refused(format!(
            "git did not take in its tip {} (a shallow repository's history is refused)",
            &want[..want.len().min(12)]
        )));
    }
    if let Some(t) = &after {
        if !ctx.git.is_commit(t).map_err(|e| Error::io(format!("continuity sync: {remote}'s store: {e}")))? {
            return Err(refused(format!("its tip {} is not a commit", &t[..t.len().min(12)])));
        }
    }
    loaded::load(ctx, s, &remote_ref(remote)).map(|l| Ok(Some(l))).map_err(|e| {
        Error::io(format!("continuity sync: {remote}'s store, as fetched, could not be read on this side"))
            .hint("git fsck shows what is damaged; the local store and the last sync are unchanged")
            .caused_by(e)
    })
}

/// Merges the admitted (and too-new) records of `theirs` into the local store.
fn merge(ctx: &Ctx, theirs: &Loaded, diags: &mut Vec<Diagnostic>) -> Result<()> {
    let Some(tip) = &theirs.tip else { return Ok(()) };
    let include = |p: &str| theirs.may_merge(p);
    let out = ctx
        .git
        .store_merge(REF, tip, &include, "majordomus continuity: merge", &committer(ctx))
        .map_err(|e| Error::io(format!("continuity merge: {e}")))?;
    for c in out.collisions {
        diags.push(Diagnostic::new(
            Severity::Error,
            Code::Collision,
            Some(&c),
            "the remote holds different bytes under the same name; the local file is kept",
        ));
    }
    Ok(())
}

/// The tip of `reference`, if it exists.
fn tip(ctx: &Ctx, reference: &str) -> Result<Option<Oid>> {
    ctx.git.ref_tip(reference).map_err(|e| Error::io(format!("continuity: {reference}: {e}")))
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
pub fn sync(ctx: &Ctx, remote: Option<&str>) -> Result<SyncReport> {
    run(ctx, remote, Mode::Full)
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
pub fn pre_push(ctx: &Ctx, remote: &str) -> Result<PrePush> {
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
        if theirs == local
            || ctx.git.commit_is_ancestor(&local, &theirs).map_err(|e| Error::io(format!("continuity: {e}")))?
        {
            return Ok(PrePush::NothingPending);
        }
    }
    let Some(_lock) = try_writer_lock(ctx)? else { return Ok(PrePush::Busy { remote: remote.to_string() }) };
    Ok(PrePush::Synced(Box::new(run(ctx, Some(remote), Mode::PushFirst)?)))
}

/// The marker under `<common dir>/majordomus/` that says the fresh-clone hint was given.
const FRESH_CLONE_MARKER: &str = "fresh-clone-hint-given";

/// The one-time hint for a fresh clone (issue 10): `git clone` never brings
/// `refs/majordomus/continuity`, so a clone with remotes, no local store and no remote-tracking
/// store is told once — by the first continuity command that reads the store — how to get the
/// records. `Ok(None)` every other time; no network.
pub fn fresh_clone_hint(ctx: &Ctx) -> Result<Option<String>> {
    let remotes = ctx.git.remote_names();
    if remotes.is_empty() || tip(ctx, REF)?.is_some() {
        return Ok(None);
    }
    for r in &remotes {
        if tip(ctx, &remote_ref(r))?.is_some() {
            return Ok(None);
        }
    }
    let dir = ctx.git.common_dir().join("majordomus");
    let marker = dir.join(FRESH_CLONE_MARKER);
    if marker.exists() {
        return Ok(None);
    }
    crate::store::atomic::ensure_dir(&dir)?;
    crate::store::atomic::replace(&marker, ctx.clock.stamp().as_bytes())?;
    Ok(Some(
        "this clone has no continuity records yet (git clone does not bring refs/majordomus/continuity): \
         run git majordomus continuity sync, and git majordomus hooks install --fetch-refspec so that git fetch brings them"
            .to_string(),
    ))
}

/// One sync, in its steps: [`target`] (which remote), the writers' lock and the store before,
/// [`fetch`] (or the tracked ref for the pre-push hook), [`Exchange::merge`], [`push`], and
/// [`report`] on the store after.
fn run(ctx: &Ctx, remote: Option<&str>, mode: Mode) -> Result<SyncReport> {
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
        diags.push(Diagnostic::new(
            Severity::Info,
            Code::NoRemote,
            None,
            "no remote is configured; nothing was synced",
        ));
        return report(ctx, &s, &before, &local_state, None, SyncAction::NoRemote, Tally::default(), Vec::new(), diags);
    };
    if !ctx.git.remote_names().contains(&remote) {
        return Err(Error::not_found(format!("no remote named {remote}")).hint("git remote -v lists them"));
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
            diags.push(Diagnostic::new(
                Severity::Warning,
                REMOTE_UNREACHABLE,
                None,
                format!("{remote} could not be reached ({detail}); the local store is unchanged and its records stay pending"),
            ));
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
    let mut r = report(ctx, &s, &after, &local_state, Some(remote), action, tally, lines, diags)?;
    r.elsewhere = elsewhere;
    Ok(r)
}

/// The remote a sync talks to (`--remote`, else the chosen one) and the chosen one (whose sync is
/// `last_sync`); `None` when there is no remote. Several remotes and none chosen is a usage error.
fn target(ctx: &Ctx, remote: Option<&str>) -> Result<(Option<String>, Option<String>)> {
    if let Some(r) = remote {
        if !valid_remote(r) {
            return Err(Error::refused(format!("{r:?} is not a remote name")).hint("git remote -v lists them"));
        }
    }
    let chosen = crate::services::remotes::chosen_remote(ctx)?;
    let remote = match remote {
        Some(r) => Some(r.to_string()),
        None if chosen.is_none() && ctx.git.remote_names().len() > 1 => {
            return Err(Error::usage(format!(
                "continuity sync: {} remotes ({}) and none chosen for the records",
                ctx.git.remote_names().len(),
                ctx.git.remote_names().join(", ")
            ))
            .hint("set continuity.remote in .ai/repo/policy.yaml, or pass --remote <name>"))
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
    fn merge(ctx: &Ctx, before: Loaded, theirs: Loaded, diags: &mut Vec<Diagnostic>) -> Result<Exchange> {
        diags.extend(theirs.diagnostics.iter().cloned());
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
fn push(
    ctx: &Ctx,
    s: &Setup,
    remote: &str,
    np: &NoPrompt,
    ex: &mut Exchange,
    diags: &mut Vec<Diagnostic>,
) -> Result<Tally> {
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
                    diags.extend(again.diagnostics.iter().cloned());
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
            diags.push(Diagnostic::new(
                Severity::Warning,
                PUSH_REFUSED,
                None,
                format!("{remote} moved under each of {attempts} pushes ({why}); the records stay pending: run continuity sync again"),
            ));
            partial(format!("push refused: {why}"))
        }
        Err(NetError::Rejected { summary, remote: said }) => {
            let said = screen(ctx, &said);
            let quoted = if said.is_empty() {
                "it gave no message".to_string()
            } else {
                format!("it said: {}", said.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(" / "))
            };
            diags.push(Diagnostic::new(
                Severity::Error,
                PUSH_REJECTED,
                None,
                format!("{remote} rejected the push of {REF} ({summary}); {quoted}. Its hook or policy does not accept this ref: nothing is retried and the records stay pending (docs/SYNC.md)"),
            ));
            partial(format!("push rejected: {summary}"))
        }
        Err(NetError::Unreachable(why)) => {
            let why = first_line(&why);
            diags.push(Diagnostic::new(
                Severity::Warning,
                REMOTE_UNREACHABLE,
                None,
                format!("{remote} could not be reached for the push ({why}); the records stay pending"),
            ));
            partial(why.to_string())
        }
        Err(e) => {
            return Err(Error::io(format!("continuity sync: the push to {remote} failed on this side"))
                .hint("git fsck --strict shows what is damaged; the remote was not changed")
                .caused_by(e));
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
