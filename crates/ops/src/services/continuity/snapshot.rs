//! Signed snapshots of the read model (docs/REFERENCE.md#snapshots; the trust argument in
//! docs/SECURITY.md "A signed snapshot for fresh clones"): making one of the local store for
//! this device, and, where a read finds no read model of its own, adopting a snapshot a device
//! trusted by name signed — checked against the store commit it names — instead of admitting
//! every record of that commit again.
//! Must not touch: a command or a query; `continuity verify` (it never reads a snapshot).

use std::collections::HashMap;
use std::path::Path;

use crate::continuity::readmodel::{View, FORMAT, RULES};
use crate::continuity::signing;
use crate::continuity::snapshot::{self, covers, read_statement, Statement, PART, STATEMENT_CAP};
use crate::ctx::Ctx;
use crate::error::Result;
use crate::git::store::SNAPSHOTS;
use crate::oid::Oid;
use crate::services::continuity::loaded::Setup;
use crate::services::continuity::ContinuityError;

/// Why a snapshot found in a store is not read (said once, on stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignored {
    /// Its statement does not read or verify.
    Unread(snapshot::Unread),
    /// There is no mesh declaration: no key is trusted by name.
    NoMesh,
    /// Its signer's key is not in the mesh's `trust.allow`.
    NotAllowed,
    /// Its signer's key is revoked (its records refused or retired).
    Revoked,
    /// It describes another repository.
    OtherRepository,
    /// It was decided under other rules, or written in another format.
    OtherRules(String),
    /// This clone does not hold the store commit it names, or that commit is not an ancestor of
    /// the tip read.
    NotHeld,
    /// Its file is not all there, or does not hash to what its statement says.
    Damaged,
    /// Its rows do not describe the store commit it names exactly.
    NotCovering,
}

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ignored::Unread(why) => write!(f, "{why}"),
            Ignored::NoMesh => f.write_str("there is no mesh declaration, so no key is trusted by name"),
            Ignored::NotAllowed => f.write_str("its signer's key is not in trust.allow"),
            Ignored::Revoked => f.write_str("its signer's key is revoked"),
            Ignored::OtherRepository => f.write_str("it is about another repository"),
            Ignored::OtherRules(r) => write!(f, "it was made under {r}, not {RULES}"),
            Ignored::NotHeld => f.write_str("this clone does not hold its store commit below the tip"),
            Ignored::Damaged => f.write_str("its file is incomplete or does not match its statement"),
            Ignored::NotCovering => f.write_str("it does not describe its store commit exactly"),
        }
    }
}

/// Whether the mesh trusts raw key `key` (64 hex) by name: listed in `trust.allow` and not
/// revoked. `tofu`, a store without a mesh, an untrusted, revoked or retired key: never.
pub fn trusted_by_name(s: &Setup, key: &str) -> bool {
    by_name(s, key).is_ok()
}

fn by_name(s: &Setup, key: &str) -> std::result::Result<(), Ignored> {
    let m = s.mesh.as_ref().ok_or(Ignored::NoMesh)?;
    if m.revoked.iter().any(|k| k == key) {
        return Err(Ignored::Revoked);
    }
    if !m.allow.iter().any(|k| k == key) {
        return Err(Ignored::NotAllowed);
    }
    Ok(())
}

/// A statement whose checks before its file passed, with its signer's key.
struct Candidate {
    statement: Statement,
    key: String,
}

/// Judges a statement before its file is read: the signer, the repository, the rules and the
/// store commit.
fn judge(ctx: &Ctx, s: &Setup, tip: &str, statement: &Statement, key: &str) -> std::result::Result<(), Ignored> {
    by_name(s, key)?;
    if statement.repository != s.repository {
        return Err(Ignored::OtherRepository);
    }
    if statement.rules != RULES || statement.format != FORMAT {
        return Err(Ignored::OtherRules(format!("{} ({})", statement.rules, statement.format)));
    }
    let held = Oid::parse(&statement.store_commit).is_some()
        && ctx.git.has_commit(&statement.store_commit)
        && ctx.git.commit_is_ancestor(&statement.store_commit, tip).unwrap_or(false);
    if !held {
        return Err(Ignored::NotHeld);
    }
    Ok(())
}

