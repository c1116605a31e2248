//! `continuity device` (docs/REFERENCE.md#device-key), `continuity verify` and `continuity export` (docs/REFERENCE.md#continuity-commands).
//! Must not touch: another command or a query, the network (`verify --remote` reads the
//! remote-tracking ref), the terminal; `verify` writes nothing.

use crate::continuity::admission::{Code, Severity};
use std::path::Path;

use serde::Serialize;

use crate::continuity::admission::Diagnostic;
use crate::continuity::admission::{admit_entry, Verdict, BLOB_CAP};
use crate::continuity::mesh::Trust;
use crate::continuity::record::Device;
use crate::continuity::signing;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::services::continuity::loaded::{self, hex, Setup};
use crate::services::continuity::{remote_ref, REF};

/// `continuity device`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct DeviceReport {
    /// Node and label.
    pub device: Device,
    /// Minisign public key (`RW...`).
    pub public_key: String,
    /// The minisign public key file.
    #[serde(skip)]
    pub public_key_file: String,
    /// Where the key was created, when this call created it (a key is never made
    /// without a word).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

/// Loads or creates the device key; `label` renames it (the key is unchanged).
pub fn device(ctx: &Ctx, label: Option<&str>) -> Result<DeviceReport> {
    ctx.require_layer()?;
    let path = crate::services::continuity::device_path(ctx)?;
    let existed = path.exists();
    let key = match label {
        Some(l) => signing::set_label(&path, l, &ctx.clock.stamp())?,
        None => signing::load_or_create(&path, &ctx.clock.stamp())?,
    };
    // A device whose key the mesh revokes is told here too (best effort: `device` reads no store,
    // and a mesh that does not parse is for the commands that do).
    if let Ok(Some(m)) = crate::services::continuity::load_mesh(ctx, &loaded::normalise_key) {
        if m.revoked.contains(&hex(&key.public_key_raw())) {
            ctx.warn(format!(
                "this device's key {} is revoked by {}; git majordomus continuity device rotate makes a new key",
                crate::continuity::view::key_id(&key.node()),
                m.path
            ));
        }
    }
    Ok(DeviceReport {
        device: key.device(),
        public_key: key.public_key_base64(),
        public_key_file: key.public_key_file(),
        created: (!existed && path.exists()).then(|| path.display().to_string()),
    })
}

/// `continuity device rotate`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct RotateReport {
    /// The device, under its new key.
    pub device: Device,
    /// The new minisign public key (`RW…`).
    pub public_key: String,
    /// Its key id.
    pub key_id: String,
    /// The key it replaces.
    pub rotated: String,
    /// That key's id.
    pub rotated_key_id: String,
    /// The label the team's change gives the new key.
    pub label: String,
    /// Whether `--apply` made the mesh change here.
    pub applied: bool,
    /// The mesh change a teammate makes (or, applied, what shares it).
    pub next: Vec<String>,
}

/// Whether this device may apply its own rotation (`device rotate --apply`): only while its
/// current key is trusted by name in the enabled declaration — a revoked device cannot trust
/// itself again (issue 40 item 1). Checked before anything changes.
pub fn may_apply_rotation(ctx: &Ctx) -> Result<()> {
    let s = loaded::setup(ctx)?;
    let own = s.own_key().ok_or_else(|| {
        Error::not_found("this machine has no device key to rotate")
            .hint("git majordomus continuity device creates one")
    })?;
    let Some(m) = s.mesh.as_ref() else {
        return Err(Error::not_found("no enabled mesh declaration: there is no trust list to change")
            .hint("rotate without --apply; nothing trusts keys here"));
    };
    if m.revoked.contains(&own) || !m.allow.contains(&own) {
        return Err(Error::refused(format!(
            "this device's key {} is not trusted by {}: it cannot trust its new key itself",
            signing::key_id_of_raw_hex(&own),
            m.path
        ))
        .hint("rotate without --apply and ask a teammate to run the trust add it prints"));
    }
    Ok(())
}

/// `continuity device rotate`: a new key for this machine; the old public key stays listed in
/// `node.json`. Says the mesh change a teammate makes.
pub fn rotate(ctx: &Ctx) -> Result<RotateReport> {
    ctx.require_layer()?;
    let s = loaded::setup(ctx)?;
    let path = crate::services::continuity::device_path(ctx)?;
    let (old, new) = signing::rotate(&path, &ctx.clock.stamp())?;
    let old_raw = hex(&old.public_key_raw());
    let label = s.mesh.as_ref().and_then(|m| m.labels.get(&old_raw)).cloned().unwrap_or_else(|| new.label());
    let rotated = old.public_key_base64();
    let public_key = new.public_key_base64();
    Ok(RotateReport {
        device: new.device(),
        key_id: crate::continuity::view::key_id(&new.node()),
        rotated_key_id: crate::continuity::view::key_id(&old.node()),
        next: vec![
            format!("git majordomus continuity trust revoke {rotated}"),
            format!("git majordomus continuity trust add {public_key} --label {label}"),
        ],
        rotated,
        public_key,
        label,
        applied: false,
    })
}

