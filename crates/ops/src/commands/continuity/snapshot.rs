//! `continuity snapshot` (docs/REFERENCE.md#snapshots): a signed snapshot of the local store's
//! read model, added to the store for a fresh clone to read instead of admitting every record.
//! Must not touch: another command or a query.

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::oid::Oid;
use crate::services::continuity::{loaded, snapshot, writer_lock, ContinuityError, REF};

/// `continuity snapshot`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct SnapshotReport {
    /// Whether a snapshot was written: `false` when this device's newest one already describes
    /// every file of the store's tip (the fields then describe that one).
    pub written: bool,
    /// The statement's path in the store.
    pub statement: String,
    /// The store commit the snapshot describes, 40 hex.
    pub store_commit: String,
    /// The rules its verdicts were decided under.
    pub rules: String,
    /// The read-model file's length.
    pub bytes: u64,
    /// Its BLAKE3, 64 hex.
    pub blake3: String,
    /// How many parts it is kept in.
    pub parts: u64,
    /// Records in shape it describes.
    pub records: usize,
    /// Other files it describes (refused, too new, stray).
    pub others: usize,
    /// Whether the mesh here trusts this device by name: a clone reads a snapshot only from a
    /// device it does.
    pub trusted_by_name: bool,
    /// The local store's tip after it.
    pub tip: Oid,
    /// What to run next.
    pub next: Vec<String>,
}

/// `continuity snapshot`: the read model of the local store's tip, signed with this device's
/// key and added to the store (statement and parts, one commit).
pub fn snapshot(ctx: &Ctx) -> Result<SnapshotReport> {
    let s = loaded::setup(ctx)?;
    if let Some(e) = s.revoked_here() {
        return Err(e);
    }
    let _lock = writer_lock(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let (Some(view), Some(tip)) = (store.read_model(), store.tip.as_ref()) else {
        return Err(ContinuityError::EmptyStore.into());
    };
    let made = snapshot::make(ctx, &s, view, tip)?;
    let st = &made.statement;
    Ok(SnapshotReport {
        written: made.written,
        statement: made.path.clone(),
        store_commit: st.store_commit.clone(),
        rules: st.rules.clone(),
        bytes: st.bytes,
        blake3: st.blake3.clone(),
        parts: st.parts(),
        records: made.records,
        others: made.others,
        trusted_by_name: snapshot::trusted_by_name(&s, &s.own_key().unwrap_or_default()),
        tip: made.tip,
        next: if made.written { vec!["git majordomus continuity sync".into()] } else { Vec::new() },
    })
}
