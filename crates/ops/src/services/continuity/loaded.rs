//! Reading a store through the read model (docs/REFERENCE.md#read-model): every file of a ref's tree, admitted
//! once. What admission concludes whoever reads a file (shape, id, signature, portability) is kept
//! per file in the read model (`readmodel`), a compact binary file per ref under the git common
//! dir (`<common-dir>/majordomus/readmodel/<ref>.bin`), keyed by the store tip and the rules version.
//! A read compares the ref's tip with the cached one: equal → no tree is read; else the tree
//! difference between the two tips is walked (only changed shards) and only added blobs are
//! admitted; no usable cache (absent, other rules, damaged, old tip pruned) → the whole tree is
//! admitted on every core. Trust, revocation and the repository are judged per signer on every
//! read. The cache is an optimisation only: deleting it changes no answer.
//! Must not touch: a command or a query; writes beyond the read-model cache.

use std::collections::BTreeSet;

use std::collections::HashMap;

use crate::continuity::admission::{
    admit, intrinsic_entry, standing_of, too_new_standing, Admitted, Code, Diagnostic, Judge, Pins, Severity, Verdict,
    BLOB_CAP,
};
use crate::continuity::lineage::{Lineage, RawId};
use crate::continuity::mesh::{Mesh, Trust};
use crate::continuity::plan::{Candidate, RefusedFile};
use crate::continuity::readmodel::{lineage_in, lineage_over, Entry, Fresh, OtherKind, Summary, View};
use crate::continuity::record::{read_record, store_path, Record};
use crate::continuity::signing::{self, DeviceKey};
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::git::store::{Blob, StoreChanges, StoreEntry};
use crate::oid::{Oid, RecordId};
use crate::services::continuity::{snapshot, ContinuityError};
use crate::store::atomic::{replace_with, replace_with_file};
use std::rc::Rc;

/// What every continuity command reads first.
pub struct Setup {
    /// This repository's continuity identity.
    pub repository: String,
    /// The enabled mesh declaration.
    pub mesh: Option<Mesh>,
    /// This machine's device key (never created by a read).
    pub device: Option<DeviceKey>,
    /// What the mesh's pinned revocations retire.
    pub pins: Pins,
}

impl Setup {
    /// This device's raw key, 64 hex.
    pub fn own_key(&self) -> Option<String> {
        self.device.as_ref().map(|d| hex(&d.public_key_raw()))
    }
    /// When the mesh revokes this device's own key: the refusal `publish` and `sync` give
    /// (exit 10), which every other continuity command says as a warning (issue 40 item 3).
    pub fn revoked_here(&self) -> Option<Error> {
        let m = self.mesh.as_ref()?;
        let own = self.own_key()?;
        m.revoked.contains(&own).then(|| {
            ContinuityError::RevokedHere { key_id: signing::key_id_of_raw_hex(&own), mesh: m.path.clone() }.into()
        })
    }

    /// What admission compares against, this device's raw key being `own_key`.
    pub fn judge<'a>(&'a self, own_key: Option<&'a str>) -> Judge<'a> {
        Judge { repository: &self.repository, mesh: self.mesh.as_ref(), own_key, pins: &self.pins }
    }
    /// This device's node id.
    pub fn own_node(&self) -> Option<String> {
        self.device.as_ref().map(DeviceKey::node)
    }
}

pub use crate::continuity::lineage::hex;

/// A trust-list entry (`RW...` or 64 hex) as 64 hex.
pub fn normalise_key(k: &str) -> Option<String> {
    signing::raw_public_key(k).map(|b| hex(&b))
}

