//! Device keys and minisign signatures (docs/REFERENCE.md#id-and-signature, docs/REFERENCE.md#device-key, docs/REFERENCE.md#continuity-commands).
//!
//! Owns: `node.json`, the only Ed25519 signer (ed25519-dalek), the minisign byte layout (as minisign 0.11 writes it)
//! and the signature check admission relies on (texts parsed by minisign-verify, legacy `Ed`
//! refused; the Ed25519 check as libsodium, which the stock `minisign` CLI uses, makes it, over
//! curve25519-dalek's group operations, D32, D42).
//! Must not touch: the environment (callers pass `XDG_STATE_HOME`/`HOME`), stdout, git.

use std::fmt;
use std::path::Path;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use blake2::{Blake2b512, Digest};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use ed25519_dalek::{Signer, SigningKey};
use serde::{Deserialize, Serialize};
use sha2::Sha512;

use super::record::{self, blake3_hex, canonical_value, signed_message, Envelope, Record, MESSAGE_PREFIX};
use crate::error::{Error, Result};
use crate::store::atomic;
use serde_json::Value;

/// The schema string of `node.json`.
pub const DEVICE_SCHEMA: &str = "majordomus-device/v1";
/// The untrusted comment of every signature we write.
pub const UNTRUSTED_COMMENT: &str = "signature from git-majordomus";

/// `node.json` as stored.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeFile {
    schema: String,
    secret_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    created_at: String,
    /// The keys this device used before (`continuity device rotate`), oldest first; their
    /// secrets are not kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    rotated: Vec<Rotated>,
}

/// A key this device used before a rotation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rotated {
    /// Its minisign public key (`RW…`).
    pub public_key: String,
    /// When it was replaced.
    pub rotated_at: String,
}

/// This machine's device key: an Ed25519 key, its optional label and creation time.
pub struct DeviceKey {
    key: SigningKey,
    label: Option<String>,
    created_at: String,
    rotated: Vec<Rotated>,
}

impl fmt::Debug for DeviceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceKey").field("node", &self.node()).field("label", &self.label()).finish_non_exhaustive()
    }
}

/// Why a record's signature was not accepted. The text never holds key or signature material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// `public_key` is not a minisign Ed25519 public key.
    #[error("public_key is not a minisign Ed25519 public key")]
    BadPublicKey,
    /// `public_key` is an Ed25519 key of small order or written non-canonically: under such a
    /// key signatures can be forged, and the stock `minisign` CLI (libsodium) refuses it.
    #[error("public_key is a small-order or non-canonical Ed25519 key, which stock minisign refuses")]
    WeakPublicKey,
    /// The node id derived from `public_key` differs from `record.device.node`.
    #[error("the node id of public_key does not match record.device.node")]
    NodeMismatch,
    /// `signature` is not a minisign signature text, or uses the legacy algorithm.
    #[error("signature is not a minisign (ED) signature")]
    MalformedSignature,
    /// The signature does not verify over the record.
    #[error("signature does not verify over the record")]
    BadSignature,
    /// The trusted comment does not name this record id and node.
    #[error("trusted comment does not name this record and node")]
    TrustedCommentMismatch,
}

