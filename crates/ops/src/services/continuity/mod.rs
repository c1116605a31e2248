//! The continuity store as the continuity commands and queries share it
//! (docs/REFERENCE.md#continuity-commands): identities, the mesh, the device key, the local
//! state, the loaded (admitted) store, its views and the resume plan.
//!
//! Owns: `continuity.json`, the device key's path, the read-model caches.
//! Must not touch: a command or a query.

use std::path::PathBuf;

pub mod loaded;
pub mod plan;
pub mod snapshot;
pub mod views;

use super::identity::digest_hex;
use crate::continuity::admission::Pins;
use crate::continuity::local::LocalState;
use crate::continuity::mesh::{self, Mesh};
use crate::ctx::Ctx;
use crate::error::Result;

/// Who writes this machine's store commits, as of now.
pub fn committer(ctx: &Ctx) -> crate::git::store::Committer {
    let (name, email) = ctx.git.store_identity();
    crate::git::store::Committer::new(name, email, ctx.clock.now().timestamp())
}

/// What a continuity operation refuses or fails on (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum ContinuityError {
    /// A mesh declaration does not parse or check.
    #[error("{0}")]
    Mesh(String),
    /// Two mesh declarations are enabled.
    #[error("more than one enabled mesh declaration: {}", .0.join(", "))]
    TwoMeshes(Vec<String>),
    /// A revocation's pinned store commit could not be listed.
    #[error("{mesh}: trust.revoked_at pin {commit}: {source}")]
    Pin {
        /// The mesh declaration.
        mesh: String,
        /// The pinned commit.
        commit: String,
        /// What git said.
        #[source]
        source: crate::git::Error,
    },
    /// A shallow clone has no trustworthy root commits.
    #[error("this is a shallow clone: its root commits are not the repository's")]
    Shallow,
    /// No commit, no identity.
    #[error("this repository has no commits, so it has no continuity identity yet")]
    NoCommits,
    /// No home for the device key.
    #[error("neither XDG_STATE_HOME nor HOME is set; the device key has no home")]
    NoHome,
    /// `.ai/local/state/continuity.json` does not parse.
    #[error(".ai/local/state/continuity.json {0}")]
    LocalState(String),
    /// The mesh revokes this device's own key.
    #[error("this device's key {key_id} is revoked by {mesh}: its records are refused everywhere")]
    RevokedHere {
        /// The key's id.
        key_id: String,
        /// The mesh declaration that revokes it.
        mesh: String,
    },
    /// A record id prefix that is too short or not lowercase hex.
    #[error("continuity {command}: {prefix:?} is not a record id prefix of at least 4 lowercase hex")]
    BadPrefix {
        /// The command.
        command: String,
        /// The prefix given.
        prefix: String,
    },
    /// No admitted record has the prefix.
    #[error("no admitted record {0}")]
    NoRecord(String),
    /// `continuity snapshot` of a store that does not exist yet.
    #[error("the local continuity store is empty: there is nothing to snapshot")]
    EmptyStore,
    /// Several do.
    #[error("{prefix} matches {n} records; give more of the id")]
    Ambiguous {
        /// The prefix given.
        prefix: String,
        /// How many match.
        n: usize,
    },
    /// An admitted record's blob could not be read.
    #[error("continuity record {id}: {source}")]
    Unreadable {
        /// The record id.
        id: String,
        /// What git said.
        #[source]
        source: crate::git::Error,
    },
    /// An admitted record's blob no longer reads as a record.
    #[error("continuity record {id}: {reason}")]
    Unparsable {
        /// The record id.
        id: String,
        /// Why.
        reason: String,
    },
    /// The store of a ref could not be read.
    #[error("continuity store {reference}: {source}")]
    Store {
        /// The ref.
        reference: String,
        /// What git said.
        #[source]
        source: crate::git::Error,
    },
    /// The read model could not be written or read back.
    #[error("read model: {0}")]
    ReadModel(#[source] std::io::Error),
    /// A read model that was there is gone.
    #[error("internal: the read model vanished")]
    ReadModelVanished,
    /// The read model just written does not read back.
    #[error("read model: the file just written does not read back")]
    ReadModelUnreadable,
}
use crate::store::atomic::{guard, read_opt, replace};

/// The local store's ref.
pub const REF: &str = "refs/majordomus/continuity";

/// The remote-tracking ref of `remote`.
pub fn remote_ref(remote: &str) -> String {
    format!("refs/majordomus/remotes/{remote}/continuity")
}

/// Where the mesh declarations live, relative to the root.
const MESH_DIR: &str = ".ai/repo/mesh";

