//! Writing the store: blobs added under a tree, commits, and the continuity ref moved by
//! compare-and-swap with bounded retry (its stale lock cleared at once while our writers' lock
//! is held); the union merge of a fetched store.
//! Must not touch: record semantics, the clock, HEAD, the index, branches or the working tree.

use super::*;

/// A short random pause (0 to 2^attempt ms, at most 32 ms), so that concurrent writers do not
/// retry in lock-step.
pub(super) fn backoff(attempt: u32) {
    use std::hash::{BuildHasher, Hasher};
    let noise = std::collections::hash_map::RandomState::new().build_hasher().finish();
    let ms = noise % ((1u64 << attempt.min(5)) + 1);
    std::thread::sleep(Duration::from_millis(ms));
}

/// How long a store writer waits for the writers' lock before going on without it.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(10);

/// The writers' lock of this clone's store (`<common-dir>/majordomus/store.lock`), released on
/// drop (an OS file lock: a crashed holder leaves no stale lock). It only makes local writers
/// take turns instead of starving each other in the compare-and-swap loop; correctness comes from
/// the compare-and-swap alone, so a writer that cannot take the lock goes on without it.
pub(crate) struct WriterLock {
    pub(super) file: Option<std::fs::File>,
}

/// How old a reference lock must be, while this process holds the writers' lock, to be taken
/// for the leftover of a dead writer (see [`Git::clear_stale_lock`]). Longer than the whole
/// compare-and-swap retry budget (about 3 s), so a live holder is never robbed.
pub(super) const STALE_LOCK: Duration = Duration::from_secs(5);

/// The reference whose lock file a dead writer of ours may have left: it is written only by this
/// crate, under the writers' lock, so holding that lock proves a lock file of it is a leftover
/// (issue 41 item 5). Every other reference lock may be git's own (a plain `git fetch` updates
/// the remote-tracking stores) and is cleared only past [`STALE_LOCK`].
pub(super) const OURS_ALONE: &str = "refs/majordomus/continuity";

/// Why a compare-and-swap loop gave up: "concurrent writers" only when another writer won.
#[derive(Default)]
pub(super) struct Attempts {
    pub(super) conflicts: usize,
    pub(super) last: Option<gix::Error>,
}

impl Attempts {
    pub(super) fn conflict(&mut self, e: gix::Error) {
        self.conflicts += 1;
        self.last = Some(e);
    }
    pub(super) fn busy(&mut self, e: gix::Error) {
        self.last = Some(e);
    }
    pub(super) fn gave_up(self, refname: &str) -> Error {
        let last: crate::Cause = match self.last {
            Some(e) => Box::new(e),
            None => Box::new(std::io::Error::other("no attempt was made")),
        };
        Error::GaveUp { refname: refname.into(), attempts: MAX_ATTEMPTS, concurrent: self.conflicts > 0, last }
    }
}

/// The outcome of one compare-and-swap attempt.
pub(super) enum Cas {
    Done,
    /// The reference was not at the expected value (another writer won).
    Conflict(gix::Error),
    /// The reference lock could not be taken in time.
    Busy(gix::Error),
}

/// The entries of a remote tree that a union merge takes in, and what it leaves out.
#[derive(Default)]
pub(super) struct Union {
    /// Included remote entries absent locally: path, object, kind.
    pub(super) adds: Vec<(String, ObjectId, EntryKind)>,
    /// Included remote entries whose path holds something else locally.
    pub(super) collisions: Vec<String>,
    /// Some remote entry that differs from the local tree was not included.
    pub(super) excluded: bool,
    /// Some local entry is absent from the remote tree (a fast-forward would drop it).
    pub(super) local_only: bool,
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

    pub(super) fn add_at<P: AsRef<str>, B: AsRef<[u8]>>(
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
    pub(super) fn add_unlocked<P: AsRef<str>, B: AsRef<[u8]>>(
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
    pub(super) fn add_locked<P: AsRef<str>, B: AsRef<[u8]>>(
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
                None if blobs.is_empty() => return Err(Error::NothingToAdd(refname.into())),
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
    pub(crate) fn clear_stale_lock(&self, name: &str, lock: &WriterLock) {
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
    pub(crate) fn writer_lock(&self) -> WriterLock {
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
    pub(super) fn all_present(&self, tree: ObjectId, blobs: &[(&str, ObjectId)]) -> Result<bool, Error> {
        let tree = self.repo.find_tree(tree).map_err(gxe)?;
        for (path, id) in blobs {
            match tree.lookup_entry_by_path(path).map_err(gxe)? {
                Some(e) if e.object_id() == *id && e.mode().kind() == EntryKind::Blob => {}
                _ => return Ok(false),
            }
        }
        Ok(true)
    }

    pub(super) fn write_commit(
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

    /// One compare-and-swap update of `name` to `new`, writing any reflog line as `who`: without
    /// `user.name`/`user.email` and with `core.logAllRefUpdates=always`, gix refuses a ref edit
    /// that has no committer of its own ("Could not update reflog").
    pub(super) fn cas(
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
            Err(e) if e.is_conflict() => Ok(Cas::Conflict(e)),
            Err(e) if e.is_retryable() => Ok(Cas::Busy(e)),
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
        let mut last = Attempts::default();
        for attempt in 0..MAX_ATTEMPTS {
            match self.cas(name, new, expected.clone(), "majordomus: set", who)? {
                Cas::Done => return Ok(true),
                Cas::Conflict(_) => return Ok(false),
                Cas::Busy(e) => last.busy(e),
            }
            backoff(attempt);
        }
        Err(last.gave_up(name))
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
    pub(super) fn union_walk(
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

pub(super) fn expect(old: Option<ObjectId>) -> PreviousValue {
    match old {
        Some(o) => PreviousValue::MustExistAndMatch(Target::Object(o)),
        None => PreviousValue::MustNotExist,
    }
}

pub(super) fn signature(who: &Committer) -> gix::actor::Signature {
    gix::actor::Signature {
        name: who.name.as_str().into(),
        email: who.email.as_str().into(),
        time: gix::date::Time { seconds: who.seconds, offset: 0 },
    }
}