/// The read model of a snapshot in the store at `tip` that passes every check, written to
/// `scratch` (a file of the read-model cache's folder, removed by the caller), or `None`; what was
/// adopted or ignored is said once. Of each device only its newest statement is considered (a
/// store keeps every snapshot ever made); of those that pass the first checks, the newest is read.
pub fn adopt(ctx: &Ctx, s: &Setup, tip: &str, scratch: &Path) -> Option<View> {
    let files = ctx.git.store_list_under(tip, SNAPSHOTS).ok()?;
    if files.is_empty() {
        return None;
    }
    let blobs: HashMap<String, String> = files.iter().map(|f| (f.path().into_owned(), f.blob())).collect();
    let mut read = Vec::new();
    for (path, blob) in blobs.iter().filter(|(p, _)| p.ends_with(".json")) {
        match statement_at(ctx, path, blob) {
            Ok(c) => read.push(c),
            Err(why) => ctx.warn(format!("snapshot {path} ignored: {why}")),
        }
    }
    read.sort_by(|a, b| b.statement.created_at.cmp(&a.statement.created_at));
    let mut seen = std::collections::HashSet::new();
    read.retain(|c| seen.insert(c.statement.device.node.clone()));
    let mut candidates = Vec::new();
    for c in read {
        match judge(ctx, s, tip, &c.statement, &c.key) {
            Ok(()) => candidates.push(c),
            Err(why) => say_ignored(ctx, &c.statement, &c.key, &why),
        }
    }
    for c in candidates {
        match read_file(ctx, &c.statement, &blobs, scratch) {
            Ok(view) => {
                ctx.warn(format!(
                    "read model: read from the snapshot of store commit {} signed by {} (key {}); the files after it admitted one by one",
                    &c.statement.store_commit[..12],
                    c.statement.device.label,
                    signing::key_id_of_raw_hex(&c.key)
                ));
                return Some(view);
            }
            Err(why) => say_ignored(ctx, &c.statement, &c.key, &why),
        }
    }
    None
}

/// The statement kept at `path` in blob `blob`, read and its signature checked.
fn statement_at(ctx: &Ctx, path: &str, blob: &str) -> std::result::Result<Candidate, Ignored> {
    let bytes = ctx.git.read_blob(blob, STATEMENT_CAP).map_err(|_| Ignored::Damaged)?;
    let (statement, key) = read_statement(path, &bytes).map_err(Ignored::Unread)?;
    Ok(Candidate { statement, key })
}

fn say_ignored(ctx: &Ctx, st: &Statement, key: &str, why: &Ignored) {
    let commit = st.store_commit.get(..12).unwrap_or(&st.store_commit);
    ctx.warn(format!(
        "snapshot of store commit {commit} signed by {} (key {}) ignored: {why}; every record is admitted",
        st.device.label,
        signing::key_id_of_raw_hex(key)
    ));
}

/// The snapshot's file, read a part at a time into `scratch`, hashed as it goes, then opened
/// and checked against the store commit it names.
fn read_file(
    ctx: &Ctx,
    st: &Statement,
    blobs: &HashMap<String, String>,
    scratch: &Path,
) -> std::result::Result<View, Ignored> {
    let mut hasher = blake3::Hasher::new();
    let mut written = 0u64;
    let file = crate::store::atomic::replace_with_file(scratch, |w| {
        for k in 0..st.parts() {
            let part = blobs.get(&st.part_path(k)).ok_or(Ignored::Damaged)?;
            let bytes = ctx.git.read_blob(part, PART).map_err(|_| Ignored::Damaged)?;
            hasher.update(&bytes);
            written += bytes.len() as u64;
            w.write_all(&bytes).map_err(|_| Ignored::Damaged)?;
        }
        Ok::<(), Ignored>(())
    })?;
    if written != st.bytes || hasher.finalize().to_hex().as_str() != st.blake3 {
        return Err(Ignored::Damaged);
    }
    let view = View::open_file(file, RULES).ok_or(Ignored::Damaged)?;
    if view.tip() != st.store_commit {
        return Err(Ignored::NotCovering);
    }
    let listed = ctx.git.store_list(&st.store_commit).map_err(|_| Ignored::NotHeld)?;
    if !covers(&view, &listed) {
        return Err(Ignored::NotCovering);
    }
    Ok(view)
}

