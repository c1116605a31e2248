//! What rewrite proofs keep under the git common dir (docs/REFERENCE.md#rewrites), shared by every
//! worktree of a clone: the pairs the `post-rewrite` hook captured (`majordomus/rewritten`) and
//! the patch-id cache (`majordomus/patch-ids`). Both are bounded; both are caches of facts git
//! can tell again, except the pairs, which lose nothing a reader relies on when trimmed (the
//! oldest go first).
//!
//! Owns: the two files' format and bounds.
//! Must not touch: git, what counts as a proof.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::atomic::{append, ensure_dir, read_opt, replace, Lock};
use crate::Result;

/// Pairs kept: the newest this many lines.
pub const MAX_PAIRS: usize = 4096;

/// Patch ids kept: after a save the newest this many entries.
pub const MAX_PATCH_IDS: usize = 10_000;

/// One captured rewrite: `<kind> <old> <new>` (kind: `amend` or `rebase`, as git passes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// `amend` or `rebase`.
    pub kind: String,
    /// The commit before.
    pub old: String,
    /// The commit after.
    pub new: String,
}

fn dir(common_dir: &Path) -> PathBuf {
    common_dir.join("majordomus")
}

fn pairs_path(common_dir: &Path) -> PathBuf {
    dir(common_dir).join("rewritten")
}

fn patch_ids_path(common_dir: &Path) -> PathBuf {
    dir(common_dir).join("patch-ids")
}

fn is_hex_id(s: &str) -> bool {
    (40..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Appends the pairs of one `post-rewrite` run (its stdin: `<old> <new>[ <extra>]` lines);
/// lines that do not hold two object ids are ignored. Trims to the newest [`MAX_PAIRS`].
/// Returns how many pairs were kept.
pub fn capture(common_dir: &Path, kind: &str, input: &str) -> Result<usize> {
    let kind = if kind == "amend" { "amend" } else { "rebase" };
    let lines: String = input
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (old, new) = (f.next()?, f.next()?);
            (is_hex_id(old) && is_hex_id(new)).then(|| format!("{kind} {old} {new}\n"))
        })
        .collect();
    if lines.is_empty() {
        return Ok(0);
    }
    let d = dir(common_dir);
    ensure_dir(&d)?;
    let _lock = Lock::acquire_file(&d, "rewritten.lock")?;
    let path = pairs_path(common_dir);
    append(&path, lines.as_bytes())?;
    let text = read_opt(&path)?.unwrap_or_default();
    let total = text.lines().count();
    if total > MAX_PAIRS {
        let kept: String = text.lines().skip(total - MAX_PAIRS).map(|l| format!("{l}\n")).collect();
        replace(&path, kept.as_bytes())?;
    }
    Ok(lines.lines().count())
}

/// Every captured pair, oldest first (a damaged line is skipped).
pub fn pairs(common_dir: &Path) -> Vec<Pair> {
    let Ok(Some(text)) = read_opt(&pairs_path(common_dir)) else { return Vec::new() };
    text.lines()
        .filter_map(|l| {
            let mut f = l.split(' ');
            let (kind, old, new) = (f.next()?, f.next()?, f.next()?);
            (is_hex_id(old) && is_hex_id(new) && f.next().is_none()).then(|| Pair {
                kind: kind.to_string(),
                old: old.to_string(),
                new: new.to_string(),
            })
        })
        .collect()
}

/// The patch-id cache: a key (a commit id, or `<base>..<tip>` for a range) to its patch id, or
/// to none (a merge, an empty change). Loaded whole, saved whole (temp + rename) when dropped
/// after a change; two writers racing lose only cache entries.
#[derive(Debug)]
pub struct PatchIds {
    common_dir: PathBuf,
    order: Vec<String>,
    map: HashMap<String, Option<String>>,
    changed: bool,
}

impl PatchIds {
    /// Reads the cache (none, or a damaged one, is empty).
    pub fn load(common_dir: &Path) -> PatchIds {
        let mut p =
            PatchIds { common_dir: common_dir.to_path_buf(), order: Vec::new(), map: HashMap::new(), changed: false };
        if let Ok(Some(text)) = read_opt(&patch_ids_path(common_dir)) {
            for l in text.lines() {
                if let Some((k, v)) = l.split_once(' ') {
                    let v = (v != "-").then(|| v.to_string());
                    if p.map.insert(k.to_string(), v).is_none() {
                        p.order.push(k.to_string());
                    }
                }
            }
        }
        p
    }

    /// The cached answer for `key`: `None` when not cached, `Some(None)` when it has none.
    pub fn get(&self, key: &str) -> Option<Option<&str>> {
        self.map.get(key).map(|v| v.as_deref())
    }

    /// Caches an answer.
    pub fn put(&mut self, key: String, value: Option<String>) {
        if self.map.insert(key.clone(), value).is_none() {
            self.order.push(key);
        }
        self.changed = true;
    }

    /// Writes the cache back when it changed, keeping the newest [`MAX_PATCH_IDS`] entries.
    /// A cache that cannot be written is only slower next time.
    pub fn save(&mut self) {
        let common_dir = self.common_dir.clone();
        if !self.changed || ensure_dir(&dir(&common_dir)).is_err() {
            return;
        }
        self.changed = false;
        let skip = self.order.len().saturating_sub(MAX_PATCH_IDS);
        let text: String = self.order[skip..]
            .iter()
            .map(|k| format!("{k} {}\n", self.map.get(k).and_then(|v| v.as_deref()).unwrap_or("-")))
            .collect();
        let _ = replace(&patch_ids_path(&common_dir), text.as_bytes());
    }
}

impl Drop for PatchIds {
    fn drop(&mut self) {
        self.save();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn pairs_are_captured_bounded_and_read_back() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(capture(d.path(), "amend", &format!("{A} {B}\nnot a pair\n{A}\n")).unwrap(), 1);
        assert_eq!(pairs(d.path()), vec![Pair { kind: "amend".into(), old: A.into(), new: B.into() }]);
        let many: String = (0..MAX_PAIRS + 10).map(|_| format!("{B} {A} extra\n")).collect();
        capture(d.path(), "rebase", &many).unwrap();
        let all = pairs(d.path());
        assert_eq!(all.len(), MAX_PAIRS);
        assert!(all.iter().all(|p| p.kind == "rebase" && p.old == B));
    }

    #[test]
    fn patch_ids_round_trip_and_stay_bounded() {
        let d = tempfile::tempdir().unwrap();
        let mut p = PatchIds::load(d.path());
        p.put(A.into(), Some("abc".into()));
        p.put(B.into(), None);
        p.save();
        let q = PatchIds::load(d.path());
        assert_eq!(q.get(A), Some(Some("abc")));
        assert_eq!(q.get(B), Some(None));
        assert_eq!(q.get("x"), None);
        let mut r = PatchIds::load(d.path());
        for i in 0..MAX_PATCH_IDS {
            r.put(format!("{i:040}"), None);
        }
        drop(r);
        let s = PatchIds::load(d.path());
        assert_eq!(s.get(A), None, "the oldest entries went first");
        assert_eq!(s.get(&format!("{:040}", MAX_PATCH_IDS - 1)), Some(None));
    }
}
