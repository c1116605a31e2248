//! Admission (SPEC §10.3): which files of a store are records this machine accepts, cheapest
//! check first. Pure: the caller reads the blobs and passes their bytes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::mesh::{trust_of, Mesh, Trust};
use super::record::{blake3_hex, canonical_value, is_id, store_path, Envelope, Record, MAX_STORED_BYTES, SCHEMA};
use super::{portability, signing};
use crate::git::store::{Blob, FileMode, StoreEntry};

/// One diagnostic of a store read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Diagnostic {
    /// `error`, `warning` or `info`.
    pub severity: String,
    /// `continuity.<code>`.
    pub code: String,
    /// The file, when the diagnostic is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// One sentence; never repeats a secret.
    pub message: String,
}

impl Diagnostic {
    /// Builds a diagnostic.
    pub fn new(severity: &'static str, code: &str, path: Option<&str>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: severity.into(),
            code: code.into(),
            path: path.map(str::to_string),
            message: message.into(),
        }
    }
}

/// An admitted record.
#[derive(Debug, Clone)]
pub struct Admitted {
    /// Its id.
    pub id: String,
    /// Its path in the store.
    pub path: String,
    /// The blob it was read from (read it again for the signature: it is not kept in memory).
    pub blob: String,
    /// The parsed record.
    pub record: Record,
    /// The signer's raw key, 64 hex.
    pub key: String,
    /// The signer's standing.
    pub trust: Trust,
}

/// The verdict on one file.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Admitted.
    Admitted(Box<Admitted>),
    /// A record of a later schema: counted as refused, but kept across syncs.
    TooNew,
    /// Refused (never read further, never merged).
    Refused,
    /// Not a record of the store: ignored.
    Stray,
}

/// What admission compares against.
pub struct Judge<'a> {
    /// This repository's continuity identity.
    pub repository: &'a str,
    /// The mesh declaration.
    pub mesh: Option<&'a Mesh>,
    /// This device's raw key (64 hex), when it has one.
    pub own_key: Option<&'a str>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `path` has the shape `records/<2 hex>/<2 hex>/<64 hex>.json` with matching folders.
pub fn is_record_path(path: &str) -> bool {
    let Some(id) = path.rsplit('/').next().and_then(|n| n.strip_suffix(".json")) else { return false };
    is_id(id) && store_path(id) == path
}

/// What a store file is, whoever reads it: every check that does not depend on this machine's
/// view (path, size, JSON, id, schema, shape, signature, portability). It is what the per-ref
/// index keeps, keyed by blob and path.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Intrinsic {
    /// A well-formed, correctly signed, portable v1 record.
    Record {
        /// Its id.
        id: String,
        /// The signer's minisign public key.
        public_key: String,
        /// The record.
        record: Box<Record>,
    },
    /// A record of a later schema: kept, not read.
    TooNew(Diagnostic),
    /// Refused whoever reads it.
    Refused(Diagnostic),
    /// Not a record of the store.
    Stray(Diagnostic),
}

/// Judges one file: [`intrinsic`], then [`standing`].
pub fn admit(path: &str, blob: &str, bytes: &[u8], j: &Judge<'_>) -> (Verdict, Option<Diagnostic>) {
    standing(path, blob, intrinsic(path, bytes), j)
}

/// The cap [`crate::git::Git::map_blobs`] reads store blobs under: a blob whose header says
/// it is larger is refused as `continuity.record_too_large` without being inflated.
pub const BLOB_CAP: u64 = MAX_STORED_BYTES as u64;

/// [`admit`] for a store entry as [`crate::git::Git::map_blobs`] hands it over.
pub fn admit_entry(e: &StoreEntry, blob: Blob<'_>, j: &Judge<'_>) -> (Verdict, Option<Diagnostic>) {
    standing(&e.path, &e.blob, intrinsic_entry(e, blob), j)
}

/// [`intrinsic`] for a store entry: only a regular file of a record's name is read; a symlink,
/// an executable file or a submodule is a stray entry, and a blob larger than [`BLOB_CAP`]
/// is refused from its header.
pub fn intrinsic_entry(e: &StoreEntry, blob: Blob<'_>) -> Intrinsic {
    let path = e.path.as_str();
    if !is_record_path(path) {
        return stray(path, "not a record of the store; it is ignored".into());
    }
    if e.mode != FileMode::Regular {
        return stray(path, format!("{}, not a record file; it is ignored", e.mode.describe()));
    }
    match blob {
        Blob::NotAFile => stray(path, "not a record file; it is ignored".into()),
        Blob::TooLarge(n) => too_large(path, n),
        Blob::Bytes(bytes) => intrinsic(path, bytes),
    }
}

fn stray(path: &str, message: String) -> Intrinsic {
    Intrinsic::Stray(Diagnostic::new("warning", "continuity.stray_file", Some(path), message))
}

fn too_large(path: &str, n: u64) -> Intrinsic {
    Intrinsic::Refused(Diagnostic::new(
        "error",
        "continuity.record_too_large",
        Some(path),
        format!("{n} bytes, cap {MAX_STORED_BYTES}"),
    ))
}