/// Loads the mesh, the repository identity and the device key (if any).
pub fn setup(ctx: &Ctx) -> Result<Setup> {
    ctx.require_layer()?;
    let mesh = crate::services::continuity::load_mesh(ctx, &normalise_key)?;
    let repository = crate::services::continuity::repository(ctx, mesh.as_ref())?;
    let device = signing::load(&crate::services::continuity::device_path(ctx)?)?;
    let pins = crate::services::continuity::pins(ctx, mesh.as_ref())?;
    let s = Setup { repository, mesh, device, pins };
    if let Some(e) = s.revoked_here() {
        ctx.warn(format!("{e}; {}", e.hint.as_deref().unwrap_or_default()));
    }
    Ok(s)
}

/// One admitted record of a [`Loaded`] store: its row in the read model and its signer's
/// standing on this machine (never `revoked`: those are refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The row in the read model.
    pub row: u32,
    /// The signer's standing.
    pub trust: Trust,
}

/// A store as read through admission: the read model, read in place, and the standing of each
/// of its records on this machine.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The ref read.
    pub reference: String,
    /// Its tip.
    pub tip: Option<Oid>,
    view: Option<Rc<View>>,
    /// Which rows of the read model are admitted records: a bit per row (a million records are
    /// 125 KB; the rows themselves stay in the file).
    admitted: Vec<u64>,
    /// How many are.
    count: usize,
    /// The standing of each admitted (signer, repository) pair of the read model's tables.
    standing: HashMap<(usize, usize), Trust>,
    /// The admitted rows in id order when some row is not admitted (`None`: every row is), made
    /// the first time the lineage asks.
    subset: std::cell::OnceCell<Option<Rc<[u32]>>>,
    /// Paths of records of a later schema (kept, not read).
    pub too_new: Vec<String>,
    /// Refused files.
    pub refused: Vec<RefusedFile>,
    /// Paths of retired records (a pinned revocation's: reported, not admitted, not refused).
    pub retired: Vec<String>,
    /// Every diagnostic, in path order.
    pub diagnostics: Vec<Diagnostic>,
    /// The read model's file, removed when a record's part of it is found damaged.
    cache: Option<std::path::PathBuf>,
    /// Where that is said (once).
    warnings: Option<crate::ctx::Warnings>,
    damaged: std::cell::Cell<bool>,
}

