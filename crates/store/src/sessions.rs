//! Episode files: open episodes, the pointer, closed records (docs/REFERENCE.md#sessions).
//! Must not touch: git, the briefing's text (handed in), stdout.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::atomic::{ensure_dir, read_opt, replace};
use super::records::random_hex;
use super::{Error as StoreError, Layout};
use crate::model::record::branch_key;
use crate::model::session::OpenSession;
use crate::Result;

/// The file name key of a provider session (docs/REFERENCE.md#sessions sanitising), or `hand`.
pub fn key_of(provider_session: &str) -> String {
    branch_key(provider_session)
}

/// The open episode file of `key`.
pub fn open_path(layout: &Layout, key: &str) -> PathBuf {
    layout.sessions_open().join(format!("{}.yaml", key_of(key)))
}

/// Reads one open episode; `Ok(None)` when the file does not exist, an error when it cannot be
/// read or does not parse ([`StoreError::NotAnEpisode`]).
pub fn read_open(path: &Path) -> Result<Option<OpenSession>> {
    match read_opt(path)? {
        None => Ok(None),
        Some(text) => {
            OpenSession::parse(&text).map(Some).ok_or_else(|| StoreError::NotAnEpisode { path: path.to_path_buf() })
        }
    }
}

/// Writes an open episode atomically (temp file, mode 0600, rename).
pub fn write_open(layout: &Layout, key: &str, s: &OpenSession) -> Result<PathBuf> {
    let path = open_path(layout, key);
    replace(&path, s.to_yaml().as_bytes())?;
    Ok(path)
}

/// Every open episode file: `(key, parsed or why it could not be read)`, sorted by key.
pub fn list_open(layout: &Layout) -> Result<Vec<(String, Result<OpenSession>)>> {
    let dir = layout.sessions_open();
    let rd = match fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(&dir, e)),
    };
    let mut v = Vec::new();
    for e in rd {
        let e = e.map_err(|e| StoreError::io(&dir, e))?;
        let Ok(name) = e.file_name().into_string() else { continue };
        let Some(key) = name.strip_suffix(".yaml") else { continue };
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        let parsed = read_open(&path).and_then(|o| o.ok_or(StoreError::Vanished { path }));
        v.push((key.to_string(), parsed));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(v)
}

/// The key the pointer names (`sessions-open/<key>.yaml`), if it is a symlink into the store.
pub fn pointer_key(layout: &Layout) -> Option<String> {
    let target = fs::read_link(layout.pointer()).ok()?;
    let name = target.file_name()?.to_str()?;
    name.strip_suffix(".yaml").map(str::to_string)
}

/// Aims `session-current.yaml` at `sessions-open/<key>.yaml`: a temp symlink beside the pointer,
/// renamed over it (atomic). Falls back to a copy, with a warning, where symlinks fail.
pub fn aim_pointer(layout: &Layout, key: &str) -> Result<Option<String>> {
    let state = layout.state();
    ensure_dir(&state)?;
    let target = format!("sessions-open/{}.yaml", key_of(key));
    for _ in 0..10 {
        let tmp = state.join(format!("{}{}", crate::atomic::STAGING_PREFIX, random_hex(6)));
        match std::os::unix::fs::symlink(&target, &tmp) {
            Ok(()) => {
                return match fs::rename(&tmp, layout.pointer()) {
                    Ok(()) => Ok(None),
                    Err(e) => {
                        let _ = fs::remove_file(&tmp);
                        Err(StoreError::io(&layout.pointer(), e))
                    }
                };
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(_) => {
                let text = read_opt(&state.join(&target))?.unwrap_or_default();
                replace(&layout.pointer(), text.as_bytes())?;
                return Ok(Some("this filesystem refused a symlink; session-current.yaml is a copy".into()));
            }
        }
    }
    Err(StoreError::NoTempName { dir: state })
}

/// Removes the pointer.
pub fn remove_pointer(layout: &Layout) -> Result<()> {
    match fs::remove_file(layout.pointer()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StoreError::io(&layout.pointer(), e)),
    }
}

/// The closed record of `sid` already in the store (a file containing the line
/// `session_id: <sid>`; temp files excluded).
pub fn find_closed(layout: &Layout, sid: &str) -> Result<Option<PathBuf>> {
    let dir = layout.sessions();
    let needle = format!("\nsession_id: {sid}\n");
    let mut names = super::records::names(&dir)?;
    // Our writers put the id in the name: look there first, then everywhere.
    names.sort_by_key(|n| !n.contains(sid));
    for name in names {
        let p = dir.join(&name);
        if read_opt(&p)?.is_some_and(|t| t.contains(&needle)) {
            return Ok(Some(p));
        }
    }
    Ok(None)
}

/// How the episode of this process was found (docs/REFERENCE.md#sessions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// `MAJORDOMUS_SESSION_KEY` (strict).
    Key,
    /// A provider-session environment variable.
    ProviderEnv,
    /// The pointer `session-current.yaml`.
    Pointer,
}

/// The episode this process belongs to: the strict key when given (its file or nothing), else
/// the first provider-session variable naming an open episode, else the pointer. `None` also
/// when the file found names another worktree.
pub fn own_episode(
    layout: &Layout,
    here: &crate::keep::Here,
    strict_key: Option<&str>,
    provider_keys: &[String],
) -> Option<(String, OpenSession, Via)> {
    let local = |key: &str, via: Via| -> Option<(String, OpenSession, Via)> {
        let key = key_of(key);
        let s = read_open(&open_path(layout, &key)).ok()??;
        here.is_worktree(&s.worktree).then_some((key, s, via))
    };
    if let Some(k) = strict_key {
        return local(k, Via::Key);
    }
    for k in provider_keys {
        if open_path(layout, k).exists() {
            return local(k, Via::ProviderEnv);
        }
    }
    let key = pointer_key(layout).or_else(|| {
        // A copy (filesystems without symlinks): match it by content.
        let text = read_opt(&layout.pointer()).ok()??;
        let s = OpenSession::parse(&text)?;
        list_open(layout)
            .ok()?
            .into_iter()
            .find(|(_, o)| o.as_ref().is_ok_and(|o| o.session_id == s.session_id))
            .map(|(k, _)| k)
    })?;
    local(&key, Via::Pointer)
}
