//! `continuity sync` (SPEC §10.6): fetch the remote's store into its remote-tracking ref, merge
//! the admitted records in-process, push (never forced), once more after a rejection.

use std::collections::BTreeSet;

use serde::Serialize;

use super::loaded::{self, Loaded, Setup};
use super::status::{refresh_offers, resumable_ids, store_view, views, StoreView, SHOWN};
use super::{load_local, remote_ref, save_local, REF};
use crate::continuity::admission::Diagnostic;
use crate::continuity::lineage::{LineComparison, Lineage};
use crate::continuity::local::LastSync;
use crate::continuity::view::RecordView;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::git::store::{Committer, PushOutcome, RemoteRef};
use crate::ops::install::valid_remote;

/// `continuity sync`.
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    /// The remote (absent when none is configured).
    pub remote: Option<String>,
    /// `exchanged|fetched|published|none|no_remote|unreachable`.
    pub action: String,
    /// Records fetched (remote ones this store lacked).
    pub fetched: usize,
    /// Records published (local ones the remote lacked, when the push went through).
    pub published: usize,
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
}

impl SyncReport {
    /// Whether the remote could not be reached (exit 10).
    pub fn unreachable(&self) -> bool {
        self.action == "unreachable"
    }
}

fn committer(ctx: &Ctx) -> Committer {
    let (name, email) = ctx.git.store_identity();
    Committer::new(name, email, ctx.clock.now().timestamp())
}

/// Fetches and admits the remote's store; `Ok(None)` when the remote has none.
fn fetch(ctx: &Ctx, s: &Setup, remote: &str) -> std::result::Result<Option<Loaded>, String> {
    match ctx.git.ls_remote(remote, REF)? {
        RemoteRef::Absent => Ok(None),
        RemoteRef::Present(_) => {
            ctx.git.fetch_continuity(remote)?;
            loaded::load(ctx, s, &remote_ref(remote)).map(Some).map_err(|e| e.message)
        }
    }
}

/// Merges the admitted (and too-new) records of `theirs` into the local store.
fn merge(ctx: &Ctx, theirs: &Loaded, diags: &mut Vec<Diagnostic>) -> Result<()> {
    let Some(tip) = &theirs.tip else { return Ok(()) };
    let allowed = theirs.mergeable();
    let include = |p: &str| allowed.contains(p);
    let out = ctx
        .git
        .store_merge(REF, tip, &include, "majordomus continuity: merge", &committer(ctx))
        .map_err(|e| Error::io(format!("continuity merge: {e}")))?;
    for c in out.collisions {
        diags.push(Diagnostic::new(
            "error",
            "continuity.collision",
            Some(&c),
            "the remote holds different bytes under the same name; the local file is kept",
        ));
    }
    Ok(())
}