/// Whether `label` is a valid device label: 1–64 ASCII letters, digits, `.`, `_`, `-`.
pub fn valid_label(label: &str) -> bool {
    (1..=64).contains(&label.len()) && label.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

fn malformed(path: &Path, why: impl fmt::Display) -> Error {
    Error::io(format!("{}: malformed device identity ({why})", path.display()))
        .hint("repair or move the file away; it is never replaced automatically")
}

/// The seed of a device file: 64 hex digits (written lowercase; uppercase read too).
fn parse_seed(hex: &str) -> Option<[u8; 32]> {
    majordomus_core::hex::decode_array(hex.to_ascii_lowercase().as_bytes())
}

use majordomus_core::hex::encode as hex;

/// Reads the device key at `path`; `Ok(None)` when the file does not exist. A malformed file is an error.
pub fn load(path: &Path) -> Result<Option<DeviceKey>> {
    let Some(text) = atomic::read_opt(path)? else { return Ok(None) };
    let file: NodeFile = serde_json::from_str(&text)
        .map_err(|e| malformed(path, format_args!("not a device file at line {}, column {}", e.line(), e.column())))?;
    if file.schema != DEVICE_SCHEMA {
        return Err(malformed(path, format_args!("schema is not {DEVICE_SCHEMA}")));
    }
    let seed = parse_seed(&file.secret_key).ok_or_else(|| malformed(path, "secret_key is not 64 hex"))?;
    if file.label.as_deref().is_some_and(|l| !valid_label(l)) {
        return Err(malformed(path, "label holds characters other than letters, digits, '.', '_', '-'"));
    }
    if file.rotated.iter().any(|r| raw_public_key(&r.public_key).is_none()) {
        return Err(malformed(path, "a rotated public_key is not a minisign public key"));
    }
    Ok(Some(DeviceKey {
        key: SigningKey::from_bytes(&seed),
        label: file.label,
        created_at: file.created_at,
        rotated: file.rotated,
    }))
}

/// Reads the device key at `path`, creating a fresh one (stamped `now_stamp`) when absent.
/// Creation never overwrites: when another process created the file first, its key is used.
pub fn load_or_create(path: &Path, now_stamp: &str) -> Result<DeviceKey> {
    if let Some(key) = load(path)? {
        return Ok(key);
    }
    let key = DeviceKey::fresh(None, now_stamp, Vec::new())?;
    if atomic::create_if_absent_mode(path, &key.file_bytes(), 0o600)? {
        return Ok(key);
    }
    load(path)?.ok_or_else(|| Error::io(format!("{}: device identity vanished while being created", path.display())))
}

/// Sets the label of the device key at `path` (created when absent); the key itself is unchanged.
pub fn set_label(path: &Path, label: &str, now_stamp: &str) -> Result<DeviceKey> {
    if !valid_label(label) {
        return Err(
            Error::refused(format!("invalid device label {label:?}")).hint("use 1-64 letters, digits, '.', '_' or '-'")
        );
    }
    let mut key = load_or_create(path, now_stamp)?;
    key.label = Some(label.to_string());
    atomic::replace_mode(path, &key.file_bytes(), 0o600)?;
    Ok(key)
}

/// Replaces the device key at `path` with a fresh one (`continuity device rotate`): the label is
/// kept, the old public key is listed under `rotated` (its secret is not kept). Returns the old
/// key and the new one; without a key there is nothing to rotate (12).
pub fn rotate(path: &Path, now_stamp: &str) -> Result<(DeviceKey, DeviceKey)> {
    let old = load(path)?.ok_or_else(|| {
        Error::not_found("this machine has no device key to rotate")
            .hint("git majordomus continuity device creates one")
    })?;
    let mut rotated = old.rotated.clone();
    rotated.push(Rotated { public_key: old.public_key_base64(), rotated_at: now_stamp.to_string() });
    let new = DeviceKey::fresh(old.label.clone(), now_stamp, rotated)?;
    atomic::replace_mode(path, &new.file_bytes(), 0o600)?;
    Ok((old, new))
}

impl DeviceKey {
    /// A key from a fixed 32-byte seed (tests and fixtures).
    pub fn from_seed(seed: [u8; 32], label: Option<String>, created_at: &str) -> DeviceKey {
        DeviceKey { key: SigningKey::from_bytes(&seed), label, created_at: created_at.to_string(), rotated: Vec::new() }
    }

    /// A key from fresh randomness.
    fn fresh(label: Option<String>, created_at: &str, rotated: Vec<Rotated>) -> Result<DeviceKey> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| Error::io(format!("no randomness for a device key: {e}")))?;
        Ok(DeviceKey { key: SigningKey::from_bytes(&seed), label, created_at: created_at.to_string(), rotated })
    }

    /// The keys this device used before, oldest first.
    pub fn rotated(&self) -> &[Rotated] {
        &self.rotated
    }

    fn file_bytes(&self) -> Vec<u8> {
        let file = NodeFile {
            schema: DEVICE_SCHEMA.into(),
            secret_key: hex(self.key.as_bytes()),
            label: self.label.clone(),
            created_at: self.created_at.clone(),
            rotated: self.rotated.clone(),
        };
        let mut s = serde_json::to_string_pretty(&file).unwrap_or_default();
        s.push('\n');
        s.into_bytes()
    }

    /// The raw 32-byte Ed25519 public key.
    pub fn public_key_raw(&self) -> [u8; 32] {
        self.key.verifying_key().to_bytes()
    }

    /// The node id: first 16 bytes of BLAKE3(public key), 32 hex.
    pub fn node(&self) -> String {
        node_of_raw(&self.public_key_raw())
    }

    /// The minisign key id: first 8 bytes of BLAKE3(public key).
    pub fn key_id(&self) -> [u8; 8] {
        let mut id = [0u8; 8];
        id.copy_from_slice(&blake3::hash(&self.public_key_raw()).as_bytes()[..8]);
        id
    }

    /// The label: the stored one, else the first 8 hex of the node id.
    pub fn label(&self) -> String {
        self.label.clone().unwrap_or_else(|| self.node()[..8].to_string())
    }

    /// When the key was created (as stored).
    pub fn created_at(&self) -> &str {
        &self.created_at
    }

    /// The record's `device` member for this key.
    pub fn device(&self) -> record::Device {
        record::Device { node: self.node(), label: self.label() }
    }

    /// The minisign public key line: base64(`Ed` ‖ key id ‖ public key), starts `RW`.
    pub fn public_key_base64(&self) -> String {
        let mut bin = b"Ed".to_vec();
        bin.extend_from_slice(&self.key_id());
        bin.extend_from_slice(&self.public_key_raw());
        B64.encode(bin)
    }

    /// The minisign public key file: untrusted comment line and key line.
    pub fn public_key_file(&self) -> String {
        public_key_file_of(&self.key_id(), &self.public_key_base64())
    }

    /// Signs `record` (whose `device` should be [`DeviceKey::device`]) into a complete envelope.
    pub fn sign(&self, record: &Record) -> Envelope {
        self.sign_value(serde_json::to_value(record).map(|v| record::sorted(&v)).unwrap_or_default())
    }

    /// Signs a record given as a JSON value, kept as given in the envelope (its id and signature
    /// are over its canonical form): what [`DeviceKey::sign`] does with a record's value, and
    /// how tests sign records that are not as this tool writes them (a later schema's, say).
    #[doc(hidden)]
    pub fn sign_value(&self, value: Value) -> Envelope {
        let canonical = canonical_value(&value);
        let id = blake3_hex(canonical.as_bytes());
        let message = signed_message(&canonical);
        let sig = self.key.sign(&Blake2b512::digest(&message)).to_bytes();
        let trusted = trusted_comment(&id, &self.node());
        let mut global = sig.to_vec();
        global.extend_from_slice(trusted.as_bytes());
        let global = self.key.sign(&global).to_bytes();
        let mut line = b"ED".to_vec();
        line.extend_from_slice(&self.key_id());
        line.extend_from_slice(&sig);
        let signature = format!(
            "untrusted comment: {UNTRUSTED_COMMENT}\n{}\ntrusted comment: {trusted}\n{}\n",
            B64.encode(line),
            B64.encode(global)
        );
        Envelope { id, public_key: self.public_key_base64(), signature, record: value }
    }
}

fn trusted_comment(id: &str, node: &str) -> String {
    format!("majordomus-continuity id:{id} node:{node}")
}

/// The node id of a raw key given as 64 hex (as the mesh keeps keys).
pub fn node_of_raw_hex(raw: &str) -> Option<String> {
    let bytes: [u8; 32] = crate::hex::decode(raw)?.try_into().ok()?;
    Some(node_of_raw(&bytes))
}

/// The key id shown for a raw key given as 64 hex.
pub fn key_id_of_raw_hex(raw: &str) -> String {
    node_of_raw_hex(raw).map_or_else(|| "?".into(), |n| crate::view::key_id(&n))
}

fn node_of_raw(pk: &[u8; 32]) -> String {
    hex(&blake3::hash(pk).as_bytes()[..16])
}

fn public_key_file_of(key_id: &[u8; 8], line: &str) -> String {
    format!("untrusted comment: minisign public key {:016X}\n{line}\n", u64::from_le_bytes(*key_id))
}