/// A scratch file that cannot be written: the snapshot is not read (said as damaged).
impl From<crate::store::Error> for Ignored {
    fn from(_: crate::store::Error) -> Ignored {
        Ignored::Damaged
    }
}

/// A snapshot just made.
pub struct Made {
    /// Its statement.
    pub statement: Statement,
    /// Its statement's path in the store.
    pub path: String,
    /// How many records in shape its file holds, and how many other files.
    pub records: usize,
    /// Other files (refused, too new, stray) it describes.
    pub others: usize,
    /// The local store's tip after it.
    pub tip: Oid,
    /// Whether it was written: `false` when this device's newest snapshot, under these rules,
    /// already describes every file of the tip (then it is that one).
    pub written: bool,
}

/// This device's newest snapshot at `tip` (by `created_at`) whose statement reads, if any.
fn newest_own(ctx: &Ctx, tip: &str, node: &str) -> Option<(String, Statement)> {
    let files = ctx.git.store_list_under(tip, &format!("{SNAPSHOTS}/{node}")).ok()?;
    let statements = files.iter().filter_map(|f| {
        let path = f.path();
        let c = path.ends_with(".json").then(|| statement_at(ctx, &path, &f.blob()).ok()).flatten()?;
        Some((path.into_owned(), c.statement))
    });
    statements.max_by(|a, b| a.1.created_at.cmp(&b.1.created_at))
}

/// Makes a snapshot of the local store's read model at `view`'s tip, signed with this device's
/// key, and adds it (statement and parts) to the local store in one commit; unless this
/// device's newest snapshot, under these rules, already holds every file of the tip (the tip
/// differs from its commit only in `snapshots/`): a second run writes nothing (a snapshot of a
/// million records is some 280 MB of history).
pub fn make(ctx: &Ctx, s: &Setup, view: &View, tip: &Oid) -> Result<Made> {
    let key = signing::load_or_create(&crate::services::continuity::device_path(ctx)?, &ctx.clock.stamp())?;
    let same = |st: &Statement| {
        st.rules == RULES
            && st.format == FORMAT
            && st.repository == s.repository
            && ctx
                .git
                .store_changes(&st.store_commit, view.tip())
                .is_ok_and(|c| c.added.is_empty() && c.removed.is_empty())
    };
    if let Some((path, statement)) = newest_own(ctx, view.tip(), &key.node()).filter(|(_, st)| same(st)) {
        let tip = tip.clone();
        return Ok(Made { path, records: view.len(), others: view.others().len(), tip, statement, written: false });
    }
    let mut bytes = Vec::new();
    view.write_to(&mut bytes).map_err(ContinuityError::ReadModel)?;
    let statement = Statement {
        blake3: blake3::hash(&bytes).to_hex().to_string(),
        bytes: bytes.len() as u64,
        created_at: ctx.clock.stamp(),
        device: key.device(),
        format: FORMAT.to_string(),
        repository: s.repository.clone(),
        rules: RULES.to_string(),
        schema: snapshot::SCHEMA.to_string(),
        store_commit: view.tip().to_string(),
    };
    let (path, signed) = snapshot::sign(&key, &statement);
    let mut files: Vec<(String, &[u8])> = vec![(path.clone(), &signed)];
    for (k, part) in bytes.chunks(PART as usize).enumerate() {
        files.push((statement.part_path(k as u64), part));
    }
    let msg =
        format!("majordomus continuity: snapshot of {} from {}", &statement.store_commit[..12], statement.device.label);
    let out = ctx
        .git
        .store_add(&files, &msg, &crate::services::continuity::committer(ctx))
        .map_err(|source| ContinuityError::Store { reference: crate::services::continuity::REF.into(), source })?;
    ctx.git.gc_auto();
    Ok(Made { path, records: view.len(), others: view.others().len(), tip: out.tip, statement, written: true })
}