/// Runs `sync`.
pub fn sync(ctx: &Ctx, remote: Option<&str>) -> Result<SyncReport> {
    let s = loaded::setup(ctx)?;
    if let Some(r) = remote {
        if !valid_remote(r) {
            return Err(Error::refused(format!("{r:?} is not a remote name")).hint("git remote -v lists them"));
        }
    }
    let remote = match remote {
        Some(r) => Some(r.to_string()),
        None => super::status::default_remote(ctx)?,
    };
    let _lock = super::writer_lock(ctx)?;
    let mut local_state = load_local(ctx)?;
    let before = loaded::load(ctx, &s, REF)?;
    let mut diags = Vec::new();
    let Some(remote) = remote else {
        diags.push(Diagnostic::new(
            "info",
            "continuity.no_remote",
            None,
            "no remote is configured; nothing was synced",
        ));
        return report(ctx, &s, &before, &local_state, None, "no_remote", 0, 0, Vec::new(), diags);
    };
    if !ctx.git.remote_names().contains(&remote) {
        return Err(Error::not_found(format!("no remote named {remote}")).hint("git remote -v lists them"));
    }
    let theirs = match fetch(ctx, &s, &remote) {
        Ok(t) => t,
        Err(detail) => {
            diags.push(Diagnostic::new(
                "warning",
                "continuity.remote_unreachable",
                None,
                format!("{remote} could not be reached; the local store is unchanged and its records stay pending"),
            ));
            local_state.last_sync = Some(LastSync {
                remote: remote.clone(),
                at: ctx.clock.stamp(),
                outcome: "unreachable".into(),
                detail: Some(first_line(&detail)),
            });
            save_local(ctx, &local_state)?;
            return report(ctx, &s, &before, &local_state, Some(remote), "unreachable", 0, 0, Vec::new(), diags);
        }
    };
    let theirs = theirs.unwrap_or_default();
    diags.extend(theirs.diagnostics.iter().cloned());
    let local_ids = before.ids();
    let remote_ids = theirs.ids();
    let fetched = remote_ids.difference(&local_ids).count();
    let mut published = local_ids.difference(&remote_ids).count();
    let lines = compare(&before, &theirs, &local_ids, &remote_ids);
    merge(ctx, &theirs, &mut diags)?;
    let mut outcome = "ok";
    if published > 0 {
        let mut push = ctx.git.push_continuity(&remote);
        if let PushOutcome::Rejected(_) = push {
            if let Ok(Some(again)) = fetch(ctx, &s, &remote) {
                merge(ctx, &again, &mut diags)?;
            }
            push = ctx.git.push_continuity(&remote);
        }
        match push {
            PushOutcome::Ok => {
                if let Ok(Some(tip)) = ctx.git.ref_tip(REF) {
                    let _ = ctx.git.set_ref(&remote_ref(&remote), &tip, None, &committer(ctx));
                }
            }
            PushOutcome::Rejected(why) => {
                diags.push(Diagnostic::new(
                    "warning",
                    "continuity.push_refused",
                    None,
                    format!("{remote} refused the push ({why}); run continuity sync again"),
                ));
                outcome = "partial";
                published = 0;
            }
            PushOutcome::Unreachable(_) => {
                diags.push(Diagnostic::new(
                    "warning",
                    "continuity.remote_unreachable",
                    None,
                    format!("{remote} could not be reached for the push; the records stay pending"),
                ));
                outcome = "partial";
                published = 0;
            }
        }
    }
    ctx.git.gc_auto();
    let action = match (fetched > 0, published > 0) {
        (true, true) => "exchanged",
        (true, false) => "fetched",
        (false, true) => "published",
        (false, false) => "none",
    };
    local_state.last_sync =
        Some(LastSync { remote: remote.clone(), at: ctx.clock.stamp(), outcome: outcome.into(), detail: None });
    // The store after the merge, read once: incrementally from the state before it.
    let after = loaded::load(ctx, &s, REF)?;
    refresh_offers(&s, &after, &after.lineage(), &mut local_state);
    save_local(ctx, &local_state)?;
    report(ctx, &s, &after, &local_state, Some(remote), action, fetched, published, lines, diags)
}

fn compare(
    before: &Loaded,
    theirs: &Loaded,
    local: &BTreeSet<String>,
    remote: &BTreeSet<String>,
) -> Vec<LineComparison> {
    let all = before.links().chain(theirs.links().filter(|(id, _, _)| !local.contains(id)));
    Lineage::from_links(all).compare_stores(local, remote)
}

#[allow(clippy::too_many_arguments)]
fn report(
    ctx: &Ctx,
    s: &Setup,
    store: &Loaded,
    local: &crate::continuity::local::LocalState,
    remote: Option<String>,
    action: &str,
    fetched: usize,
    published: usize,
    lines: Vec<LineComparison>,
    mut diagnostics: Vec<Diagnostic>,
) -> Result<SyncReport> {
    let lineage = store.lineage();
    // The lineage findings of the store after the sync (`continuity.diverged` names the heads).
    diagnostics.extend(lineage.findings());
    let ids = resumable_ids(s, store, &lineage, local);
    let resumable = views(ctx, s, store, &ids[..ids.len().min(SHOWN)]);
    Ok(SyncReport {
        store: store_view(ctx, store, remote.as_deref())?,
        remote,
        action: action.into(),
        fetched,
        published,
        lines,
        resumable,
        resumable_total: ids.len(),
        diagnostics,
    })
}

fn first_line(s: &str) -> String {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
}
