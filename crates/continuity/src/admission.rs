//! Admission (docs/REFERENCE.md#admission): which files of a store are records this machine accepts, cheapest
//! check first. Pure: the caller reads the blobs and passes their bytes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::mesh::{trust_of, Mesh, Trust};
use super::record::{
    canonical_text, canonical_value, id_of_canonical, store_path, Envelope, Record, MAX_STORED_BYTES, SCHEMA,
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
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One diagnostic of a store read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
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
    standing(path, blob, intrinsic(path, bytes), j)
}

/// The cap [`crate::git::Git::map_blobs`] reads store blobs under: a blob whose header says
/// it is larger is refused as `continuity.record_too_large` without being inflated.
pub const BLOB_CAP: u64 = MAX_STORED_BYTES as u64;

/// [`admit`] for a store entry as [`crate::git::Git::map_blobs`] hands it over.
pub fn admit_entry(e: &StoreEntry, blob: Blob<'_>, j: &Judge<'_>) -> (Verdict, Option<Diagnostic>) {
    standing(&e.path(), &e.blob(), intrinsic_entry(e, blob), j)
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

/// A record as this tool stores it, admitted in one pass: the envelope read into its fields
/// with the record's text kept as written, the canonical form taken from that text when it is
/// canonical but for whitespace ([`canonical_text`], which also hands each string to the
/// portability scan), the record parsed once from it. The same checks as [`judged`], which
/// builds a JSON value first (a third of admitting a record, apart from the signature); `None`
/// as soon as anything is not as a well-formed record has it, and [`judged`] then gives the
/// verdict and names the problem. Both reach the same verdict on every file: what this accepts
/// has a canonical form equal to `canonical_value` of the parsed record, byte for byte.
fn admitted_in_one_pass(path: &str, bytes: &[u8]) -> Option<Intrinsic> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Stored<'a> {
        id: String,
        public_key: String,
        signature: String,
        #[serde(borrow)]
        record: &'a serde_json::value::RawValue,
    }
    let stored: Stored<'_> = serde_json::from_slice(bytes).ok()?;
    let mut leaks = false;
    let canonical = canonical_text(stored.record.get(), &mut |pointer, text| {
        leaks |= portability::refused_at_admission(pointer, text)
    })?;
    let digest = id_of_canonical(&canonical);
    if leaks || digest != stored.id || store_path(&digest) != path {
        return None;
    }
    let record: Record = serde_json::from_str(&canonical).ok()?;
    if record.schema != SCHEMA || super::record::check_bounds(&record).is_err() {
        return None;
    }
    signing::verify_parts(&stored.public_key, &stored.signature, &stored.id, Some(&record.device.node), &canonical)
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
    let (Some(id), Some(record_value)) = (top.get("id").and_then(Value::as_str), top.get("record")) else {
        return refuse(Code::RecordMalformed, "no id or record".into());
    };
    // The canonical form, computed once: the id and the signed message are both over it.
    let canonical = canonical_value(record_value);
    let digest = id_of_canonical(&canonical);
    if digest != id || store_path(&digest) != path {
        return refuse(Code::IdMismatch, "its content does not match its id and path; it was altered".into());
    }
    let schema = record_value.get("schema").and_then(Value::as_str).unwrap_or("");
    if schema != SCHEMA {
        let newer =
            schema.strip_prefix("majordomus-continuity/v").and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n > 1);
        if newer {
            return Intrinsic::TooNew(Diagnostic::new(
                Severity::Warning,
                Code::SchemaTooNew,
                Some(path),
                format!("{schema} is newer than this executable reads; kept, not read"),
            ));
        }
        return refuse(Code::SchemaUnknown, format!("unknown schema {schema:?}"));
    }
    let Ok(envelope) = serde_json::from_value::<Envelope>(Value::Object(top)) else {
        return refuse(Code::RecordMalformed, "the envelope has missing or unknown fields".into());
    };
    let record = match Record::deserialize(&envelope.record) {
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
    if let Err(e) = signing::verify_canonical(&envelope, &canonical) {
        return refuse(Code::BadSignature, format!("the signature does not verify ({e})"));
    }
    if let Some(leak) = portability::scan_admission(&envelope.record).into_iter().next() {
        return refuse(leak.code, format!("{}: {}", leak.pointer, leak.reason));
    }
    Intrinsic::Record { id: digest, public_key: envelope.public_key, record: Box::new(record) }
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
        Err(d) => (Verdict::Refused, Some(d)),
    }
}

