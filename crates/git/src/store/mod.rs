//! The object-database and ref layer of the continuity store (docs/REFERENCE.md#store).
//!
//! Owns: reading and writing the store commits of `refs/majordomus/continuity` (blobs, the
//! two-level sharded tree, commits, compare-and-swap ref updates with bounded retry), the union
//! merge of a fetched store, and the network steps through the `git` binary (`ls-remote`,
//! `fetch`, `push`, `gc --auto`).
//! Must not touch: record semantics (ids, signatures, admission — the caller decides which paths
//! a merge may take in through `include`), the clock (the caller passes the commit time), HEAD,
//! the index, branches or the working tree (nothing here ever moves them).
//!
//! Object ids cross this API as 40-hex strings so that no other module needs gix.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind;
use gix::refs::transaction::{PreviousValue, RefEdit};
use gix::refs::{FullName, Target};
use gix::ObjectId;

use super::{full, Error, Git};
use majordomus_core::oid::Oid;

mod pack;
mod refs;
mod tree;

pub(crate) use pack::BaseCache;
use pack::*;
use tree::*;

/// The local store reference.
pub const CONTINUITY_REF: &str = "refs/majordomus/continuity";

/// The private remote-tracking reference of remote `remote`'s store.
pub fn remote_tracking_ref(remote: &str) -> String {
    format!("refs/majordomus/remotes/{remote}/continuity")
}

/// The store root's folder of read-model snapshots (docs/REFERENCE.md#snapshots): not store
/// files — every listing and tree difference leaves it out; a merge takes in what `include`
/// allows of it, as of any path.
pub const SNAPSHOTS: &str = "snapshots";

/// How many times a store write re-reads the tip and tries again before giving up.
const MAX_ATTEMPTS: u32 = 20;

/// One file of a store commit's tree, in 64 bytes and no allocation when its path has a
/// record's shape (a listing holds one per record; docs/PERFORMANCE.md, "Measured in comments").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreEntry {
    name: Name,
    /// The object (a blob; for a [`FileMode::Submodule`] entry, a commit that need not exist
    /// here).
    object: ObjectId,
    /// The entry's mode in its tree.
    pub mode: FileMode,
}

/// A store file's path: a record's path (`records/ab/cd/<64 hex>.json`) as the 32 bytes of its
/// id, anything else as written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Name {
    Record([u8; 32]),
    Path(Box<str>),
}

impl StoreEntry {
    fn new(path: String, object: ObjectId, mode: FileMode) -> StoreEntry {
        let name = match record_path_id(&path) {
            Some(id) => Name::Record(id),
            None => Name::Path(path.into_boxed_str()),
        };
        StoreEntry { name, object, mode }
    }

    /// Full path inside the store tree, `/`-separated (`records/ab/cd/<id>.json`, or a stray
    /// file).
    pub fn path(&self) -> Cow<'_, str> {
        match &self.name {
            Name::Record(id) => {
                let hex = hex_of(id);
                Cow::Owned(format!("records/{}/{}/{hex}.json", &hex[..2], &hex[2..4]))
            }
            Name::Path(p) => Cow::Borrowed(p),
        }
    }

    /// The object id, 40 hex.
    pub fn blob(&self) -> String {
        self.object.to_string()
    }

    /// The id a path of a record's shape names ([`record_path_id`]).
    pub fn record_id(&self) -> Option<&[u8; 32]> {
        match &self.name {
            Name::Record(id) => Some(id),
            Name::Path(_) => None,
        }
    }

    /// Orders entries by path without writing a record's path out (for two records, the order
    /// of their ids).
    fn cmp_path(&self, other: &StoreEntry) -> std::cmp::Ordering {
        match (&self.name, &other.name) {
            (Name::Record(a), Name::Record(b)) => a.cmp(b),
            _ => self.path().cmp(&other.path()),
        }
    }
}

/// The id a store path names when it has a record's shape, `records/<2 hex>/<2 hex>/<64
/// hex>.json` (lowercase, the folders the id's first two bytes): the one place that shape is
/// read.
pub fn record_path_id(path: &str) -> Option<[u8; 32]> {
    let rest = path.strip_prefix("records/")?.as_bytes();
    // `xx/yy/` + 64 hex + `.json`: 6 + 64 + 5 bytes.
    if rest.len() != 75 || &rest[70..] != b".json" || rest[2] != b'/' || rest[5] != b'/' {
        return None;
    }
    let hex = &rest[6..70];
    if rest[..2] != hex[..2] || rest[3..5] != hex[2..4] {
        return None;
    }
    majordomus_core::hex::decode_array(hex)
}

use majordomus_core::hex::encode as hex_of;

/// The mode of a tree entry that is not a folder. Only [`FileMode::Regular`] entries can be
/// records; the others are listed so that a reader can report them, and are never read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileMode {
    /// `100644`.
    Regular,
    /// `100755`.
    Executable,
    /// `120000`.
    Symlink,
    /// `160000` (a gitlink).
    Submodule,
}

impl FileMode {
    fn of(kind: EntryKind) -> Option<FileMode> {
        match kind {
            EntryKind::Blob => Some(FileMode::Regular),
            EntryKind::BlobExecutable => Some(FileMode::Executable),
            EntryKind::Link => Some(FileMode::Symlink),
            EntryKind::Commit => Some(FileMode::Submodule),
            EntryKind::Tree => None,
        }
    }
    /// `a regular file`, `an executable file`, `a symlink`, `a submodule`.
    pub fn describe(self) -> &'static str {
        match self {
            FileMode::Regular => "a regular file",
            FileMode::Executable => "an executable file",
            FileMode::Symlink => "a symlink",
            FileMode::Submodule => "a submodule",
        }
    }
}

/// A store file as [`Git::map_blobs`] hands it over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blob<'a> {
    /// The bytes of a regular file within the cap.
    Bytes(&'a [u8]),
    /// A regular file whose object header says it is this many bytes, more than the cap: it was
    /// not inflated.
    TooLarge(u64),
    /// Not a regular file (see the entry's mode): never read.
    NotAFile,
}

/// Who writes a store commit, and when (the caller's clock; this module never reads one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committer {
    /// Author and committer name.
    pub name: String,
    /// Author and committer email.
    pub email: String,
    /// Commit time, seconds since the Unix epoch (UTC; written with offset `+0000`).
    pub seconds: i64,
}

impl Committer {
    /// A committer with the given identity and time.
    pub fn new(name: impl Into<String>, email: impl Into<String>, seconds: i64) -> Committer {
        Committer { name: name.into(), email: email.into(), seconds }
    }
}

/// The result of [`Git::store_add`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddOutcome {
    /// The store tip after the call (the new commit, or the unchanged tip when nothing was written).
    pub tip: Oid,
    /// Whether a commit was written; `false` when every path already held identical bytes.
    pub written: bool,
}

