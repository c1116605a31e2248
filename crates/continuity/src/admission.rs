//! Admission (docs/REFERENCE.md#admission): which files of a store are records this machine accepts, cheapest
//! check first. Pure: the caller reads the blobs and passes their bytes.
//! Must not touch: the store's objects (the caller reads the blobs), trust decisions of the plan,
//! stdout.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::mesh::{trust_of, Mesh, Trust};
use super::record::{
    id_of_canonical, is_known_schema, read_stored, store_path, NotStored, Record, Stored, MAX_STORED_BYTES, OMITTED,
};
use super::{portability, signing};
use crate::git::store::{Blob, FileMode, StoreEntry};

use crate::model::vocabulary::vocabulary;
use crate::oid::RecordId;

vocabulary! {
    /// How grave a diagnostic is (`error`, `warning`, `info` in JSON and text).
    pub enum Severity in declaration order {
        /// The file or the step is refused.
        Error = "error",
        /// Kept or done, with something to look at.
        Warning = "warning",
        /// For the record.
        Info = "info",
    }
}

vocabulary! {
    /// The closed vocabulary of continuity diagnostics (docs/REFERENCE.md#diagnostics): the one place
    /// their names live; the JSON and the text print [`Code::as_str`]. Codes order by their
    /// printed name (lists sorted by code read as they did when codes were strings).
    pub enum Code {
        RecordMalformed = "continuity.record_malformed",
        IdMismatch = "continuity.id_mismatch",
        DanglingParent = "continuity.dangling_parent",
        BrokenLineage = "continuity.broken_lineage",
        BadSignature = "continuity.bad_signature",
        Untrusted = "continuity.untrusted",
        StrayFile = "continuity.stray_file",
        Diverged = "continuity.diverged",
        UpgradeRequired = "continuity.upgrade_required",
        Secret = "continuity.secret",
        SchemaUnknown = "continuity.schema_unknown",
        SchemaTooNew = "continuity.schema_too_new",
        RevokedKey = "continuity.revoked_key",
        RemoteUnreachable = "continuity.remote_unreachable",
        RecordTooLarge = "continuity.record_too_large",
        PushRejected = "continuity.push_rejected",
        PushRefused = "continuity.push_refused",
        NonportableField = "continuity.nonportable_field",
        NoRemote = "continuity.no_remote",
        NoDeviceIdentity = "continuity.no_device_identity",
        ForeignRepository = "continuity.foreign_repository",
        Collision = "continuity.collision",
        Retired = "continuity.retired",
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One diagnostic of a store read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Diagnostic {
    /// `error`, `warning` or `info`.
    pub severity: Severity,
    /// `continuity.<code>`.
    pub code: Code,
    /// The file, when the diagnostic is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// One sentence; never repeats a secret.
    pub message: String,
}

impl Diagnostic {
    /// Builds a diagnostic.
    pub fn new(severity: Severity, code: Code, path: Option<&str>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity, code, path: path.map(str::to_string), message: message.into() }
    }
}

/// An admitted record.
#[derive(Debug, Clone)]
pub struct Admitted {
    /// Its id.
    pub id: RecordId,
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
    /// Signed by a revoked key before its revocation's pin (docs/REFERENCE.md#mesh): reported,
    /// never admitted, not a failure.
    Retired,
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
    /// What the pinned revocations retire.
    pub pins: &'a Pins,
}

/// Per revoked key with a pin (`trust.revoked_at`), the records its pinned store commit holds:
/// they are `retired`, not refused (docs/REFERENCE.md#mesh). The store is a union, so the
/// records a commit reaches are the records its tree holds.
#[derive(Debug, Clone, Default)]
pub struct Pins {
    by_key: std::collections::HashMap<String, Pinned>,
}

/// One key's pin.
#[derive(Debug, Clone)]
struct Pinned {
    commit: String,
    /// The records its tree holds; `None` when this repository does not have the commit (a
    /// sync brings it): nothing is retired until it does.
    records: Option<std::collections::HashSet<[u8; 32]>>,
}

/// No pins.
pub static NO_PINS: std::sync::LazyLock<Pins> = std::sync::LazyLock::new(Pins::default);

impl Pins {
    /// Records `key`'s pin `commit` and the ids of the records its tree holds (`None`: the
    /// commit is not here).
    pub fn pin(&mut self, key: &str, commit: &str, records: Option<std::collections::HashSet<[u8; 32]>>) {
        self.by_key.insert(key.to_string(), Pinned { commit: commit.to_string(), records });
    }
    /// Whether the record at `path`, signed by `key`, is reached by `key`'s pin.
    pub fn retires(&self, key: &str, path: &str) -> bool {
        let Some(Pinned { records: Some(records), .. }) = self.by_key.get(key) else { return false };
        crate::git::store::record_path_id(path).is_some_and(|id| records.contains(&id))
    }
    /// `key`'s pin, and whether this repository holds it.
    pub fn pin_of(&self, key: &str) -> Option<(&str, bool)> {
        self.by_key.get(key).map(|p| (p.commit.as_str(), p.records.is_some()))
    }
}

use majordomus_core::hex::encode as hex;

/// Whether `path` has the shape `records/<2 hex>/<2 hex>/<64 hex>.json` with matching folders.
pub fn is_record_path(path: &str) -> bool {
    crate::git::store::record_path_id(path).is_some()
}

/// What a store file is, whoever reads it: every check that does not depend on this machine's
/// view (path, size, JSON, id, schema, shape, signature, portability). It is what the per-ref
/// index keeps, keyed by blob and path.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Intrinsic {
    /// A well-formed, correctly signed, portable v1 record.
    Record {
        /// Its id (the digest of its canonical form, which the stored id equals).
        id: RecordId,
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
    standing_with(path, blob, intrinsic(path, bytes), bytes, j)
}

/// [`standing`], a too-new file's judged from its bytes ([`too_new_standing`]).
fn standing_with(path: &str, blob: &str, i: Intrinsic, bytes: &[u8], j: &Judge<'_>) -> (Verdict, Option<Diagnostic>) {
    if matches!(i, Intrinsic::TooNew(_)) {
        if let Err(d) = too_new_standing(path, bytes, j) {
            return (Verdict::Stray, Some(d));
        }
    }
    standing(path, blob, i, j)
}

/// The cap [`crate::git::Git::map_blobs`] reads store blobs under: a blob whose header says
/// it is larger is refused as `continuity.record_too_large` without being inflated.
pub const BLOB_CAP: u64 = MAX_STORED_BYTES as u64;

/// [`admit`] for a store entry as [`crate::git::Git::map_blobs`] hands it over.
pub fn admit_entry(e: &StoreEntry, blob: Blob<'_>, j: &Judge<'_>) -> (Verdict, Option<Diagnostic>) {
    let bytes = match blob {
        Blob::Bytes(b) => b,
        _ => &[],
    };
    standing_with(&e.path(), &e.blob(), intrinsic_entry(e, blob), bytes, j)
}

/// [`intrinsic`] for a store entry: only a regular file of a record's name is read; a symlink,
/// an executable file or a submodule is a stray entry, and a blob larger than [`BLOB_CAP`]
/// is refused from its header.
pub fn intrinsic_entry(e: &StoreEntry, blob: Blob<'_>) -> Intrinsic {
    let path = &*e.path();
    if e.record_id().is_none() {
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
    Intrinsic::Stray(Diagnostic::new(Severity::Warning, Code::StrayFile, Some(path), message))
}

fn too_large(path: &str, n: u64) -> Intrinsic {
    Intrinsic::Refused(Diagnostic::new(
        Severity::Error,
        Code::RecordTooLarge,
        Some(path),
        format!("{n} bytes, cap {MAX_STORED_BYTES}"),
    ))
}

/// The machine-independent checks of one file (docs/REFERENCE.md#admission, cheapest first).
pub fn intrinsic(path: &str, bytes: &[u8]) -> Intrinsic {
    if !is_record_path(path) {
        return stray(path, "not a record of the store; it is ignored".into());
    }
    if bytes.len() > MAX_STORED_BYTES {
        return too_large(path, bytes.len() as u64);
    }
    match admitted_in_one_pass(path, bytes) {
        Some(i) => i,
        None => judged(path, bytes),
    }
}

/// A record as this tool stores it, admitted in one pass: the file read by the one strict
/// reader ([`read_stored`]: byte for byte the stored form, its canonical form written as it is
/// read, each string handed to the portability scan), the record parsed once from its
/// canonical form; no JSON value is built. The same checks as [`judged`], which builds a JSON
/// value first to name the first problem; `None` as soon as anything is not as a well-formed
/// record has it, and [`judged`] then gives the verdict. Both reach the same verdict on every
/// file.
fn admitted_in_one_pass(path: &str, bytes: &[u8]) -> Option<Intrinsic> {
    let mut leaks = false;
    let stored =
        read_stored(bytes, &mut |pointer, text| leaks |= portability::refused_at_admission(pointer, text)).ok()?;
    let digest = id_of_canonical(&stored.canonical);
    if leaks || stored.omitted.is_some() || digest != stored.id || store_path(&digest) != path {
        return None;
    }
    let record: Record = serde_json::from_str(&stored.canonical).ok()?;
    if !is_known_schema(&record.schema) || super::record::check_bounds(&record).is_err() {
        return None;
    }
    signing::verify_parts(
        &stored.public_key,
        &stored.signature,
        &stored.id,
        Some(&record.device.node),
        &stored.canonical,
    )
    .ok()?;
    Some(Intrinsic::Record { id: digest, public_key: stored.public_key, record: Box::new(record) })
}

/// For hostile-input testing (`crate::fuzzing`): panics when [`admitted_in_one_pass`] accepts
/// a file with another verdict than [`judged`] gives it.
#[doc(hidden)]
pub fn assert_one_pass_agrees(path: &str, bytes: &[u8]) {
    if let Some(one_pass) = admitted_in_one_pass(path, bytes) {
        let general = judged(path, bytes);
        assert_eq!(format!("{one_pass:?}"), format!("{general:?}"), "one-pass admission disagrees about {path}");
    }
}

/// [`intrinsic`] of a file whose path and size passed, through a JSON value: every check in
/// order, the first that fails named.
fn judged(path: &str, bytes: &[u8]) -> Intrinsic {
    let refuse = |code: Code, msg: String| Intrinsic::Refused(Diagnostic::new(Severity::Error, code, Some(path), msg));
    let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(bytes) else {
        return refuse(Code::RecordMalformed, "not a JSON object".into());
    };
    let (Some(_), Some(record_value)) = (top.get("id").and_then(Value::as_str), top.get("record")) else {
        return refuse(Code::RecordMalformed, "no id or record".into());
    };
    // The one strict reader: a file that is not byte for byte the stored form of what it holds
    // (a duplicate key, another order, other whitespace or escapes) is not read further.
    let stored = match read_stored(bytes, &mut |_, _| {}) {
        Ok(s) => s,
        Err(e) => return refuse(Code::RecordMalformed, e.to_string()),
    };
    // The canonical form, computed once: the id and the signed message are both over it.
    let canonical = &stored.canonical;
    let digest = id_of_canonical(canonical);
    if digest != stored.id || store_path(&digest) != path {
        return refuse(Code::IdMismatch, "its content does not match its id and path; it was altered".into());
    }
    let schema = record_value.get("schema").and_then(Value::as_str).unwrap_or("");
    if !is_known_schema(schema) {
        if newer_schema(schema) {
            return too_new(path, schema, &stored, record_value);
        }
        return refuse(Code::SchemaUnknown, format!("unknown schema {schema:?}"));
    }
    if let Some(at) = stored.omitted {
        return refuse(Code::RecordMalformed, NotStored { at, why: OMITTED }.to_string());
    }
    let record = match Record::deserialize(record_value) {
        Ok(r) => r,
        Err(e) => {
            return refuse(
                Code::RecordMalformed,
                format!("the record does not have the v1 shape: {}", first_words(&e.to_string())),
            )
        }
    };
    if let Err(e) = super::record::check_bounds(&record) {
        return refuse(Code::RecordMalformed, e);
    }
    let node = record_value.pointer("/device/node").and_then(Value::as_str);
    if let Err(e) = signing::verify_parts(&stored.public_key, &stored.signature, &stored.id, node, canonical) {
        return refuse(Code::BadSignature, format!("the signature does not verify ({e})"));
    }
    if let Some(leak) = portability::scan_admission(record_value).into_iter().next() {
        return refuse(leak.code, format!("{}: {}", leak.pointer, leak.reason));
    }
    Intrinsic::Record { id: digest, public_key: stored.public_key, record: Box::new(record) }
}

/// Whether `schema` names a later version of this record format (`majordomus-continuity/vN`,
/// N > 2).
fn newer_schema(schema: &str) -> bool {
    schema.strip_prefix("majordomus-continuity/v").and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n > 2)
}

/// A file of a later schema, in the stored form, its id its content's: kept (merged and pushed
/// again) only when its envelope verifies as a v1 envelope does — the key's node is the record's
/// `device.node`, the minisign signature is over the canonical form — else stray, never merged:
/// unsigned files would be a channel anyone who can push could fill. Whether the store refuses its
/// key is judged on every read ([`too_new_standing`]).
fn too_new(path: &str, schema: &str, stored: &Stored, record_value: &Value) -> Intrinsic {
    let node = record_value.pointer("/device/node").and_then(Value::as_str);
    if let Err(e) = signing::verify_parts(&stored.public_key, &stored.signature, &stored.id, node, &stored.canonical) {
        return stray(path, format!("claims {schema}, but its signature does not verify ({e}); not merged"));
    }
    Intrinsic::TooNew(Diagnostic::new(
        Severity::Warning,
        Code::SchemaTooNew,
        Some(path),
        format!("{schema} is newer than this executable reads; kept, not read"),
    ))
}

/// The standing of a file [`intrinsic`] found [`Intrinsic::TooNew`] (its bytes `bytes`): `Ok`
/// when its signer's key is not revoked here and it names this repository, else the stray
/// diagnostic (it is not merged). Judged on every read, as a record's standing is.
pub fn too_new_standing(path: &str, bytes: &[u8], j: &Judge<'_>) -> Result<(), Diagnostic> {
    let stray = |why: String| Diagnostic::new(Severity::Warning, Code::StrayFile, Some(path), why);
    let stored = read_stored(bytes, &mut |_, _| {}).map_err(|e| stray(e.to_string()))?;
    let value: Value = serde_json::from_str(&stored.canonical).map_err(|e| stray(e.to_string()))?;
    let text = |p: &str| value.pointer(p).and_then(Value::as_str).unwrap_or("");
    let key = signing::raw_public_key(&stored.public_key)
        .map(|k| hex(&k))
        .ok_or_else(|| stray("a newer schema's file whose public key does not decode; not merged".into()))?;
    standing_of(path, &key, text("/repository"), text("/device/label"), j)
        .map(|_| ())
        .map_err(|d| stray(format!("a newer schema's file {}; not merged", d.message)))
}

/// The checks that depend on this machine's view — the signer's key, revocation, trust and the
/// repository — applied to a file's [`Intrinsic`] verdict.
pub fn standing(path: &str, blob: &str, i: Intrinsic, j: &Judge<'_>) -> (Verdict, Option<Diagnostic>) {
    match i {
        Intrinsic::Record { id, public_key, record } => judge_standing(path, blob, id, &public_key, *record, j),
        Intrinsic::TooNew(d) => (Verdict::TooNew, Some(d)),
        Intrinsic::Refused(d) => (Verdict::Refused, Some(d)),
        Intrinsic::Stray(d) => (Verdict::Stray, Some(d)),
    }
}

fn judge_standing(
    path: &str,
    blob: &str,
    id: RecordId,
    public_key: &str,
    record: Record,
    j: &Judge<'_>,
) -> (Verdict, Option<Diagnostic>) {
    let Some(key) = signing::raw_public_key(public_key).map(|k| hex(&k)) else {
        let d = Diagnostic::new(Severity::Error, Code::BadSignature, Some(path), "the public key does not decode");
        return (Verdict::Refused, Some(d));
    };
    match standing_of(path, &key, &record.repository, &record.device.label, j) {
        Ok(trust) => {
            let a = Admitted { id, path: path.to_string(), blob: blob.to_string(), record, key, trust };
            (Verdict::Admitted(Box::new(a)), None)
        }
        Err(d) if d.code == Code::Retired => (Verdict::Retired, Some(d)),
        Err(d) => (Verdict::Refused, Some(d)),
    }
}

/// The standing of a record signed by `key` (64 hex) for `repository`: its trust, or the refusal
/// (a revoked signer, another repository) — `continuity.retired` (info) for a revoked signer's
/// record its pin reaches. Judged on every read, never cached.
pub fn standing_of(path: &str, key: &str, repository: &str, label: &str, j: &Judge<'_>) -> Result<Trust, Diagnostic> {
    let trust = trust_of(key, j.own_key, j.mesh);
    if trust == Trust::Revoked {
        let key_id = signing::key_id_of_raw_hex(key);
        if j.pins.retires(key, path) {
            let (pin, _) = j.pins.pin_of(key).unwrap_or_default();
            return Err(Diagnostic::new(
                Severity::Info,
                Code::Retired,
                Some(path),
                format!(
                    "signed by device {label} (key {key_id}) before its revocation (pinned at store commit {}); retired: kept, not admitted",
                    &pin[..pin.len().min(12)]
                ),
            ));
        }
        let why = match j.pins.pin_of(key) {
            Some((pin, true)) => format!(
                "; its revocation is pinned at store commit {}, which does not hold this record: the key was used after it was revoked",
                &pin[..pin.len().min(12)]
            ),
            Some((pin, false)) => format!(
                "; its revocation's pin {} is not in this repository (a sync fetches it)",
                &pin[..pin.len().min(12)]
            ),
            None => String::new(),
        };
        return Err(Diagnostic::new(
            Severity::Error,
            Code::RevokedKey,
            Some(path),
            format!("signed by a revoked key (device {label}, key {key_id}){why}"),
        ));
    }
    if repository != j.repository {
        return Err(Diagnostic::new(
            Severity::Error,
            Code::ForeignRepository,
            Some(path),
            "it belongs to another repository (a fork shares a name, not a root history)",
        ));
    }
    Ok(trust)
}

fn first_words(s: &str) -> String {
    s.split(" at line").next().unwrap_or(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_severities_print_read_back_and_serialise_as_their_names() {
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        for c in Code::ALL {
            assert!(c.as_str().starts_with("continuity."), "{c}");
            assert_eq!(Code::parse(c.as_str()), Some(*c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
            assert_eq!(serde_json::from_value::<Code>(c.as_str().into()).unwrap(), *c);
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len(), "every name once");
        assert_eq!(Code::parse("continuity.nope"), None);
        for s in [Severity::Error, Severity::Warning, Severity::Info] {
            assert_eq!(Severity::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        let d = Diagnostic::new(Severity::Warning, Code::StrayFile, Some("records/zz"), "ignored");
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            r#"{"severity":"warning","code":"continuity.stray_file","path":"records/zz","message":"ignored"}"#
        );
        // Sorted by printed name, as when codes were strings.
        assert!(Code::BadSignature < Code::Collision && Code::SchemaUnknown < Code::Secret);
    }

    /// A record signed as given (its value kept as is, its keys sorted when `sort`), stored as
    /// this tool stores envelopes.
    fn stored_as(mut value: Value, sort: bool) -> (String, Vec<u8>) {
        let key = signing::DeviceKey::from_seed([7; 32], Some("laptop".into()), "2026-09-03T20:00:00Z");
        value["device"] = serde_json::to_value(key.device()).unwrap();
        if sort {
            value = crate::record::sorted(&value);
        }
        let e = key.sign_value(value);
        (store_path(&e.id), super::super::record::stored_bytes(&e))
    }

    fn stored(value: Value) -> (String, Vec<u8>) {
        stored_as(value, true)
    }

    fn sample_value() -> Value {
        serde_json::to_value(crate::record::tests::sample()).unwrap()
    }

    #[test]
    fn one_pass_admission_gives_the_verdict_of_the_general_path() {
        let sorted = |v: Value| crate::record::sorted(&v);
        // What, (path, bytes), whether the one pass takes it, the refusal's code if refused.
        type Case = (&'static str, (String, Vec<u8>), Option<&'static str>);
        let mut cases: Vec<Case> = Vec::new();
        // As this tool writes records: taken in one pass.
        cases.push(("as stored", stored(sorted(sample_value())), None));
        // Not the stored form of what it holds: refused by both (docs/REFERENCE.md#continuity-record).
        let malformed = Some("continuity.record_malformed");
        let (p, b) = stored(sorted(sample_value()));
        let compact = serde_json::to_vec(&serde_json::from_slice::<Value>(&b).unwrap()).unwrap();
        cases.push(("without whitespace", (p.clone(), compact), malformed));
        let text = String::from_utf8(b.clone()).unwrap();
        cases.push(("a tab for two spaces", (p.clone(), text.replacen("  ", "\t", 1).into_bytes()), malformed));
        cases.push(("no trailing newline", (p.clone(), text.trim_end().as_bytes().to_vec()), malformed));
        cases.push(("two trailing newlines", (p.clone(), format!("{text}\n").into_bytes()), malformed));
        let dup = text.replacen("\n}\n", &format!(",\n  \"record\": {}\n}}\n", "{}"), 1);
        cases.push(("the record key twice", (p.clone(), dup.into_bytes()), malformed));
        let dup = text.replacen("\"episode\": \"none\",", "\"episode\": \"none\",\n    \"episode\": \"none\",", 1);
        cases.push(("a record key twice", (p.clone(), dup.into_bytes()), malformed));
        let swapped = text.replacen("\"id\"", "\"iX\"", 1).replacen("\"public_key\"", "\"id\"", 1);
        cases.push(("envelope keys in another order", (p.clone(), swapped.into_bytes()), malformed));
        let mut v = sorted(sample_value());
        v["session"] = Value::Null;
        v["source"]["changed"] = serde_json::json!([]);
        cases.push(("a null and an empty list, signed so", stored(sorted(v)), malformed));
        let mut v = sorted(sample_value());
        v["handover"]["body"] = "# Objective\nA/B test.\n".into();
        let (p2, b2) = stored(sorted(v));
        let escaped = String::from_utf8(b2).unwrap().replace("A/B", "A\\/B").into_bytes();
        cases.push(("an escaped slash", (p2, escaped), malformed));
        cases.push(("keys not in order", stored_as(sample_value(), false), malformed));
        let mut v = sorted(sample_value());
        v["handover"]["body"] = "# Objective\nA \u{1b}[2J test.\n".into();
        cases.push(("a control character in a body", stored(sorted(v)), malformed));
        // Refused, by both, for what they hold.
        let mut v = sorted(sample_value());
        v["handover"]["body"] = "# Objective\nuse ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n".into();
        cases.push(("a secret", stored(sorted(v)), Some("continuity.secret")));
        let (p, b) = stored(sorted(sample_value()));
        let tampered =
            String::from_utf8(b).unwrap().replace("git-majordomus/0.1.0", "git-majordomus/0.1.1").into_bytes();
        cases.push(("tampered", (p, tampered), Some("continuity.id_mismatch")));
        let mut v = sorted(sample_value());
        v["source"]["changed_total"] = serde_json::json!(0.0);
        cases.push(("a float count", stored(sorted(v)), malformed));
        let (_, b) = stored(sorted(sample_value()));
        cases.push(("another path", (store_path(&"ab".repeat(32)), b), Some("continuity.id_mismatch")));
        let (p, b) = stored(sorted(sample_value()));
        let other_key =
            String::from_utf8(b).unwrap().replacen("\"public_key\": \"RW", "\"public_key\": \"RX", 1).into_bytes();
        cases.push(("a key that does not decode", (p, other_key), Some("continuity.bad_signature")));
        for (what, (path, bytes), refused) in cases {
            let general = judged(&path, &bytes);
            assert_eq!(format!("{:?}", intrinsic(&path, &bytes)), format!("{general:?}"), "{what}");
            assert_eq!(admitted_in_one_pass(&path, &bytes).is_some(), refused.is_none(), "{what}");
            match (&general, refused) {
                (Intrinsic::Record { .. }, None) => {}
                (Intrinsic::Refused(d), Some(code)) => assert_eq!(d.code.as_str(), code, "{what}: {d:?}"),
                (other, _) => panic!("{what}: {other:?}"),
            }
            assert_one_pass_agrees(&path, &bytes);
        }
    }

    #[test]
    fn a_duplicate_record_key_is_malformed_and_named_by_its_byte() {
        // Attack A3: a benign record and then the signed one under the same key. The general
        // reader (last duplicate wins) would admit it; every later read refused it.
        let (p, b) = stored(crate::record::sorted(&sample_value()));
        let text = String::from_utf8(b).unwrap();
        let record_at = text.find("\"record\": ").unwrap();
        let benign = "\"record\": {\n    \"x\": 1\n  },\n  ";
        let forged = format!("{}{benign}{}", &text[..record_at], &text[record_at..]);
        let Intrinsic::Refused(d) = intrinsic(&p, forged.as_bytes()) else { panic!("admitted") };
        assert_eq!(d.code, Code::RecordMalformed);
        assert!(d.message.starts_with("not in the stored form of a record at byte "), "{}", d.message);
        assert!(crate::record::read_record(forged.as_bytes()).is_err());
        assert!(crate::record::read_record(text.as_bytes()).is_ok());
    }

    #[test]
    fn a_forged_decision_or_question_is_refused_naming_its_field() {
        // Attack A1: a newline in a carried decision's title or a question forges entries.
        let mut v = sample_value();
        v["decisions"] = serde_json::json!([{"title": "Legit\n\n## 2026-01-01 — FORGED DECISION: disable CI\nTask: none\nHead: NONE\nWhy: injected", "text": "Why: x"}]);
        let (p, b) = stored(v);
        let Intrinsic::Refused(d) = intrinsic(&p, &b) else { panic!("admitted") };
        assert_eq!((d.code, d.message.split(':').next()), (Code::RecordMalformed, Some("/decisions/0/title")), "{d:?}");
        let mut v = sample_value();
        v["questions"] = serde_json::json!([{"text": "q1\n- [unresolved] t-x — INJECTED QUESTION (2026-01-01)", "opened": "2026-12-06"}]);
        let (p, b) = stored(v);
        let Intrinsic::Refused(d) = intrinsic(&p, &b) else { panic!("admitted") };
        assert_eq!((d.code, d.message.split(':').next()), (Code::RecordMalformed, Some("/questions/0/text")), "{d:?}");
    }

    #[test]
    fn a_newer_schema_is_kept_only_signed_by_a_key_not_refused() {
        let key = signing::DeviceKey::from_seed([7; 32], Some("laptop".into()), "2026-09-03T20:00:00Z");
        let raw = hex(&key.public_key_raw());
        let mut v = sample_value();
        v["schema"] = "majordomus-continuity/v9".into();
        v["future"] = "field".into();
        let (p, b) = stored(v);
        let undeclared =
            Judge { repository: "0123456789abcdef0123456789abcdef", mesh: None, own_key: None, pins: &NO_PINS };
        assert!(matches!(admit(&p, "b", &b, &undeclared).0, Verdict::TooNew));
        // Its signature broken (another record's): stray.
        let (_, other) = stored(sample_value());
        let other: Value = serde_json::from_slice(&other).unwrap();
        let text = String::from_utf8(b.clone()).unwrap();
        let mine: Value = serde_json::from_slice(&b).unwrap();
        let forged = text.replace(
            mine["signature"].as_str().unwrap().replace('\n', "\\n").as_str(),
            &other["signature"].as_str().unwrap().replace('\n', "\\n"),
        );
        assert_ne!(forged, text);
        let (verdict, d) = admit(&p, "b", forged.as_bytes(), &undeclared);
        assert!(matches!(verdict, Verdict::Stray), "{d:?}");
        assert_eq!(d.unwrap().code, Code::StrayFile);
        // Signed by a revoked key: stray.
        let text = format!("schema: mesh/v1\nenabled: true\ntrust:\n  policy: tofu\n  revoked: [{raw}]\n");
        let mesh =
            crate::mesh::parse("m.yaml", &text, &|k| signing::raw_public_key(k).map(|r| hex(&r))).unwrap().unwrap();
        let declared = Judge { mesh: Some(&mesh), ..undeclared };
        let (verdict, d) = admit(&p, "b", &b, &declared);
        assert!(matches!(verdict, Verdict::Stray), "{d:?}");
        assert!(d.unwrap().message.contains("revoked"));
    }
}
