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

/// The local store reference.
pub const CONTINUITY_REF: &str = "refs/majordomus/continuity";

/// The private remote-tracking reference of remote `remote`'s store.
pub fn remote_tracking_ref(remote: &str) -> String {
    format!("refs/majordomus/remotes/{remote}/continuity")
}

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

/// A gix error with its whole cause chain on one line (gix's own `Display` is generic).
fn gxe(e: gix::Error) -> Error {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.iter_errors() {
        let text = cause.to_string();
        if !parts.contains(&text) {
            parts.push(text);
        }
    }
    if parts.is_empty() {
        parts.push(e.to_string());
    }
    Error::Gix(parts.join(": "))
}

fn oid(hex: &str) -> Result<ObjectId, Error> {
    ObjectId::from_hex(hex.as_bytes()).map_err(|_| Error::Gix(format!("not a full object id: {hex:?}")))
}

fn full_name(name: &str) -> Result<FullName, Error> {
    if !name.starts_with("refs/") {
        return Err(Error::Gix(format!("not a full reference name: {name:?}")));
    }
    FullName::try_from(name).map_err(|e| Error::Gix(format!("invalid reference name {name:?}: {e}")))
}

/// A store path: non-empty `/`-separated components, each one git accepts in a tree on any
/// platform (not empty, `.`, `..`, `.git` or a Windows/NTFS/HFS+ alias of it, no NUL, `\\` or `:`).
fn check_path(path: &str) -> Result<(), Error> {
    let opts = gix::validate::path::component::Options::default();
    let ok = !path.is_empty() && path.split('/').all(|c| gix::validate::path::component(c.into(), None, opts).is_ok());
    if ok {
        Ok(())
    } else {
        Err(Error::Gix(format!("invalid store path {path:?}")))
    }
}

/// A short random pause (0 to 2^attempt ms, at most 32 ms), so that concurrent writers do not
/// retry in lock-step.
fn backoff(attempt: u32) {
    use std::hash::{BuildHasher, Hasher};
    let noise = std::collections::hash_map::RandomState::new().build_hasher().finish();
    let ms = noise % ((1u64 << attempt.min(5)) + 1);
    std::thread::sleep(Duration::from_millis(ms));
}

/// How long a store writer waits for the writers' lock before going on without it.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// The writers' lock of this clone's store (`<common-dir>/majordomus/store.lock`), released on
/// drop (an OS file lock: a crashed holder leaves no stale lock). It only makes local writers
/// take turns instead of starving each other in the compare-and-swap loop; correctness comes from
/// the compare-and-swap alone, so a writer that cannot take the lock goes on without it.
pub(super) struct WriterLock {
    file: Option<std::fs::File>,
}

/// How old a reference lock must be, while this process holds the writers' lock, to be taken
/// for the leftover of a dead writer (see [`Git::clear_stale_lock`]). Longer than the whole
/// compare-and-swap retry budget (about 3 s), so a live holder is never robbed.
const STALE_LOCK: Duration = Duration::from_secs(5);

/// The reference whose lock file a dead writer of ours may have left: it is written only by this
/// crate, under the writers' lock, so holding that lock proves a lock file of it is a leftover
/// (issue 41 item 5). Every other reference lock may be git's own (a plain `git fetch` updates
/// the remote-tracking stores) and is cleared only past [`STALE_LOCK`].
const OURS_ALONE: &str = "refs/majordomus/continuity";

/// Why a compare-and-swap loop gave up: "concurrent writers" only when another writer won.
#[derive(Default)]
struct Attempts {
    conflicts: usize,
    last: String,
}

impl Attempts {
    fn conflict(&mut self, e: String) {
        self.conflicts += 1;
        self.last = e;
    }
    fn busy(&mut self, e: String) {
        self.last = e;
    }
    fn gave_up(&self, refname: &str) -> Error {
        let why = if self.conflicts > 0 { " (concurrent writers)" } else { " (its lock file is held)" };
        Error::Gix(format!("{refname}: gave up after {MAX_ATTEMPTS} attempts{why}: {}", self.last))
    }
}

/// The outcome of one compare-and-swap attempt.
enum Cas {
    Done,
    /// The reference was not at the expected value (another writer won).
    Conflict(String),
    /// The reference lock could not be taken in time.
    Busy(String),
}

/// The entries of a remote tree that a union merge takes in, and what it leaves out.
#[derive(Default)]
struct Union {
    /// Included remote entries absent locally: path, object, kind.
    adds: Vec<(String, ObjectId, EntryKind)>,
    /// Included remote entries whose path holds something else locally.
    collisions: Vec<String>,
    /// Some remote entry that differs from the local tree was not included.
    excluded: bool,
    /// Some local entry is absent from the remote tree (a fast-forward would drop it).
    local_only: bool,
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
        list_in(&mut TreeReader::bounded(&self.repo, LOOKUPS_MAPPED, PAGES_MAPPED), self.commit_tree(oid(tip)?)?)
    }

    /// The bytes of blob `blob` (40 hex), refused unread when its object header says it is
    /// larger than `cap` bytes.
    pub fn read_blob(&self, blob: &str, cap: u64) -> Result<Vec<u8>, Error> {
        let id = oid(blob)?;
        if let Some(size) = oversize(&self.repo, id, cap)? {
            return Err(Error::Gix(format!("blob {blob} is {size} bytes, cap {cap}; it was not read")));
        }
        let obj = self.repo.find_object(id).map_err(gxe)?;
        if obj.kind != gix::object::Kind::Blob {
            return Err(Error::Gix(format!("{blob} is a {}, not a blob", obj.kind)));
        }
        Ok(obj.detach().data)
    }

    /// Whether `a` is an ancestor of (or equal to) `b`; both must be commits of this repository.
    pub fn commit_is_ancestor(&self, a: &str, b: &str) -> Result<bool, Error> {
        let a = self.commit_id(a).ok_or_else(|| Error::Gix(format!("no commit {a}")))?;
        let b = self.commit_id(b).ok_or_else(|| Error::Gix(format!("no commit {b}")))?;
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
            _ => Err(Error::Gix(format!("no commit {hex}"))),
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

/// [`Git::store_list`] of tree `tree`, read through `trees` (bounded mappings: the pages of the
/// trees and of the pack index they were found through are dropped as the walk goes).
fn list_in(trees: &mut TreeReader<'_>, tree: ObjectId) -> Result<Vec<StoreEntry>, Error> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), tree)];
    while let Some((prefix, id)) = stack.pop() {
        for (name, id, kind) in trees.entries(id)? {
            let path = format!("{prefix}{name}");
            match FileMode::of(kind) {
                None => stack.push((format!("{path}/"), id)),
                Some(mode) => out.push(StoreEntry::new(path, id, mode)),
            }
        }
    }
    out.sort_by(StoreEntry::cmp_path);
    Ok(out)
}

/// The entries of tree `id` read through `repo`: name (lossy UTF-8), object, kind.
fn tree_entries(repo: &gix::Repository, id: ObjectId) -> Result<Vec<(String, ObjectId, EntryKind)>, Error> {
    let tree = repo.find_tree(id).map_err(gxe)?;
    let mut v = Vec::new();
    for e in tree.iter() {
        let e = e.map_err(gxe)?;
        v.push((e.filename().to_str_lossy().into_owned(), e.object_id(), e.mode().kind()));
    }
    Ok(v)
}

/// What changed between two store trees: the files to admit and the paths that went away.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreChanges {
    /// Files present in the new tree whose path is new or whose blob changed, sorted by path.
    pub added: Vec<StoreEntry>,
    /// Paths present in the old tree and absent (or replaced by a tree) in the new one, sorted.
    pub removed: Vec<String>,
}

