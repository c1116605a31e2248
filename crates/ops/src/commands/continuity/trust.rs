//! `continuity trust add|revoke` (docs/SYNC.md#a-teams-trust): the one writer of the enabled mesh
//! declaration. Each change is made under a lock, written atomically, and names the `git add` and
//! `git commit` that share it; the working tree's declaration is what every continuity command
//! here reads at once.
//! Must not touch: the store ref, the network, git's index (the user commits), another command or a
//! query.

use serde::Serialize;

use crate::continuity::mesh::{self, Change, Mesh};
use crate::continuity::signing;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::services::continuity::loaded::{self, normalise_key};
use crate::services::continuity::{load_mesh, REF};
use crate::store::atomic::{guard, read_opt, replace, Lock};

/// Where `trust add --create` writes a declaration.
const CREATED: &str = ".ai/repo/mesh/team.yaml";

/// What a trust change did.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct TrustChange {
    /// `trusted` or `revoked`.
    pub action: &'static str,
    /// The declaration written, repository-relative.
    pub mesh: String,
    /// Whether `--create` wrote it.
    pub created: bool,
    /// The key, as written into the declaration.
    pub key: String,
    /// Its key id.
    pub key_id: String,
    /// Its label in `trust.labels`, if any.
    pub label: Option<String>,
    /// The store commit a revocation pins (`trust.revoked_at`), if any.
    pub pin: Option<String>,
    /// Whether the declaration already said so (nothing changed).
    pub unchanged: bool,
    /// What to run to share the change.
    pub next: Vec<String>,
}

/// The mesh lock: two trust changes never lose each other's entry.
fn lock(ctx: &Ctx) -> Result<Lock> {
    Ok(Lock::acquire_file(&ctx.git.common_dir().join("majordomus"), "mesh.lock")?)
}

/// The enabled declaration and its text, if there is one.
fn existing(ctx: &Ctx) -> Result<Option<(Mesh, String)>> {
    let Some(m) = load_mesh(ctx, &normalise_key)? else { return Ok(None) };
    let path = ctx.layout.root().join(&m.path);
    guard(ctx.layout.root(), &path)?;
    let text = read_opt(&path)?.unwrap_or_default();
    Ok(Some((m, text)))
}

/// The enabled declaration and its text, or 12 naming `--create`.
fn required(ctx: &Ctx) -> Result<(Mesh, String)> {
    existing(ctx)?.ok_or_else(missing)
}

fn missing() -> Error {
    Error::not_found("no enabled mesh declaration under .ai/repo/mesh/: nothing to change").hint(format!(
        "git majordomus continuity trust add <key> --label <label> --create writes {CREATED} (policy deny_unknown)"
    ))
}

/// Writes `text` as the declaration at `rel` and says what to run to share it.
fn write(ctx: &Ctx, rel: &str, text: &str, message: &str) -> Result<Vec<String>> {
    let path = ctx.layout.root().join(rel);
    guard(ctx.layout.root(), &path)?;
    // What is written must read back as the declaration it is meant to be.
    mesh::parse(rel, text, &normalise_key)
        .map_err(|e| Error::io(format!("internal: the trust writer made an unreadable declaration: {e}")))?;
    if let Some(dir) = path.parent() {
        crate::store::atomic::ensure_dir(dir)?;
    }
    replace(&path, text.as_bytes())?;
    Ok(vec![format!("git add {rel}"), format!("git commit -m {:?} -- {rel}", message)])
}

fn key_id(raw: &str) -> String {
    signing::key_id_of_raw_hex(raw)
}

/// `continuity trust add <key> --label <l> [--create]`.
pub fn add(ctx: &Ctx, key: &str, label: &str, create: bool) -> Result<TrustChange> {
    ctx.require_layer()?;
    let key = key.trim();
    let raw = normalise_key(key).ok_or_else(|| {
        Error::refused(format!("{:?} is not a device key", key.chars().take(80).collect::<String>())).hint(
            "give the minisign public key (RW…) or the 64-hex raw key that `git majordomus continuity device` prints on the device",
        )
    })?;
    if !signing::valid_label(label) {
        return Err(
            Error::refused(format!("invalid device label {label:?}")).hint("use 1-64 letters, digits, '.', '_' or '-'")
        );
    }
    let _lock = lock(ctx)?;
    let (rel, text, created, m) = match existing(ctx)? {
        Some((m, text)) => (m.path.clone(), text, false, Some(m)),
        None if create => (CREATED.to_string(), mesh::new_declaration("team"), true, None),
        None => return Err(missing()),
    };
    if created && ctx.layout.root().join(CREATED).exists() {
        return Err(Error::conflict(format!("{CREATED} exists but is not an enabled declaration"))
            .hint("set enabled: true in it, or move it away, then run this again"));
    }
    if let Some(m) = &m {
        if m.revoked.contains(&raw) {
            return Err(Error::refused(format!(
                "key {} is revoked in {}; a revoked key is not trusted again",
                key_id(&raw),
                m.path
            ))
            .hint("the device makes a new key with git majordomus continuity device rotate; trust that one"));
        }
        if let Some((other, _)) =
            m.labels.iter().find(|(k, l)| l.as_str() == label && **k != raw && !m.revoked.contains(k))
        {
            return Err(Error::refused(format!("label {label:?} already names key {} in {}", key_id(other), m.path))
                .hint("choose another label, or revoke that key first"));
        }
    }
    let unchanged =
        m.as_ref().is_some_and(|m| m.allow.contains(&raw) && m.labels.get(&raw).map(String::as_str) == Some(label));
    let next = if unchanged {
        Vec::new()
    } else {
        let change = Change::Add { key: key.to_string(), label: label.to_string() };
        let out = mesh::edit(&text, &change, &normalise_key).map_err(|e| Error::refused(format!("{rel}: {e}")))?;
        write(ctx, &rel, &out, &format!("majordomus: trust {label} (key {})", key_id(&raw)))?
    };
    Ok(TrustChange {
        action: "trusted",
        mesh: rel,
        created,
        key: key.to_string(),
        key_id: key_id(&raw),
        label: Some(label.to_string()),
        pin: None,
        unchanged,
        next,
    })
}

