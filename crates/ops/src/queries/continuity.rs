//! `continuity status` (no network) and `continuity records` (docs/REFERENCE.md#sync).
//! Must not touch: a command, the network, writes beyond the read-model cache.

use crate::continuity::admission::{Code, Severity};
use serde::Serialize;

use crate::continuity::admission::Diagnostic;
use crate::continuity::lineage::{LineState, Lineage};
use crate::continuity::local::{LastSync, Position};
use crate::continuity::mesh::Trust;
use crate::continuity::record::Device;
use crate::continuity::view::RecordView;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::labels::{Anchor, WorkingTree};
use crate::oid::Oid;
use crate::services::continuity::loaded::{self, Loaded, Setup};
use crate::services::continuity::views::{
    resumable_ids, standing, store_view, view, views, Standing, StoreView, SHOWN,
};
use crate::services::continuity::{load_local, REF};
use crate::services::remotes::chosen_remote;
use crate::services::rewrite;

/// One line with its heads shown.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct LineView {
    /// Line id.
    pub line: String,
    /// `linear` or `diverged`.
    pub state: LineState,
    /// Records on the line.
    pub records: usize,
    /// Its heads.
    pub heads: Vec<RecordView>,
}

/// `continuity status`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct StatusReport {
    /// Repository identity.
    pub repository: String,
    /// This device (none before the first `device`/`publish`).
    pub device: Option<Device>,
    /// This device's standing in the mesh: `this_device`, or `revoked` when the mesh revokes its
    /// key (its publish and sync refuse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_trust: Option<Trust>,
    /// Current branch or `DETACHED`.
    pub branch: String,
    /// HEAD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<Oid>,
    /// `clean|dirty`.
    // The schema keeps `string`, as before the enum (the JSON is the same).
    #[cfg_attr(feature = "mcp", schemars(with = "String"))]
    pub working_tree: WorkingTree,
    /// This checkout's position on the branch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
    /// The store.
    pub store: StoreView,
    /// What the chosen remote's tracked store holds that this one does not, and the reverse,
    /// with a newer handover for this branch that arrived by a fetch (absent when the remote
    /// holds nothing new).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standing: Option<Standing>,
    /// The last sync with the chosen remote (`store.remote`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sync: Option<LastSync>,
    /// The last sync with each other remote, by name (never the chosen remote's standing).
    pub other_syncs: Vec<LastSync>,
    /// The diverged lines (every line with `--all`).
    pub lines: Vec<LineView>,
    /// How many lines the store holds.
    pub lines_total: usize,
    /// The newest records resumable here (at most [`SHOWN`]; every one with `--all`).
    pub resumable: Vec<RecordView>,
    /// How many records are resumable here.
    pub resumable_total: usize,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
    /// What to run next.
    pub next: Vec<String>,
}

/// Fills `landed` in the views of records of another branch than this checkout's whose work
/// landed in this branch (docs/REFERENCE.md#rewrites: same tree, same patch id, or the range's combined patch
/// id). Only records naming a branch other than the current one are asked, only the views shown,
/// and [`rewrite::landed`] answers for at most [`rewrite::LANDED_CHECKS`] heads per process.
pub fn mark_landed(ctx: &Ctx, views: &mut [RecordView]) -> Result<()> {
    let here = ctx.identity()?.branch.clone();
    for v in views {
        mark_one(ctx, here.as_deref(), v);
    }
    Ok(())
}

/// [`mark_landed`] for one view, this checkout being on `here` (`None`: detached, nothing asked).
fn mark_one(ctx: &Ctx, here: Option<&str>, v: &mut RecordView) {
    let Some(here) = here else { return };
    if v.head.is_some() && v.branch.as_deref().is_some_and(|b| b != here) {
        v.landed = rewrite::landed(ctx, v.head.as_deref());
    }
}

/// Store diagnostics plus lineage findings and the status-only ones.
fn all_diagnostics(s: &Setup, store: &Loaded, lineage: &Lineage) -> Vec<Diagnostic> {
    let mut d = store.diagnostics.clone();
    d.extend(lineage.findings(&|p| store.refused(p)));
    if !store.too_new.is_empty() {
        d.push(Diagnostic::new(
            Severity::Warning,
            Code::UpgradeRequired,
            None,
            format!(
                "{} record(s) of a later schema are kept but not read; upgrade git-majordomus",
                store.too_new.len()
            ),
        ));
    }
    if s.device.is_none() {
        d.push(Diagnostic::new(
            Severity::Info,
            Code::NoDeviceIdentity,
            None,
            "this machine has no device key yet; git majordomus continuity device creates one",
        ));
    }
    d.extend(label_collisions(s, store));
    d
}