impl Loaded {
    fn view(&self) -> &View {
        self.view.as_ref().expect("a store with admitted records has a read model")
    }
    /// The read model the store was read through (none for a store that does not exist).
    pub fn read_model(&self) -> Option<&View> {
        self.view.as_deref()
    }
    /// How many records are admitted.
    pub fn len(&self) -> usize {
        self.count
    }
    /// Whether no record is admitted.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Whether row `i` of the read model is an admitted record.
    fn is_admitted(&self, i: usize) -> bool {
        self.admitted.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// Row `i` of the read model as an admitted record, if it is one.
    fn admitted_row(&self, i: usize) -> Option<Row> {
        if !self.is_admitted(i) {
            return None;
        }
        let trust = self.standing.get(&self.view().standing_key(i))?;
        Some(Row { row: i as u32, trust: *trust })
    }
    /// The admitted records, in id order.
    pub fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        let n = self.view.as_ref().map_or(0, |v| v.len());
        (0..n).filter_map(|i| self.admitted_row(i))
    }
    /// The admitted records of this store that `other` does not admit, in id order: one forward
    /// pass over each (no lookup per record).
    pub fn not_in<'a>(&'a self, other: &'a Loaded) -> impl Iterator<Item = Row> + 'a {
        let mut theirs = other.rows().map(|t| other.view().raw_id(t.row as usize)).peekable();
        self.rows().filter(move |r| {
            let id = self.view().raw_id(r.row as usize);
            while theirs.next_if(|t| *t < id).is_some() {}
            theirs.peek() != Some(&id)
        })
    }
    /// The admitted record `id`.
    pub fn get(&self, id: &str) -> Option<Row> {
        self.admitted_row(self.view.as_ref()?.find(id)?)
    }
    /// A record's id.
    pub fn id(&self, r: Row) -> RecordId {
        self.view().id(r.row as usize)
    }
    /// A record's device node.
    pub fn node(&self, r: Row) -> &str {
        self.view().device(r.row as usize).0
    }
    /// What the read model keeps of a record. A part of the file found damaged (its checksum
    /// does not match) leaves the fields it holds empty; the file is removed, so the next read
    /// rebuilds it, and a warning says so once.
    pub fn summary(&self, r: Row) -> Summary {
        let i = r.row as usize;
        self.view().summary(i).unwrap_or_else(|| {
            if !self.damaged.replace(true) {
                if let Some(path) = &self.cache {
                    let _ = std::fs::remove_file(path);
                }
                if let Some(w) = &self.warnings {
                    w.warn(format!(
                        "read model of {}: a damaged entry (checksum mismatch); removed, it is rebuilt on the next read — run the command again",
                        self.reference
                    ));
                }
            }
            self.view().row_summary(i)
        })
    }
    /// The lineage over the admitted records.
    pub fn lineage(&self) -> Lineage {
        let Some(v) = self.view.as_ref() else { return Lineage::default() };
        lineage_in(v, self.subset().cloned())
    }
    /// The admitted rows when some row is not admitted; every row admitted (as in most
    /// stores), the rows are the graph's and no list of them is made.
    fn subset(&self) -> Option<&Rc<[u32]>> {
        let n = self.view.as_ref().map_or(0, |v| v.len());
        self.subset.get_or_init(|| (self.count < n).then(|| self.rows().map(|r| r.row).collect())).as_ref()
    }
    /// The admitted record at row `g` of the graph [`Loaded::lineage`] gives (no lookup by id).
    pub fn graph_row(&self, g: u32) -> Option<Row> {
        self.admitted_row(self.subset().map_or(Some(g), |rows| rows.get(g as usize).copied())? as usize)
    }
    /// The lineage over the admitted records of this store and those of `other` it lacks
    /// (what a merge of the two holds), read in place from both read models.
    pub fn lineage_with(&self, other: &Loaded) -> Lineage {
        // Rows as (store: 0 this one, 1 the other; row), in id order; an id both hold is this one's.
        let mut rows: Vec<(usize, u32)> = Vec::with_capacity(self.len() + other.len());
        let (mut a, mut b) = (self.rows().peekable(), other.rows().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => {
                    match self.view().raw_id(x.row as usize).cmp(&other.view().raw_id(y.row as usize)) {
                        std::cmp::Ordering::Less => (0, a.next()),
                        std::cmp::Ordering::Greater => (1, b.next()),
                        std::cmp::Ordering::Equal => {
                            b.next();
                            (0, a.next())
                        }
                    }
                }
                (Some(_), None) => (0, a.next()),
                (None, Some(_)) => (1, b.next()),
                (None, None) => break,
            };
            if let (store, Some(r)) = next {
                rows.push((store, r.row));
            }
        }
        let empty = View::empty(&"0".repeat(40), "");
        let views = [self.view.as_deref().unwrap_or(&empty), other.view.as_deref().unwrap_or(&empty)];
        lineage_over(&views, rows.len(), |i| (rows[i].0, rows[i].1 as usize))
    }
    /// What the offers need of record `id`, if it is admitted.
    pub fn candidate(&self, id: &str) -> Option<Candidate<'_>> {
        let r = self.get(id)?;
        let v = self.view();
        let i = r.row as usize;
        Some(Candidate {
            id: id.to_string(),
            node: v.device(i).0,
            published: v.published(i),
            published_at: self.summary(r).published_at,
        })
    }
    /// The one admitted record whose id starts with `prefix` (at least 4 lowercase hex) for
    /// `command`: a bad or ambiguous prefix is a usage error (2), none is 12.
    pub fn unique(&self, command: &str, prefix: &str) -> Result<Row> {
        if prefix.len() < 4 || !crate::hex::is_lowercase(prefix) {
            return Err(ContinuityError::BadPrefix { command: command.into(), prefix: prefix.into() }.into());
        }
        let hits: Vec<Row> = self.rows().filter(|r| self.id(*r).starts_with(prefix)).collect();
        match hits.as_slice() {
            [one] => Ok(*one),
            [] => Err(ContinuityError::NoRecord(prefix.into()).into()),
            many => Err(ContinuityError::Ambiguous { prefix: prefix.into(), n: many.len() }.into()),
        }
    }
    /// Raw ids of the admitted records.
    pub fn ids(&self) -> BTreeSet<RawId> {
        self.rows().map(|r| self.view().raw_id(r.row as usize)).collect()
    }
    /// Why this store refused (or retired) the file at `path` (its error's code), if it did: what
    /// the lineage says of a parent it holds but did not admit.
    pub fn refused(&self, path: &str) -> Option<Code> {
        self.diagnostics
            .iter()
            .find(|d| (d.severity == Severity::Error || d.code == Code::Retired) && d.path.as_deref() == Some(path))
            .map(|d| d.code)
    }
    /// Whether a merge may bring in the file at `path`: an admitted or too-new record (found by
    /// binary search; no set of every path is built), or a file of the shape of a snapshot's
    /// (data: a read judges a snapshot before it reads one, and a merge that left them out would
    /// take them off the remote with the next push).
    pub fn may_merge(&self, path: &str) -> bool {
        let id = path.rsplit('/').next().and_then(|n| n.strip_suffix(".json")).filter(|id| store_path(id) == path);
        let admitted = || {
            let row = self.view.as_ref().zip(id).and_then(|(v, id)| v.find(id));
            row.is_some_and(|i| self.is_admitted(i))
        };
        admitted() || self.too_new.iter().any(|p| p == path) || crate::continuity::snapshot::is_snapshot_path(path)
    }
}

