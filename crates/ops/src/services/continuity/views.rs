//! The views of the continuity store that `status`, `sync` and `resume` share: the store part
//! of a report, the records as shown, and the offers kept in `continuity.json`.
//!
//! Owns: the cap on shown records (`SHOWN`) and the offers' refresh.
//! Must not touch: the ref or `continuity.json` (callers save what they change).

use serde::Serialize;

use crate::continuity::lineage::Lineage;
use crate::continuity::local::LocalState;
use crate::continuity::plan::{offer_of_summary, resumable_of};
use crate::continuity::view::{withheld, RecordView};
use crate::ctx::Ctx;
use crate::error::Result;
use crate::oid::Oid;
use crate::services::continuity::loaded::{self, Loaded, Setup};
use crate::services::continuity::{remote_ref, REF};
/// How many resumable records `status` shows without `--all` (docs/REFERENCE.md#local-state); also the cap on the
/// offers kept in `continuity.json`.
pub const SHOWN: usize = 20;

/// The store part of `status`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct StoreView {
    /// `refs/majordomus/continuity`.
    pub reference: String,
    /// Local tip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tip: Option<Oid>,
    /// The remote compared against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<String>,
    /// Its remote-tracking tip.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote_tip: Option<Oid>,
    /// `no_remote|empty|never_synced|behind|in_sync|pending|diverged`.
    pub sync: String,
    /// Admitted records.
    pub records: usize,
    /// Refused files (too-new records included).
    pub refused: usize,
}

/// The sync state of the store, from refs only (docs/REFERENCE.md#sync).
pub fn store_view(ctx: &Ctx, store: &Loaded, remote: Option<&str>) -> Result<StoreView> {
    let remote_tip = match remote {
        Some(r) => ctx.git.ref_tip(&remote_ref(r)).map_err(crate::error::Error::from)?,
        None => None,
    };
    // An ancestry question the object database cannot answer is an error, not "diverged".
    let anc = |a: &str, b: &str| ctx.git.commit_is_ancestor(a, b).map_err(crate::error::Error::from);
    let sync = match (remote, &store.tip, &remote_tip) {
        (None, _, _) => "no_remote",
        (_, None, None) => "empty",
        (_, Some(_), None) => "never_synced",
        (_, None, Some(_)) => "behind",
        (_, Some(l), Some(r)) if l == r => "in_sync",
        (_, Some(l), Some(r)) if anc(r, l)? => "pending",
        (_, Some(l), Some(r)) if anc(l, r)? => "behind",
        _ => "diverged",
    };
    Ok(StoreView {
        reference: REF.into(),
        tip: store.tip.clone(),
        remote: remote.map(str::to_string),
        remote_tip,
        sync: sync.into(),
        records: store.len(),
        refused: store.refused.len(),
    })
}

/// The views of a set of ids, in display order.
pub fn views(ctx: &Ctx, s: &Setup, store: &Loaded, ids: &[impl AsRef<str>]) -> Vec<RecordView> {
    let own = s.own_node();
    let now = ctx.clock.now();
    ids.iter()
        .filter_map(|id| store.get(id.as_ref()))
        .map(|r| view(store, r, own.as_deref(), s.mesh.as_ref(), now))
        .collect()
}

/// How admitted record `r` is shown, `own` being this machine's node: the label the mesh gives
/// its key, when it gives one, beside the one the record gives itself (docs/REFERENCE.md#mesh).
pub fn view(
    store: &Loaded,
    r: loaded::Row,
    own: Option<&str>,
    mesh: Option<&crate::continuity::mesh::Mesh>,
    now: chrono::DateTime<chrono::Utc>,
) -> RecordView {
    let s = store.summary(r);
    let mut v = RecordView::of(&s, r.trust, Some(store.node(r)) == own, now);
    v.team_label = mesh.and_then(|m| m.labels.get(&s.key)).cloned();
    v
}

/// The resumable ids of a store given this checkout's positions.
pub fn resumable_ids(s: &Setup, store: &Loaded, lineage: &Lineage, local: &LocalState) -> Vec<String> {
    let positions: Vec<&str> = local.branches.values().map(|p| p.record.as_str()).collect();
    let own = s.own_node();
    let heads = lineage.heads();
    resumable_of(heads.iter().filter_map(|id| store.candidate(id)), lineage, own.as_deref(), &positions)
}

