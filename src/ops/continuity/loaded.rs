//! Reading a store through the read model (SPEC §A.17): every file of a ref's tree, admitted
//! once. What admission concludes whoever reads a file (shape, id, signature, portability) is kept
//! per file in the read model (`readmodel`), a compact binary file per ref under the git common
//! dir (`<common-dir>/majordomus/readmodel/<ref>.bin`), keyed by the store tip and the rules hash.
//! A read compares the ref's tip with the cached one: equal → no tree is read; else the tree
//! difference between the two tips is walked (only changed shards) and only added blobs are
//! admitted; no usable cache (absent, other rules, damaged, old tip pruned) → the whole tree is
//! admitted on every core. Trust, revocation and the repository are judged per signer on every
//! read. The cache is an optimisation only: deleting it changes no answer.

use std::collections::BTreeSet;

use std::collections::HashMap;

use crate::continuity::admission::{admit, intrinsic, standing_of, Admitted, Diagnostic, Judge, Verdict};
use crate::continuity::lineage::Lineage;
use crate::continuity::mesh::{Mesh, Trust};
use crate::continuity::plan::{Candidate, RefusedFile};
use crate::continuity::readmodel::{rules_hash, Entry, Model, OtherKind, Summary};
use crate::continuity::record::{store_path, Envelope, Record};
use crate::continuity::signing::{self, DeviceKey};
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::git::store::StoreEntry;
use crate::store::atomic::replace;

/// What every continuity command reads first.
pub struct Setup {
    /// This repository's continuity identity.
    pub repository: String,
    /// The enabled mesh declaration.
    pub mesh: Option<Mesh>,
    /// This machine's device key (never created by a read).
    pub device: Option<DeviceKey>,
}

impl Setup {
    /// This device's raw key, 64 hex.
    pub fn own_key(&self) -> Option<String> {
        self.device.as_ref().map(|d| hex(&d.public_key_raw()))
    }
    /// This device's node id.
    pub fn own_node(&self) -> Option<String> {
        self.device.as_ref().map(DeviceKey::node)
    }
}

/// Hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A trust-list entry (`RW...` or 64 hex) as 64 hex.
pub fn normalise_key(k: &str) -> Option<String> {
    signing::raw_public_key(k).map(|b| hex(&b))
}

/// Loads the mesh, the repository identity and the device key (if any).
pub fn setup(ctx: &Ctx) -> Result<Setup> {
    ctx.require_layer()?;
    let mesh = super::load_mesh(ctx, &normalise_key)?;
    let repository = super::repository(ctx, mesh.as_ref())?;
    let device = signing::load(&super::device_path(ctx)?)?;
    Ok(Setup { repository, mesh, device })
}

/// One admitted record: its read-model summary and its signer's standing on this machine.
#[derive(Debug, Clone)]
pub struct Row {
    /// What the read model keeps of it.
    pub s: Summary,
    /// The signer's standing (never `revoked`: those are refused).
    pub trust: Trust,
}

impl Row {
    /// Its path in the store.
    pub fn path(&self) -> String {
        store_path(&self.s.id)
    }
}

/// A store as read through admission.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The ref read.
    pub reference: String,
    /// Its tip.
    pub tip: Option<String>,
    /// Admitted records, sorted by id.
    pub admitted: Vec<Row>,
    /// Paths of records of a later schema (kept, not read).
    pub too_new: Vec<String>,
    /// Refused files.
    pub refused: Vec<RefusedFile>,
    /// Every diagnostic, in path order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    /// The lineage over the admitted records.
    pub fn lineage(&self) -> Lineage {
        Lineage::from_links(self.admitted.iter().map(|a| (a.s.id.clone(), a.s.line.clone(), a.s.parent.clone())))
    }
    /// What the offers need of every admitted record.
    pub fn candidates(&self) -> impl Iterator<Item = Candidate<'_>> {
        self.admitted.iter().map(|a| Candidate {
            id: &a.s.id,
            node: &a.s.device.node,
            published: a.s.published,
            published_at: &a.s.published_at,
        })
    }
    /// The admitted record `id`.
    pub fn get(&self, id: &str) -> Option<&Row> {
        // `admitted` is sorted by id (see `load`).
        self.admitted.binary_search_by(|a| a.s.id.as_str().cmp(id)).ok().map(|i| &self.admitted[i])
    }
    /// Ids of the admitted records.
    pub fn ids(&self) -> BTreeSet<String> {
        self.admitted.iter().map(|a| a.s.id.clone()).collect()
    }
    /// Paths that a merge may bring in: admitted and too-new records.
    pub fn mergeable(&self) -> BTreeSet<String> {
        self.admitted.iter().map(Row::path).chain(self.too_new.iter().cloned()).collect()
    }
}