/// What [`Git::store_merge`] did to the local reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeAction {
    /// The remote tip was already contained in the local store; nothing written.
    None,
    /// The local reference was moved to the remote tip.
    FastForward,
    /// A new commit was written (a union merge, or a filtered copy of the remote store).
    Merged,
}

impl MergeAction {
    /// `none`, `fast_forward` or `merged`.
    pub fn as_str(self) -> &'static str {
        match self {
            MergeAction::None => "none",
            MergeAction::FastForward => "fast_forward",
            MergeAction::Merged => "merged",
        }
    }
}

/// The result of [`Git::store_merge`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOutcome {
    /// What happened to the local reference.
    pub action: MergeAction,
    /// The local tip after the call.
    pub tip: Oid,
    /// Paths present on both sides with different contents (the local one was kept), sorted.
    pub collisions: Vec<String>,
}

/// A gix error as this crate's ([`Error::Gix`]).
fn gxe(e: gix::Error) -> Error {
    Error::Gix(Box::new(e))
}

fn bad_name(kind: crate::BadName, name: &str, source: Option<crate::Cause>) -> Error {
    Error::BadName { kind, name: name.into(), source }
}

fn oid(hex: &str) -> Result<ObjectId, Error> {
    ObjectId::from_hex(hex.as_bytes()).map_err(|e| bad_name(crate::BadName::ObjectId, hex, Some(Box::new(e))))
}

fn full_name(name: &str) -> Result<FullName, Error> {
    if !name.starts_with("refs/") {
        return Err(bad_name(crate::BadName::Reference, name, None));
    }
    FullName::try_from(name).map_err(|e| bad_name(crate::BadName::Reference, name, Some(Box::new(e))))
}

/// A store path: non-empty `/`-separated components, each one git accepts in a tree on any
/// platform (not empty, `.`, `..`, `.git` or a Windows/NTFS/HFS+ alias of it, no NUL, `\\` or `:`).
fn check_path(path: &str) -> Result<(), Error> {
    let opts = gix::validate::path::component::Options::default();
    let ok = !path.is_empty() && path.split('/').all(|c| gix::validate::path::component(c.into(), None, opts).is_ok());
    if ok {
        Ok(())
    } else {
        Err(bad_name(crate::BadName::StorePath, path, None))
    }
}

/// Reading the store.
impl Git {
    /// The commit reference `name` (a full name such as [`CONTINUITY_REF`]) points to, or `None`
    /// when it does not exist.
    pub fn ref_tip(&self, name: &str) -> Result<Option<Oid>, Error> {
        Ok(self.tip_id(name)?.map(full))
    }

    fn tip_id(&self, name: &str) -> Result<Option<ObjectId>, Error> {
        full_name(name)?;
        let Some(mut r) = self.repo.try_find_reference(name).map_err(gxe)? else {
            return Ok(None);
        };
        Ok(Some(r.peel_to_id().map_err(gxe)?.detach()))
    }

    /// Every entry that is not a folder (a file, a symlink or a submodule, at any depth) in the
    /// tree of commit `tip`, with its full path and mode, sorted by path.
    pub fn store_list(&self, tip: &str) -> Result<Vec<StoreEntry>, Error> {
        // A whole listing looks up every tree of the store: through mappings of the pack
        // indexes renewed less often than a walk over a few shards renews them (each renewal
        // reads an index's offset table).
        list_in(&mut TreeReader::bounded(&self.repo, LOOKUPS_MAPPED, PAGES_MAPPED), self.commit_tree(oid(tip)?)?, "")
    }

    /// Every file below folder `dir` (a `/`-separated path, such as [`SNAPSHOTS`]) of the tree of
    /// commit `tip`, as [`Git::store_list`] lists them, with their full paths; none when there is
    /// no such folder.
    pub fn store_list_under(&self, tip: &str, dir: &str) -> Result<Vec<StoreEntry>, Error> {
        let mut tree = self.commit_tree(oid(tip)?)?;
        for part in dir.split('/') {
            match self.entries(tree)?.into_iter().find(|(n, _, _)| n == part) {
                Some((_, id, EntryKind::Tree)) => tree = id,
                _ => return Ok(Vec::new()),
            }
        }
        list_in(&mut TreeReader::new(&self.repo), tree, &format!("{dir}/"))
    }

    /// The bytes of blob `blob` (40 hex), refused unread when its object header says it is
    /// larger than `cap` bytes.
    pub fn read_blob(&self, blob: &str, cap: u64) -> Result<Vec<u8>, Error> {
        let id = oid(blob)?;
        if let Some(size) = oversize(&self.repo, id, cap)? {
            return Err(Error::TooLarge { id: blob.into(), size, cap });
        }
        let obj = self.repo.find_object(id).map_err(gxe)?;
        if obj.kind != gix::object::Kind::Blob {
            return Err(Error::NotABlob { id: blob.into(), kind: obj.kind });
        }
        Ok(obj.detach().data)
    }

    /// Whether `a` is an ancestor of (or equal to) `b`; both must be commits of this repository.
    pub fn commit_is_ancestor(&self, a: &str, b: &str) -> Result<bool, Error> {
        let a = self.commit_id(a).ok_or_else(|| Error::NoCommit(a.into()))?;
        let b = self.commit_id(b).ok_or_else(|| Error::NoCommit(b.into()))?;
        self.is_ancestor(a, b)
    }

    /// Whether `hex` (full or abbreviated) names a commit present in this repository.
    pub fn has_commit(&self, hex: &str) -> bool {
        self.commit_id(hex).is_some()
    }

    /// The identity to write store commits with: the repository's configured committer
    /// (`GIT_COMMITTER_*`, `committer.*`, `user.*`), else `majordomus <majordomus@localhost>`.
    pub fn store_identity(&self) -> (String, String) {
        if let Some(Ok(sig)) = self.repo.committer() {
            let (name, email) =
                (sig.name.to_str_lossy().trim().to_string(), sig.email.to_str_lossy().trim().to_string());
            if !name.is_empty() && !email.is_empty() {
                return (name, email);
            }
        }
        ("majordomus".to_string(), "majordomus@localhost".to_string())
    }

    /// The commit named by the full 40-hex `hex`, which must be present.
    fn full_commit(&self, hex: &str) -> Result<ObjectId, Error> {
        let id = oid(hex)?;
        match self.repo.try_find_header(id) {
            Ok(Some(h)) if h.kind() == gix::object::Kind::Commit => Ok(id),
            _ => Err(Error::NoCommit(hex.into())),
        }
    }