/// The key `who` names for a revocation: a key (`RW…` or 64 hex), else a label given in
/// `trust.labels` or taken by records of the local store. A label two keys share is refused,
/// naming both; an unknown one is 12.
pub fn target(ctx: &Ctx, who: &str) -> Result<String> {
    ctx.require_layer()?;
    let (m, _) = required(ctx)?;
    if let Some(raw) = normalise_key(who.trim()) {
        return Ok(raw);
    }
    if looks_like_a_key(who.trim()) {
        return Err(Error::refused(format!("{:?} is not a device key", who.chars().take(80).collect::<String>()))
            .hint("give the minisign public key (RW…) or the 64-hex raw key, or a label `trust list` shows"));
    }
    let mut keys: std::collections::BTreeSet<String> =
        m.labels.iter().filter(|(_, l)| l.as_str() == who).map(|(k, _)| k.clone()).collect();
    let s = loaded::setup(ctx)?;
    let store = loaded::load(ctx, &s, REF)?;
    keys.extend(store.signers().into_iter().filter(|g| g.labels.contains(who)).map(|g| g.key));
    match keys.len() {
        1 => Ok(keys.pop_first().unwrap_or_default()),
        0 => Err(Error::not_found(format!("no key is labelled {who:?} in {} or in the local store", m.path))
            .hint("git majordomus continuity trust list shows the keys; give the key itself")),
        _ => Err(Error::refused(format!(
            "label {who:?} names {} keys: {}; revoke by key",
            keys.len(),
            keys.iter().map(|k| key_id(k)).collect::<Vec<_>>().join(", ")
        ))
        .hint("git majordomus continuity trust list shows each key; give the one to revoke")),
    }
}

/// Whether `s` is meant as a key rather than a label: a minisign public key's shape (`RW` and
/// base64 of about its length) or a long run of hex. A label is at most 64 characters of
/// letters, digits, `.`, `_`, `-`, so the two can overlap only for hex of 32–64 digits, which
/// no one picks as a name.
fn looks_like_a_key(s: &str) -> bool {
    let b64 = |c: char| c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '=';
    (s.starts_with("RW") && s.len() >= 40 && s.chars().all(b64))
        || (s.len() >= 32 && s.chars().all(|c| c.is_ascii_hexdigit()))
}

/// `continuity trust revoke`: revokes `raw` (64 hex), pinned at `pin` (a store commit on the
/// chosen remote) when given. Revoking again adds or moves the pin.
pub fn revoke(ctx: &Ctx, raw: &str, pin: Option<&str>) -> Result<TrustChange> {
    let _lock = lock(ctx)?;
    let (m, text) = required(ctx)?;
    let unchanged = m.revoked.iter().any(|k| k == raw)
        && !m.allow.iter().any(|k| k == raw)
        && pin.is_none_or(|p| m.revoked_at.get(raw).map(String::as_str) == Some(p));
    let label = m.labels.get(raw).cloned();
    let next = if unchanged {
        Vec::new()
    } else {
        let change = Change::Revoke { key: raw.to_string(), pin: pin.map(str::to_string) };
        let out = mesh::edit(&text, &change, &normalise_key).map_err(|e| Error::refused(format!("{}: {e}", m.path)))?;
        let who = label.clone().unwrap_or_else(|| key_id(raw));
        write(ctx, &m.path, &out, &format!("majordomus: revoke {who} (key {})", key_id(raw)))?
    };
    Ok(TrustChange {
        action: "revoked",
        mesh: m.path.clone(),
        created: false,
        key: raw.to_string(),
        key_id: key_id(raw),
        label,
        pin: pin.map(str::to_string).or_else(|| m.revoked_at.get(raw).cloned()),
        unchanged,
        next,
    })
}