/// The whole record of an admitted row, read from its blob when it is shown (plan, resume).
/// The blob id names its bytes, so what admission concluded about them still holds.
pub fn full(ctx: &Ctx, row: &Row) -> Result<Record> {
    let bytes =
        ctx.git.read_blob(&row.s.blob).map_err(|e| Error::io(format!("continuity record {}: {e}", row.s.id)))?;
    let envelope: Envelope =
        serde_json::from_slice(&bytes).map_err(|e| Error::io(format!("continuity record {}: {e}", row.s.id)))?;
    serde_json::from_value(envelope.record).map_err(|e| Error::io(format!("continuity record {}: {e}", row.s.id)))
}

/// Reads one record of the store at `reference` through admission (`None` when it is absent or
/// not admitted): what `publish` needs, found by its path (a handful of small trees), without
/// reading the whole store.
pub fn load_one(ctx: &Ctx, s: &Setup, reference: &str, id: &str) -> Result<Option<Admitted>> {
    if !crate::continuity::record::is_id(id) {
        return Ok(None);
    }
    let git_err = |e: crate::git::Error| Error::io(format!("continuity store {reference}: {e}"));
    let Some(tip) = ctx.git.ref_tip(reference).map_err(git_err)? else { return Ok(None) };
    let path = store_path(id);
    let Some(blob) = ctx.git.store_find(&tip, &path).map_err(git_err)? else { return Ok(None) };
    let bytes = ctx.git.read_blob(&blob).map_err(git_err)?;
    let own_key = s.own_key();
    let judge = Judge { repository: &s.repository, mesh: s.mesh.as_ref(), own_key: own_key.as_deref() };
    Ok(match admit(&path, &blob, &bytes, &judge).0 {
        Verdict::Admitted(a) => Some(*a),
        _ => None,
    })
}

/// How many threads admit blobs.
pub fn workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(8)
}

fn cache_path(ctx: &Ctx, reference: &str) -> std::path::PathBuf {
    ctx.git.common_dir().join("majordomus/readmodel").join(format!("{}.bin", reference.replace('/', "%")))
}

/// The cached model of `reference` (written under `rules`), if any is usable.
fn read_cache(ctx: &Ctx, reference: &str, rules: &str) -> Option<Model> {
    let bytes = std::fs::read(cache_path(ctx, reference)).ok()?;
    Model::decode(&bytes, rules)
}

/// Admits `entries` on every core.
fn admit_all(ctx: &Ctx, entries: &[StoreEntry]) -> std::result::Result<Vec<Entry>, crate::git::Error> {
    ctx.git.map_blobs(entries, workers(), |e, bytes| Entry::of(&e.path, &e.blob, intrinsic(&e.path, bytes)))
}