/// `continuity verify`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct VerifyReport {
    /// Every record file read.
    pub verified: usize,
    /// Admitted.
    pub admitted: usize,
    /// Refused (too-new ones are not counted here).
    pub refused: usize,
    /// Admitted, but signed by a key the mesh does not trust.
    pub untrusted: usize,
    /// Signed by a revoked key before its revocation's pin: reported, not admitted, not a
    /// failure (docs/REFERENCE.md#mesh).
    pub retired: usize,
    /// Kept records of a later schema.
    pub too_new: usize,
    /// One entry per refused, retired, too-new or untrusted record.
    pub problems: Vec<Diagnostic>,
}

impl VerifyReport {
    /// Exit 0 only when every record is admitted (or too new) and no signer is untrusted.
    pub fn ok(&self) -> bool {
        self.refused == 0 && self.untrusted == 0
    }
}

/// Admits every file of the store at `reference` from its blob — never from the read model —
/// on every core (the records are not held; only the verdicts are kept), and counts.
fn tally(ctx: &Ctx, s: &Setup, reference: &str, r: &mut VerifyReport) -> Result<()> {
    let git_err = |e: crate::git::Error| Error::io(format!("continuity store {reference}: {e}"));
    let Some(tip) = ctx.git.ref_tip(reference).map_err(git_err)? else { return Ok(()) };
    let own_key = s.own_key();
    let judge = s.judge(own_key.as_deref());
    let first = r.problems.len();
    ctx.git
        .store_map(
            &tip,
            loaded::workers(),
            BLOB_CAP,
            |e, blob| match admit_entry(e, blob, &judge) {
                (Verdict::Admitted(a), _) => Seen::Admitted(a.trust, a.record.device),
                (Verdict::TooNew, d) => Seen::TooNew(d),
                (Verdict::Refused, d) => Seen::Refused(d),
                (Verdict::Retired, d) => Seen::Retired(d),
                (Verdict::Stray, _) => Seen::Stray,
            },
            |e, seen| {
                count(r, &e.path(), seen);
                Ok::<(), crate::git::Error>(())
            },
        )
        .map_err(git_err)?;
    // Blobs are read in pack order: the problems are listed by path.
    r.problems[first..].sort_by(|a, b| a.path.cmp(&b.path));
    Ok(())
}

/// Counts one file's verdict.
fn count(r: &mut VerifyReport, path: &str, seen: Seen) {
    match seen {
        Seen::Stray => {}
        Seen::Admitted(trust, device) => {
            r.verified += 1;
            r.admitted += 1;
            if trust == Trust::Untrusted {
                r.untrusted += 1;
                r.problems.push(Diagnostic::new(
                    Severity::Error,
                    Code::Untrusted,
                    Some(path),
                    format!("signed by {} ({}), whose key is not in trust.allow", device.label, device.node),
                ));
            }
        }
        Seen::TooNew(d) => {
            r.verified += 1;
            r.too_new += 1;
            r.problems.extend(d);
        }
        Seen::Refused(d) => {
            r.verified += 1;
            r.refused += 1;
            r.problems.extend(d);
        }
        Seen::Retired(d) => {
            r.verified += 1;
            r.retired += 1;
            r.problems.extend(d);
        }
    }
}

/// What `verify` keeps of one file.
enum Seen {
    Admitted(Trust, Device),
    TooNew(Option<Diagnostic>),
    Refused(Option<Diagnostic>),
    Retired(Option<Diagnostic>),
    Stray,
}

/// `continuity verify [--remote]`: admits every record and judges every signer.
pub fn verify(ctx: &Ctx, remote: Option<&str>) -> Result<VerifyReport> {
    let s = loaded::setup(ctx)?;
    let mut r = VerifyReport {
        verified: 0,
        admitted: 0,
        refused: 0,
        untrusted: 0,
        retired: 0,
        too_new: 0,
        problems: Vec::new(),
    };
    if let Some(remote) = remote {
        if !crate::services::remotes::valid_remote(remote) {
            return Err(Error::refused(format!("{remote:?} is not a remote name")));
        }
    }
    tally(ctx, &s, REF, &mut r)?;
    if let Some(remote) = remote {
        tally(ctx, &s, &remote_ref(remote), &mut r)?;
    }
    Ok(r)
}

/// `continuity export <id> --dir <d>`: the three files the stock `minisign` verifies.
pub fn export(ctx: &Ctx, prefix: &str, dir: &Path) -> Result<Vec<String>> {
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let row = store.unique("export", prefix)?;
    let a = store.summary(row);
    let bytes = ctx.git.read_blob(&a.blob, BLOB_CAP).map_err(|e| Error::io(format!("export: {e}")))?;
    // The one strict reader admission used.
    let (stored, _) = crate::continuity::record::read_record(&bytes).map_err(|e| Error::io(format!("export: {e}")))?;
    let (msg, sig, pubf) = signing::export_stored(&stored).map_err(|e| Error::io(format!("export: {e}")))?;
    crate::store::atomic::ensure_dir(dir)?;
    let mut written = Vec::new();
    for (ext, bytes) in [(".msg", msg), (".msg.minisig", sig.into_bytes()), (".pub", pubf.into_bytes())] {
        let p = dir.join(format!("{}{ext}", a.id));
        crate::store::atomic::replace(&p, &bytes)?;
        written.push(p.display().to_string());
    }
    Ok(written)
}