/// The enabled mesh declaration under `.ai/repo/mesh/` (in a bare repository, HEAD's committed
/// one); two or more enabled is a refusal (10).
pub fn load_mesh(ctx: &Ctx, normalise: &dyn Fn(&str) -> Option<String>) -> Result<Option<Mesh>> {
    let is_declaration = |n: &str| n.ends_with(".yaml") && !n.starts_with('.');
    let mut files: Vec<(String, String)> = if ctx.git.is_bare() {
        ctx.git
            .files_at_head(MESH_DIR)?
            .into_iter()
            .filter(|(n, _)| is_declaration(n))
            .map(|(n, bytes)| (n, String::from_utf8_lossy(&bytes).into_owned()))
            .collect()
    } else {
        let dir = ctx.layout.root().join(MESH_DIR);
        let Ok(rd) = std::fs::read_dir(&dir) else { return Ok(None) };
        let mut files = Vec::new();
        for n in rd.filter_map(|e| e.ok()).filter_map(|e| e.file_name().into_string().ok()) {
            if is_declaration(&n) {
                let path = dir.join(&n);
                guard(ctx.layout.root(), &path)?;
                files.push((n, read_opt(&path)?.unwrap_or_default()));
            }
        }
        files
    };
    files.sort();
    let mut enabled = Vec::new();
    for (n, text) in files {
        if let Some(m) = mesh::parse(&format!("{MESH_DIR}/{n}"), &text, normalise).map_err(ContinuityError::Mesh)? {
            enabled.push(m);
        }
    }
    if enabled.len() > 1 {
        return Err(ContinuityError::TwoMeshes(enabled.iter().map(|m| m.path.clone()).collect()).into());
    }
    Ok(enabled.pop())
}

/// What the mesh's pinned revocations retire (docs/REFERENCE.md#mesh): for each revoked key
/// with a pin in `trust.revoked_at`, the records the pinned store commit holds (none when this
/// repository does not have that commit yet). A pin of a key that is not revoked pins nothing.
pub fn pins(ctx: &Ctx, mesh: Option<&Mesh>) -> Result<Pins> {
    let mut pins = Pins::default();
    let Some(m) = mesh else { return Ok(pins) };
    for (key, commit) in m.revoked_at.iter().filter(|(k, _)| m.revoked.contains(k)) {
        let held = ctx.git.is_commit(commit).unwrap_or(false);
        let records = if held {
            let entries = ctx.git.store_list(commit).map_err(|source| ContinuityError::Pin {
                mesh: m.path.clone(),
                commit: commit.clone(),
                source,
            })?;
            Some(entries.iter().filter_map(|e| e.record_id().copied()).collect())
        } else {
            None
        };
        pins.pin(key, commit, records);
    }
    Ok(pins)
}

/// The continuity repository identity (docs/REFERENCE.md#identity): declared, else from the root commits.
/// Shallow clones and commit-less repositories are refused unless declared.
pub fn repository(ctx: &Ctx, mesh: Option<&Mesh>) -> Result<String> {
    if let Some(declared) = mesh.and_then(|m| m.repository.as_deref()) {
        return Ok(digest_hex("majordomus-repository/v1\ndeclared\n", declared, 16));
    }
    if ctx.git.common_dir().join("shallow").exists() {
        return Err(ContinuityError::Shallow.into());
    }
    super::identity::continuity_repository(ctx)?.ok_or_else(|| ContinuityError::NoCommits.into())
}

/// The uncommitted-change fingerprint (docs/REFERENCE.md#fingerprint): `None` when the tree is clean.
pub fn fingerprint(ctx: &Ctx) -> Result<Option<String>> {
    let mut paths: Vec<&String> = ctx.changed_files()?.iter().collect();
    if paths.is_empty() {
        return Ok(None);
    }
    paths.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let mut h = blake3::Hasher::new();
    for p in paths {
        h.update(p.as_bytes());
        h.update(b"\0");
        match std::fs::read(ctx.layout.root().join(p)) {
            Ok(bytes) => {
                h.update(b"F");
                h.update(blake3::hash(&bytes).to_hex().as_bytes());
            }
            Err(_) => {
                h.update(b"D");
            }
        }
        h.update(b"\n");
    }
    Ok(Some(crate::hex::encode(&h.finalize().as_bytes()[..16])))
}

/// The path of this machine's device key (`$XDG_STATE_HOME/majordomus/node.json`, else
/// `$HOME/.local/state/majordomus/node.json`).
pub fn device_path(ctx: &Ctx) -> Result<PathBuf> {
    if let Some(x) = &ctx.env.xdg_state_home {
        return Ok(PathBuf::from(x).join("majordomus/node.json"));
    }
    let home = ctx.env.home.as_ref().ok_or(ContinuityError::NoHome)?;
    Ok(PathBuf::from(home).join(".local/state/majordomus/node.json"))
}

/// Reads `continuity.json` (absent = default; unreadable = error, never replaced).
pub fn load_local(ctx: &Ctx) -> Result<LocalState> {
    let path = ctx.layout.state().join("continuity.json");
    guard(ctx.layout.root(), &path)?;
    match read_opt(&path)? {
        None => Ok(LocalState::default()),
        Some(text) => LocalState::parse(&text).map_err(|e| ContinuityError::LocalState(e.to_string()).into()),
    }
}

/// The lock `publish`, `sync` and `resume` hold from reading `continuity.json` to writing it back,
/// so concurrent writers never lose a position or an offer. It lives under the git common dir
/// (`<common-dir>/majordomus/continuity.lock`, beside the store's own lock): a publication changes
/// nothing in the checkout but `continuity.json` (docs/REFERENCE.md#continuity-commands).
pub fn writer_lock(ctx: &Ctx) -> Result<crate::store::atomic::Lock> {
    Ok(crate::store::atomic::Lock::acquire_file(&ctx.git.common_dir().join("majordomus"), "continuity.lock")?)
}

/// Writes `continuity.json` atomically.
pub fn save_local(ctx: &Ctx, s: &LocalState) -> Result<()> {
    Ok(replace(&ctx.layout.state().join("continuity.json"), &s.to_bytes())?)
}