/// Splits a minisign public key line (`RW...`) into key id and raw key.
fn decode_minisign(pk_base64: &str) -> Option<([u8; 8], [u8; 32])> {
    let bin = B64.decode(pk_base64).ok()?;
    if bin.len() != 42 || &bin[..2] != b"Ed" {
        return None;
    }
    let (mut id, mut pk) = ([0u8; 8], [0u8; 32]);
    id.copy_from_slice(&bin[2..10]);
    pk.copy_from_slice(&bin[10..]);
    Some((id, pk))
}

/// The raw Ed25519 key of a trust-list entry: a minisign key line (`RW...`) or 64 hex.
pub fn raw_public_key(pk: &str) -> Option<[u8; 32]> {
    let pk = pk.trim();
    if pk.len() == 64 && pk.bytes().all(|b| b.is_ascii_hexdigit()) {
        return parse_seed(pk);
    }
    decode_minisign(pk).map(|(_, raw)| raw)
}

/// The node id (32 hex) of a public key in either form [`raw_public_key`] accepts.
pub fn node_of_public_key(pk: &str) -> Option<String> {
    raw_public_key(pk).map(|raw| node_of_raw(&raw))
}

/// Checks an envelope's signature: the key's node is `record.device.node`, the minisign (`ED`)
/// signature verifies over the signed message, and the trusted comment names `id` and node.
pub fn verify(envelope: &Envelope) -> std::result::Result<(), VerifyError> {
    verify_canonical(envelope, &canonical_value(&envelope.record))
}

/// [`verify`], given the record's canonical form (admission has computed it for the id).
///
/// The texts are parsed by minisign-verify (`PublicKey::from_base64`, `Signature::decode`), so
/// what decodes is exactly what it accepts; the two Ed25519 equations are then checked as
/// ed25519-dalek's `verify` checks them ([`Key`], the same verdicts as minisign-verify's).
pub fn verify_canonical(envelope: &Envelope, canonical: &str) -> std::result::Result<(), VerifyError> {
    let node = envelope.record.pointer("/device/node").and_then(|v| v.as_str());
    verify_parts(&envelope.public_key, &envelope.signature, &envelope.id, node, canonical)
}

/// [`verify_canonical`] of an envelope given by its parts: the public key and signature texts,
/// the id, the record's `device.node` (if it has one as a string) and its canonical form.
pub fn verify_parts(
    public_key: &str,
    signature: &str,
    id: &str,
    record_node: Option<&str>,
    canonical: &str,
) -> std::result::Result<(), VerifyError> {
    let signer = signer(public_key).ok_or(VerifyError::BadPublicKey)?;
    let (key_id, node) = (signer.key_id, signer.node.as_str());
    if record_node != Some(node) {
        return Err(VerifyError::NodeMismatch);
    }
    let sig = minisign_verify::Signature::decode(signature).map_err(|_| VerifyError::MalformedSignature)?;
    let parts = signature_parts(signature).ok_or(VerifyError::MalformedSignature)?;
    // `PublicKey::verify(message, sig, false)`, step by step: the key ids, the algorithm (the
    // legacy `Ed` is refused), the signature over BLAKE2b-512(message), the global signature
    // over signature ‖ trusted comment.
    if parts.key_id != key_id {
        return Err(VerifyError::BadSignature);
    }
    if !parts.prehashed {
        return Err(VerifyError::MalformedSignature);
    }
    let mut h = Blake2b512::new();
    h.update(MESSAGE_PREFIX);
    h.update(canonical.as_bytes());
    let digest = h.finalize();
    let trusted = sig.trusted_comment();
    let Some(key) = &signer.key else { return Err(VerifyError::WeakPublicKey) };
    if !key.verifies([(&[&digest[..]], &parts.signature), (&[&parts.signature[..], trusted.as_bytes()], &parts.global)])
    {
        return Err(VerifyError::BadSignature);
    }
    if trusted != trusted_comment(id, node) {
        return Err(VerifyError::TrustedCommentMismatch);
    }
    Ok(())
}

/// The binary parts of a minisign signature text that `minisign_verify::Signature::decode`
/// accepted (it keeps them private).
struct SignatureParts {
    key_id: [u8; 8],
    signature: [u8; 64],
    global: [u8; 64],
    prehashed: bool,
}

/// Decodes the second and fourth lines of a signature text as `Signature::decode` does (lines as
/// `str::lines` splits them; standard padded base64, as strict as its decoder).
fn signature_parts(text: &str) -> Option<SignatureParts> {
    let mut lines = text.lines();
    lines.next()?;
    let bin1 = B64.decode(lines.next()?).ok()?;
    lines.next()?;
    let bin2 = B64.decode(lines.next()?).ok()?;
    if bin1.len() != 74 || bin2.len() != 64 {
        return None;
    }
    let mut p = SignatureParts { key_id: [0; 8], signature: [0; 64], global: [0; 64], prehashed: bin1[..2] == *b"ED" };
    p.key_id.copy_from_slice(&bin1[2..10]);
    p.signature.copy_from_slice(&bin1[10..74]);
    p.global.copy_from_slice(&bin2);
    Some(p)
}

/// What checking a signature needs of a signer's public key text (`RW...`): its key id, node
/// and key (`None` for a key libsodium refuses: small order or not canonical, [`Key::decompress`]).
struct SignerKey {
    key_id: [u8; 8],
    node: String,
    key: Option<Key>,
}

/// A decoded signer, shared within a thread (`None`: the text is refused).
type Signed = Option<std::rc::Rc<SignerKey>>;