/// A device label claimed by two different keys in the store (this device's own key
/// included) is a finding naming every key id that claims it (issue 39: anyone may
/// call a key `alice-laptop`; the key id says who signed). Reported as `continuity.collision`
/// (a name held by two different things), a warning: the records stay admitted, each shown
/// with its key id.
fn label_collisions(s: &Setup, store: &Loaded) -> Vec<Diagnostic> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut by_label: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // The read model keeps each (node, label) pair once, and `Loaded::node` borrows the node
    // from that entry: one summary is read per pair, not per record (a warm `status` at
    // 100,000 records stays a table walk). Were `node` ever to borrow from elsewhere, every
    // summary would be read: slower, never wrong.
    let mut entries: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for r in store.rows() {
        let node = store.node(r);
        if !entries.insert(node.as_ptr() as usize) {
            continue;
        }
        let label = store.summary(r).device.label;
        by_label.entry(label).or_default().insert(node.to_string());
    }
    if let Some(own) = s.device.as_ref().map(|k| k.device()) {
        by_label.entry(own.label).or_default().insert(own.node);
    }
    by_label
        .into_iter()
        .filter(|(_, nodes)| nodes.len() > 1)
        .map(|(label, nodes)| {
            let keys: Vec<String> = nodes.iter().map(|n| crate::continuity::view::key_id(n)).collect();
            Diagnostic::new(
                Severity::Warning,
                Code::Collision,
                None,
                format!(
                    "device label {label:?} is claimed by {} different keys: {}; a label is what a device calls itself, the key id says who signed",
                    keys.len(),
                    keys.join(", ")
                ),
            )
        })
        .collect()
}

/// `continuity status`; `all` lists every line and every resumable record.
pub fn status(ctx: &Ctx, all: bool) -> Result<StatusReport> {
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let local = load_local(ctx)?;
    let lineage = store.lineage();
    let id = ctx.identity()?.clone();
    let remote = chosen_remote(ctx)?;
    let (last_sync, other_syncs) = local.syncs(remote.as_deref());
    let store_v = store_view(ctx, &store, remote.as_deref())?;
    let every_line = lineage.lines();
    let lines_total = every_line.len();
    let ids = resumable_ids(&s, &store, &lineage, &local);
    let resumable_total = ids.len();
    let shown = if all { ids.len() } else { SHOWN.min(ids.len()) };
    let mut resumable = views(ctx, &s, &store, &ids[..shown]);
    mark_landed(ctx, &mut resumable)?;
    let lines = every_line
        .into_iter()
        .filter(|l| all || l.state == LineState::Diverged)
        .map(|l| {
            let mut heads = views(ctx, &s, &store, &l.heads);
            mark_landed(ctx, &mut heads)?;
            Ok(LineView { heads, line: l.line, state: l.state, records: l.records })
        })
        .collect::<Result<_>>()?;
    let standing = standing(ctx, &s, &store)?;
    let mut next = Vec::new();
    if matches!(store_v.sync.as_str(), "pending" | "never_synced" | "diverged" | "behind") {
        next.push("git majordomus continuity sync".to_string());
    }
    if !resumable.is_empty() || standing.as_ref().is_some_and(|s| s.arrived.is_some()) {
        next.push("git majordomus continuity plan".to_string());
    }
    Ok(StatusReport {
        repository: s.repository.clone(),
        device: s.device.as_ref().map(|d| d.device()),
        device_trust: s.device.as_ref().map(|_| {
            if s.revoked_here().is_some() {
                Trust::Revoked
            } else {
                Trust::ThisDevice
            }
        }),
        position: local.branches.get(id.branch_text()).cloned(),
        head: id.head.clone(),
        branch: id.branch_text().into(),
        working_tree: if !ctx.changes()?.is_clean() { WorkingTree::Dirty } else { WorkingTree::Clean },
        store: store_v,
        standing,
        last_sync,
        other_syncs,
        lines,
        lines_total,
        resumable,
        resumable_total,
        diagnostics: all_diagnostics(&s, &store, &lineage),
        next,
    })
}