/// How many bytes of delta bases each blob-reading thread keeps.
const BASE_CACHE_BYTES: usize = 16 << 20;

/// A bounded cache of decoded pack entries (delta bases), first in first out. gix is built
/// without its own pack caches; without one, every blob of a deltified pack re-inflates its
/// whole delta chain.
pub(crate) struct BaseCache {
    map: HashMap<(u32, u64), (gix::object::Kind, Vec<u8>)>,
    order: std::collections::VecDeque<(u32, u64)>,
    bytes: usize,
    cap: usize,
}

impl BaseCache {
    pub(crate) fn new(cap: usize) -> BaseCache {
        BaseCache { map: HashMap::new(), order: std::collections::VecDeque::new(), bytes: 0, cap }
    }
}

impl gix::odb::pack::cache::DecodeEntry for BaseCache {
    fn put(&mut self, pack_id: u32, offset: u64, data: &[u8], kind: gix::object::Kind, _compressed: usize) {
        if data.len() > self.cap / 4 || self.map.contains_key(&(pack_id, offset)) {
            return;
        }
        while self.bytes + data.len() > self.cap {
            let Some(old) = self.order.pop_front() else { break };
            if let Some((_, d)) = self.map.remove(&old) {
                self.bytes -= d.len();
            }
        }
        self.bytes += data.len();
        self.order.push_back((pack_id, offset));
        self.map.insert((pack_id, offset), (kind, data.to_vec()));
    }

    fn get(&mut self, pack_id: u32, offset: u64, out: &mut Vec<u8>) -> Option<(gix::object::Kind, usize)> {
        let (kind, data) = self.map.get(&(pack_id, offset))?;
        out.clear();
        out.extend_from_slice(data);
        Some((*kind, data.len()))
    }
}

/// Incremental reads of the store.
impl Git {
    /// The files that differ between the trees of commits `old` and `new`. Subtrees with the
    /// same object id on both sides are skipped, so with the two-level sharding only the shards
    /// an update touched are read. Fails when either commit (or a tree it names) is missing,
    /// e.g. `old` was pruned after a forced update: the caller then reads `new` whole.
    pub fn store_changes(&self, old: &str, new: &str) -> Result<StoreChanges, Error> {
        let (a, b) = (self.commit_tree(oid(old)?)?, self.commit_tree(oid(new)?)?);
        let mut trees = TreeReader::new(&self.repo);
        let mut out = StoreChanges::default();
        let mut stack = vec![(String::new(), Some(a), Some(b))];
        while let Some((prefix, a, b)) = stack.pop() {
            if a == b {
                continue;
            }
            let old_entries: HashMap<String, (ObjectId, EntryKind)> = match a {
                Some(a) => trees.entries(a)?.into_iter().map(|(n, id, k)| (n, (id, k))).collect(),
                None => HashMap::new(),
            };
            let new_entries = match b {
                Some(b) => trees.entries(b)?,
                None => Vec::new(),
            };
            let mut seen = std::collections::HashSet::new();
            for (name, id, kind) in new_entries {
                let path = format!("{prefix}{name}");
                let before = old_entries.get(&name).copied();
                seen.insert(name);
                let mode = FileMode::of(kind);
                match (mode, before) {
                    (None, Some((old_id, EntryKind::Tree))) => stack.push((format!("{path}/"), Some(old_id), Some(id))),
                    (None, before) => {
                        if before.is_some() {
                            out.removed.push(path.clone());
                        }
                        stack.push((format!("{path}/"), None, Some(id)));
                    }
                    (Some(mode), Some((old_id, EntryKind::Tree))) => {
                        stack.push((format!("{path}/"), Some(old_id), None));
                        out.added.push(StoreEntry::new(path, id, mode));
                    }
                    (Some(_), Some((old_id, old_kind))) if old_id == id && old_kind == kind => {}
                    (Some(mode), _) => out.added.push(StoreEntry::new(path, id, mode)),
                }
            }
            for (name, (id, kind)) in old_entries {
                if seen.contains(&name) {
                    continue;
                }
                let path = format!("{prefix}{name}");
                match kind {
                    EntryKind::Tree => stack.push((format!("{path}/"), Some(id), None)),
                    _ => out.removed.push(path),
                }
            }
        }
        out.added.sort_by(StoreEntry::cmp_path);
        out.removed.sort();
        Ok(out)
    }