/// The [`SignerKey`] of public key text `pk`, `None` when minisign-verify refuses the text.
/// Decoding and decompressing a key cost about a quarter of a signature check, and a store has
/// few signers: each thread keeps the last few it decoded, by their text.
fn signer(pk: &str) -> Signed {
    thread_local! {
        static SIGNERS: std::cell::RefCell<Vec<(Box<str>, Signed)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    const KEPT: usize = 64;
    SIGNERS.with_borrow_mut(|signers| {
        if let Some((_, s)) = signers.iter().find(|(text, _)| **text == *pk) {
            return s.clone();
        }
        let decoded = (|| {
            minisign_verify::PublicKey::from_base64(pk).ok()?;
            let (key_id, raw) = decode_minisign(pk)?;
            Some(std::rc::Rc::new(SignerKey { key_id, node: node_of_raw(&raw), key: Key::decompress(&raw) }))
        })();
        if signers.len() == KEPT {
            signers.remove(0);
        }
        signers.push((pk.into(), decoded.clone()));
        decoded
    })
}

/// A signer's Ed25519 key as libsodium's `crypto_sign_verify_detached` (what the stock
/// `minisign` CLI verifies with) judges it: the key's bytes as written (hashed into each check)
/// and its point negated (D42, D69).
///
/// A key is refused when its encoding is not canonical or its point has small order (whatever
/// the signature: under such a key a signature can be forged for some messages). Each check
/// refuses `s` at or above the group order and an `R` that encodes a small-order point, then is
/// the cofactorless equation: `k = SHA-512(R ‖ A ‖ message)` reduced, and `[s]B − [k]A`
/// compressed must be `R`'s exact bytes. That is ed25519-dalek's `verify_strict` with a
/// canonical key, the point computed as ed25519-dalek computes it (one variable-time double
/// multiplication, on the AVX-512 IFMA backend where the processor has it). A per-key table of
/// the point's multiples (D32) is gone: with twenty signers its constant-time lookups cost more
/// than they saved (D69).
struct Key {
    bytes: [u8; 32],
    minus_a: EdwardsPoint,
}

impl Key {
    /// The key of `bytes`, `None` for what libsodium refuses whatever the signature: an
    /// encoding that does not decompress or is not canonical (`y` not below the field's prime,
    /// or the sign of `x = 0`), and a point of small order (the identity, all zeros and the
    /// other six). A key of mixed order is accepted, as libsodium accepts it.
    fn decompress(bytes: &[u8; 32]) -> Option<Key> {
        let a = CompressedEdwardsY(*bytes).decompress()?;
        if a.compress().0 != *bytes || a.is_small_order() {
            return None;
        }
        Some(Key { bytes: *bytes, minus_a: -a })
    }

    /// `[s]B − [k]A` for `signature` (`R ‖ s`) over `message` (given in parts), `None` when
    /// `s` is not below the group order or `R` encodes a point of small order.
    fn recomputed_r(&self, message: &[&[u8]], signature: &[u8; 64]) -> Option<EdwardsPoint> {
        let s: Option<Scalar> = Scalar::from_canonical_bytes(signature[32..].try_into().ok()?).into();
        let s = s?;
        if small_order_encoding(signature[..32].try_into().ok()?) {
            return None;
        }
        let mut h = Sha512::new();
        h.update(&signature[..32]);
        h.update(self.bytes);
        for part in message {
            h.update(part);
        }
        let k = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
        Some(EdwardsPoint::vartime_double_scalar_mul_basepoint(&k, &self.minus_a, &s))
    }

    /// Whether every signature verifies over its message (a minisign signature's two checks,
    /// compressed with one field inversion).
    fn verifies<const N: usize>(&self, checks: [(&[&[u8]], &[u8; 64]); N]) -> bool {
        let mut points = [EdwardsPoint::default(); N];
        for (point, (message, signature)) in points.iter_mut().zip(checks) {
            match self.recomputed_r(message, signature) {
                Some(p) => *point = p,
                None => return false,
            }
        }
        EdwardsPoint::compress_batch(&points).iter().zip(checks).all(|(r, (_, sig))| r.0[..] == sig[..32])
    }
}

/// Whether `r` encodes a point of small order, canonically or not, as libsodium's
/// `ge25519_has_small_order` judges (the sign bit ignored): `y` is that of one of the eight
/// torsion points (1, −1, 0 and the two of order 8), or `y + p` for `y` 0 or 1.
fn small_order_encoding(r: &[u8; 32]) -> bool {
    use curve25519_dalek::constants::EIGHT_TORSION;
    static YS: std::sync::OnceLock<Vec<[u8; 32]>> = std::sync::OnceLock::new();
    let ys = YS.get_or_init(|| {
        let mut ys: Vec<[u8; 32]> = EIGHT_TORSION.iter().map(|t| unsigned(t.compress().0)).collect();
        for low in [0xed, 0xee] {
            let mut y = [0xff; 32];
            y[0] = low;
            y[31] = 0x7f;
            ys.push(y);
        }
        ys.sort_unstable();
        ys.dedup();
        ys
    });
    ys.contains(&unsigned(*r))
}

/// An encoding with its sign bit cleared: its `y` alone.
fn unsigned(mut bytes: [u8; 32]) -> [u8; 32] {
    bytes[31] &= 0x7f;
    bytes
}

/// Whether `signature` (`R ‖ s`) verifies `message` under the raw Ed25519 key `public_key` by
/// the rules admission applies to each of a record's two signatures ([`Key`]). The raw level
/// test vectors and the differential fuzz target check (`fuzzing::ed25519`).
#[doc(hidden)]
pub fn ed25519_verifies(public_key: &[u8; 32], message: &[u8], signature: &[u8; 64]) -> bool {
    Key::decompress(public_key).is_some_and(|key| key.verifies([(&[message], signature)]))
}

/// For hostile-input testing (`crate::fuzzing`): panics unless our Ed25519 check agrees with ed25519-dalek's `verify_strict` under a canonical key (libsodium's
/// rules, what the stock `minisign` CLI applies). The
/// bytes are a seed (32), a mode byte and a message: the seed's key signs the message, then the
/// mode adds a small-order point to `A` or `R`, forges `s = 0` under a small-order key, adds the
/// group order to `s`, writes `A` with an unreduced `y` or flips one byte; mode `0xff` takes the
/// rest as key ‖ signature ‖ message, raw.
#[doc(hidden)]
pub fn assert_libsodium_verdict(data: &[u8]) {
    use curve25519_dalek::constants::EIGHT_TORSION;
    let Some((seed, rest)) = data.split_first_chunk::<32>() else { return };
    let Some((&mode, message)) = rest.split_first() else { return };
    let torsion = EIGHT_TORSION[usize::from(seed[0] % 8)];
    let (pk, sig, message) = if mode == 0xff {
        let (Some((pk, rest)), true) = (message.split_first_chunk::<32>(), message.len() >= 96) else { return };
        let Some((sig, message)) = rest.split_first_chunk::<64>() else { return };
        (*pk, *sig, message)
    } else {
        let signing = SigningKey::from_bytes(seed);
        let (mut pk, mut sig) = (signing.verifying_key().to_bytes(), signing.sign(message).to_bytes());
        let add = |bytes: &[u8]| {
            CompressedEdwardsY(bytes.try_into().unwrap_or([0; 32])).decompress().map(|p| (p + torsion).compress().0)
        };
        match mode % 8 {
            1 => pk = add(&pk).unwrap_or(pk),
            2 => {
                let r = add(&sig[..32]).unwrap_or([0; 32]);
                sig[..32].copy_from_slice(&r);
            }
            3 => {
                // A forgery: a small-order key, s = 0, the torsion R that satisfies the equation.
                pk = torsion.compress().0;
                let k = |r: &[u8; 32]| {
                    Scalar::from_bytes_mod_order_wide(
                        &Sha512::new().chain_update(r).chain_update(pk).chain_update(message).finalize().into(),
                    )
                };
                sig = [0; 64];
                if let Some(r) =
                    EIGHT_TORSION.iter().map(|t| t.compress().0).find(|r| (-(k(r) * torsion)).compress().0 == *r)
                {
                    sig[..32].copy_from_slice(&r);
                }
            }
            4 => {
                // s + L, the same equation with a scalar that is not reduced.
                let mut carry = 0u16;
                for (b, l) in sig[32..].iter_mut().zip(GROUP_ORDER) {
                    let v = u16::from(*b) + u16::from(l) + carry;
                    *b = v as u8;
                    carry = v >> 8;
                }
            }
            5 => {
                // A small-order key written with y + p where y is 0 or 1.
                pk = [0xff; 32];
                pk[0] = 0xed + (seed[1] & 1);
                pk[31] = 0x7f | (seed[2] & 0x80);
            }
            6 => {
                let i = usize::from(seed[3]) % 96;
                let x = seed[4] | 1;
                if i < 32 {
                    pk[i] ^= x
                } else {
                    sig[i - 32] ^= x
                }
            }
            _ => {}
        }
        (pk, sig, message)
    };
    let libsodium = libsodium_verdict(&pk, message, &sig);
    assert_eq!(ed25519_verifies(&pk, message, &sig), libsodium, "mode {mode}");
}

/// The group order `L`, little-endian.
const GROUP_ORDER: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

/// libsodium's verdict on one Ed25519 check, computed another way than ours: ed25519-dalek's
/// `verify_strict` (small-order key and `R` refused, `s < L`, `R`'s bytes compared) under a key
/// whose encoding is canonical.
fn libsodium_verdict(pk: &[u8; 32], message: &[u8], sig: &[u8; 64]) -> bool {
    let canonical = CompressedEdwardsY(*pk).decompress().is_some_and(|a| a.compress().0 == *pk);
    canonical
        && ed25519_dalek::VerifyingKey::from_bytes(pk)
            .is_ok_and(|k| k.verify_strict(message, &ed25519_dalek::Signature::from_bytes(sig)).is_ok())
}

/// The three `continuity export` files (docs/REFERENCE.md#continuity-commands): `<id>.msg` bytes, `<id>.msg.minisig` text and
/// `<id>.pub` text.
pub fn export_files(envelope: &Envelope) -> std::result::Result<(Vec<u8>, String, String), VerifyError> {
    export_parts(&envelope.public_key, &envelope.signature, &canonical_value(&envelope.record))
}

/// [`export_files`] of a file read by [`record::read_stored`].
pub fn export_stored(stored: &record::Stored) -> std::result::Result<(Vec<u8>, String, String), VerifyError> {
    export_parts(&stored.public_key, &stored.signature, &stored.canonical)
}

fn export_parts(
    public_key: &str,
    signature: &str,
    canonical: &str,
) -> std::result::Result<(Vec<u8>, String, String), VerifyError> {
    let (key_id, _) = decode_minisign(public_key).ok_or(VerifyError::BadPublicKey)?;
    Ok((signed_message(canonical), signature.to_string(), public_key_file_of(&key_id, public_key)))
}

// The one rule for a missing test tool (skip locally, fail under CI=true), shared with the
// end-to-end tests.
#[cfg(test)]
#[path = "../../../tests/support/tools.rs"]
mod test_tools;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Device;
    use std::os::unix::fs::PermissionsExt;

    const SEED: [u8; 32] = [7u8; 32];

    fn key() -> DeviceKey {
        DeviceKey::from_seed(SEED, Some("laptop".into()), "2026-09-03T20:00:00Z")
    }

    fn sample(device: Device) -> Record {
        Record { device, ..crate::record::tests::sample() }
    }

    fn signed() -> Envelope {
        let k = key();
        k.sign(&sample(k.device()))
    }

    /// Builds the signature text of `sig` (`ED`, key id `key_id`) with `global` over it.
    fn minisig(key_id: &[u8; 8], sig: &[u8; 64], trusted: &str, global: &[u8; 64]) -> String {
        let mut line = b"ED".to_vec();
        line.extend_from_slice(key_id);
        line.extend_from_slice(sig);
        format!("untrusted comment: x\n{}\ntrusted comment: {trusted}\n{}\n", B64.encode(line), B64.encode(global))
    }

    /// The verdict of minisign-verify (the crate) and ours on the same texts, with the
    /// verdict libsodium gives each Ed25519 check: ed25519-dalek's `verify_strict` under a
    /// canonical key.
    fn verdicts(pk: &[u8; 32], sig: &str, message: &[u8]) -> Verdicts {
        let key_id = [9u8; 8];
        let mut bin = b"Ed".to_vec();
        bin.extend_from_slice(&key_id);
        bin.extend_from_slice(pk);
        let pk_b64 = B64.encode(bin);
        let crate_verdict =
            match (minisign_verify::PublicKey::from_base64(&pk_b64), minisign_verify::Signature::decode(sig)) {
                (Ok(p), Ok(s)) => p.verify(message, &s, false).is_ok(),
                _ => false,
            };
        let parsed = signature_parts(sig).zip(minisign_verify::Signature::decode(sig).ok());
        let libsodium = parsed.as_ref().is_some_and(|(p, tc)| {
            let mut global = p.signature.to_vec();
            global.extend_from_slice(tc.trusted_comment().as_bytes());
            p.key_id == key_id
                && p.prehashed
                && libsodium_verdict(pk, &Blake2b512::digest(message), &p.signature)
                && libsodium_verdict(pk, &global, &p.global)
        });
        let ours = {
            parsed.as_ref().is_some_and(|(p, tc)| {
                let Some(key) = Key::decompress(pk) else { return false };
                let digest = Blake2b512::digest(message);
                let trusted = tc.trusted_comment().as_bytes();
                p.key_id == key_id
                    && p.prehashed
                    && key.verifies([(&[&digest[..]], &p.signature), (&[&p.signature[..], trusted], &p.global)])
            })
        };
        Verdicts { crate_verdict, libsodium, ours }
    }

    struct Verdicts {
        crate_verdict: bool,
        libsodium: bool,
        ours: bool,
    }

    /// A signature with `s = 0` over `message` for the small-order key `a`, if one of the eight
    /// small-order `R` satisfies `R = -[k]A` (the forgery small-order keys allow).
    fn forge(a: &[u8; 32], message: &[u8]) -> Option<[u8; 64]> {
        use curve25519_dalek::constants::EIGHT_TORSION;
        let point = CompressedEdwardsY(*a).decompress()?;
        EIGHT_TORSION.iter().find_map(|t| {
            let r = t.compress().to_bytes();
            let k = Scalar::from_bytes_mod_order_wide(
                &Sha512::new().chain_update(r).chain_update(a).chain_update(message).finalize().into(),
            );
            (-(k * point)).compress().to_bytes().eq(&r).then(|| {
                let mut sig = [0u8; 64];
                sig[..32].copy_from_slice(&r);
                sig
            })
        })
    }

    /// The small-order keys (the identity among them), the all-zero key and the identity
    /// written with a `y` that is not reduced.
    fn weak_keys() -> Vec<[u8; 32]> {
        use curve25519_dalek::constants::EIGHT_TORSION;
        let mut weak: Vec<[u8; 32]> = EIGHT_TORSION.iter().map(|t| t.compress().to_bytes()).collect();
        weak.push([0; 32]);
        let mut unreduced_identity = [0xffu8; 32];
        unreduced_identity[0] = 0xee;
        unreduced_identity[31] = 0x7f;
        weak.push(unreduced_identity);
        weak
    }

    #[test]
    fn the_ed25519_checks_give_libsodium_verdicts_and_refuse_forgeries() {
        use curve25519_dalek::constants::EIGHT_TORSION;
        let message = b"majordomus-continuity-record/v1\n{}".as_slice();
        let k = key();
        let pk = k.public_key_raw();
        let trusted = "majordomus-continuity id:x node:y";
        let sig = k.key.sign(&Blake2b512::digest(message)).to_bytes();
        let global = |sig: &[u8; 64]| {
            let mut g = sig.to_vec();
            g.extend_from_slice(trusted.as_bytes());
            k.key.sign(&g).to_bytes()
        };
        let mut cases: Vec<(String, [u8; 32], String)> = Vec::new();
        cases.push(("valid".into(), pk, minisig(&[9; 8], &sig, trusted, &global(&sig))));
        // Every byte of the signature, the global signature and the key flipped.
        for i in 0..64 {
            let mut s = sig;
            s[i] ^= 0x40;
            cases.push((format!("sig byte {i}"), pk, minisig(&[9; 8], &s, trusted, &global(&s))));
            let mut g = global(&sig);
            g[i] ^= 0x01;
            cases.push((format!("global byte {i}"), pk, minisig(&[9; 8], &sig, trusted, &g)));
        }
        for i in 0..32 {
            let mut p = pk;
            p[i] ^= 0x80;
            cases.push((format!("key byte {i}"), p, minisig(&[9; 8], &sig, trusted, &global(&sig))));
        }
        // s + L: the same equation with a scalar that is not reduced.
        let l = GROUP_ORDER;
        let mut s_plus_l = sig;
        let mut carry = 0u16;
        for i in 0..32 {
            let v = u16::from(s_plus_l[32 + i]) + u16::from(l[i]) + carry;
            s_plus_l[32 + i] = v as u8;
            carry = v >> 8;
        }
        cases.push(("s + L".into(), pk, minisig(&[9; 8], &s_plus_l, trusted, &global(&s_plus_l))));
        // R with a small-order component added.
        for t in EIGHT_TORSION.iter().skip(1) {
            let r = CompressedEdwardsY(sig[..32].try_into().unwrap()).decompress().unwrap();
            let mut s = sig;
            s[..32].copy_from_slice(&(r + t).compress().to_bytes());
            cases.push(("R + torsion".into(), pk, minisig(&[9; 8], &s, trusted, &global(&s))));
        }
        // Signatures forged with s = 0 under the weak keys, where the key allows.
        let mut forged = 0;
        for a in weak_keys() {
            let digest = Blake2b512::digest(message);
            let Some(s1) = forge(&a, &digest) else { continue };
            let mut g = s1.to_vec();
            g.extend_from_slice(trusted.as_bytes());
            let Some(s2) = forge(&a, &g) else { continue };
            forged += 1;
            cases.push((format!("forged under {}", hex(&a)), a, minisig(&[9; 8], &s1, trusted, &s2)));
        }
        assert!(forged >= 5, "small-order keys forged: {forged}");
        let (mut crate_accepted, mut accepted) = (0, 0);
        for (what, key, text) in &cases {
            let v = verdicts(key, text, message);
            assert_eq!(v.ours, v.libsodium, "{what}");
            if what.starts_with("forged") {
                assert!(!v.ours, "a forgery passed: {what}");
            }
            crate_accepted += usize::from(v.crate_verdict);
            accepted += usize::from(v.ours);
        }
        // Only the valid signature; the minisign-verify crate accepts forgeries besides (every
        // small-order key but the identity and all zeros), which is why the check is our own.
        assert_eq!(accepted, 1);
        assert!(crate_accepted >= 4, "{crate_accepted}");
        assert!(verdicts(&pk, &cases[0].2, message).ours);
    }

    fn unhex<const N: usize>(text: &str) -> Vec<u8> {
        let bytes: Vec<u8> =
            (0..text.len() / 2).map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap()).collect();
        assert!(N == 0 || bytes.len() == N, "{text}");
        bytes
    }

    /// Ours on one raw case; a key or signature of the wrong length is a verdict of refusal.
    fn raw_verdict(pk: &[u8], message: &[u8], sig: &[u8]) -> bool {
        let (Ok(pk), Ok(sig)) = (<[u8; 32]>::try_from(pk), <[u8; 64]>::try_from(sig)) else { return false };
        ed25519_verifies(&pk, message, &sig)
    }

    #[test]
    fn the_speccheck_edge_cases_get_libsodiums_verdicts() {
        let cases: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../../tests/fixtures/ed25519/ed25519-speccheck-cases.json")).unwrap();
        let table = include_str!("../../../tests/fixtures/ed25519/ed25519-speccheck-results.md");
        let row = table.lines().find(|l| l.starts_with("|LibSodium")).expect("the LibSodium row");
        let expected: Vec<bool> = row
            .split('|')
            .skip(2)
            .filter_map(|c| match c.trim() {
                "V" => Some(true),
                "X" => Some(false),
                _ => None,
            })
            .collect();
        assert_eq!((cases.len(), expected.len()), (12, 12));
        for (i, (case, want)) in cases.iter().zip(&expected).enumerate() {
            let field = |k: &str| unhex::<0>(case[k].as_str().unwrap());
            let got = raw_verdict(&field("pub_key"), &field("message"), &field("signature"));
            assert_eq!(got, *want, "speccheck case {i}");
        }
        assert_eq!(expected.iter().filter(|v| **v).count(), 1, "libsodium accepts case 3 only");
    }

    #[test]
    fn every_wycheproof_test_gets_its_verdict() {
        let file: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/ed25519/wycheproof-ed25519_test.json")).unwrap();
        let mut seen = 0;
        for group in file["testGroups"].as_array().unwrap() {
            let pk = unhex::<32>(group["publicKey"]["pk"].as_str().unwrap());
            for t in group["tests"].as_array().unwrap() {
                let hexed = |k: &str| unhex::<0>(t[k].as_str().unwrap());
                let want = match t["result"].as_str().unwrap() {
                    "valid" => true,
                    "invalid" => false,
                    other => panic!("tcId {}: result {other}", t["tcId"]),
                };
                assert_eq!(raw_verdict(&pk, &hexed("msg"), &hexed("sig")), want, "wycheproof tcId {}", t["tcId"]);
                seen += 1;
            }
        }
        assert_eq!(seen, file["numberOfTests"].as_u64().unwrap() as usize);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        /// Our check gives libsodium's verdict (`verify_strict` under a canonical key), on valid
        /// signatures and on signatures, keys and messages with one byte changed.
        #[test]
        fn our_check_agrees_with_libsodiums_verdict(
            seed in proptest::array::uniform32(proptest::prelude::any::<u8>()),
            message in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            flip in proptest::option::of((0usize..3, 0usize..200, 1u8..=255)),
        ) {
            let signing = SigningKey::from_bytes(&seed);
            let mut pk = signing.verifying_key().to_bytes();
            let mut sig = signing.sign(&message).to_bytes();
            let mut message = message;
            match flip {
                Some((0, i, x)) => sig[i % 64] ^= x,
                Some((1, i, x)) => pk[i % 32] ^= x,
                Some((_, i, x)) if !message.is_empty() => { let n = message.len(); message[i % n] ^= x }
                _ => {}
            }
            let libsodium = libsodium_verdict(&pk, &message, &sig);
            proptest::prop_assert_eq!(raw_verdict(&pk, &message, &sig), libsodium);
            proptest::prop_assert_eq!(libsodium, flip.is_none() || (flip.is_some_and(|(w, _, _)| w > 1) && message.is_empty()));
        }
    }

    #[test]
    fn key_material_has_the_minisign_shape() {
        let k = key();
        assert_eq!(k.node().len(), 32);
        assert!(k.public_key_base64().starts_with("RW"));
        assert_eq!(k.public_key_base64().len(), 56);
        let file = k.public_key_file();
        let keyid = format!("{:016X}", u64::from_le_bytes(k.key_id()));
        assert_eq!(file, format!("untrusted comment: minisign public key {keyid}\n{}\n", k.public_key_base64()));
        assert_eq!(node_of_public_key(&k.public_key_base64()), Some(k.node()));
        assert_eq!(raw_public_key(&hex(&k.public_key_raw())), Some(k.public_key_raw()));
        assert_eq!(raw_public_key("RWnot-a-key"), None);
        assert_eq!(DeviceKey::from_seed(SEED, None, "t").label(), k.node()[..8]);
        assert!(!format!("{k:?}").contains(&hex(&SEED)));
    }

    #[test]
    fn sign_then_verify_round_trips() {
        let e = signed();
        assert_eq!(e.id, record::id_of_value(&e.record));
        let lines: Vec<&str> = e.signature.split_inclusive('\n').collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], "untrusted comment: signature from git-majordomus\n");
        assert_eq!(lines[2], format!("trusted comment: majordomus-continuity id:{} node:{}\n", e.id, key().node()));
        assert_eq!(verify(&e), Ok(()));
        // The stored form survives a round trip through bytes.
        let back: Envelope = serde_json::from_slice(&record::stored_bytes(&e)).unwrap();
        assert_eq!(verify(&back), Ok(()));
        // Deterministic: the same record signs to the same envelope.
        assert_eq!(signed(), e);
    }

    #[test]
    fn tampering_fails() {
        let mut e = signed();
        e.record["handover"]["body"] = "# Objective\ny\n".into();
        assert_eq!(verify(&e), Err(VerifyError::BadSignature));

        let mut e = signed();
        e.signature = e.signature.replace("majordomus-continuity id:", "majordomus-continuity id:0");
        assert_eq!(verify(&e), Err(VerifyError::BadSignature));

        let mut e = signed();
        e.id = "f".repeat(64);
        assert_eq!(verify(&e), Err(VerifyError::TrustedCommentMismatch));

        let mut e = signed();
        e.signature = "garbage\n".into();
        assert_eq!(verify(&e), Err(VerifyError::MalformedSignature));

        let mut e = signed();
        e.public_key = "RWxx".into();
        assert_eq!(verify(&e), Err(VerifyError::BadPublicKey));
    }

    #[test]
    fn node_mismatch_is_detected() {
        let k = key();
        let mut r = sample(k.device());
        r.device.node = "fedcba9876543210fedcba9876543210".into();
        let e = k.sign(&r);
        assert_eq!(verify(&e), Err(VerifyError::NodeMismatch));
        // Another key's public key on our record.
        let mut e = signed();
        e.public_key = DeviceKey::from_seed([9u8; 32], None, "t").public_key_base64();
        assert_eq!(verify(&e), Err(VerifyError::NodeMismatch));
    }

    #[test]
    fn node_json_round_trip_and_labels() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/majordomus/node.json");
        assert!(load(&path).unwrap().is_none());
        let k = load_or_create(&path, "2026-09-03T20:00:00Z").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let text = std::fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema"], DEVICE_SCHEMA);
        assert_eq!(v["secret_key"].as_str().unwrap().len(), 64);
        assert!(v.get("label").is_none());
        let again = load(&path).unwrap().unwrap();
        assert_eq!(
            (again.node(), again.label(), again.created_at()),
            (k.node(), k.node()[..8].to_string(), "2026-09-03T20:00:00Z")
        );
        assert_eq!(load_or_create(&path, "later").unwrap().node(), k.node());

        let renamed = set_label(&path, "mac-mini_2.home", "later").unwrap();
        assert_eq!(renamed.node(), k.node());
        assert_eq!(load(&path).unwrap().unwrap().label(), "mac-mini_2.home");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(set_label(&path, "bad label", "later").unwrap_err().exit, crate::error::Exit::Refused);

        // A key read back signs records that verify.
        let k = load(&path).unwrap().unwrap();
        assert_eq!(verify(&k.sign(&sample(k.device()))), Ok(()));
    }

    #[test]
    fn malformed_node_json_is_an_error_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("node.json");
        for bad in [
            "not json",
            r#"{"schema":"majordomus-device/v2","secret_key":"00","created_at":"t"}"#,
            r#"{"schema":"majordomus-device/v1","secret_key":"zz","created_at":"t"}"#,
            r#"{"schema":"majordomus-device/v1","secret_key":"deadbeefdeadbeef","created_at":"t"}"#,
        ] {
            std::fs::write(&path, bad).unwrap();
            let err = load_or_create(&path, "t").unwrap_err();
            assert!(err.message.contains("malformed"), "{}", err.message);
            assert!(!err.message.contains("deadbeef"));
            assert!(set_label(&path, "x", "t").is_err());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), bad);
        }
    }

    /// A record signed by nobody under the weak key `a`: both of its signatures forged with
    /// `s = 0` (the body varied until both can be), as an envelope.
    fn forged_envelope(a: &[u8; 32]) -> Option<Envelope> {
        let node = node_of_raw(a);
        let key_id = [3u8; 8];
        let mut pk = b"Ed".to_vec();
        pk.extend_from_slice(&key_id);
        pk.extend_from_slice(a);
        (0..64).find_map(|n| {
            let mut value = serde_json::to_value(sample(Device { node: node.clone(), label: "forger".into() })).ok()?;
            value["handover"]["body"] = format!("# Objective\nforged {n}\n").into();
            let value = record::sorted(&value);
            let canonical = canonical_value(&value);
            let id = blake3_hex(canonical.as_bytes());
            let s1 = forge(a, &Blake2b512::digest(signed_message(&canonical)))?;
            let trusted = trusted_comment(&id, &node);
            let mut g = s1.to_vec();
            g.extend_from_slice(trusted.as_bytes());
            let s2 = forge(a, &g)?;
            Some(Envelope {
                id,
                public_key: B64.encode(&pk),
                signature: minisig(&key_id, &s1, &trusted, &s2),
                record: value,
            })
        })
    }

    fn have_minisign() -> bool {
        super::test_tools::have(super::test_tools::Tool::Minisign)
    }

    #[test]
    fn records_forged_under_small_order_keys_are_refused_as_stock_minisign_refuses_them() {
        if !have_minisign() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let (mut forged, mut crate_accepted) = (0, 0);
        for a in weak_keys() {
            let Some(e) = forged_envelope(&a) else { continue };
            forged += 1;
            let what = hex(&a);
            assert_eq!(verify(&e), Err(VerifyError::WeakPublicKey), "{what}");
            let (msg, sig, pubf) = export_files(&e).unwrap();
            let p = |ext: &str| dir.path().join(format!("{}{ext}", e.id));
            std::fs::write(p(".msg"), &msg).unwrap();
            std::fs::write(p(".msg.minisig"), &sig).unwrap();
            std::fs::write(p(".pub"), &pubf).unwrap();
            let out = std::process::Command::new("minisign")
                .arg("-Vm")
                .arg(p(".msg"))
                .arg("-p")
                .arg(p(".pub"))
                .output()
                .unwrap();
            assert!(!out.status.success(), "stock minisign accepted the forgery under {what}");
            // The forgeries are real ones: the cofactorless equation holds for them, and the
            // minisign-verify crate accepts them (under every small-order key but the identity
            // and all zeros).
            let crate_verdict = match (
                minisign_verify::PublicKey::from_base64(&e.public_key),
                minisign_verify::Signature::decode(&sig),
            ) {
                (Ok(k), Ok(s)) => k.verify(&msg, &s, false).is_ok(),
                _ => false,
            };
            crate_accepted += usize::from(crate_verdict);
        }
        assert!(forged >= 5 && crate_accepted >= 4, "forged {forged}, accepted by the crate {crate_accepted}");
    }

    #[test]
    fn stock_minisign_verifies_the_export() {
        if !have_minisign() {
            return;
        }
        let e = signed();
        let (msg, sig, pubf) = export_files(&e).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = |ext: &str| dir.path().join(format!("{}{ext}", e.id));
        std::fs::write(p(".msg"), &msg).unwrap();
        std::fs::write(p(".msg.minisig"), &sig).unwrap();
        std::fs::write(p(".pub"), &pubf).unwrap();
        let run = || {
            std::process::Command::new("minisign")
                .arg("-Vm")
                .arg(p(".msg"))
                .arg("-p")
                .arg(p(".pub"))
                .arg("-x")
                .arg(p(".msg.minisig"))
                .output()
                .unwrap()
        };
        let ok = run();
        assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
        // Also without -x: minisign looks for <file>.minisig next to the message (docs/REFERENCE.md#continuity-commands).
        let plain =
            std::process::Command::new("minisign").arg("-Vm").arg(p(".msg")).arg("-p").arg(p(".pub")).output().unwrap();
        assert!(plain.status.success());
        let mut tampered = msg.clone();
        let last = tampered.len() - 2;
        tampered[last] ^= 1;
        std::fs::write(p(".msg"), &tampered).unwrap();
        assert!(!run().status.success());
    }
}
