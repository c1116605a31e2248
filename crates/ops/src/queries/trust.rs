//! `continuity trust list` (docs/SYNC.md#a-teams-trust): every key the mesh names or the local
//! store holds records of, with its standing and what this machine holds of it.
//! Must not touch: a command, the mesh declaration (`commands::continuity::trust` writes it).

use serde::Serialize;

use crate::continuity::mesh::{trust_of, Trust};
use crate::continuity::signing;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::services::continuity::loaded::{self, Signer};
use crate::services::continuity::REF;

/// One key of `trust list`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct TrustedKey {
    /// Its key id (what every record of it shows).
    pub key_id: String,
    /// The raw key, 64 hex.
    pub key: String,
    /// The label the mesh gives it, else the one its records give themselves.
    pub label: Option<String>,
    /// The labels its records give themselves, when they differ from the mesh's.
    pub self_declared: Vec<String>,
    /// Its standing here.
    pub trust: Trust,
    /// The store commit its revocation pins, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<String>,
    /// Its records admitted here.
    pub records: usize,
    /// Its records retired by the pin.
    pub retired: usize,
    /// Its records refused here (revoked after the pin, or another repository's).
    pub refused: usize,
    /// The newest of its records this machine holds (`published_at`).
    pub last_record: Option<String>,
}

/// `continuity trust list`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct TrustList {
    /// The declaration read, if any.
    pub mesh: Option<String>,
    /// Its policy.
    pub policy: Option<String>,
    /// Every key, by label then key id.
    pub keys: Vec<TrustedKey>,
}

/// `continuity trust list`.
pub fn list(ctx: &Ctx) -> Result<TrustList> {
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    let own = s.own_key();
    let mut signers: std::collections::BTreeMap<String, Signer> =
        store.signers().into_iter().map(|g| (g.key.clone(), g)).collect();
    let mesh = s.mesh.as_ref();
    for k in mesh.iter().flat_map(|m| m.allow.iter().chain(&m.revoked)).chain(own.iter()) {
        signers.entry(k.clone()).or_insert_with(|| Signer { key: k.clone(), ..Signer::default() });
    }
    let mut keys: Vec<TrustedKey> = signers
        .into_values()
        .map(|g| {
            let label = mesh.and_then(|m| m.labels.get(&g.key)).or_else(|| g.labels.iter().next()).cloned();
            let self_declared: Vec<String> = g.labels.iter().filter(|l| Some(*l) != label.as_ref()).cloned().collect();
            TrustedKey {
                key_id: signing::key_id_of_raw_hex(&g.key),
                label,
                self_declared,
                trust: trust_of(&g.key, own.as_deref(), mesh),
                revoked_at: mesh.and_then(|m| m.revoked_at.get(&g.key)).cloned(),
                records: g.admitted,
                retired: g.retired,
                refused: g.refused,
                last_record: g
                    .newest
                    .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                key: g.key,
            }
        })
        .collect();
    keys.sort_by(|a, b| (&a.label, &a.key_id).cmp(&(&b.label, &b.key_id)));
    Ok(TrustList { mesh: mesh.map(|m| m.path.clone()), policy: mesh.map(|m| m.policy.as_str().to_string()), keys })
}