/// What a store holds of one signing key (`continuity trust list`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signer {
    /// The raw key, 64 hex.
    pub key: String,
    /// The labels its records give themselves.
    pub labels: BTreeSet<String>,
    /// Its records admitted here.
    pub admitted: usize,
    /// Its records retired by a pinned revocation.
    pub retired: usize,
    /// Its records refused for their standing (a revoked key, another repository).
    pub refused: usize,
    /// The newest `published_at` among them (Unix seconds).
    pub newest: Option<i64>,
}

impl Loaded {
    /// Per signing key, what this store holds of it, by key. Reads every row of the read model:
    /// for `continuity trust`, not for the hot paths.
    pub fn signers(&self) -> Vec<Signer> {
        let Some(v) = self.view.as_ref() else { return Vec::new() };
        let retired: std::collections::HashSet<&str> = self.retired.iter().map(String::as_str).collect();
        let mut by_key: std::collections::BTreeMap<String, Signer> = std::collections::BTreeMap::new();
        for i in 0..v.len() {
            let key = v.key_at(v.standing_key(i).0);
            let s =
                by_key.entry(key.to_string()).or_insert_with(|| Signer { key: key.to_string(), ..Signer::default() });
            s.labels.insert(v.device(i).1.to_string());
            s.newest = s.newest.max(v.published(i));
            if self.is_admitted(i) {
                s.admitted += 1;
            } else if retired.contains(store_path(&v.id(i)).as_str()) {
                s.retired += 1;
            } else {
                s.refused += 1;
            }
        }
        by_key.into_values().collect()
    }
}

/// The whole record of an admitted row, read from its blob when it is shown (plan, resume).
/// The blob id names its bytes, so what admission concluded about them still holds.
pub fn full(ctx: &Ctx, store: &Loaded, row: Row) -> Result<Record> {
    let s = store.summary(row);
    let bytes = ctx
        .git
        .read_blob(&s.blob, BLOB_CAP)
        .map_err(|source| ContinuityError::Unreadable { id: s.id.clone(), source })?;
    // The one strict reader admission used: what was admitted reads here.
    read_record(&bytes)
        .map(|(_, record)| record)
        .map_err(|reason| ContinuityError::Unparsable { id: s.id.clone(), reason }.into())
}

