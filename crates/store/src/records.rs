//! Checkpoint and handover files on disk: naming, writing, listing, loading.
//! Must not touch: resolution (`services::resolve`), gix, stdout.

use std::fs;
use std::path::{Path, PathBuf};

use super::atomic::{create_new, guard, read_opt};
use super::format::record::parse;
use super::Error as StoreError;
use crate::model::record::{branch_key, is_record_name, RecordMeta, Skip};
use crate::text::short;
use crate::Result;

/// `n` random lowercase hex characters.
pub fn random_hex(n: usize) -> String {
    let mut buf = vec![0u8; n.div_ceil(2)];
    if getrandom::fill(&mut buf).is_err() {
        // Without an entropy source, fall back to the process id and time; names stay unique
        // through the no-overwrite retry of `create_new`.
        let seed = std::process::id() as u128 ^ crate::clock::entropy_seed();
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (seed >> ((i % 16) * 8)) as u8;
        }
    }
    let mut s = majordomus_core::hex::encode(&buf);
    s.truncate(n);
    s
}

/// The one record-name shape: `<compact>--<middle...>--<branchkey>--<head7>--<16 hex>.md`,
/// a fresh random suffix on every call (so a collision retries with another name).
pub fn record_name(compact: &str, middle: &[&str], branch: &str, head: &str) -> impl FnMut() -> String {
    let mut parts = vec![compact.to_string()];
    parts.extend(middle.iter().map(|m| m.to_string()));
    parts.push(branch_key(branch));
    parts.push(short(head).to_string());
    let prefix = parts.join("--");
    move || format!("{prefix}--{}.md", random_hex(16))
}

/// Writes a new record `<compact>--<branchkey>--<head7>--<16 hex>.md` into `dir`; a record
/// whose front matter every reader would skip is refused (exit 10) and nothing is written.
pub fn write(dir: &Path, compact: &str, meta: &RecordMeta, body: &str) -> Result<PathBuf> {
    let text = meta.render(body).map_err(|source| StoreError::Oversize { dir: dir.to_path_buf(), source })?;
    create_new(dir, record_name(compact, &[], &meta.branch, &meta.head), text.as_bytes())
}

/// What a record written into `dir` is called in messages: `checkpoint` in `checkpoints/`,
/// `handover` in `handovers/`.
pub(crate) fn record_kind(dir: &Path) -> String {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name.strip_suffix('s').unwrap_or(&name).to_string()
}

/// Record-shaped file names in `dir` (temp files and other names ignored), sorted.
pub fn names(dir: &Path) -> Result<Vec<String>> {
    names_where(dir, |_| true)
}

/// The record-shaped file names in `dir` that `keep` accepts, sorted: the others are dropped
/// while the directory is read, so a directory of many records costs one pass and a sort of
/// what is kept.
pub fn names_where(dir: &Path, mut keep: impl FnMut(&str) -> bool) -> Result<Vec<String>> {
    file_names_where(dir, |n| is_record_name(n) && keep(n))
}

/// The file names in `dir` (any name) that `keep` accepts, sorted; none when `dir` is absent.
/// A directory or an entry that cannot be read is an error, never a shorter list.
pub fn file_names_where(dir: &Path, mut keep: impl FnMut(&str) -> bool) -> Result<Vec<String>> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(dir, e)),
    };
    let mut v = Vec::new();
    for e in rd {
        // An entry the directory cannot list is an error, never a shorter list.
        let e = e.map_err(|e| StoreError::io(dir, e))?;
        v.extend(e.file_name().into_string().ok().filter(|n| keep(n)));
    }
    v.sort_unstable();
    Ok(v)
}

/// A record file, loaded or skipped with its reason.
#[derive(Debug, Clone)]
pub struct RecordFile {
    /// File name.
    pub name: String,
    /// Absolute path.
    pub path: PathBuf,
    /// The parsed meta and body, or why the file was skipped.
    pub parsed: std::result::Result<(RecordMeta, String), String>,
}

/// Loads one record file; never fails: unreadable files carry their reason.
pub fn load(root: &Path, dir: &Path, name: &str) -> RecordFile {
    let path = dir.join(name);
    let parsed = (|| {
        guard(root, &path).map_err(|e| e.to_string())?;
        let text = read_opt(&path).map_err(|e| e.to_string())?.ok_or_else(|| "vanished while reading".to_string())?;
        parse(&text).map(|(m, b)| (m, b.to_string())).map_err(|s: Skip| s.as_str().to_string())
    })();
    RecordFile { name: name.to_string(), path, parsed }
}