/// The standing of a record signed by `key` (64 hex) for `repository`: its trust, or the refusal
/// (a revoked signer, another repository). Judged on every read, never cached.
pub fn standing_of(path: &str, key: &str, repository: &str, label: &str, j: &Judge<'_>) -> Result<Trust, Diagnostic> {
    let trust = trust_of(key, j.own_key, j.mesh);
    if trust == Trust::Revoked {
        return Err(Diagnostic::new(
            Severity::Error,
            Code::RevokedKey,
            Some(path),
            format!("signed by a revoked key (device {label})"),
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
        // What, (path, bytes), whether the one pass takes it.
        type Case = (&'static str, (String, Vec<u8>), bool);
        let mut cases: Vec<Case> = Vec::new();
        // As this tool writes records: taken in one pass.
        cases.push(("as stored", stored(sorted(sample_value())), true));
        let (p, b) = stored(sorted(sample_value()));
        let compact = serde_json::to_vec(&serde_json::from_slice::<Value>(&b).unwrap()).unwrap();
        cases.push(("without whitespace", (p, compact), true));
        let mut v = sorted(sample_value());
        v["session"] = Value::Null;
        v["source"]["changed"] = serde_json::json!([]);
        cases.push(("a null and an empty list, signed so", stored(sorted(v)), true));
        // Not canonical but for whitespace: the general path judges (and admits) them.
        let mut v = sorted(sample_value());
        v["handover"]["body"] = "# Objective\nA/B \u{1} test.\n".into();
        let (p, b) = stored(sorted(v));
        let escaped = String::from_utf8(b).unwrap().replace("A/B", "A\\/B").into_bytes();
        cases.push(("an escaped slash", (p, escaped), false));
        cases.push(("keys not in order", stored_as(sample_value(), false), false));
        // Refused, by both.
        let mut v = sorted(sample_value());
        v["handover"]["body"] = "# Objective\nuse ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n".into();
        cases.push(("a secret", stored(sorted(v)), false));
        let (p, b) = stored(sorted(sample_value()));
        let tampered =
            String::from_utf8(b).unwrap().replace("git-majordomus/0.1.0", "git-majordomus/0.1.1").into_bytes();
        cases.push(("tampered", (p, tampered), false));
        let mut v = sorted(sample_value());
        v["source"]["changed_total"] = serde_json::json!(0.0);
        cases.push(("a float count", stored(sorted(v)), false));
        let (_, b) = stored(sorted(sample_value()));
        cases.push(("another path", (store_path(&"ab".repeat(32)), b), false));
        let (p, b) = stored(sorted(sample_value()));
        let other_key =
            String::from_utf8(b).unwrap().replacen("\"public_key\": \"RW", "\"public_key\": \"RX", 1).into_bytes();
        cases.push(("a key that does not decode", (p, other_key), false));
        let mut admitted = 0;
        for (what, (path, bytes), one_pass) in cases {
            let general = judged(&path, &bytes);
            assert_eq!(format!("{:?}", intrinsic(&path, &bytes)), format!("{general:?}"), "{what}");
            assert_eq!(admitted_in_one_pass(&path, &bytes).is_some(), one_pass, "{what}");
            admitted += usize::from(matches!(general, Intrinsic::Record { .. }));
        }
        assert_eq!(admitted, 5, "the first five are records");
    }
}