/// Reads one record of the store at `reference` through admission (`None` when it is absent or
/// not admitted): what `publish` needs, found by its path (a handful of small trees), without
/// reading the whole store.
pub fn load_one(ctx: &Ctx, s: &Setup, reference: &str, id: &str) -> Result<Option<Admitted>> {
    if !crate::continuity::record::is_id(id) {
        return Ok(None);
    }
    let git_err = |source: crate::git::Error| ContinuityError::Store { reference: reference.into(), source };
    let Some(tip) = ctx.git.ref_tip(reference).map_err(git_err)? else { return Ok(None) };
    let path = store_path(id);
    let Some(blob) = ctx.git.store_find(&tip, &path).map_err(git_err)? else { return Ok(None) };
    let bytes = ctx.git.read_blob(&blob, BLOB_CAP).map_err(git_err)?;
    let own_key = s.own_key();
    let judge = s.judge(own_key.as_deref());
    Ok(match admit(&path, &blob, &bytes, &judge).0 {
        Verdict::Admitted(a) => Some(*a),
        _ => None,
    })
}

/// How many threads admit blobs.
pub fn workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(8)
}

fn cache_dir(ctx: &Ctx) -> std::path::PathBuf {
    ctx.git.common_dir().join("majordomus/readmodel")
}

fn cache_path(ctx: &Ctx, reference: &str) -> std::path::PathBuf {
    cache_dir(ctx).join(format!("{}.bin", reference.replace('/', "%")))
}

/// The cached view of `reference` (written under `rules`), if any is usable. A file written
/// under these rules that does not open (a checksum or a check failed) is said to be damaged,
/// and is rebuilt.
fn read_cache(ctx: &Ctx, reference: &str, rules: &str) -> Option<View> {
    let path = cache_path(ctx, reference);
    let view = View::open(&path, rules);
    if view.is_none() && View::written_under(&path, rules) {
        ctx.warn(format!("read model {}: damaged (checksum mismatch); rebuilt from the store", ctx.rel(&path)));
    }
    view
}

/// Admits `entries` on every core.
fn admit_all(ctx: &Ctx, entries: &[StoreEntry]) -> std::result::Result<Vec<Entry>, crate::git::Error> {
    ctx.git.map_blobs(entries, workers(), BLOB_CAP, entry_of)
}

/// The read model's entry of one store file, from its blob.
fn entry_of(e: &StoreEntry, blob: Blob<'_>) -> Entry {
    Entry::of(&e.path(), &e.blob(), intrinsic_entry(e, blob))
}