    /// The regular file at `path` in the tree of commit `tip`, found by walking the path's components
    /// (a handful of small trees), never by listing the store.
    pub fn store_find(&self, tip: &str, path: &str) -> Result<Option<String>, Error> {
        let mut tree = self.commit_tree(oid(tip)?)?;
        let parts: Vec<&str> = path.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            let Some((_, id, kind)) = self.entries(tree)?.into_iter().find(|(n, _, _)| n == part) else {
                return Ok(None);
            };
            let last = i + 1 == parts.len();
            match (last, kind) {
                (false, EntryKind::Tree) => tree = id,
                (true, EntryKind::Blob) => return Ok(Some(id.to_string())),
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Reads the blobs of `entries` on `workers` threads and maps each one with `f` as soon as
    /// it is read, so at most one blob per thread is held at a time. Results come back in the
    /// order of `entries`. A blob whose object header says it is larger than `cap` is never
    /// inflated ([`Blob::TooLarge`]); an entry that is not a regular file is never read
    /// ([`Blob::NotAFile`]). Blobs are read along their delta chains (see [`Git::store_map`]).
    pub fn map_blobs<T, F>(&self, entries: &[StoreEntry], workers: usize, cap: u64, f: F) -> Result<Vec<T>, Error>
    where
        T: Send,
        F: Fn(&StoreEntry, Blob<'_>) -> T + Sync,
    {
        let mut out: Vec<Option<T>> = std::iter::repeat_with(|| None).take(entries.len()).collect();
        self.read_in_pack_order(entries, workers, cap, f, |i, t| {
            out[i] = Some(t);
            Ok::<(), Error>(())
        })?;
        out.into_iter().map(|t| t.ok_or_else(|| Error::Gix("a blob was not read".into()))).collect()
    }

    /// Maps every file of the tree of commit `tip` (as [`Git::store_list`] lists them) with `f`
    /// on `workers` threads, as [`Git::map_blobs`] does, and hands each result to `sink` on the
    /// calling thread as soon as it is ready, in no particular order: only the list of files
    /// and the results in flight are held, never every result.
    ///
    /// Blobs are read in the order their pack stores them, rearranged so that a blob comes
    /// right after its delta base ([`delta_order`]), each thread a contiguous stretch of that
    /// order. The base was decoded just before, so it is found in the thread's delta-base cache:
    /// a store after `git gc` (delta chains up to 50 long) costs about one inflate per blob, not
    /// one per link of its chain, as reading in path order did.
    pub fn store_map<T, E, F>(
        &self,
        tip: &str,
        workers: usize,
        cap: u64,
        f: F,
        mut sink: impl FnMut(&StoreEntry, T) -> Result<(), E>,
    ) -> Result<(), E>
    where
        T: Send,
        E: From<Error>,
        F: Fn(&StoreEntry, Blob<'_>) -> T + Sync,
    {
        let entries = self.store_list(tip)?;
        self.read_in_pack_order(&entries, workers, cap, f, |i, t| sink(&entries[i], t))
    }

    /// Where the blobs of `entries` are stored: the data files of this repository's packs, and
    /// every entry's index with its place, `pack number << 48 | offset`, sorted by place; a blob
    /// in no pack of this repository's own (loose, or in an alternate) has place [`UNPACKED`]
    /// and comes last.
    fn pack_order(&self, entries: &[StoreEntry]) -> (Vec<std::path::PathBuf>, Vec<(u64, usize)>) {
        // Looked up in id order, the indexes reopened every few thousand ids: each stretch
        // touches a few neighbouring pages of each index, and no more than those stay mapped
        // (looked up in path order, a few ids touch most of an index). Not more often: opening
        // an index reads its whole offset table through.
        let mut indexes = Indexes::of(&self.repo, LOOKUPS_MAPPED);
        let mut ids: Vec<(gix::ObjectId, usize)> = entries.iter().enumerate().map(|(i, e)| (e.object, i)).collect();
        ids.sort_unstable();
        let mut keyed: Vec<(u64, usize)> = ids.iter().map(|(id, i)| (indexes.place(id), *i)).collect();
        keyed.sort_unstable();
        (indexes.packs(), keyed)
    }

    /// The reader behind [`Git::map_blobs`] and [`Git::store_map`]: `sink` gets `(index in
    /// entries, result)` on the calling thread. The threads take stretches of the order of
    /// [`delta_order`] in turn ([`stretches`]) and read them straight from the pack data files
    /// by offset ([`PackReader`]), unmapped every [`PAGES_MAPPED`] pages or so, so the pack
    /// pages it read are dropped as it goes (its delta-base cache stays); a blob it cannot
    /// decode there (loose, too large, not a blob, a damaged pack) is read through the object
    /// database as before, with the same checks.
    fn read_in_pack_order<T, E, F>(
        &self,
        entries: &[StoreEntry],
        workers: usize,
        cap: u64,
        f: F,
        mut sink: impl FnMut(usize, T) -> Result<(), E>,
    ) -> Result<(), E>
    where
        T: Send,
        E: From<Error>,
        F: Fn(&StoreEntry, Blob<'_>) -> T + Sync,
    {
        if entries.is_empty() {
            return Ok(());
        }
        let (packs, order) = self.pack_order(entries);
        let order = delta_order(&mut PackReader::new(packs.clone(), self.repo.object_hash(), cap), order);
        let stretches = stretches(&order, workers);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (stretches, next) = (&stretches, &next);
        let hash = self.repo.object_hash();
        let (f, packs, base) = (&f, &packs, &self.repo.clone().into_sync());
        // Results travel in batches: one hand-over (and one wake-up) per [`BATCH`] blobs, not
        // one per blob (a channel per blob cost 140,000 futex calls at 100,000 blobs).
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Result<(usize, T), Error>>>(8);
        std::thread::scope(|scope| {
            let mut readers = Vec::new();
            for _ in 0..workers.clamp(1, stretches.len().max(1)) {
                let tx = tx.clone();
                readers.push(scope.spawn(move || {
                    let mut repo = base.to_thread_local();
                    repo.objects.set_pack_cache(|| Box::new(BaseCache::new(BASE_CACHE_BYTES)));
                    let mut reader = PackReader::new(packs.clone(), hash, cap);
                    let mut batch = Vec::with_capacity(BATCH);
                    let taken =
                        std::iter::from_fn(|| stretches.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
                    for &(place, i) in taken.flat_map(|part| part.iter()) {
                        let e = &entries[i];
                        let read = match reader.read(e, place) {
                            Some(bytes) => Ok(f(e, Blob::Bytes(bytes))),
                            None => read_one(&repo, e, cap, f),
                        };
                        reader.unmap_when_full();
                        let failed = read.is_err();
                        batch.push(read.map(|t| (i, t)));
                        if batch.len() == BATCH || failed {
                            // The receiver is gone when the caller stopped early: so do we.
                            if tx.send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))).is_err() || failed {
                                return;
                            }
                        }
                    }
                    let _ = tx.send(batch);
                }));
            }
            drop(tx);
            let mut outcome = Ok(());
            'batches: for batch in rx.iter() {
                for read in batch {
                    if let Err(e) = read.map_err(E::from).and_then(|(i, t)| sink(i, t)) {
                        outcome = Err(e);
                        break 'batches;
                    }
                }
            }
            // The readers stop at their next send once the receiver is gone.
            drop(rx);
            for r in readers {
                if r.join().is_err() && outcome.is_ok() {
                    outcome = Err(Error::Gix("a blob reader thread panicked".into()).into());
                }
            }
            outcome
        })
    }
}

/// The place of a blob in no pack of the repository's own.
const UNPACKED: u64 = u64::MAX;

/// The indexes of this repository's own packs, looked up through mappings renewed every
/// `every` lookups: the index pages a run of lookups touched are dropped as it goes (a 20 MB
/// index is otherwise soon resident whole, as each lookup faults in 64 KiB around the pages
/// its binary search reads).
struct Indexes {
    paths: Vec<std::path::PathBuf>,
    files: Vec<gix::odb::pack::index::File>,
    hash: gix::hash::Kind,
    every: usize,
    lookups: usize,
}

impl Indexes {
    /// The indexes of `repo`'s own packs (at most 32,768, in name order) whose data file exists.
    fn of(repo: &gix::Repository, every: usize) -> Indexes {
        let hash = repo.object_hash();
        let dir = repo.objects.store_ref().path().join("pack");
        let mut idx: Vec<std::path::PathBuf> =
            std::fs::read_dir(&dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        idx.retain(|p| p.extension().is_some_and(|x| x == "idx") && p.with_extension("pack").is_file());
        idx.sort();
        idx.truncate(1 << 15);
        let mut out = Indexes { paths: Vec::new(), files: Vec::new(), hash, every: every.max(1), lookups: 0 };
        for p in idx {
            if let Ok(f) = gix::odb::pack::index::File::at(&p, hash) {
                out.files.push(f);
                out.paths.push(p);
            }
        }
        out
    }

    /// The data files of the indexes, in the same order (pack number `n` of a place).
    fn packs(&self) -> Vec<std::path::PathBuf> {
        self.paths.iter().map(|p| p.with_extension("pack")).collect()
    }

    /// Where object `id` is stored, `pack number << 48 | offset`, or [`UNPACKED`] when no pack
    /// of these holds it.
    fn place(&mut self, id: &gix::oid) -> u64 {
        self.lookups += 1;
        if self.lookups.is_multiple_of(self.every) {
            let hash = self.hash;
            self.files = self.paths.iter().filter_map(|p| gix::odb::pack::index::File::at(p, hash).ok()).collect();
            if self.files.len() != self.paths.len() {
                // An index vanished under us (a concurrent repack): nothing is found through
                // these any more, and every read goes through the object database.
                self.files.clear();
                self.paths.clear();
            }
        }
        self.files
            .iter()
            .enumerate()
            .find_map(|(n, p)| p.lookup(id).map(|k| place_of(n, p.pack_offset_at_index(k))))
            .filter(|&at| at < UNPACKED)
            .unwrap_or(UNPACKED)
    }
}

/// Tree `base` (`None`: empty) with `edits` (path, object, kind) written in through `trees`;
/// when a path is given twice, the last one wins.
fn write_tree<'p>(
    trees: &mut TreeReader<'_>,
    base: Option<ObjectId>,
    edits: impl Iterator<Item = (&'p str, ObjectId, EntryKind)>,
) -> Result<ObjectId, Error> {
    let mut edits: Vec<(&str, ObjectId, EntryKind)> = edits.collect();
    // Stable: of two edits of one path, the later stays later.
    edits.sort_by(|a, b| a.0.cmp(b.0));
    trees.write_with(base, &edits)
}

/// How many ids a [`TreeReader`] looks up through one mapping of the pack indexes.
const TREE_LOOKUPS_MAPPED: usize = 64;

/// About how many pack pages a [`TreeReader`] reads through one mapping (trees are read far
/// apart, each read faulting in up to 64 KiB around it).
const TREE_PAGES_MAPPED: usize = 128;

/// Reads the trees of a walk over the store (a tree difference, a union merge, a rewrite)
/// straight from the pack files, with the index and pack pages it touches bounded
/// ([`TREE_LOOKUPS_MAPPED`], [`TREE_PAGES_MAPPED`]) and its own delta-base cache: read through
/// the object database, a walk left the index and pack it touched mapped for the rest of the
/// process. A tree no pack of the repository's own
/// holds (loose: one the process just wrote; in an alternate), or that does not decode there,
/// is read through `repo` as before, with its checks.
struct TreeReader<'r> {
    repo: &'r gix::Repository,
    indexes: Indexes,
    packs: PackReader,
    loose: gix::odb::loose::Store,
}

impl<'r> TreeReader<'r> {
    fn new(repo: &'r gix::Repository) -> TreeReader<'r> {
        TreeReader::bounded(repo, TREE_LOOKUPS_MAPPED, TREE_PAGES_MAPPED)
    }

    /// A reader renewing its index mappings every `lookups` lookups and its pack mappings
    /// every `pages` pages.
    fn bounded(repo: &'r gix::Repository, lookups: usize, pages: usize) -> TreeReader<'r> {
        let indexes = Indexes::of(repo, lookups);
        let packs = PackReader::new(indexes.packs(), repo.object_hash(), u64::MAX).bounded(pages);
        let loose = gix::odb::loose::Store::at(repo.objects.store_ref().path(), repo.object_hash());
        TreeReader { repo, indexes, packs, loose }
    }

    /// Writes `tree` as a loose object unless a pack of the repository's own or a loose object
    /// already holds it, looked up through these bounded mappings (the object database's own
    /// check, before each tree a merge writes, left the pack index it touched mapped).
    fn write(&mut self, tree: &gix::objs::Tree) -> Result<ObjectId, Error> {
        use gix::objs::{Write as _, WriteTo as _};
        let mut buf = Vec::new();
        tree.write_to(&mut buf).map_err(|e| Error::Gix(format!("a tree could not be encoded: {e}")))?;
        let kind = gix::object::Kind::Tree;
        let id = gix::objs::compute_hash(self.repo.object_hash(), kind, &buf).map_err(|e| Error::Gix(e.to_string()))?;
        if self.indexes.place(&id) != UNPACKED || self.loose.contains(&id) {
            return Ok(id);
        }
        self.loose.write_buf_with_known_id(kind, &buf, id).map_err(|e| Error::Gix(e.to_string()))
    }

    /// The entries of tree `id` as stored: name bytes, object, mode.
    fn raw(&mut self, id: ObjectId) -> Result<Vec<gix::objs::tree::Entry>, Error> {
        let hash = self.repo.object_hash();
        let parse = |data: &[u8]| {
            gix::objs::TreeRefIter::from_bytes(data, hash)
                .map(|e| {
                    e.map(|e| gix::objs::tree::Entry { mode: e.mode, filename: e.filename.into(), oid: e.oid.into() })
                })
                .collect::<Result<Vec<_>, _>>()
                .ok()
        };
        let place = self.indexes.place(&id);
        let parsed = match self.packs.object(place) {
            Some((gix::object::Kind::Tree, data)) => parse(data),
            // Loose (a tree this process wrote): read from its file, not after a lookup in
            // every pack index through the object database.
            None if place == UNPACKED => {
                let mut buf = Vec::new();
                match self.loose.try_find(&id, &mut buf) {
                    Ok(Some(d)) if d.kind == gix::object::Kind::Tree => parse(d.data),
                    _ => None,
                }
            }
            _ => None,
        };
        self.packs.unmap_when_full();
        match parsed {
            Some(v) => Ok(v),
            None => {
                let tree = self.repo.find_tree(id).map_err(gxe)?;
                let mut v = Vec::new();
                for e in tree.iter() {
                    let e = e.map_err(gxe)?;
                    v.push(gix::objs::tree::Entry {
                        mode: e.mode(),
                        filename: e.filename().into(),
                        oid: e.object_id(),
                    });
                }
                Ok(v)
            }
        }
    }

    /// The entries of tree `id`: name (lossy UTF-8), object, kind.
    fn entries(&mut self, id: ObjectId) -> Result<Vec<(String, ObjectId, EntryKind)>, Error> {
        Ok(self.raw(id)?.into_iter().map(|e| (e.filename.to_str_lossy().into_owned(), e.oid, e.mode.kind())).collect())
    }

    /// Tree `base` (`None`: empty) with `edits` (path below it, object, kind) written in,
    /// creating the folders they need (an entry in the way of a folder is replaced), each
    /// tree written as it is rebuilt; entries not edited keep their names and modes as stored.
    fn write_with(&mut self, base: Option<ObjectId>, edits: &[(&str, ObjectId, EntryKind)]) -> Result<ObjectId, Error> {
        let mut entries = match base {
            Some(b) => self.raw(b)?,
            None => Vec::new(),
        };
        let upsert = |entries: &mut Vec<gix::objs::tree::Entry>, name: &str, oid: ObjectId, kind: EntryKind| {
            entries.retain(|e| e.filename != name.as_bytes());
            entries.push(gix::objs::tree::Entry { mode: kind.into(), filename: name.into(), oid });
        };
        let mut i = 0;
        while i < edits.len() {
            let (path, oid, kind) = edits[i];
            match path.split_once('/') {
                None => {
                    upsert(&mut entries, path, oid, kind);
                    i += 1;
                }
                Some((dir, _)) => {
                    // Every edit below `dir` (the edits are grouped: sorted by path).
                    let end = i + edits[i..]
                        .iter()
                        .take_while(|(p, _, _)| p.split_once('/').is_some_and(|(d, _)| d == dir))
                        .count();
                    let below: Vec<(&str, ObjectId, EntryKind)> =
                        edits[i..end].iter().map(|(p, o, k)| (&p[dir.len() + 1..], *o, *k)).collect();
                    let old = entries.iter().find(|e| e.filename == dir.as_bytes() && e.mode.is_tree()).map(|e| e.oid);
                    let tree = self.write_with(old, &below)?;
                    upsert(&mut entries, dir, tree, EntryKind::Tree);
                    i = end;
                }
            }
        }
        entries.sort();
        self.write(&gix::objs::Tree { entries })
    }
}

/// Decodes blobs straight from pack data files by offset: no object-id lookup, so no index
/// page is touched. The files are mapped when first needed and unmapped with the reader.
struct PackReader {
    paths: Vec<std::path::PathBuf>,
    files: Vec<Option<gix::odb::pack::data::File>>,
    hash: gix::hash::Kind,
    cap: u64,
    cache: BaseCache,
    inflate: gix::zlib::Inflate,
    buf: Vec<u8>,
    /// About how many pages were read through the current mappings.
    pages: usize,
    /// How many pages to read through one mapping ([`PAGES_MAPPED`] unless [`Self::bounded`]).
    bound: usize,
}

impl PackReader {
    fn new(paths: Vec<std::path::PathBuf>, hash: gix::hash::Kind, cap: u64) -> PackReader {
        PackReader {
            paths,
            files: Vec::new(),
            hash,
            cap,
            // Read depth first ([`delta_order`]), a delta's base was decoded a few blobs before,
            // so a small cache decodes as few entries as a large one.
            cache: BaseCache::new(BASE_CACHE_BYTES / 16),
            inflate: Default::default(),
            buf: Vec::new(),
            pages: 0,
            bound: PAGES_MAPPED,
        }
    }

    /// This reader, unmapping after about `pages` pages instead of [`PAGES_MAPPED`].
    fn bounded(mut self, pages: usize) -> PackReader {
        self.bound = pages.max(1);
        self
    }

    /// The bytes of regular file `e` stored at `place`, when they decode there as a blob of at
    /// most the cap (decoding allocates no more than the cap); `None` otherwise.
    fn read(&mut self, e: &StoreEntry, place: u64) -> Option<&[u8]> {
        if e.mode != FileMode::Regular {
            return None;
        }
        match self.object(place)? {
            (gix::object::Kind::Blob, bytes) => Some(bytes),
            _ => None,
        }
    }

    /// The kind and bytes of the object stored at `place`, when it decodes there within the cap
    /// (decoding allocates no more than the cap); `None` otherwise, and for [`UNPACKED`].
    fn object(&mut self, place: u64) -> Option<(gix::object::Kind, &[u8])> {
        if place == UNPACKED {
            return None;
        }
        let (n, offset) = split_place(place);
        self.mapped(n)?;
        // The file borrowed as a field, beside the decoding buffers.
        let file = self.files[n].as_ref()?;
        let entry = file.entry(offset).ok()?;
        let no_ref_bases = |_: &gix::oid, _: &mut Vec<u8>| Ok(None);
        let out = file.decode_entry(entry, &mut self.buf, &mut self.inflate, &no_ref_bases, &mut self.cache).ok()?;
        // Each entry of the chain read (the cache cut it short) touched a page or more.
        self.pages += out.num_deltas as usize + 1 + out.compressed_size / 4096;
        (self.buf.len() as u64 <= self.cap).then_some((out.kind, &self.buf[..]))
    }

    /// Pack data file `n`, mapped when first needed.
    fn mapped(&mut self, n: usize) -> Option<&gix::odb::pack::data::File> {
        if self.files.len() <= n {
            self.files.resize_with(n + 1, || None);
        }
        if self.files[n].is_none() {
            let limit = usize::try_from(self.cap).ok();
            let file = gix::odb::pack::data::File::at(self.paths.get(n)?, self.hash).ok()?;
            self.files[n] = Some(file.with_alloc_limit_bytes(limit));
        }
        self.files[n].as_ref()
    }

    /// The header of the entry stored at `place` (a page read), when it can be read.
    fn header(&mut self, place: u64) -> Option<gix::odb::pack::data::entry::Header> {
        let (n, offset) = split_place(place);
        let header = self.mapped(n)?.entry(offset).ok()?.header;
        self.pages += 1;
        Some(header)
    }

    /// Unmaps the pack data files once about [`PAGES_MAPPED`] pages were read through them (the
    /// delta-base cache stays): the resident pages stay bounded however far apart a part of the
    /// pack order puts its blobs and their bases.
    fn unmap_when_full(&mut self) {
        if self.pages >= self.bound {
            self.files.clear();
            self.pages = 0;
        }
    }
}

/// `order` (places sorted by place, as [`Git::pack_order`] gives them) rearranged so that each
/// blob whose delta base is another blob of the list comes right after that base's other
/// dependants, depth first: the base is then in the reader's delta-base cache. In pack order a
/// base is usually the entry just before, but not always: in a store after `git gc`, 5 % of
/// the blobs had a base 40,000 entries back, long gone from the cache, and decoding their
/// chains again (25 deep on average) was two thirds of all inflating. Only the entry headers
/// are read (through `reader`, which unmaps as it goes); an entry whose
/// header cannot be read, or whose base is named by id, stays a root.
fn delta_order(reader: &mut PackReader, order: Vec<(u64, usize)>) -> Vec<(u64, usize)> {
    const NONE: u32 = u32::MAX;
    let mut base = vec![NONE; order.len()];
    for (k, &(place, _)) in order.iter().enumerate() {
        if place == UNPACKED {
            break;
        }
        let header = reader.header(place);
        reader.unmap_when_full();
        let Some(gix::odb::pack::data::entry::Header::OfsDelta { base_distance }) = header else { continue };
        let (n, offset) = split_place(place);
        let Some(at) = offset.checked_sub(base_distance) else { continue };
        // A base comes before its dependant: a damaged header naming itself or a later entry
        // leaves the entry a root (every entry is read exactly once).
        match order.binary_search_by_key(&place_of(n, at), |x| x.0) {
            Ok(b) if b < k => base[k] = b as u32,
            _ => {}
        }
    }
    depth_first(&base).into_iter().map(|k| order[k as usize]).collect()
}

/// The place of the entry at `offset` of pack data file `n`: `n << 48 | offset`, so that
/// places sort in pack order.
fn place_of(n: usize, offset: u64) -> u64 {
    ((n as u64) << 48) | offset
}

/// The pack data file and the offset of a place ([`place_of`]).
fn split_place(place: u64) -> (usize, u64) {
    ((place >> 48) as usize, place & ((1 << 48) - 1))
}

/// The entries of a forest given as each entry's base (`u32::MAX` for a root; a base precedes
/// its dependants), depth first: roots in order, each entry followed by its dependants' trees,
/// in order.
fn depth_first(base: &[u32]) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let n = base.len();
    // Dependants of each entry, in order: those of entry k at dependants[first[k]..first[k + 1]].
    let mut first = vec![0u32; n + 1];
    for &b in base {
        if b != NONE {
            first[b as usize + 1] += 1;
        }
    }
    for k in 0..n {
        first[k + 1] += first[k];
    }
    let mut filled = first.clone();
    let mut dependants = vec![0u32; first[n] as usize];
    for (k, &b) in base.iter().enumerate() {
        if b != NONE {
            dependants[filled[b as usize] as usize] = k as u32;
            filled[b as usize] += 1;
        }
    }
    let mut out = Vec::with_capacity(n);
    let mut stack: Vec<u32> = Vec::new();
    for root in (0..n).filter(|&k| base[k] == NONE) {
        stack.push(root as u32);
        while let Some(k) = stack.pop() {
            out.push(k);
            let (a, z) = (first[k as usize] as usize, first[k as usize + 1] as usize);
            stack.extend(dependants[a..z].iter().rev());
        }
    }
    out
}

/// About how many pack pages a [`PackReader`] reads through one mapping (8 MiB).
const PAGES_MAPPED: usize = 2048;

/// The stretches of `order` that `workers` threads take in turn, each a share of what is left
/// (half of it split among the threads), down to [`MIN_STRETCH`]: long stretches keep delta
/// chains whole, and short ones at the end let the threads finish together (a blob's cost
/// varies with its chain: two fixed halves finished 1.3 s apart, eight equal stretches each
/// about 0.4 s apart).
fn stretches<T>(order: &[T], workers: usize) -> Vec<&[T]> {
    let mut out = Vec::new();
    let mut rest = order;
    while !rest.is_empty() {
        let n = (rest.len() / (2 * workers.max(1))).max(MIN_STRETCH).min(rest.len());
        let (a, b) = rest.split_at(n);
        out.push(a);
        rest = b;
    }
    out
}

/// The shortest stretch [`stretches`] cuts, but the last.
const MIN_STRETCH: usize = 256;

/// How many blobs' results a reader thread hands over at a time.
const BATCH: usize = 64;

/// How many ids are looked up in the pack indexes through one mapping of them.
const LOOKUPS_MAPPED: usize = 4096;

/// Reads the blob of `e` through `repo` and maps it with `f`.
fn read_one<T>(
    repo: &gix::Repository,
    e: &StoreEntry,
    cap: u64,
    f: &impl Fn(&StoreEntry, Blob<'_>) -> T,
) -> Result<T, Error> {
    if e.mode != FileMode::Regular {
        return Ok(f(e, Blob::NotAFile));
    }
    let id = e.object;
    if let Some(size) = oversize(repo, id, cap)? {
        return Ok(f(e, Blob::TooLarge(size)));
    }
    let obj = repo.find_object(id).map_err(gxe)?;
    if obj.kind != gix::object::Kind::Blob {
        return Err(Error::Gix(format!("{id} is a {}, not a blob", obj.kind)));
    }
    Ok(f(e, Blob::Bytes(&obj.data)))
}

/// Writing the store.
impl Git {
    /// Adds `records` (path, bytes) to [`CONTINUITY_REF`] as one commit, starting from the empty
    /// tree when the reference does not exist. The reference moves by compare-and-swap on the
    /// value read; when another writer moved it first, the tip is re-read and the commit rebuilt
    /// (at most 20 attempts). A path that holds other bytes is overwritten; when the same path is
    /// given twice, the last one wins. When every path already holds identical bytes nothing is
    /// written and `written` is `false`. An empty `records` on a store that does not exist is an
    /// error. Local writers take turns through an OS file lock (`<common-dir>/majordomus/store.lock`,
    /// an optimisation against starvation; the compare-and-swap alone keeps updates from being
    /// lost). HEAD, the index, branches and the working tree never move.
    pub fn store_add<P: AsRef<str>, B: AsRef<[u8]>>(
        &self,
        records: &[(P, B)],
        message: &str,
        who: &Committer,
    ) -> Result<AddOutcome, Error> {
        self.add_at(CONTINUITY_REF, records, message, who)
    }

    fn add_at<P: AsRef<str>, B: AsRef<[u8]>>(
        &self,
        refname: &str,
        records: &[(P, B)],
        message: &str,
        who: &Committer,
    ) -> Result<AddOutcome, Error> {
        let lock = self.writer_lock();
        self.add_locked(refname, records, message, who, Some(&lock))
    }

    /// [`Git::store_add`] on any reference, without the writers' lock (compare-and-swap only).
    #[cfg(test)]
    fn add_unlocked<P: AsRef<str>, B: AsRef<[u8]>>(
        &self,
        refname: &str,
        records: &[(P, B)],
        message: &str,
        who: &Committer,
    ) -> Result<AddOutcome, Error> {
        self.add_locked(refname, records, message, who, None)
    }

    /// [`Git::store_add`] on any reference, under the writers' `lock` when given (only then is a
    /// stale reference lock removed).
    fn add_locked<P: AsRef<str>, B: AsRef<[u8]>>(
        &self,
        refname: &str,
        records: &[(P, B)],
        message: &str,
        who: &Committer,
        lock: Option<&WriterLock>,
    ) -> Result<AddOutcome, Error> {
        full_name(refname)?;
        let mut blobs: Vec<(&str, ObjectId)> = Vec::with_capacity(records.len());
        for (path, bytes) in records {
            let path = path.as_ref();
            check_path(path)?;
            blobs.push((path, self.repo.write_blob(bytes.as_ref()).map_err(gxe)?.detach()));
        }
        let mut last = Attempts::default();
        for attempt in 0..MAX_ATTEMPTS {
            let old = self.tip_id(refname)?;
            let base = match old {
                Some(c) => self.commit_tree(c)?,
                None if blobs.is_empty() => return Err(Error::Gix(format!("{refname}: no records to add"))),
                None => ObjectId::empty_tree(self.repo.object_hash()),
            };
            if let Some(tip) = old {
                if self.all_present(base, &blobs)? {
                    return Ok(AddOutcome { tip: full(tip), written: false });
                }
            }
            let tree = write_tree(
                &mut TreeReader::new(&self.repo),
                Some(base),
                blobs.iter().map(|(p, id)| (*p, *id, EntryKind::Blob)),
            )?;
            let commit = self.write_commit(tree, old.into_iter().collect(), message, who)?;
            majordomus_core::inject::stop_at("store.before-ref");
            match self.cas(refname, commit, expect(old), message, who)? {
                Cas::Done => return Ok(AddOutcome { tip: full(commit), written: true }),
                Cas::Conflict(e) => last.conflict(e),
                Cas::Busy(e) => {
                    if let Some(lock) = lock {
                        self.clear_stale_lock(refname, lock);
                    }
                    last.busy(e);
                }
            }
            backoff(attempt);
        }
        Err(last.gave_up(refname))
    }

    /// Removes the lock file of reference `name` when it is stale: while this process holds the
    /// writers' lock, at once for [`OURS_ALONE`], else when older than [`STALE_LOCK`]. Every writer of the store takes the writers'
    /// lock first and holds a reference lock for milliseconds, so such a lock file was left by a
    /// writer that died inside its ref transaction (SIGKILL, power loss); without this it would
    /// refuse every later write until removed by hand. Its age is read in the file system's own
    /// time (the lock's mtime against the writers' lock file just touched), never the process
    /// clock. A fresh lock is left alone: the write fails and the ref stays as it was.
    pub(super) fn clear_stale_lock(&self, name: &str, lock: &WriterLock) {
        let Some(file) = &lock.file else { return };
        let path = self.common_dir.join(format!("{name}.lock"));
        let Ok(taken) = std::fs::metadata(&path).and_then(|m| m.modified()) else { return };
        let now = {
            use std::io::{Seek, Write};
            let mut f = file;
            let touched = f.seek(std::io::SeekFrom::Start(0)).and_then(|_| f.write_all(b"\n"));
            match touched.and_then(|()| f.metadata()).and_then(|m| m.modified()) {
                Ok(t) => t,
                Err(_) => return,
            }
        };
        if name == OURS_ALONE || now.duration_since(taken).is_ok_and(|age| age > STALE_LOCK) {
            let _ = std::fs::remove_file(&path);
        }
    }

    /// Takes the writers' lock, waiting up to [`LOCK_WAIT`]; without it when it cannot be had.
    pub(super) fn writer_lock(&self) -> WriterLock {
        let dir = self.common_dir.join("majordomus");
        let file = std::fs::create_dir_all(&dir).ok().and_then(|()| {
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(dir.join("store.lock"))
                .ok()
        });
        let Some(file) = file else { return WriterLock { file: None } };
        let deadline = std::time::Instant::now() + LOCK_WAIT;
        loop {
            match file.try_lock() {
                Ok(()) => return WriterLock { file: Some(file) },
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(_) => return WriterLock { file: None },
            }
        }
    }

    /// Whether every (path, blob) is already a blob entry with that id in tree `tree`.
    fn all_present(&self, tree: ObjectId, blobs: &[(&str, ObjectId)]) -> Result<bool, Error> {
        let tree = self.repo.find_tree(tree).map_err(gxe)?;
        for (path, id) in blobs {
            match tree.lookup_entry_by_path(path).map_err(gxe)? {
                Some(e) if e.object_id() == *id && e.mode().kind() == EntryKind::Blob => {}
                _ => return Ok(false),
            }
        }
        Ok(true)
    }

    fn write_commit(
        &self,
        tree: ObjectId,
        parents: Vec<ObjectId>,
        message: &str,
        who: &Committer,
    ) -> Result<ObjectId, Error> {
        let sig = signature(who);
        let mut buf = gix::date::parse::TimeBuf::default();
        let sref = sig.to_ref(&mut buf);
        let mut msg = message.to_string();
        if !msg.ends_with('\n') {
            msg.push('\n');
        }
        Ok(self.repo.new_commit_as(sref, sref, msg, tree, parents).map_err(gxe)?.id)
    }

    /// One compare-and-swap update of `name` to `new`, writing any reflog line as `who`
    /// (TECH-NOTES §1.4 gotcha 4).
    fn cas(
        &self,
        name: &str,
        new: ObjectId,
        expected: PreviousValue,
        message: &str,
        who: &Committer,
    ) -> Result<Cas, Error> {
        let sig = signature(who);
        let mut buf = gix::date::parse::TimeBuf::default();
        let sref = sig.to_ref(&mut buf);
        let reflog = message.lines().next().unwrap_or_default().to_string();
        let edit = RefEdit::update(full_name(name)?, new, expected, reflog);
        match self.repo.edit_references_as(Some(edit), Some(sref)) {
            Ok(_) => Ok(Cas::Done),
            Err(e) if e.is_conflict() => Ok(Cas::Conflict(gxe(e).to_string())),
            Err(e) if e.is_retryable() => Ok(Cas::Busy(gxe(e).to_string())),
            Err(e) => Err(gxe(e)),
        }
    }

    /// Sets reference `name` to commit `tip`. With `expected` given the update is a
    /// compare-and-swap: `Some(None)` = the reference must not exist, `Some(Some(old))` = it must
    /// point at `old`; `Ok(false)` when that expectation failed (the reference is left as it
    /// was). With `expected` = `None` the reference is force-set (fit for the private
    /// remote-tracking references only). Reflog lines, if any, are written as `who`.
    pub fn set_ref(
        &self,
        name: &str,
        tip: &str,
        expected: Option<Option<&str>>,
        who: &Committer,
    ) -> Result<bool, Error> {
        let new = self.full_commit(tip)?;
        let expected = match expected {
            None => PreviousValue::Any,
            Some(None) => PreviousValue::MustNotExist,
            Some(Some(old)) => PreviousValue::MustExistAndMatch(Target::Object(oid(old)?)),
        };
        let mut last = String::new();
        for attempt in 0..MAX_ATTEMPTS {
            match self.cas(name, new, expected.clone(), "majordomus: set", who)? {
                Cas::Done => return Ok(true),
                Cas::Conflict(_) => return Ok(false),
                Cas::Busy(e) => last = e,
            }
            backoff(attempt);
        }
        Err(Error::Gix(format!("{name}: gave up after {MAX_ATTEMPTS} attempts: {last}")))
    }

    /// The union merge of docs/REFERENCE.md#sync step 3: brings the store at commit `remote_tip` into
    /// reference `local_ref`, taking in only remote files whose path `include` accepts.
    ///
    /// - `remote_tip` already contained (an ancestor of, or equal to, the local tip) → `none`.
    /// - The local tip an ancestor of `remote_tip`, and every remote file that differs from the
    ///   local tree included, none colliding, and no local file missing remotely →
    ///   `fast_forward` (the reference moves to `remote_tip`).
    /// - Otherwise `merged`: a commit with parents [local, remote] whose tree is the local tree
    ///   plus every included remote file absent locally. A path holding different contents on
    ///   the two sides keeps the local one and is listed in `collisions`.
    /// - No local reference: `fast_forward` to `remote_tip` when every remote file is included;
    ///   else `merged` as a new commit with the single parent `remote` whose tree holds only the
    ///   included files — the remote commit stays an ancestor, so the next merge of the same tip
    ///   is `none` and a push of the result is a fast-forward for the remote.
    ///
    /// The reference moves by compare-and-swap, re-reading and recomputing on a lost race (at
    /// most 20 attempts), under the writers' lock of [`Git::store_add`]. Remote paths git would
    /// refuse in a checkout (`.git`, `..`, …) are never taken in, whatever `include` says.
    pub fn store_merge(
        &self,
        local_ref: &str,
        remote_tip: &str,
        include: &dyn Fn(&str) -> bool,
        message: &str,
        who: &Committer,
    ) -> Result<MergeOutcome, Error> {
        let remote = self.full_commit(remote_tip)?;
        let remote_tree = self.commit_tree(remote)?;
        let lock = self.writer_lock();
        let mut last = Attempts::default();
        for attempt in 0..MAX_ATTEMPTS {
            let local = self.tip_id(local_ref)?;
            if let Some(l) = local {
                if self.is_ancestor(remote, l)? {
                    return Ok(MergeOutcome { action: MergeAction::None, tip: full(l), collisions: Vec::new() });
                }
            }
            let local_tree = match local {
                Some(l) => Some(self.commit_tree(l)?),
                None => None,
            };
            let mut trees = TreeReader::new(&self.repo);
            let mut u = Union::default();
            self.union_walk(&mut trees, local_tree, remote_tree, "", include, &mut u)?;
            u.collisions.sort();
            u.collisions.dedup();
            let fast_forward = match local {
                None => !u.excluded,
                Some(l) => !u.excluded && !u.local_only && u.collisions.is_empty() && self.is_ancestor(l, remote)?,
            };
            let (new, action) = if fast_forward {
                (remote, MergeAction::FastForward)
            } else {
                let tree =
                    write_tree(&mut trees, local_tree, u.adds.iter().map(|(p, id, kind)| (p.as_str(), *id, *kind)))?;
                let parents = match local {
                    Some(l) => vec![l, remote],
                    None => vec![remote],
                };
                (self.write_commit(tree, parents, message, who)?, MergeAction::Merged)
            };
            match self.cas(local_ref, new, expect(local), message, who)? {
                Cas::Done => return Ok(MergeOutcome { action, tip: full(new), collisions: u.collisions }),
                Cas::Conflict(e) => last.conflict(e),
                Cas::Busy(e) => {
                    self.clear_stale_lock(local_ref, &lock);
                    last.busy(e);
                }
            }
            backoff(attempt);
        }
        Err(last.gave_up(local_ref))
    }

    /// Compares remote tree `remote` with local tree `local` (`None` = absent) under `prefix`,
    /// skipping identical subtrees, and records in `u` what a union merge takes in.
    fn union_walk(
        &self,
        trees: &mut TreeReader<'_>,
        local: Option<ObjectId>,
        remote: ObjectId,
        prefix: &str,
        include: &dyn Fn(&str) -> bool,
        u: &mut Union,
    ) -> Result<(), Error> {
        if local == Some(remote) {
            return Ok(());
        }
        let local_entries = match local {
            Some(l) => trees.entries(l)?,
            None => Vec::new(),
        };
        let remote_entries = trees.entries(remote)?;
        let by_name: HashMap<&str, (ObjectId, EntryKind)> =
            local_entries.iter().map(|(n, id, k)| (n.as_str(), (*id, *k))).collect();
        for (name, id, kind) in &remote_entries {
            let path = format!("{prefix}{name}");
            let here = by_name.get(name.as_str()).copied();
            match kind {
                EntryKind::Tree => match here {
                    Some((lid, EntryKind::Tree)) => {
                        self.union_walk(trees, Some(lid), *id, &format!("{path}/"), include, u)?
                    }
                    None => self.union_walk(trees, None, *id, &format!("{path}/"), include, u)?,
                    Some(_) => {
                        // A local file where the remote has a folder: every included remote file
                        // below it collides with the local file.
                        let mut below = Union::default();
                        self.union_walk(trees, None, *id, &format!("{path}/"), include, &mut below)?;
                        u.excluded |= below.excluded;
                        u.collisions.extend(below.adds.into_iter().map(|a| a.0));
                    }
                },
                EntryKind::Commit => u.excluded = true,
                _ => {
                    if here == Some((*id, *kind)) {
                        continue;
                    }
                    if *kind != EntryKind::Blob || !include(&path) || check_path(&path).is_err() {
                        u.excluded = true;
                    } else if here.is_none() {
                        u.adds.push((path, *id, *kind));
                    } else {
                        u.collisions.push(path);
                    }
                }
            }
        }
        let remote_names: std::collections::HashSet<&str> = remote_entries.iter().map(|e| e.0.as_str()).collect();
        if local_entries.iter().any(|e| !remote_names.contains(e.0.as_str())) {
            u.local_only = true;
        }
        Ok(())
    }
}

/// The size object `id`'s header declares, when it is more than `cap` bytes: read from the
/// loose object's zlib header or the pack entry's header, without inflating the object (a 100
/// MiB blob, or a small one that inflates huge, is never decompressed).
fn oversize(repo: &gix::Repository, id: ObjectId, cap: u64) -> Result<Option<u64>, Error> {
    let header = repo.find_header(id).map_err(gxe)?;
    Ok((header.size() > cap).then(|| header.size()))
}

fn expect(old: Option<ObjectId>) -> PreviousValue {
    match old {
        Some(o) => PreviousValue::MustExistAndMatch(Target::Object(o)),
        None => PreviousValue::MustNotExist,
    }
}

fn signature(who: &Committer) -> gix::actor::Signature {
    gix::actor::Signature {
        name: who.name.as_str().into(),
        email: who.email.as_str().into(),
        time: gix::date::Time { seconds: who.seconds, offset: 0 },
    }
}

#[cfg(test)]
mod tests {
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

    fn git(dir: &Path, args: &[&str]) -> Output {
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

    fn sh(dir: &Path, args: &[&str]) -> String {
        let out = git(dir, args);
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A checkout with one commit on `main` and an untracked file.
    fn checkout(dir: &Path) -> Git {
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
                    Err(Error::Gix("enough".into()))
                } else {
                    Ok(())
                }
            },
        );
        assert!(matches!(stopped, Err(Error::Gix(m)) if m == "enough"));
        assert_eq!(calls, 5);
        // A reader that panics is an error, not a crash of the caller.
        let panicked = g.map_blobs(&list, 2, 1 << 20, |e, _| assert!(*e.path() != *"big", "planted"));
        assert!(matches!(panicked, Err(Error::Gix(m)) if m.contains("panicked")));
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