/// The machine-independent checks of one file (SPEC §10.3, cheapest first).
pub fn intrinsic(path: &str, bytes: &[u8]) -> Intrinsic {
    let refuse = |code: &str, msg: String| Intrinsic::Refused(Diagnostic::new("error", code, Some(path), msg));
    if !is_record_path(path) {
        return stray(path, "not a record of the store; it is ignored".into());
    }
    if bytes.len() > MAX_STORED_BYTES {
        return too_large(path, bytes.len() as u64);
    }
    let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(bytes) else {
        return refuse("continuity.record_malformed", "not a JSON object".into());
    };
    let (Some(id), Some(record_value)) = (top.get("id").and_then(Value::as_str), top.get("record")) else {
        return refuse("continuity.record_malformed", "no id or record".into());
    };
    // The canonical form, computed once: the id and the signed message are both over it.
    let canonical = canonical_value(record_value);
    let digest = blake3_hex(canonical.as_bytes());
    if digest != id || store_path(&digest) != path {
        return refuse("continuity.id_mismatch", "its content does not match its id and path; it was altered".into());
    }
    let schema = record_value.get("schema").and_then(Value::as_str).unwrap_or("");
    if schema != SCHEMA {
        let newer =
            schema.strip_prefix("majordomus-continuity/v").and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n > 1);
        if newer {
            return Intrinsic::TooNew(Diagnostic::new(
                "warning",
                "continuity.schema_too_new",
                Some(path),
                format!("{schema} is newer than this executable reads; kept, not read"),
            ));
        }
        return refuse("continuity.schema_unknown", format!("unknown schema {schema:?}"));
    }
    let Ok(envelope) = serde_json::from_value::<Envelope>(Value::Object(top)) else {
        return refuse("continuity.record_malformed", "the envelope has missing or unknown fields".into());
    };
    let record = match Record::deserialize(&envelope.record) {
        Ok(r) => r,
        Err(e) => {
            return refuse(
                "continuity.record_malformed",
                format!("the record does not have the v1 shape: {}", first_words(&e.to_string())),
            )
        }
    };
    if let Err(e) = super::record::check_bounds(&record) {
        return refuse("continuity.record_malformed", e);
    }
    if let Err(e) = signing::verify_canonical(&envelope, &canonical) {
        return refuse("continuity.bad_signature", format!("the signature does not verify ({e})"));
    }
    if let Some(leak) = portability::scan_admission(&envelope.record).into_iter().next() {
        return refuse(leak.code, format!("{}: {}", leak.pointer, leak.reason));
    }
    Intrinsic::Record { id: envelope.id, public_key: envelope.public_key, record: Box::new(record) }
}

/// The checks that depend on this machine's view — the signer's key, revocation, trust and the
/// repository — applied to a file's [`Intrinsic`] verdict.
pub fn standing(path: &str, blob: &str, i: Intrinsic, j: &Judge<'_>) -> (Verdict, Option<Diagnostic>) {
    match i {
        Intrinsic::Record { id, public_key, record } => judge_standing(path, blob, &id, &public_key, *record, j),
        Intrinsic::TooNew(d) => (Verdict::TooNew, Some(d)),
        Intrinsic::Refused(d) => (Verdict::Refused, Some(d)),
        Intrinsic::Stray(d) => (Verdict::Stray, Some(d)),
    }
}

fn judge_standing(
    path: &str,
    blob: &str,
    id: &str,
    public_key: &str,
    record: Record,
    j: &Judge<'_>,
) -> (Verdict, Option<Diagnostic>) {
    let Some(key) = signing::raw_public_key(public_key).map(|k| hex(&k)) else {
        let d = Diagnostic::new("error", "continuity.bad_signature", Some(path), "the public key does not decode");
        return (Verdict::Refused, Some(d));
    };
    match standing_of(path, &key, &record.repository, &record.device.label, j) {
        Ok(trust) => {
            let a = Admitted { id: id.to_string(), path: path.to_string(), blob: blob.to_string(), record, key, trust };
            (Verdict::Admitted(Box::new(a)), None)
        }
        Err(d) => (Verdict::Refused, Some(d)),
    }
}

/// The standing of a record signed by `key` (64 hex) for `repository`: its trust, or the refusal
/// (a revoked signer, another repository). Judged on every read, never cached.
pub fn standing_of(path: &str, key: &str, repository: &str, label: &str, j: &Judge<'_>) -> Result<Trust, Diagnostic> {
    let trust = trust_of(key, j.own_key, j.mesh);
    if trust == Trust::Revoked {
        return Err(Diagnostic::new(
            "error",
            "continuity.revoked_key",
            Some(path),
            format!("signed by a revoked key (device {label})"),
        ));
    }
    if repository != j.repository {
        return Err(Diagnostic::new(
            "error",
            "continuity.foreign_repository",
            Some(path),
            "it belongs to another repository (a fork shares a name, not a root history)",
        ));
    }
    Ok(trust)
}

fn first_words(s: &str) -> String {
    s.split(" at line").next().unwrap_or(s).to_string()
}
