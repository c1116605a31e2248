//! Remotes (docs/SYNC.md): which remote records go to, which names are acceptable, and the
//! fetch refspec of the store.
//!
//! Owns: the one remote-name rule every command and the installer use.
//! Must not touch: the network (the git crate runs push and fetch).

use crate::ctx::Ctx;
use crate::error::Result;

/// What choosing a remote refuses (exit codes and hints: `crate::edge`).
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// `continuity.remote` names no remote of this repository.
    #[error("continuity.remote is {0:?}, which is not a remote of this repository")]
    UnknownRemote(String),
}
/// Where records go (docs/SYNC.md#where-records-go-one-chosen-remote): `continuity.remote` when the policy sets it, else `origin`
/// when configured, else the only remote; `None` when there is no remote, or several and none
/// chosen. A policy naming no remote of this repository is a refusal (10).
pub fn chosen_remote(ctx: &Ctx) -> Result<Option<String>> {
    let names = ctx.git.remote_names();
    let set = ctx.policy_if_layer()?.and_then(|p| p.continuity.as_ref()?.remote.clone());
    if let Some(r) = set {
        if !names.contains(&r) {
            return Err(RemoteError::UnknownRemote(r).into());
        }
        return Ok(Some(r));
    }
    if names.iter().any(|n| n == "origin") {
        return Ok(Some("origin".into()));
    }
    Ok(match names.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    })
}

/// Whether a remote name is acceptable (docs/REFERENCE.md#sync).
pub fn valid_remote(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name != ".."
        && !name.starts_with('-')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The fetch refspec that brings `remote`'s store into its remote-tracking ref (docs/SYNC.md#the-fetch-refspec); the
/// glob keeps a plain `git fetch` at exit 0 while the remote has no store.
pub fn fetch_refspec(remote: &str) -> String {
    format!("+refs/majordomus/continuity*:refs/majordomus/remotes/{remote}/continuity*")
}
