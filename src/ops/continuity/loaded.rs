//! Reading a store: every file of a ref's tree through admission. The machine-independent half of
//! admission (shape, id, signature, portability) is kept in an index under the git common dir
//! (`<common-dir>/majordomus/index.json`, keyed by blob and path, shared by every ref): a file seen
//! before is not read or verified again, only judged against this machine's trust, revocation and
//! repository. The index is an optimisation only: deleting it changes no answer.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::continuity::admission::{admit, intrinsic, standing, Admitted, Diagnostic, Intrinsic, Judge, Verdict};
use crate::continuity::lineage::Lineage;
use crate::continuity::mesh::Mesh;
use crate::continuity::plan::{PlanRecord, RefusedFile};
use crate::continuity::signing::{self, DeviceKey};
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::store::atomic::{read_opt, replace};

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

/// A store as read through admission.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The ref read.
    pub reference: String,
    /// Its tip.
    pub tip: Option<String>,
    /// Admitted records, sorted by id.
    pub admitted: Vec<Admitted>,
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
        Lineage::new(self.admitted.iter().map(|a| (a.id.as_str(), &a.record)))
    }
    /// The records as the plan sees them.
    pub fn plan_records(&self, own_node: Option<&str>) -> Vec<PlanRecord<'_>> {
        self.admitted
            .iter()
            .map(|a| PlanRecord {
                id: &a.id,
                record: &a.record,
                trust: a.trust,
                this_device: Some(a.record.device.node.as_str()) == own_node,
            })
            .collect()
    }
    /// The admitted record `id`.
    pub fn get(&self, id: &str) -> Option<&Admitted> {
        // `admitted` is sorted by id (see `load`).
        self.admitted.binary_search_by(|a| a.id.as_str().cmp(id)).ok().map(|i| &self.admitted[i])
    }
    /// Ids of the admitted records.
    pub fn ids(&self) -> BTreeSet<String> {
        self.admitted.iter().map(|a| a.id.clone()).collect()
    }
    /// Paths that a merge may bring in: admitted and too-new records.
    pub fn mergeable(&self) -> BTreeSet<String> {
        self.admitted.iter().map(|a| a.path.clone()).chain(self.too_new.iter().cloned()).collect()
    }
}

/// The admission index: the [`Intrinsic`] verdict of every store file seen, by `<blob> <path>`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    version: u32,
    entries: BTreeMap<String, Intrinsic>,
}

/// The version of the index format; another version is ignored (and rewritten).
const INDEX_VERSION: u32 = 1;

fn index_path(ctx: &Ctx) -> std::path::PathBuf {
    ctx.git.common_dir().join("majordomus/index.json")
}

fn read_index(ctx: &Ctx) -> Index {
    read_opt(&index_path(ctx))
        .ok()
        .flatten()
        .and_then(|t| serde_json::from_str::<Index>(&t).ok())
        .filter(|i| i.version == INDEX_VERSION)
        .unwrap_or(Index { version: INDEX_VERSION, entries: BTreeMap::new() })
}

/// Reads one record of the store at `reference` through admission (`None` when it is absent or
/// not admitted): what `publish` needs, without reading the whole store.
pub fn load_one(ctx: &Ctx, s: &Setup, reference: &str, id: &str) -> Result<Option<Admitted>> {
    if !crate::continuity::record::is_id(id) {
        return Ok(None);
    }
    let git_err = |e: crate::git::Error| Error::io(format!("continuity store {reference}: {e}"));
    let Some(tip) = ctx.git.ref_tip(reference).map_err(git_err)? else { return Ok(None) };
    let path = crate::continuity::record::store_path(id);
    let Some(entry) = ctx.git.store_list(&tip).map_err(git_err)?.into_iter().find(|e| e.path == path) else {
        return Ok(None);
    };
    let bytes = ctx.git.read_blob(&entry.blob).map_err(git_err)?;
    let own_key = s.own_key();
    let judge = Judge { repository: &s.repository, mesh: s.mesh.as_ref(), own_key: own_key.as_deref() };
    Ok(match admit(&entry.path, &entry.blob, &bytes, &judge).0 {
        Verdict::Admitted(a) => Some(*a),
        _ => None,
    })
}

/// Reads the store at `reference` through admission.
pub fn load(ctx: &Ctx, s: &Setup, reference: &str) -> Result<Loaded> {
    let git_err = |e: crate::git::Error| Error::io(format!("continuity store {reference}: {e}"));
    let mut out = Loaded { reference: reference.to_string(), ..Default::default() };
    let Some(tip) = ctx.git.ref_tip(reference).map_err(git_err)? else { return Ok(out) };
    let mut index = read_index(ctx);
    let own_key = s.own_key();
    let judge = Judge { repository: &s.repository, mesh: s.mesh.as_ref(), own_key: own_key.as_deref() };
    let mut entries = ctx.git.store_list(&tip).map_err(git_err)?;
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    // Files the index has not seen: blobs read in order (the repository handle is not shared
    // between threads), the machine-independent checks — signatures above all — on every core.
    let unseen: Vec<&crate::git::store::StoreEntry> =
        entries.iter().filter(|e| !index.entries.contains_key(&format!("{} {}", e.blob, e.path))).collect();
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(8);
    for chunk in unseen.chunks(1024) {
        let mut items = Vec::with_capacity(chunk.len());
        for e in chunk {
            items.push((*e, ctx.git.read_blob(&e.blob).map_err(git_err)?));
        }
        let per = items.len().div_ceil(workers).max(1);
        let verdicts: Result<Vec<Intrinsic>> = std::thread::scope(|scope| {
            let handles: Vec<_> = items
                .chunks(per)
                .map(|part| {
                    scope.spawn(move || part.iter().map(|(e, bytes)| intrinsic(&e.path, bytes)).collect::<Vec<_>>())
                })
                .collect();
            let mut all = Vec::with_capacity(items.len());
            for h in handles {
                all.extend(h.join().map_err(|_| Error::io("internal: an admission worker panicked"))?);
            }
            Ok(all)
        });
        for ((e, _), v) in items.iter().zip(verdicts?) {
            index.entries.insert(format!("{} {}", e.blob, e.path), v);
        }
    }
    if !unseen.is_empty() {
        // The index is an optimisation: failing to write it changes no answer.
        if let Ok(text) = serde_json::to_string(&index) {
            let _ = replace(&index_path(ctx), text.as_bytes());
        }
    }
    for e in &entries {
        let Some(i) = index.entries.get(&format!("{} {}", e.blob, e.path)) else { continue };
        let (verdict, diag) = standing(&e.path, &e.blob, i.clone(), &judge);
        if let Some(d) = &diag {
            if d.severity == "error" || d.code == "continuity.schema_too_new" {
                out.refused.push(RefusedFile {
                    path: e.path.clone(),
                    code: d.code.clone(),
                    message: d.message.clone(),
                });
            }
        }
        out.diagnostics.extend(diag);
        match verdict {
            Verdict::Admitted(a) => out.admitted.push(*a),
            Verdict::TooNew => out.too_new.push(e.path.clone()),
            Verdict::Refused | Verdict::Stray => {}
        }
    }
    out.admitted.sort_by(|a, b| a.id.cmp(&b.id));
    out.tip = Some(tip);
    Ok(out)
}