/// The read model of the store at `tip`: the cache of `reference` (or, for a ref read the first
/// time, the local store's) brought up to date from the tree difference; else built cold (or
/// from a snapshot). `None` only when `within` bounds the read and it would admit more: no read
/// model here to start from, or a tree difference adding more than `within` files.
fn view_at(ctx: &Ctx, s: &Setup, reference: &str, tip: &str, within: Option<usize>) -> Result<Option<View>> {
    let git_err = |source: crate::git::Error| ContinuityError::Store { reference: reference.into(), source };
    let rules = crate::continuity::readmodel::RULES;
    let own = read_cache(ctx, reference, rules);
    let own_exists = own.is_some();
    let base = own.or_else(|| {
        (reference != crate::services::continuity::REF)
            .then(|| read_cache(ctx, crate::services::continuity::REF, rules))
            .flatten()
    });
    if let Some(v) = &base {
        if v.tip() == tip {
            if !own_exists {
                let _ = replace_with(&cache_path(ctx, reference), |w| {
                    v.write_to(w).map_err(|e| Error::from(ContinuityError::ReadModel(e)))
                });
            }
            return base.ok_or_else(|| ContinuityError::ReadModelVanished.into()).map(Some);
        }
    }
    let changes = base.as_ref().and_then(|v| ctx.git.store_changes(v.tip(), tip).ok());
    let bounded_out = match (within, &changes) {
        (None, _) => false,
        (Some(most), Some(c)) => c.added.len() > most,
        (Some(_), None) => true,
    };
    if bounded_out {
        return Ok(None);
    }
    let from = match (base, changes) {
        (Some(base), Some(changes)) => Some((base, changes)),
        // No cache, or its tip is gone (pruned after a forced update): a snapshot a device
        // trusted by name signed, when one passes every check.
        _ => adopted(ctx, s, tip),
    };
    let view = match from {
        Some((base, changes)) => {
            let replaced: Vec<_> = changes.added.iter().map(|e| e.path()).collect();
            let mut gone: Vec<&str> = changes.removed.iter().map(String::as_str).collect();
            gone.extend(replaced.iter().map(|p| &**p));
            admit_into(ctx, reference, base, tip, gone, &changes.added, rules)?
        }
        // Neither: admit the whole tree, each entry folded into its compact form as soon as it
        // is ready.
        None => {
            let mut fresh = Fresh::on(None).spilling_in(&cache_dir(ctx));
            ctx.git
                .store_map(tip, workers(), BLOB_CAP, entry_of, |_, e| {
                    fresh.add(e);
                    Ok::<(), crate::git::Error>(())
                })
                .map_err(git_err)?;
            merged(ctx, reference, None, tip, &[], fresh, rules)?
        }
    };
    Ok(Some(view))
}

/// A snapshot in the store at `tip` that passes every check ([`snapshot::adopt`]), and the tree
/// difference from the commit it describes to `tip`.
fn adopted(ctx: &Ctx, s: &Setup, tip: &str) -> Option<(View, StoreChanges)> {
    let scratch = cache_dir(ctx).join("snapshot.bin");
    let view = snapshot::adopt(ctx, s, tip, &scratch);
    // The view reads its file through the handle it holds: the name can go now.
    let _ = std::fs::remove_file(&scratch);
    let view = view?;
    let changes = ctx.git.store_changes(view.tip(), tip).ok()?;
    Some((view, changes))
}

/// The view at `tip` merged from `old`, `gone` and `fresh` ([`View::write_merge`]), streamed
/// into the cache of `reference` and read back from the file written: the rows in memory, the
/// variable parts left on disk. `old` is dropped before the new file is read, so the rows of the
/// two are never held together. The cache is an optimisation: when it cannot be written, the
/// view is built in memory and the answer is the same; it fails when the parts it is built from
/// cannot be read, or when the file just written does not read back (the disk is failing).
fn merged(
    ctx: &Ctx,
    reference: &str,
    old: Option<View>,
    tip: &str,
    gone: &[&str],
    mut fresh: Fresh,
    rules: &str,
) -> Result<View> {
    let written = replace_with_file(&cache_path(ctx, reference), |w| {
        View::write_merge(old.as_ref(), tip, gone, &mut fresh, rules, w)
            .map_err(|e| Error::from(ContinuityError::ReadModel(e)))
    });
    match written {
        Ok(file) => {
            drop(old);
            View::open_file(file, rules).ok_or_else(|| ContinuityError::ReadModelUnreadable.into())
        }
        Err(_) => View::merge(old.as_ref(), tip, gone, fresh, rules).map_err(|e| ContinuityError::ReadModel(e).into()),
    }
}

/// How many files are admitted before they are folded into the read model: what is held in
/// flight (files, their verdicts, the pack pages read for them) stays bounded however large the
/// change.
const ADMIT_CHUNK: usize = 8192;

