//! `continuity device` (docs/REFERENCE.md#device-key), `continuity verify` and `continuity export` (docs/REFERENCE.md#continuity-commands).

use crate::continuity::admission::{Code, Severity};
use std::path::Path;

use serde::Serialize;

use crate::continuity::admission::Diagnostic;
use crate::continuity::admission::{admit_entry, Judge, Verdict, BLOB_CAP};
use crate::continuity::mesh::Trust;
use crate::continuity::record::Device;
use crate::continuity::signing;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::services::continuity::loaded::{self, Setup};
use crate::services::continuity::{remote_ref, REF};

/// `continuity device`.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceReport {
    /// Node and label.
    pub device: Device,
    /// Minisign public key (`RW...`).
    pub public_key: String,
    /// The minisign public key file.
    #[serde(skip)]
    pub public_key_file: String,
}

/// Loads or creates the device key; `label` renames it (the key is unchanged).
pub fn device(ctx: &Ctx, label: Option<&str>) -> Result<DeviceReport> {
    ctx.require_layer()?;
    let path = crate::services::continuity::device_path(ctx)?;
    let key = match label {
        Some(l) => signing::set_label(&path, l, &ctx.clock.stamp())?,
        None => signing::load_or_create(&path, &ctx.clock.stamp())?,
    };
    Ok(DeviceReport {
        device: key.device(),
        public_key: key.public_key_base64(),
        public_key_file: key.public_key_file(),
    })
}

/// `continuity verify`.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// Every record file read.
    pub verified: usize,
    /// Admitted.
    pub admitted: usize,
    /// Refused (too-new ones are not counted here).
    pub refused: usize,
    /// Admitted, but signed by a key the mesh does not trust.
    pub untrusted: usize,
    /// Kept records of a later schema.
    pub too_new: usize,
    /// One entry per refused, too-new or untrusted record.
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
    let judge = Judge { repository: &s.repository, mesh: s.mesh.as_ref(), own_key: own_key.as_deref() };
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
    }
}

/// What `verify` keeps of one file.
enum Seen {
    Admitted(Trust, Device),
    TooNew(Option<Diagnostic>),
    Refused(Option<Diagnostic>),
    Stray,
}

/// `continuity verify [--remote]`: admits every record and judges every signer.
pub fn verify(ctx: &Ctx, remote: Option<&str>) -> Result<VerifyReport> {
    let s = loaded::setup(ctx)?;
    let mut r = VerifyReport { verified: 0, admitted: 0, refused: 0, untrusted: 0, too_new: 0, problems: Vec::new() };
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
    if prefix.len() < 4 || !crate::hex::is_lowercase(prefix) {
        return Err(Error::usage(format!(
            "continuity export: {prefix:?} is not a record id prefix of at least 4 lowercase hex"
        )));
    }
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let hits: Vec<_> = store.rows().filter(|r| store.id(*r).starts_with(prefix)).collect();
    let row = match hits.as_slice() {
        [one] => *one,
        [] => {
            return Err(Error::not_found(format!("no admitted record {prefix}"))
                .hint("git majordomus continuity records lists them"))
        }
        many => return Err(Error::usage(format!("{prefix} matches {} records; give more of the id", many.len()))),
    };
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