    /// Whether the full 40-hex `hex` names a commit present here (`false` for a blob, a tree, a
    /// tag or a missing object); `Err` only when the object database cannot be read.
    pub fn is_commit(&self, hex: &str) -> Result<bool, Error> {
        let header = self.repo.try_find_header(oid(hex)?).map_err(|e| Error::Objects(Box::new(e)))?;
        Ok(header.is_some_and(|h| h.kind() == gix::object::Kind::Commit))
    }

    fn commit_tree(&self, commit: ObjectId) -> Result<ObjectId, Error> {
        Ok(self.repo.find_commit(commit).map_err(gxe)?.tree_id().map_err(gxe)?.detach())
    }

    /// The entries of tree `id`: name (lossy UTF-8), object, kind.
    fn entries(&self, id: ObjectId) -> Result<Vec<(String, ObjectId, EntryKind)>, Error> {
        tree_entries(&self.repo, id)
    }
}

/// What changed between two store trees: the files to admit and the paths that went away.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreChanges {
    /// Files present in the new tree whose path is new or whose blob changed, sorted by path.
    pub added: Vec<StoreEntry>,
    /// Paths present in the old tree and absent (or replaced by a tree) in the new one, sorted.
    pub removed: Vec<String>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::binary::NoPrompt;
    use crate::net::{NetError, Pushed, RemoteRef};
    use std::path::Path;
    use std::process::Command;
    use std::process::Output;

    #[test]
    fn an_entry_keeps_a_record_path_as_its_id_and_orders_as_its_path_does() {
        let id = "0f".repeat(32);
        let record = format!("records/0f/0f/{id}.json");
        let paths = [
            record.clone(),
            format!("records/a0/a0/{}.json", "a0".repeat(32)),
            format!("records/0f/0f/{}.json", "a0".repeat(32)),
            format!("records/A0/A0/{}.json", "A0".repeat(32)),
            format!("records/0f/0e/{id}.json"),
            format!("records/0f/0f/{id}.json.bak"),
            format!("records/0f/0f/{}.json", &id[..62]),
            "records/0f/0f".into(),
            "README".into(),
            "records/zz".into(),
            "records/0f/0f/".into(),
            format!("records/0f/0f/{}.json", "é".repeat(32)),
            format!("records/0f/0f/{}.jsoné", &id[..61]),
            String::new(),
        ];
        assert_eq!(record_path_id(&record), Some([0x0f; 32]));
        let entries: Vec<StoreEntry> = paths
            .iter()
            .map(|p| StoreEntry::new(p.clone(), ObjectId::null(gix::hash::Kind::Sha1), FileMode::Regular))
            .collect();
        for (e, p) in entries.iter().zip(&paths) {
            assert_eq!(*e.path(), **p);
            assert_eq!(e.record_id().is_some(), record_path_id(p).is_some(), "{p}");
            for (f, q) in entries.iter().zip(&paths) {
                assert_eq!(e.cmp_path(f), p.cmp(q), "{p} against {q}");
            }
        }
        let shaped: Vec<&String> = paths.iter().filter(|p| record_path_id(p).is_some()).collect();
        assert_eq!(shaped.len(), 2, "{shaped:?}");
        assert_eq!(std::mem::size_of::<StoreEntry>(), 64);
    }

    pub(crate) fn git(dir: &Path, args: &[&str]) -> Output {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap()
    }

    pub(crate) fn sh(dir: &Path, args: &[&str]) -> String {
        let out = git(dir, args);
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A checkout with one commit on `main` and an untracked file.
    pub(crate) fn checkout(dir: &Path) -> Git {
        std::fs::create_dir_all(dir).unwrap();
        sh(dir, &["init", "-q", "-b", "main"]);
        std::fs::write(dir.join("a.txt"), "a\n").unwrap();
        sh(dir, &["add", "a.txt"]);
        sh(dir, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"]);
        std::fs::write(dir.join("untracked.txt"), "u\n").unwrap();
        Git::discover(dir).unwrap()
    }

    /// An empty bare repository `remote.git` under `dir`.
    fn bare_remote(dir: &Path) -> std::path::PathBuf {
        let bare = dir.join("remote.git");
        std::fs::create_dir_all(&bare).unwrap();
        sh(&bare, &["init", "-q", "--bare"]);
        bare
    }

    fn who() -> Committer {
        Committer::new("tester", "tester@example.com", 1_700_000_000)
    }

    fn path_of(id: &str) -> String {
        format!("records/{}/{}/{id}.json", &id[..2], &id[2..4])
    }

    fn rec(n: usize) -> (String, Vec<u8>) {
        let id = format!("{:064x}", n as u128 * 0x9e37_79b9_7f4a_7c15 + 1);
        (path_of(&id), format!("{{\"id\":\"{id}\"}}\n").into_bytes())
    }

    fn snapshot(dir: &Path) -> (String, String, String) {
        (
            sh(dir, &["rev-parse", "HEAD"]),
            sh(dir, &["status", "--porcelain"]),
            sh(dir, &["for-each-ref", "refs/heads", "refs/remotes", "refs/tags"]),
        )
    }

    fn paths(g: &Git, tip: &str) -> Vec<String> {
        g.store_list(tip).unwrap().into_iter().map(|e| e.path().into_owned()).collect()
    }

    fn fsck(dir: &Path) {
        let out = git(dir, &["fsck", "--strict", "--no-progress"]);
        assert!(
            out.status.success(),
            "fsck: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!text.contains("error") && !text.contains("warning"), "fsck: {text}");
    }

    #[test]
    fn add_list_read_and_idempotence() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        let before = snapshot(&dir);
        assert_eq!(g.ref_tip(CONTINUITY_REF).unwrap(), None);

        let recs: Vec<_> = (0..5).map(rec).collect();
        let a = g.store_add(&recs[..3], "majordomus continuity: first", &who()).unwrap();
        assert!(a.written);
        assert_eq!(g.ref_tip(CONTINUITY_REF).unwrap().as_deref(), Some(a.tip.as_str()));
        assert_eq!(sh(&dir, &["rev-parse", CONTINUITY_REF]), a.tip);
        let b = g.store_add(&recs[3..], "majordomus continuity: second", &who()).unwrap();
        assert!(b.written);
        assert_eq!(sh(&dir, &["rev-parse", &format!("{}^", b.tip)]), a.tip);

        let list = g.store_list(&b.tip).unwrap();
        let mut want: Vec<String> = recs.iter().map(|r| r.0.clone()).collect();
        want.sort();
        assert_eq!(list.iter().map(|e| e.path().into_owned()).collect::<Vec<_>>(), want);
        for e in &list {
            let r = recs.iter().find(|r| r.0 == *e.path()).unwrap();
            assert_eq!(g.read_blob(&e.blob(), u64::MAX).unwrap(), r.1);
        }
        // The commit is written as the given committer at the given time, message with newline.
        let raw = sh(&dir, &["cat-file", "commit", &b.tip]);
        assert!(raw.contains("committer tester <tester@example.com> 1700000000 +0000"), "{raw}");
        assert!(raw.ends_with("majordomus continuity: second"), "{raw}");

        // Same bytes again: nothing written, tip unchanged.
        let again = g.store_add(&recs[1..4], "again", &who()).unwrap();
        assert_eq!(again, AddOutcome { tip: b.tip.clone(), written: false });
        assert_eq!(g.ref_tip(CONTINUITY_REF).unwrap().as_deref(), Some(b.tip.as_str()));

        // Bad paths and bad ids are errors, not panics.
        assert!(g.store_add(&[("records//x.json", b"x".to_vec())], "m", &who()).is_err());
        assert!(g.store_add(&[("../x.json", b"x".to_vec())], "m", &who()).is_err());
        assert!(g.store_add(&[(".git/x.json", b"x".to_vec())], "m", &who()).is_err());
        assert!(g.store_add(&[("records/", b"x".to_vec())], "m", &who()).is_err());
        assert!(g.read_blob("zz", u64::MAX).is_err());
        assert!(g.read_blob(&b.tip, u64::MAX).is_err());
        assert!(g.ref_tip("continuity").is_err());
        let empty: &[(&str, &[u8])] = &[];
        assert!(!g.store_add(empty, "m", &who()).unwrap().written);

        assert!(g.has_commit(&b.tip));
        assert!(!g.has_commit(&list[0].blob()));
        assert!(g.commit_is_ancestor(&a.tip, &b.tip).unwrap());
        assert!(!g.commit_is_ancestor(&b.tip, &a.tip).unwrap());

        assert_eq!(snapshot(&dir), before);
        fsck(&dir);
    }

    #[test]
    fn stray_files_are_listed_at_any_depth() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        let (p, b) = rec(1);
        let out = g
            .store_add(
                &[(p.clone(), b), ("README".into(), b"r".to_vec()), ("records/ab/stray.txt".into(), b"s".to_vec())],
                "m",
                &who(),
            )
            .unwrap();
        assert_eq!(paths(&g, &out.tip), vec!["README".to_string(), p, "records/ab/stray.txt".to_string()]);
    }

    #[test]
    fn the_snapshots_folder_is_in_no_listing_or_difference_and_is_listed_on_its_own() {
        let t = tempfile::tempdir().unwrap();
        let g = checkout(&t.path().join("w"));
        let (p, b) = rec(1);
        let first = g.store_add(&[(p.clone(), b)], "m", &who()).unwrap();
        let snap = [("snapshots/n/h.json", b"s".to_vec()), ("snapshots/n/h/0000", b"f".to_vec())];
        let second =
            g.store_add(&[snap[0].clone(), snap[1].clone(), ("records/snapshots", b"x".to_vec())], "m", &who());
        let second = second.unwrap();
        // A folder of that name below the root is a store path like any other.
        assert_eq!(paths(&g, &second.tip), vec![p, "records/snapshots".to_string()]);
        let changes = g.store_changes(&first.tip, &second.tip).unwrap();
        let added: Vec<String> = changes.added.iter().map(|e| e.path().into_owned()).collect();
        assert_eq!((added, changes.removed), (vec!["records/snapshots".to_string()], Vec::<String>::new()));
        let removed = g.store_changes(&second.tip, &first.tip).unwrap();
        assert_eq!(removed.removed, vec!["records/snapshots".to_string()]);
        let under: Vec<String> =
            g.store_list_under(&second.tip, SNAPSHOTS).unwrap().iter().map(|e| e.path().into_owned()).collect();
        assert_eq!(under, vec!["snapshots/n/h.json".to_string(), "snapshots/n/h/0000".to_string()]);
        assert!(g.store_list_under(&first.tip, SNAPSHOTS).unwrap().is_empty());
    }

    #[test]
    fn a_forest_is_laid_out_depth_first_with_a_far_dependant_after_its_base() {
        const N: u32 = u32::MAX;
        // 0 <- 1 <- 2, 3, 4 roots, 5 and 6 based on 1 far away, 7 on 6.
        assert_eq!(depth_first(&[N, 0, 1, N, N, 1, 1, 6]), vec![0, 1, 2, 5, 6, 7, 3, 4]);
        assert_eq!(depth_first(&[N, N, N]), vec![0, 1, 2]);
        assert_eq!(depth_first(&[]), Vec::<u32>::new());
    }

    #[test]
    fn stretches_shrink_to_the_end_and_cover_the_order_once() {
        let order: Vec<usize> = (0..10_000).collect();
        let parts = stretches(&order, 2);
        assert_eq!(parts.concat(), order);
        assert_eq!(parts[0].len(), 2500);
        assert!(parts.windows(2).all(|w| w[0].len() >= w[1].len()), "shrinking");
        assert!(parts.iter().rev().skip(1).all(|p| p.len() >= MIN_STRETCH));
        assert!(parts.last().unwrap().len() <= MIN_STRETCH);
        assert_eq!(stretches(&order[..100], 2), vec![&order[..100]]);
        assert!(stretches(&order[..0], 4).is_empty());
    }

    #[test]
    fn blobs_are_read_after_their_delta_bases() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        let files: Vec<(String, Vec<u8>)> =
            (0..300).map(|i| (format!("r/{i:03}"), format!("{}{i}", "same text ".repeat(40)).into_bytes())).collect();
        let out = g.store_add(&files, "m", &who()).unwrap();
        sh(&dir, &["gc", "-q", "--aggressive"]);
        let g = Git::discover(&dir).unwrap();
        let list = g.store_list(&out.tip).unwrap();
        let (packs, order) = g.pack_order(&list);
        let laid = delta_order(&mut PackReader::new(packs.clone(), g.repo.object_hash(), u64::MAX), order.clone());
        let (mut a, mut b) = (order.clone(), laid.clone());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "every entry once");
        let at: HashMap<u64, usize> = laid.iter().enumerate().map(|(k, x)| (x.0, k)).collect();
        let mut based = 0;
        for (k, &(place, _)) in laid.iter().enumerate() {
            let (n, offset) = split_place(place);
            let file = gix::odb::pack::data::File::at(&packs[n], g.repo.object_hash()).unwrap();
            if let gix::odb::pack::data::entry::Header::OfsDelta { base_distance } = file.entry(offset).unwrap().header
            {
                if let Some(&b) = at.get(&(place - base_distance)) {
                    assert!(b < k, "a base is read before its dependant");
                    based += 1;
                }
            }
        }
        assert!(based > 200, "{based} of 300 blobs are deltas of another");
    }

    #[test]
    fn blobs_read_in_pack_order_come_back_whole_and_in_the_callers_order() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        // Similar bytes, so that `git gc` stores most of them as deltas of one another.
        let mut files: Vec<(String, Vec<u8>)> = (0..300)
            .map(|i| {
                (format!("records/{:02x}/x{i}.json", i % 7), format!("{}{i}", "same text ".repeat(40)).into_bytes())
            })
            .collect();
        files.push(("a/b/link".into(), b"z".to_vec()));
        files.push(("big".into(), vec![b'x'; 5000]));
        let out = g.store_add(&files, "m", &who()).unwrap();
        let too_large = |g: &Git| {
            let list = g.store_list(&out.tip).unwrap();
            let sizes = g.map_blobs(&list, 2, 4096, |_, b| if let Blob::TooLarge(n) = b { n } else { 0 }).unwrap();
            let n: Vec<u64> = sizes.into_iter().filter(|&n| n > 0).collect();
            n
        };
        // Loose objects (read through the object database), then packed (read by offset).
        assert_eq!(too_large(&g), vec![5000]);
        sh(&dir, &["gc", "-q", "--aggressive"]);
        let g = Git::discover(&dir).unwrap();
        assert!(g.repo.objects.store_ref().path().join("pack").read_dir().unwrap().count() >= 2);
        assert_eq!(too_large(&g), vec![5000], "a packed blob over the cap is not inflated");
        let list = g.store_list(&out.tip).unwrap();
        let want: Vec<Vec<u8>> = list.iter().map(|e| g.read_blob(&e.blob(), 1 << 20).unwrap()).collect();
        for workers in [1, 2, 3] {
            let got = g.map_blobs(&list, workers, 1 << 20, |_, b| match b {
                Blob::Bytes(b) => b.to_vec(),
                other => panic!("{other:?}"),
            });
            assert_eq!(got.unwrap(), want, "{workers} workers");
            let mut seen = Vec::new();
            g.store_map(
                &out.tip,
                workers,
                1 << 20,
                |e, b| (e.path().into_owned(), matches!(b, Blob::Bytes(_))),
                |e, (p, read)| {
                    assert_eq!(*e.path(), *p);
                    seen.push((p, read));
                    Ok::<(), Error>(())
                },
            )
            .unwrap();
            seen.sort();
            let paths: Vec<(String, bool)> = list.iter().map(|e| (e.path().into_owned(), true)).collect();
            assert_eq!(seen, paths, "{workers} workers");
        }
        // A sink that stops the read stops it: the error comes back, the threads end.
        let mut calls = 0;
        let stopped = g.store_map(
            &out.tip,
            2,
            1 << 20,
            |_, _| (),
            |_, ()| {
                calls += 1;
                if calls == 5 {
                    Err(Error::NoCommit("enough".into()))
                } else {
                    Ok(())
                }
            },
        );
        assert!(matches!(stopped, Err(Error::NoCommit(m)) if m == "enough"));
        assert_eq!(calls, 5);
        // A reader that panics is an error, not a crash of the caller.
        let panicked = g.map_blobs(&list, 2, 1 << 20, |e, _| assert!(*e.path() != *"big", "planted"));
        assert!(matches!(panicked, Err(Error::BlobReaders(true))));
        assert_eq!(panicked.unwrap_err().to_string(), "git: a blob reader thread panicked");
    }

    #[test]
    fn store_identity_is_the_configured_committer() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let _ = checkout(&dir);
        sh(&dir, &["config", "user.name", "Ada"]);
        sh(&dir, &["config", "user.email", "ada@example.com"]);
        let g = Git::discover(&dir).unwrap();
        assert_eq!(g.store_identity(), ("Ada".to_string(), "ada@example.com".to_string()));
    }

    #[test]
    fn no_identity_and_log_all_ref_updates() {
        // Gotcha 4: with no user identity and core.logAllRefUpdates=always the update still works,
        // and the reflog line is written as our committer.
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        sh(&dir, &["config", "core.logAllRefUpdates", "always"]);
        let g2 = Git::discover(&dir).unwrap();
        drop(g);
        let (name, email) = ("majordomus", "majordomus@localhost");
        let out = g2.store_add(&[rec(1)], "m", &Committer::new(name, email, 1_700_000_000)).unwrap();
        assert!(out.written);
        let log = std::fs::read_to_string(dir.join(".git/logs/refs/majordomus/continuity")).unwrap();
        assert!(log.contains("majordomus <majordomus@localhost> 1700000000 +0000"), "{log}");
    }

    #[test]
    fn concurrent_writers_lose_nothing() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let _g = checkout(&dir);
        let before = snapshot(&dir);
        let threads: Vec<_> = (0..4)
            .map(|k| {
                let dir = dir.clone();
                std::thread::spawn(move || {
                    let g = Git::discover(&dir).unwrap();
                    for i in 0..25 {
                        let out = g.store_add(&[rec(k * 100 + i)], "m", &who()).unwrap();
                        assert!(out.written);
                    }
                })
            })
            .collect();
        for th in threads {
            th.join().unwrap();
        }
        let g = Git::discover(&dir).unwrap();
        let tip = g.ref_tip(CONTINUITY_REF).unwrap().unwrap();
        assert_eq!(g.store_list(&tip).unwrap().len(), 100);
        assert_eq!(sh(&dir, &["rev-list", "--count", &tip]), "100");
        assert_eq!(snapshot(&dir), before);
        fsck(&dir);
    }

    #[test]
    fn concurrent_writers_without_the_lock_rely_on_compare_and_swap() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let _g = checkout(&dir);
        let threads: Vec<_> = (0..4)
            .map(|k| {
                let dir = dir.clone();
                std::thread::spawn(move || {
                    let g = Git::discover(&dir).unwrap();
                    for i in 0..10 {
                        assert!(g.add_unlocked(CONTINUITY_REF, &[rec(k * 100 + i)], "m", &who()).unwrap().written);
                    }
                })
            })
            .collect();
        for th in threads {
            th.join().unwrap();
        }
        let g = Git::discover(&dir).unwrap();
        let tip = g.ref_tip(CONTINUITY_REF).unwrap().unwrap();
        assert_eq!(g.store_list(&tip).unwrap().len(), 40);
        fsck(&dir);
    }

    /// docs/REFERENCE.md#store unit-level: with the ref's lock held by someone else, a write fails after a bounded
    /// number of attempts and leaves the ref unchanged; once the lock is gone it succeeds.
    #[test]
    fn a_held_lock_on_our_ref_is_a_leftover_and_on_any_other_fails_the_write() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        g.store_add(&[rec(0)], "first", &who()).unwrap();
        // The continuity ref is written only under the writers' lock: a lock file of it is a
        // dead writer's, cleared at once whatever its age (issue 41 item 5).
        let lock = dir.join(".git/refs/majordomus/continuity.lock");
        std::fs::write(&lock, "held").unwrap();
        assert!(g.store_add(&[rec(1)], "second", &who()).unwrap().written);
        assert!(!lock.exists());
        // Any other reference's fresh lock may be git's own: the write fails, the ref stays,
        // and "concurrent writers" is not said (there were none).
        let other = "refs/majordomus/remotes/peer/continuity";
        let first = g.add_at(other, &[rec(2)], "first", &who()).unwrap();
        let lock = dir.join(format!(".git/{other}.lock"));
        std::fs::write(&lock, "held").unwrap();
        let err = g.add_at(other, &[rec(3)], "second", &who()).unwrap_err().to_string();
        assert!(err.contains("(its lock file is held)") && !err.contains("concurrent"), "{err}");
        assert_eq!(g.ref_tip(other).unwrap().as_deref(), Some(first.tip.as_str()));
        std::fs::remove_file(&lock).unwrap();
        assert!(g.add_at(other, &[rec(3)], "second", &who()).unwrap().written);
        fsck(&dir);
    }

    #[test]
    fn a_stale_ref_lock_left_by_a_dead_writer_is_removed() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        g.store_add(&[rec(0)], "first", &who()).unwrap();
        let lock = dir.join(".git/refs/majordomus/remotes/peer/continuity.lock");
        g.add_at("refs/majordomus/remotes/peer/continuity", &[rec(9)], "first", &who()).unwrap();
        std::fs::write(&lock, "left by a killed writer").unwrap();
        let old = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        std::fs::File::options().write(true).open(&lock).unwrap().set_modified(old).unwrap();
        assert!(g.add_at("refs/majordomus/remotes/peer/continuity", &[rec(1)], "second", &who()).unwrap().written);
        assert!(!lock.exists());
        fsck(&dir);
    }

    #[test]
    fn a_stale_lock_on_the_tracking_ref_does_not_block_the_fetch() {
        let t = tempfile::tempdir().unwrap();
        let np = NoPrompt::default();
        let bare = bare_remote(t.path());
        let dir = t.path().join("w");
        let g = checkout(&dir);
        sh(&dir, &["remote", "add", "origin", &bare.display().to_string()]);
        let tip = g.store_add(&[rec(0)], "first", &who()).unwrap().tip;
        assert!(matches!(g.push_continuity("origin", &np), Ok(Pushed::Done)));
        let lock = dir.join(".git/refs/majordomus/remotes/origin/continuity.lock");
        std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
        // A fresh lock is a live writer's: the fetch waits for it, then names it.
        std::fs::write(&lock, "held").unwrap();
        match g.fetch_continuity("origin", &np) {
            Err(NetError::Local(e)) => assert!(e.contains("continuity.lock"), "{e}"),
            other => panic!("expected a local lock failure, got {other:?}"),
        }
        assert!(lock.exists());
        // The same lock, stale: a dead writer's, removed.
        let old = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        std::fs::File::options().write(true).open(&lock).unwrap().set_modified(old).unwrap();
        g.fetch_continuity("origin", &np).unwrap();
        assert!(!lock.exists());
        assert_eq!(g.ref_tip(&remote_tracking_ref("origin")).unwrap(), Some(tip));
        fsck(&dir);
    }

    #[test]
    fn set_ref_compare_and_swap() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        let a = g.store_add(&[rec(1)], "m", &who()).unwrap().tip;
        let b = g.store_add(&[rec(2)], "m", &who()).unwrap().tip;
        let r = remote_tracking_ref("origin");
        assert!(g.set_ref(&r, &a, Some(None), &who()).unwrap());
        // Stale expectations fail and leave the ref unchanged.
        assert!(!g.set_ref(&r, &b, Some(None), &who()).unwrap());
        assert!(!g.set_ref(&r, &b, Some(Some(&b)), &who()).unwrap());
        assert_eq!(g.ref_tip(&r).unwrap().as_deref(), Some(a.as_str()));
        assert!(g.set_ref(&r, &b, Some(Some(&a)), &who()).unwrap());
        assert_eq!(g.ref_tip(&r).unwrap().as_deref(), Some(b.as_str()));
        // Force-set, also backwards.
        assert!(g.set_ref(&r, &a, None, &who()).unwrap());
        assert_eq!(g.ref_tip(&r).unwrap().as_deref(), Some(a.as_str()));
        // Not a commit / not a full name.
        assert!(g.set_ref(&r, &"0".repeat(40), None, &who()).is_err());
        assert!(g.set_ref("continuity", &a, None, &who()).is_err());
        fsck(&dir);
    }

    #[test]
    fn tree_walks_read_packed_and_loose_trees_and_rewrite_only_what_they_edit() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        let peer = "refs/majordomus/remotes/peer/continuity";
        let records: Vec<(String, Vec<u8>)> = (0..40).map(rec).collect();
        let tip = g.store_add(&records[..30], "m", &who()).unwrap().tip;
        // An entry only git plumbing writes: a name that is not UTF-8, an executable mode.
        let blob = sh(&dir, &["hash-object", "-w", "--stdin"]);
        let root = sh(&dir, &["rev-parse", &format!("{tip}^{{tree}}")]);
        let mut listing = git(&dir, &["ls-tree", "-z", &root]).stdout;
        listing.extend_from_slice(format!("100755 blob {blob}\t").as_bytes());
        listing.extend_from_slice(b"odd-\xff-name\0");
        let mut mktree = Command::new("git")
            .args(["mktree", "-z"])
            .current_dir(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut mktree.stdin.take().unwrap(), &listing).unwrap();
        let odd_root = String::from_utf8(mktree.wait_with_output().unwrap().stdout).unwrap().trim().to_string();
        let odd = sh(
            &dir,
            &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit-tree", &odd_root, "-p", &tip, "-m", "odd"],
        );
        sh(&dir, &["update-ref", CONTINUITY_REF, &odd]);
        let odd_entry = |tip: &str| {
            let out = git(&dir, &["ls-tree", "-z", tip]).stdout;
            out.split(|&b| b == 0).find(|e| e.ends_with(b"odd-\xff-name")).map(<[u8]>::to_vec)
        };
        let kept = odd_entry(&odd).expect("the odd entry is in the store");
        // The peer's store: every record, written before the local one packs.
        let theirs = g.add_at(peer, &records, "m", &who()).unwrap().tip;
        sh(&dir, &["gc", "-q"]);
        let g = Git::discover(&dir).unwrap();
        let loose = |dir: &Path| sh(dir, &["count-objects"]).split(' ').next().unwrap().parse::<u32>().unwrap();
        assert_eq!(loose(&dir), 0);

        // A tree already packed is not written again.
        let packed_root = g.commit_tree(oid(&odd).unwrap()).unwrap();
        let mut trees = TreeReader::new(&g.repo);
        assert_eq!(trees.write_with(Some(packed_root), &[]).unwrap(), packed_root);
        assert_eq!(loose(&dir), 0, "no loose copy of a packed tree");

        // The difference of two packed trees; a merge writes loose trees, read back by the next
        // difference; the odd entry stays as stored (name bytes and mode) through both writes.
        let changes = g.store_changes(&odd, &theirs).unwrap();
        let added: Vec<String> = changes.added.iter().map(|e| e.path().into_owned()).collect();
        let mut want: Vec<String> = records[30..].iter().map(|r| r.0.clone()).collect();
        want.sort();
        assert_eq!(added, want);
        assert_eq!(changes.removed, vec!["odd-\u{fffd}-name".to_string()]);
        let m = g.store_merge(CONTINUITY_REF, &theirs, &|_: &str| true, "merge", &who()).unwrap();
        assert_eq!(m.action, MergeAction::Merged);
        assert!(loose(&dir) > 0, "the merge wrote its trees loose");
        assert_eq!(odd_entry(&m.tip), Some(kept.clone()));
        let after: Vec<String> =
            g.store_changes(&odd, &m.tip).unwrap().added.iter().map(|e| e.path().into_owned()).collect();
        assert_eq!(after, want);
        let (p, b) = rec(99);
        let published = g.store_add(&[(p.clone(), b)], "m", &who()).unwrap().tip;
        assert_eq!(odd_entry(&published), Some(kept));
        let mut all: Vec<String> = records.iter().map(|r| r.0.clone()).chain([p]).collect();
        all.push("odd-\u{fffd}-name".into());
        all.sort();
        assert_eq!(paths(&g, &published), all);
        fsck(&dir);
    }

    #[test]
    fn merge_cases() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        let before = snapshot(&dir);
        let other = "refs/majordomus/remotes/peer/continuity";
        let all = |_: &str| true;
        let (p1, b1) = rec(1);
        let (p2, b2) = rec(2);
        let (p3, b3) = rec(3);

        // Local absent, everything included: fast-forward.
        let r1 = g.add_at(other, &[(p1.clone(), b1.clone())], "m", &who()).unwrap().tip;
        let m = g.store_merge(CONTINUITY_REF, &r1, &all, "majordomus continuity: merge", &who()).unwrap();
        assert_eq!((m.action, m.tip.as_str()), (MergeAction::FastForward, r1.as_str()));
        assert_eq!(m.action.as_str(), "fast_forward");

        // Already contained: none.
        let m = g.store_merge(CONTINUITY_REF, &r1, &all, "merge", &who()).unwrap();
        assert_eq!((m.action, m.tip.as_str()), (MergeAction::None, r1.as_str()));

        // Remote ahead: fast-forward.
        let r2 = g.add_at(other, &[(p2.clone(), b2.clone())], "m", &who()).unwrap().tip;
        let m = g.store_merge(CONTINUITY_REF, &r2, &all, "merge", &who()).unwrap();
        assert_eq!((m.action, m.tip.as_str()), (MergeAction::FastForward, r2.as_str()));

        // Local ahead: none.
        let l3 = g.store_add(&[(p3.clone(), b3.clone())], "m", &who()).unwrap().tip;
        let m = g.store_merge(CONTINUITY_REF, &r2, &all, "merge", &who()).unwrap();
        assert_eq!((m.action, m.tip.as_str()), (MergeAction::None, l3.as_str()));

        // Diverged, with a collision (same path, other bytes) and an excluded path.
        let (p4, b4) = rec(4);
        let (p5, b5) = rec(5);
        let refused = rec(6).0;
        let refused_too = rec(8).0;
        let r3 = g
            .add_at(
                other,
                &[
                    (p4.clone(), b4.clone()),
                    (p3.clone(), b"other bytes\n".to_vec()),
                    (refused.clone(), b"bad".to_vec()),
                    ("stray".into(), b"s".to_vec()),
                ],
                "m",
                &who(),
            )
            .unwrap()
            .tip;
        let _ = g.store_add(&[(p5.clone(), b5.clone())], "m", &who()).unwrap();
        let local_before = g.ref_tip(CONTINUITY_REF).unwrap().unwrap();
        let include = |p: &str| p.starts_with("records/") && p != refused && p != refused_too;
        let m = g.store_merge(CONTINUITY_REF, &r3, &include, "majordomus continuity: merge", &who()).unwrap();
        assert_eq!(m.action, MergeAction::Merged);
        assert_eq!(m.collisions, vec![p3.clone()]);
        let parents = sh(&dir, &["rev-list", "--parents", "-n1", &m.tip]);
        assert_eq!(parents, format!("{} {local_before} {r3}", m.tip));
        let mut want = vec![p1.clone(), p2.clone(), p3.clone(), p4.clone(), p5.clone()];
        want.sort();
        assert_eq!(paths(&g, &m.tip), want);
        let kept = g.store_list(&m.tip).unwrap().into_iter().find(|e| *e.path() == *p3).unwrap();
        assert_eq!(g.read_blob(&kept.blob(), u64::MAX).unwrap(), b3);
        // The merged remote is now contained.
        let again = g.store_merge(CONTINUITY_REF, &r3, &include, "merge", &who()).unwrap();
        assert_eq!((again.action, again.tip.as_str()), (MergeAction::None, m.tip.as_str()));

        // Local ancestor of remote, but the remote carries an excluded path: merge commit, not ff.
        let r4 = g.add_at(other, &[rec(7)], "m", &who()).unwrap().tip;
        let _ = g.store_merge(other, &m.tip, &all, "merge", &who()).unwrap();
        let r5 = g.add_at(other, &[(refused_too.clone(), b"x".to_vec())], "m", &who()).unwrap().tip;
        assert!(g.commit_is_ancestor(&m.tip, &r5).unwrap());
        let m2 = g.store_merge(CONTINUITY_REF, &r5, &include, "merge", &who()).unwrap();
        assert_eq!(m2.action, MergeAction::Merged);
        assert!(!paths(&g, &m2.tip).contains(&refused_too));
        assert!(paths(&g, &m2.tip).contains(&rec(7).0));
        assert!(g.commit_is_ancestor(&r4, &m2.tip).unwrap());

        // Local absent, something excluded: a root-of-its-own commit with parent [remote].
        let fresh = "refs/majordomus/fresh";
        let m3 = g.store_merge(fresh, &r3, &include, "merge", &who()).unwrap();
        assert_eq!(m3.action, MergeAction::Merged);
        assert_eq!(sh(&dir, &["rev-list", "--parents", "-n1", &m3.tip]), format!("{} {r3}", m3.tip));
        let mut want = vec![p1, p2, p3.clone(), p4];
        want.sort();
        assert_eq!(paths(&g, &m3.tip), want);
        let p3_remote = g.store_list(&m3.tip).unwrap().into_iter().find(|e| *e.path() == *p3).unwrap();
        assert_eq!(g.read_blob(&p3_remote.blob(), u64::MAX).unwrap(), b"other bytes\n");
        assert_eq!(g.store_merge(fresh, &r3, &include, "merge", &who()).unwrap().action, MergeAction::None);

        assert!(g.store_merge(CONTINUITY_REF, &"1".repeat(40), &all, "m", &who()).is_err());
        assert_eq!(snapshot(&dir), before);
        fsck(&dir);
    }

    #[test]
    fn push_fetch_ls_remote() {
        let t = tempfile::tempdir().unwrap();
        let np = NoPrompt::default();
        let bare = bare_remote(t.path());
        sh(&bare, &["config", "receive.denyNonFastForwards", "true"]);
        let url = bare.display().to_string();

        let a_dir = t.path().join("a");
        let a = checkout(&a_dir);
        sh(&a_dir, &["remote", "add", "origin", &url]);
        sh(&a_dir, &["remote", "add", "gone", "/nonexistent/majordomus-test/remote.git"]);
        let b_dir = t.path().join("b");
        let b = checkout(&b_dir);
        sh(&b_dir, &["remote", "add", "origin", &url]);
        let a_before = snapshot(&a_dir);

        // ls-remote: absent, unreachable.
        assert_eq!(a.ls_remote("origin", CONTINUITY_REF, &np).unwrap(), RemoteRef::Absent);
        assert!(a.ls_remote("gone", CONTINUITY_REF, &np).is_err());
        assert!(a.ls_remote("/nonexistent/majordomus-test/x.git", CONTINUITY_REF, &np).is_err());
        assert!(a.ls_remote("--upload-pack=x", CONTINUITY_REF, &np).is_err());

        // A publishes.
        let ta = a.store_add(&[rec(1)], "m", &who()).unwrap().tip;
        assert!(matches!(a.push_continuity("origin", &np), Ok(Pushed::Done)));
        assert_eq!(a.ls_remote("origin", CONTINUITY_REF, &np).unwrap(), RemoteRef::Present(ta.to_string()));
        assert_eq!(a.ls_remote(&url, CONTINUITY_REF, &np).unwrap(), RemoteRef::Present(ta.to_string()));
        assert!(matches!(a.push_continuity("origin", &np), Ok(Pushed::Done)));
        assert!(matches!(a.push_continuity("gone", &np), Err(NetError::Unreachable(_))));
        assert!(a.fetch_continuity("gone", &np).is_err());

        // B diverged: its push is rejected, not forced.
        let tb = b.store_add(&[rec(2)], "m", &who()).unwrap().tip;
        match b.push_continuity("origin", &np) {
            Ok(Pushed::Race(s)) => assert!(s.contains("rejected"), "{s}"),
            other => panic!("expected a rejection, got {other:?}"),
        }
        assert_eq!(sh(&bare, &["rev-parse", CONTINUITY_REF]), ta);

        // B fetches into its remote-tracking ref, merges, pushes.
        b.fetch_continuity("origin", &np).unwrap();
        let tracking = remote_tracking_ref("origin");
        assert_eq!(b.ref_tip(&tracking).unwrap().as_deref(), Some(ta.as_str()));
        assert_eq!(b.ref_tip(CONTINUITY_REF).unwrap().as_deref(), Some(tb.as_str()));
        let m = b.store_merge(CONTINUITY_REF, &ta, &|_| true, "majordomus continuity: merge", &who()).unwrap();
        assert_eq!(m.action, MergeAction::Merged);
        assert!(matches!(b.push_continuity("origin", &np), Ok(Pushed::Done)));
        assert!(b.set_ref(&tracking, &m.tip, None, &who()).unwrap());
        assert_eq!(sh(&bare, &["rev-parse", CONTINUITY_REF]), m.tip);

        // A is now behind: a local-only addition makes A diverge; its push is rejected (non-ff).
        let ta2 = a.store_add(&[rec(3)], "m", &who()).unwrap().tip;
        a.fetch_continuity("origin", &np).unwrap();
        assert!(matches!(a.push_continuity("origin", &np), Ok(Pushed::Race(_))));
        let remote_tip = a.ref_tip(&tracking).unwrap().unwrap();
        assert_eq!(remote_tip, m.tip);
        let ma = a.store_merge(CONTINUITY_REF, &remote_tip, &|_| true, "merge", &who()).unwrap();
        assert_eq!(ma.action, MergeAction::Merged);
        assert!(a.commit_is_ancestor(&ta2, &ma.tip).unwrap());
        assert!(matches!(a.push_continuity("origin", &np), Ok(Pushed::Done)));
        assert_eq!(paths(&a, &ma.tip).len(), 3);

        // B fast-forwards.
        b.fetch_continuity("origin", &np).unwrap();
        let fb = b.store_merge(CONTINUITY_REF, &ma.tip, &|_| true, "merge", &who()).unwrap();
        assert_eq!((fb.action, fb.tip.as_str()), (MergeAction::FastForward, ma.tip.as_str()));

        a.gc_auto();
        assert_eq!(snapshot(&a_dir), a_before);
        fsck(&a_dir);
        fsck(&b_dir);
        fsck(&bare);
    }

    /// Timing of `store_add` on a store of about 1000 records; run with
    /// `cargo test --release --lib git::store -- --ignored`.
    #[test]
    #[ignore]
    fn store_add_timing() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        for chunk in (0..1000).collect::<Vec<_>>().chunks(100) {
            let recs: Vec<_> = chunk.iter().map(|&n| rec(n)).collect();
            g.store_add(&recs, "bulk", &who()).unwrap();
        }
        let n = 100;
        let start = std::time::Instant::now();
        for i in 0..n {
            assert!(g.store_add(&[rec(10_000 + i)], "m", &who()).unwrap().written);
        }
        let per = start.elapsed().as_secs_f64() * 1000.0 / n as f64;
        let start = std::time::Instant::now();
        for i in 0..n {
            assert!(g.add_unlocked(CONTINUITY_REF, &[rec(20_000 + i)], "m", &who()).unwrap().written);
        }
        let per_unlocked = start.elapsed().as_secs_f64() * 1000.0 / n as f64;
        let tip = g.ref_tip(CONTINUITY_REF).unwrap().unwrap();
        let start = std::time::Instant::now();
        let listed = g.store_list(&tip).unwrap().len();
        let list_ms = start.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(listed, 1200);
        assert!(per < 50.0, "store_add took {per:.2} ms per record");
        assert!(per_unlocked < 50.0, "store_add without the lock took {per_unlocked:.2} ms per record");
        assert!(list_ms < 1000.0, "store_list took {list_ms:.2} ms");
    }
}