/// `view` after dropping `gone` and admitting `entries`, a bounded chunk at a time, each
/// chunk kept only in its compact form and merged into the view once, at the end.
fn admit_into(
    ctx: &Ctx,
    reference: &str,
    view: View,
    tip: &str,
    gone: Vec<&str>,
    entries: &[StoreEntry],
    rules: &str,
) -> Result<View> {
    let mut fresh = Fresh::on(Some(&view)).spilling_in(&cache_dir(ctx));
    for chunk in entries.chunks(ADMIT_CHUNK) {
        let admitted =
            admit_all(ctx, chunk).map_err(|source| ContinuityError::Store { reference: reference.into(), source })?;
        for e in admitted {
            fresh.add(e);
        }
    }
    merged(ctx, reference, Some(view), tip, &gone, fresh, rules)
}

/// Reads the store at `reference` through the read model, judging every signer's standing.
pub fn load(ctx: &Ctx, s: &Setup, reference: &str) -> Result<Loaded> {
    Ok(load_within(ctx, s, reference, None)?.expect("an unbounded read gives the store"))
}

/// [`load`], but `None` when reading the store would admit more than `within` files (when
/// bounded): what a hook reads of a store, which must not become a cold read of a million
/// records in the first hook of a machine that fetched a store and never read one.
pub fn load_within(ctx: &Ctx, s: &Setup, reference: &str, within: Option<usize>) -> Result<Option<Loaded>> {
    let git_err = |source: crate::git::Error| ContinuityError::Store { reference: reference.into(), source };
    let mut out = Loaded {
        reference: reference.to_string(),
        cache: Some(cache_path(ctx, reference)),
        warnings: Some(ctx.warnings()),
        ..Default::default()
    };
    let Some(tip) = ctx.git.ref_tip(reference).map_err(git_err)? else { return Ok(Some(out)) };
    let Some(view) = view_at(ctx, s, reference, &tip, within)? else { return Ok(None) };
    let own_key = s.own_key();
    let judge = s.judge(own_key.as_deref());
    // Standing is judged once per (signer, repository) on every read, never cached.
    let mut standing: HashMap<(usize, usize), Option<Trust>> = HashMap::new();
    let mut diags: Vec<Diagnostic> = Vec::new();
    out.admitted = vec![0; view.len().div_ceil(64)];
    for i in 0..view.len() {
        let k = view.standing_key(i);
        let label = || view.device(i).1;
        let verdict = *standing
            .entry(k)
            .or_insert_with(|| standing_of("", view.key_at(k.0), view.repository_at(k.1), label(), &judge).ok());
        match verdict {
            Some(trust) => {
                out.standing.insert(k, trust);
                out.admitted[i / 64] |= 1 << (i % 64);
                out.count += 1;
            }
            None => {
                let path = store_path(&view.id(i));
                if let Err(d) = standing_of(&path, view.key_at(k.0), view.repository_at(k.1), label(), &judge) {
                    if d.code == Code::Retired {
                        out.retired.push(path);
                    } else {
                        out.refused.push(RefusedFile { path, code: d.code, message: d.message.clone() });
                    }
                    diags.push(d);
                }
            }
        }
    }
    for o in view.others() {
        // A newer schema's file is kept only while its signer is not refused here (judged on
        // every read, like a record's standing): else it is stray, never merged.
        if o.kind == OtherKind::TooNew {
            let bytes = ctx.git.read_blob(&o.blob, BLOB_CAP).map_err(git_err)?;
            if let Err(d) = too_new_standing(&o.path, &bytes, &judge) {
                diags.push(d);
                continue;
            }
        }
        if o.kind != OtherKind::Stray {
            out.refused.push(RefusedFile {
                path: o.path.clone(),
                code: o.diagnostic.code,
                message: o.diagnostic.message.clone(),
            });
        }
        if o.kind == OtherKind::TooNew {
            out.too_new.push(o.path.clone());
        }
        diags.push(o.diagnostic.clone());
    }
    diags.sort_by(|a, b| a.path.cmp(&b.path));
    out.refused.sort_by(|a, b| a.path.cmp(&b.path));
    out.diagnostics = diags;
    out.tip = Some(tip);
    out.view = Some(Rc::new(view));
    Ok(Some(out))
}