/// Recomputes `continuity.json` offers from a loaded local store: the newest [`SHOWN`], and
/// `offers_total`. Only what `plan` would let this checkout resume is offered: a record whose
/// signer is `untrusted` (or `revoked`) is withheld (issue 39), so the briefing, which counts
/// these offers, never counts it.
pub fn refresh_offers(s: &Setup, store: &Loaded, lineage: &Lineage, local: &mut LocalState) {
    let rows: Vec<loaded::Row> = resumable_ids(s, store, lineage, local)
        .iter()
        .filter_map(|id| store.get(id))
        .filter(|r| withheld(r.trust).is_none())
        .collect();
    local.offers_total = Some(rows.len());
    local.offers = rows.iter().take(SHOWN).map(|r| offer_of_summary(&store.summary(*r))).collect();
}

/// How the local store and the chosen remote's (as the last fetch left it in the remote-tracking
/// ref: a plain `git fetch` with the refspec brings it) stand, from this machine's side (issue 40
/// item 5).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Standing {
    /// The chosen remote.
    pub remote: String,
    /// Records admitted in its store that this store does not hold yet.
    pub not_read_here: usize,
    /// Records of this store its store does not hold yet.
    pub not_on_remote: usize,
    /// The newest handover among those not read here that is for this branch, from another
    /// device, and that `plan` would let this checkout resume once synced (never a withheld
    /// one): named, not quoted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrived: Option<RecordView>,
}

/// The chosen remote when its tracked store holds something the local store does not (its tip
/// is neither the local tip nor an ancestor of it): refs only, no store is read.
pub fn remote_ahead(ctx: &Ctx) -> Result<Option<String>> {
    let Some(remote) = crate::services::remotes::chosen_remote(ctx)? else { return Ok(None) };
    let tip = |r: &str| ctx.git.ref_tip(r).map_err(crate::error::Error::from);
    let Some(their_tip) = tip(&remote_ref(&remote))? else { return Ok(None) };
    if let Some(our_tip) = tip(REF)? {
        if our_tip == their_tip
            || ctx.git.commit_is_ancestor(&their_tip, &our_tip).map_err(crate::error::Error::from)?
        {
            return Ok(None);
        }
    }
    Ok(Some(remote))
}

/// [`Standing`] of `ours` (the loaded local store) against the chosen remote's tracked store;
/// `None` when there is no chosen remote, it has no tracked store, or the two tips are one
/// (refs only then, no store is read).
pub fn standing(ctx: &Ctx, s: &Setup, ours: &Loaded) -> Result<Option<Standing>> {
    standing_within(ctx, s, ours, None)
}

/// [`standing`], `None` too when reading the remote's store would admit more than `within`
/// files ([`loaded::load_within`]).
pub fn standing_within(ctx: &Ctx, s: &Setup, ours: &Loaded, within: Option<usize>) -> Result<Option<Standing>> {
    let Some(remote) = crate::services::remotes::chosen_remote(ctx)? else { return Ok(None) };
    let their_tip = ctx.git.ref_tip(&remote_ref(&remote)).map_err(crate::error::Error::from)?;
    if their_tip.is_none() || their_tip == ours.tip {
        return Ok(None);
    }
    let Some(theirs) = loaded::load_within(ctx, s, &remote_ref(&remote), within)? else { return Ok(None) };
    let not_on_remote = ours.not_in(&theirs).count();
    let new: Vec<loaded::Row> = theirs.not_in(ours).collect();
    let branch = ctx.identity()?.branch.clone();
    let own = s.own_node();
    let arrived = branch.and_then(|b| {
        new.iter()
            .filter(|r| withheld(r.trust).is_none() && Some(theirs.node(**r)) != own.as_deref())
            .map(|r| (*r, theirs.summary(*r)))
            .filter(|(_, sum)| sum.branch.as_deref() == Some(b.as_str()))
            .max_by_key(|(_, sum)| (sum.published, sum.id.clone()))
            .map(|(r, sum)| RecordView::of(&sum, r.trust, false, ctx.clock.now()))
    });
    Ok(Some(Standing { remote, not_read_here: new.len(), not_on_remote, arrived }))
}
