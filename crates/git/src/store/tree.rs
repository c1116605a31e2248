//! The store's two-level sharded tree: listing it, the changes between two store commits, one
//! path found without a listing, and trees written with edits, through bounded mappings.
//! Must not touch: blob contents, refs, the working tree.

use super::*;

/// [`Git::store_list`] of tree `tree`, whose files' paths start with `prefix` (`""`: the store's
/// root, whose [`SNAPSHOTS`] folder is left out), read through `trees` (bounded mappings: the
/// pages of the trees and of the pack index they were found through are dropped as the walk goes).
pub(super) fn list_in(trees: &mut TreeReader<'_>, tree: ObjectId, prefix: &str) -> Result<Vec<StoreEntry>, Error> {
    let mut out = Vec::new();
    let mut stack = vec![(prefix.to_string(), tree)];
    while let Some((prefix, id)) = stack.pop() {
        for (name, id, kind) in trees.entries(id)? {
            let path = format!("{prefix}{name}");
            match FileMode::of(kind) {
                None if is_snapshots(&prefix, &name, kind) => {}
                None => stack.push((format!("{path}/"), id)),
                Some(mode) => out.push(StoreEntry::new(path, id, mode)),
            }
        }
    }
    out.sort_by(StoreEntry::cmp_path);
    Ok(out)
}

/// Whether the entry `name` of kind `kind` under `prefix` is the store root's [`SNAPSHOTS`] folder.
fn is_snapshots(prefix: &str, name: &str, kind: EntryKind) -> bool {
    prefix.is_empty() && name == SNAPSHOTS && kind == EntryKind::Tree
}

/// The entries of tree `id` read through `repo`: name (lossy UTF-8), object, kind.
pub(super) fn tree_entries(repo: &gix::Repository, id: ObjectId) -> Result<Vec<(String, ObjectId, EntryKind)>, Error> {
    let tree = repo.find_tree(id).map_err(gxe)?;
    let mut v = Vec::new();
    for e in tree.iter() {
        let e = e.map_err(gxe)?;
        v.push((e.filename().to_str_lossy().into_owned(), e.object_id(), e.mode().kind()));
    }
    Ok(v)
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
                if is_snapshots(&prefix, &name, kind) {
                    seen.insert(name);
                    continue;
                }
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
                    _ if is_snapshots(&prefix, &name, kind) => {}
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
}

/// Tree `base` (`None`: empty) with `edits` (path, object, kind) written in through `trees`;
/// when a path is given twice, the last one wins.
pub(super) fn write_tree<'p>(
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
pub(super) const TREE_LOOKUPS_MAPPED: usize = 64;

/// About how many pack pages a [`TreeReader`] reads through one mapping (trees are read far
/// apart, each read faulting in up to 64 KiB around it).
pub(super) const TREE_PAGES_MAPPED: usize = 128;

/// Reads the trees of a walk over the store (a tree difference, a union merge, a rewrite)
/// straight from the pack files, with the index and pack pages it touches bounded
/// ([`TREE_LOOKUPS_MAPPED`], [`TREE_PAGES_MAPPED`]) and its own delta-base cache: read through
/// the object database, a walk left the index and pack it touched mapped for the rest of the
/// process. A tree no pack of the repository's own
/// holds (loose: one the process just wrote; in an alternate), or that does not decode there,
/// is read through `repo` as before, with its checks.
pub(super) struct TreeReader<'r> {
    pub(super) repo: &'r gix::Repository,
    pub(super) indexes: Indexes,
    pub(super) packs: PackReader,
    pub(super) loose: gix::odb::loose::Store,
}

impl<'r> TreeReader<'r> {
    pub(super) fn new(repo: &'r gix::Repository) -> TreeReader<'r> {
        TreeReader::bounded(repo, TREE_LOOKUPS_MAPPED, TREE_PAGES_MAPPED)
    }

    /// A reader renewing its index mappings every `lookups` lookups and its pack mappings
    /// every `pages` pages.
    pub(super) fn bounded(repo: &'r gix::Repository, lookups: usize, pages: usize) -> TreeReader<'r> {
        let indexes = Indexes::of(repo, lookups);
        let packs = PackReader::new(indexes.packs(), repo.object_hash(), u64::MAX).bounded(pages);
        let loose = gix::odb::loose::Store::at(repo.objects.store_ref().path(), repo.object_hash());
        TreeReader { repo, indexes, packs, loose }
    }

    /// Writes `tree` as a loose object unless a pack of the repository's own or a loose object
    /// already holds it, looked up through these bounded mappings (the object database's own
    /// check, before each tree a merge writes, left the pack index it touched mapped).
    pub(super) fn write(&mut self, tree: &gix::objs::Tree) -> Result<ObjectId, Error> {
        use gix::objs::{Write as _, WriteTo as _};
        let mut buf = Vec::new();
        tree.write_to(&mut buf).map_err(|e| Error::Objects(Box::new(e)))?;
        let kind = gix::object::Kind::Tree;
        let id =
            gix::objs::compute_hash(self.repo.object_hash(), kind, &buf).map_err(|e| Error::Objects(Box::new(e)))?;
        if self.indexes.place(&id) != UNPACKED || self.loose.contains(&id) {
            return Ok(id);
        }
        self.loose.write_buf_with_known_id(kind, &buf, id).map_err(|e| Error::Objects(Box::new(e)))
    }

    /// The entries of tree `id` as stored: name bytes, object, mode.
    pub(super) fn raw(&mut self, id: ObjectId) -> Result<Vec<gix::objs::tree::Entry>, Error> {
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
    pub(super) fn entries(&mut self, id: ObjectId) -> Result<Vec<(String, ObjectId, EntryKind)>, Error> {
        Ok(self.raw(id)?.into_iter().map(|e| (e.filename.to_str_lossy().into_owned(), e.oid, e.mode.kind())).collect())
    }

    /// Tree `base` (`None`: empty) with `edits` (path below it, object, kind) written in,
    /// creating the folders they need (an entry in the way of a folder is replaced), each
    /// tree written as it is rebuilt; entries not edited keep their names and modes as stored.
    pub(super) fn write_with(
        &mut self,
        base: Option<ObjectId>,
        edits: &[(&str, ObjectId, EntryKind)],
    ) -> Result<ObjectId, Error> {
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
