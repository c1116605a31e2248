//! A signed snapshot of the read model (docs/REFERENCE.md#snapshots; the trust argument in
//! docs/SECURITY.md "A signed snapshot for fresh clones"): a device's read-model file for store
//! commit `C`, kept in the store's [`SNAPSHOTS`] folder in parts and named by its BLAKE3, with a
//! statement signed in a record's envelope form saying what it is. A fresh clone that trusts the
//! signer by name reads it instead of admitting every record of `C` once more.
//!
//! Owns: the statement's format, its strict reading and signature check, the paths a snapshot's
//! files take in the store, and whether a snapshot's rows and other files cover a tree exactly.
//! Must not touch: trust (the caller judges the signer against the mesh), files, the clock.

use serde::{Deserialize, Serialize};

use crate::git::store::{StoreEntry, SNAPSHOTS};
use crate::lineage::RawId;
use crate::readmodel::View;
use crate::record::{self, blake3_hex, Device};
use crate::signing::{self, DeviceKey};

/// The statement's schema.
pub const SCHEMA: &str = "majordomus-snapshot/v1";

/// The size of each part a snapshot's file is kept in (the last one is shorter): a reader holds
/// one part at a time, never the file.
pub const PART: u64 = 8 << 20;

/// The largest statement read.
pub const STATEMENT_CAP: u64 = 16 << 10;

/// What a snapshot's signer says: "the read-model file of `bytes` bytes whose BLAKE3 is
/// `blake3` is what `format` under `rules` holds of every file of store commit `store_commit`
/// of `repository`". Signed as a record is ([`DeviceKey::sign_value`]); never a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Statement {
    /// BLAKE3 of the file, 64 hex.
    pub blake3: String,
    /// The file's length.
    pub bytes: u64,
    /// When it was made (RFC 3339, as the signer's clock said).
    pub created_at: String,
    /// The signing device.
    pub device: Device,
    /// The read model's format line (`readmodel::FORMAT`).
    pub format: String,
    /// The repository's continuity identity.
    pub repository: String,
    /// The rules the verdicts were decided under (`readmodel::RULES`).
    pub rules: String,
    /// [`SCHEMA`].
    pub schema: String,
    /// The store commit the file describes, 40 hex.
    pub store_commit: String,
}

impl Statement {
    /// The statement's path in the store.
    pub fn path(&self) -> String {
        statement_path(&self.device.node, &self.blake3)
    }
    /// How many parts the file is kept in.
    pub fn parts(&self) -> u64 {
        self.bytes.div_ceil(PART)
    }
    /// The path of part `k` of the file.
    pub fn part_path(&self, k: u64) -> String {
        format!("{SNAPSHOTS}/{}/{}/{k:04}", self.device.node, self.blake3)
    }
}

/// Where the statement of device `node`'s snapshot whose file hashes to `blake3` is kept.
pub fn statement_path(node: &str, blake3: &str) -> String {
    format!("{SNAPSHOTS}/{node}/{blake3}.json")
}

/// Whether `path` has the shape of a snapshot's statement or part (what a sync's merge takes in
/// of a peer's snapshots: it reads none of them, a reader judges them).
pub fn is_snapshot_path(path: &str) -> bool {
    let hex = |s: &str, n: usize| s.len() == n && crate::hex::is_lowercase(s);
    let Some(rest) = path.strip_prefix(SNAPSHOTS).and_then(|r| r.strip_prefix('/')) else { return false };
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [node, file] => hex(node, 32) && file.strip_suffix(".json").is_some_and(|h| hex(h, 64)),
        [node, h, k] => hex(node, 32) && hex(h, 64) && k.len() == 4 && k.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}

/// The stored bytes of `key`'s signed statement and its path.
pub fn sign(key: &DeviceKey, statement: &Statement) -> (String, Vec<u8>) {
    let value = serde_json::to_value(statement).map(|v| record::sorted(&v)).unwrap_or_default();
    (statement.path(), record::stored_bytes(&key.sign_value(value)))
}

/// Why a statement is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unread {
    /// Not a record envelope's stored form, or not a statement of this schema.
    #[error("it is not a snapshot statement in the stored form")]
    Malformed,
    /// Its id is not the BLAKE3 of what it holds, or its path is not the one it names.
    #[error("its id or path does not match what it holds")]
    Mismatch,
    /// The signature does not verify under the key it carries.
    #[error("its signature does not verify")]
    BadSignature,
}