/// `continuity records`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct RecordsReport {
    /// The admitted records by (line, id): every one, or the first `--limit`.
    pub records: Vec<RecordView>,
    /// How many records the store admits.
    pub records_total: usize,
    /// The lines.
    pub lines: Vec<crate::continuity::lineage::LineSummary>,
    /// Every diagnostic.
    pub diagnostics: Vec<Diagnostic>,
}

/// `continuity records [--limit N]`: the first `limit` records by (line, id), as one value (the
/// read surfaces); the CLI streams the same document from a [`Listing`].
pub fn records(ctx: &Ctx, limit: Option<usize>) -> Result<RecordsReport> {
    let listing = Listing::open(ctx, limit)?;
    let mut records = Vec::with_capacity(listing.shown());
    listing.each(ctx, |v| records.push(v));
    Ok(RecordsReport {
        records,
        records_total: listing.records_total(),
        lines: listing.lines(),
        diagnostics: listing.diagnostics(),
    })
}

/// The admitted records of the local store in (line, id) order, made one view at a time: what
/// `continuity records` writes as it goes, so that its memory does not grow with the store.
pub struct Listing {
    s: Setup,
    store: Loaded,
    lineage: Lineage,
    limit: usize,
    /// This checkout's branch: a record of another branch is asked whether its work landed here.
    here: Option<String>,
}

impl Listing {
    /// Admits the local store and orders its lineage; `limit` bounds the records shown.
    pub fn open(ctx: &Ctx, limit: Option<usize>) -> Result<Listing> {
        let s = loaded::setup(ctx)?;
        let store = loaded::load(ctx, &s, REF)?;
        let lineage = store.lineage();
        let here = ctx.identity()?.branch.clone();
        Ok(Listing { s, store, lineage, limit: limit.unwrap_or(usize::MAX), here })
    }
    /// How many records the store admits.
    pub fn records_total(&self) -> usize {
        self.store.len()
    }
    /// How many records [`Listing::each`] gives.
    pub fn shown(&self) -> usize {
        self.limit.min(self.records_total())
    }
    /// Gives each shown record's view, in (line, id) order, `landed` filled as
    /// [`mark_landed`] fills it.
    pub fn each(&self, ctx: &Ctx, mut f: impl FnMut(RecordView)) {
        let own = self.s.own_node();
        let now = ctx.clock.now();
        for g in self.lineage.rows_by_line().take(self.limit) {
            let Some(r) = self.store.graph_row(g) else { continue };
            let mut v = view(&self.store, r, own.as_deref(), self.s.mesh.as_ref(), now);
            mark_one(ctx, self.here.as_deref(), &mut v);
            f(v);
        }
    }
    /// The lines.
    pub fn lines(&self) -> Vec<crate::continuity::lineage::LineSummary> {
        self.lineage.lines()
    }
    /// The [`RecordsReport`] document, each record serialised as it is made: the same bytes as
    /// [`records`]' value, without holding the list.
    pub fn document<'a>(&'a self, ctx: &'a Ctx) -> impl Serialize + 'a {
        Streamed { listing: self, ctx }
    }
    /// Every diagnostic.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        all_diagnostics(&self.s, &self.store, &self.lineage)
    }
}

/// [`Listing::document`]: a [`RecordsReport`] whose `records` are made while they are written.
struct Streamed<'a> {
    listing: &'a Listing,
    ctx: &'a Ctx,
}

impl Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // The fields and their order are RecordsReport's.
        let mut st = s.serialize_struct("RecordsReport", 4)?;
        st.serialize_field("records", &StreamedViews(self))?;
        st.serialize_field("records_total", &self.listing.records_total())?;
        st.serialize_field("lines", &self.listing.lines())?;
        st.serialize_field("diagnostics", &self.listing.diagnostics())?;
        st.end()
    }
}

struct StreamedViews<'a>(&'a Streamed<'a>);

impl Serialize for StreamedViews<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let Streamed { listing, ctx } = self.0;
        let mut seq = s.serialize_seq(Some(listing.shown()))?;
        let mut failed = None;
        listing.each(ctx, |v| {
            if failed.is_none() {
                failed = seq.serialize_element(&v).err();
            }
        });
        match failed {
            Some(e) => Err(e),
            None => seq.end(),
        }
    }
}