/// The read model of the store at `tip`: the cache of `reference` (or, for a ref read the first
/// time, the local store's) brought up to date from the tree difference; else built cold.
fn model_at(ctx: &Ctx, reference: &str, tip: &str) -> Result<Model> {
    let git_err = |e: crate::git::Error| Error::io(format!("continuity store {reference}: {e}"));
    let rules = rules_hash();
    let base = read_cache(ctx, reference, &rules)
        .or_else(|| (reference != super::REF).then(|| read_cache(ctx, super::REF, &rules)).flatten());
    if let Some(m) = &base {
        if m.tip == tip {
            if !cache_path(ctx, reference).exists() {
                save_cache(ctx, reference, m, &rules);
            }
            return Ok(base.unwrap_or_default());
        }
    }
    let mut model = match base.map(|m| (ctx.git.store_changes(&m.tip, tip), m)) {
        Some((Ok(changes), mut m)) => {
            let added = admit_all(ctx, &changes.added).map_err(git_err)?;
            let paths: Vec<String> = changes.added.iter().map(|e| e.path.clone()).collect();
            m.apply(&changes.removed, added, &paths);
            m
        }
        // No cache, or its tip is gone (pruned after a forced update): read the whole tree.
        _ => {
            let entries = ctx.git.store_list(tip).map_err(git_err)?;
            let mut m = Model::default();
            let paths: Vec<String> = Vec::new();
            m.apply(&[], admit_all(ctx, &entries).map_err(git_err)?, &paths);
            m
        }
    };
    model.tip = tip.to_string();
    save_cache(ctx, reference, &model, &rules);
    Ok(model)
}

/// Writes the cache; failing to write it changes no answer.
fn save_cache(ctx: &Ctx, reference: &str, m: &Model, rules: &str) {
    let _ = replace(&cache_path(ctx, reference), &m.encode(rules));
}

/// Reads the store at `reference` through the read model, judging every signer's standing.
pub fn load(ctx: &Ctx, s: &Setup, reference: &str) -> Result<Loaded> {
    let git_err = |e: crate::git::Error| Error::io(format!("continuity store {reference}: {e}"));
    let mut out = Loaded { reference: reference.to_string(), ..Default::default() };
    let Some(tip) = ctx.git.ref_tip(reference).map_err(git_err)? else { return Ok(out) };
    let model = model_at(ctx, reference, &tip)?;
    let own_key = s.own_key();
    let judge = Judge { repository: &s.repository, mesh: s.mesh.as_ref(), own_key: own_key.as_deref() };
    // Standing is judged once per (signer, repository) on every read, never cached.
    let mut standing: HashMap<(&str, &str), Option<Trust>> = HashMap::new();
    let verdicts: Vec<Option<Trust>> = model
        .records
        .iter()
        .map(|sm| {
            *standing.entry((sm.key.as_str(), sm.repository.as_str())).or_insert_with(|| {
                standing_of(&store_path(&sm.id), &sm.key, &sm.repository, &sm.device.label, &judge).ok()
            })
        })
        .collect();
    drop(standing);
    let mut diags: Vec<Diagnostic> = Vec::new();
    out.admitted.reserve(model.records.len());
    for (sm, verdict) in model.records.into_iter().zip(verdicts) {
        match verdict {
            Some(trust) => out.admitted.push(Row { s: sm, trust }),
            None => {
                let path = store_path(&sm.id);
                let d = match standing_of(&path, &sm.key, &sm.repository, &sm.device.label, &judge) {
                    Err(d) => d,
                    Ok(_) => continue,
                };
                out.refused.push(RefusedFile { path, code: d.code.clone(), message: d.message.clone() });
                diags.push(d);
            }
        }
    }
    for o in model.others {
        if o.kind != OtherKind::Stray {
            out.refused.push(RefusedFile {
                path: o.path.clone(),
                code: o.diagnostic.code.clone(),
                message: o.diagnostic.message.clone(),
            });
        }
        if o.kind == OtherKind::TooNew {
            out.too_new.push(o.path.clone());
        }
        diags.push(o.diagnostic);
    }
    diags.sort_by(|a, b| a.path.cmp(&b.path));
    out.refused.sort_by(|a, b| a.path.cmp(&b.path));
    out.diagnostics = diags;
    out.tip = Some(tip);
    Ok(out)
}