/// Reads the statement kept at `path` in `bytes`: the strict reader of a record envelope, the
/// id, the path and the signature checked. Gives the statement and its signer's raw key (64 hex).
pub fn read_statement(path: &str, bytes: &[u8]) -> Result<(Statement, String), Unread> {
    let stored = record::read_stored(bytes, &mut |_, _| {}).map_err(|_| Unread::Malformed)?;
    let statement: Statement = serde_json::from_str(&stored.canonical).map_err(|_| Unread::Malformed)?;
    if statement.schema != SCHEMA {
        return Err(Unread::Malformed);
    }
    if blake3_hex(stored.canonical.as_bytes()) != stored.id || statement.path() != path {
        return Err(Unread::Mismatch);
    }
    signing::verify_parts(
        &stored.public_key,
        &stored.signature,
        &stored.id,
        Some(&statement.device.node),
        &stored.canonical,
    )
    .map_err(|_| Unread::BadSignature)?;
    let key =
        signing::raw_public_key(&stored.public_key).map(|k| crate::lineage::hex(&k)).ok_or(Unread::BadSignature)?;
    Ok((statement, key))
}

/// Whether `view` describes exactly the files `files` lists (a store commit's listing, sorted
/// by path): every record row names one of its paths with the same blob, every other file of the
/// view one of its paths with the same blob, and every file is named once. Every variable part
/// is read, and checked, once.
pub fn covers(view: &View, files: &[StoreEntry]) -> bool {
    if files.len() != view.len() + view.others().len() {
        return false;
    }
    // Row → the file it names; a file that is no row must be another file of the view.
    let mut file_of_row: Vec<u32> = vec![u32::MAX; view.len()];
    // Sorted by path, the record files come in id order: each row is found by walking the rows
    // forward (one pass over them), a lookup only for a file out of that order.
    let mut next = 0;
    let mut row_of = |id: &RawId| {
        while next < view.len() && view.raw_id(next) < *id {
            next += 1;
        }
        if next < view.len() && view.raw_id(next) == *id {
            Some(next)
        } else {
            view.find_raw(id)
        }
    };
    for (k, f) in files.iter().enumerate() {
        match f.record_id().and_then(&mut row_of) {
            Some(i) => file_of_row[i] = k as u32,
            None => {
                let path = f.path();
                let other = view.others().binary_search_by(|o| o.path.as_str().cmp(&path));
                if !other.is_ok_and(|o| view.others()[o].blob == f.blob()) {
                    return false;
                }
            }
        }
    }
    if file_of_row.contains(&u32::MAX) {
        return false;
    }
    view.each_blob(|i, blob| files[file_of_row[i] as usize].blob() == blob)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_statement_or_a_part_of_a_node_has_a_snapshot_path() {
        let (node, h) = ("0a".repeat(16), "0b".repeat(32));
        assert!(is_snapshot_path(&format!("snapshots/{node}/{h}.json")));
        assert!(is_snapshot_path(&format!("snapshots/{node}/{h}/0000")));
        for bad in [
            format!("snapshots/{node}/{h}.txt"),
            format!("snapshots/{node}/{h}/000"),
            format!("snapshots/{node}/{h}/000a"),
            format!("snapshots/{}/{h}.json", "0A".repeat(16)),
            format!("snapshots/{node}/{h}/0000/x"),
            format!("records/{node}/{h}.json"),
            format!("snapshots/{node}.json"),
        ] {
            assert!(!is_snapshot_path(&bad), "{bad}");
        }
    }

    #[test]
    fn a_signed_statement_reads_back_and_any_change_is_refused() {
        let key = DeviceKey::from_seed([5; 32], Some("ci".into()), "2026-09-01T00:00:00Z");
        let st = Statement {
            blake3: "0c".repeat(32),
            bytes: PART + 1,
            created_at: "2026-12-01T00:00:00Z".into(),
            device: key.device(),
            format: crate::readmodel::FORMAT.into(),
            repository: "r".into(),
            rules: crate::readmodel::RULES.into(),
            schema: SCHEMA.into(),
            store_commit: "0d".repeat(20),
        };
        assert_eq!(st.parts(), 2);
        let (path, bytes) = sign(&key, &st);
        let (back, k) = read_statement(&path, &bytes).unwrap();
        assert_eq!((back, k), (st.clone(), crate::lineage::hex(&key.public_key_raw())));
        assert_eq!(read_statement(&statement_path("x", &st.blake3), &bytes), Err(Unread::Mismatch));
        let text = String::from_utf8(bytes.clone()).unwrap();
        let tampered = text.replace(&"0d".repeat(20), &"0e".repeat(20));
        assert_eq!(read_statement(&path, tampered.as_bytes()), Err(Unread::Mismatch));
        assert_eq!(read_statement(&path, text.replace(": ", ":").as_bytes()), Err(Unread::Malformed));
        // The id restated for the tampered text: the signature no longer holds.
        let id =
            blake3_hex(crate::record::read_stored(tampered.as_bytes(), &mut |_, _| {}).unwrap().canonical.as_bytes());
        let old_id = blake3_hex(crate::record::read_stored(&bytes, &mut |_, _| {}).unwrap().canonical.as_bytes());
        assert_eq!(read_statement(&path, tampered.replace(&old_id, &id).as_bytes()), Err(Unread::BadSignature));
    }
}
