//! Reading many blobs fast: in pack order along their delta chains, by worker threads each with
//! a bounded cache of delta bases and bounded mappings, and the size of a blob without
//! inflating it.
//! Must not touch: refs, trees' layout, record semantics.

use super::*;

/// How many bytes of delta bases each blob-reading thread keeps.
pub(super) const BASE_CACHE_BYTES: usize = 16 << 20;

/// A bounded cache of decoded pack entries (delta bases), first in first out. gix is built
/// without its own pack caches; without one, every blob of a deltified pack re-inflates its
/// whole delta chain.
pub(crate) struct BaseCache {
    pub(super) map: HashMap<(u32, u64), (gix::object::Kind, Vec<u8>)>,
    pub(super) order: std::collections::VecDeque<(u32, u64)>,
    pub(super) bytes: usize,
    pub(super) cap: usize,
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

impl Git {
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
        out.into_iter().map(|t| t.ok_or_else(|| Error::BlobReaders(false))).collect()
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
    pub(super) fn pack_order(&self, entries: &[StoreEntry]) -> (Vec<std::path::PathBuf>, Vec<(u64, usize)>) {
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
    pub(super) fn read_in_pack_order<T, E, F>(
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
                    outcome = Err(Error::BlobReaders(true).into());
                }
            }
            outcome
        })
    }
}

/// The place of a blob in no pack of the repository's own.
pub(super) const UNPACKED: u64 = u64::MAX;

/// The indexes of this repository's own packs, looked up through mappings renewed every
/// `every` lookups: the index pages a run of lookups touched are dropped as it goes (a 20 MB
/// index is otherwise soon resident whole, as each lookup faults in 64 KiB around the pages
/// its binary search reads).
pub(super) struct Indexes {
    pub(super) paths: Vec<std::path::PathBuf>,
    pub(super) files: Vec<gix::odb::pack::index::File>,
    pub(super) hash: gix::hash::Kind,
    pub(super) every: usize,
    pub(super) lookups: usize,
}

impl Indexes {
    /// The indexes of `repo`'s own packs (at most 32,768, in name order) whose data file exists.
    pub(super) fn of(repo: &gix::Repository, every: usize) -> Indexes {
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
    pub(super) fn packs(&self) -> Vec<std::path::PathBuf> {
        self.paths.iter().map(|p| p.with_extension("pack")).collect()
    }

    /// Where object `id` is stored, `pack number << 48 | offset`, or [`UNPACKED`] when no pack
    /// of these holds it.
    pub(super) fn place(&mut self, id: &gix::oid) -> u64 {
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

/// Decodes blobs straight from pack data files by offset: no object-id lookup, so no index
/// page is touched. The files are mapped when first needed and unmapped with the reader.
pub(super) struct PackReader {
    pub(super) paths: Vec<std::path::PathBuf>,
    pub(super) files: Vec<Option<gix::odb::pack::data::File>>,
    pub(super) hash: gix::hash::Kind,
    pub(super) cap: u64,
    pub(super) cache: BaseCache,
    pub(super) inflate: gix::zlib::Inflate,
    pub(super) buf: Vec<u8>,
    /// About how many pages were read through the current mappings.
    pub(super) pages: usize,
    /// How many pages to read through one mapping ([`PAGES_MAPPED`] unless [`Self::bounded`]).
    pub(super) bound: usize,
}

impl PackReader {
    pub(super) fn new(paths: Vec<std::path::PathBuf>, hash: gix::hash::Kind, cap: u64) -> PackReader {
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
    pub(super) fn bounded(mut self, pages: usize) -> PackReader {
        self.bound = pages.max(1);
        self
    }

    /// The bytes of regular file `e` stored at `place`, when they decode there as a blob of at
    /// most the cap (decoding allocates no more than the cap); `None` otherwise.
    pub(super) fn read(&mut self, e: &StoreEntry, place: u64) -> Option<&[u8]> {
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
    pub(super) fn object(&mut self, place: u64) -> Option<(gix::object::Kind, &[u8])> {
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
    pub(super) fn mapped(&mut self, n: usize) -> Option<&gix::odb::pack::data::File> {
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
    pub(super) fn header(&mut self, place: u64) -> Option<gix::odb::pack::data::entry::Header> {
        let (n, offset) = split_place(place);
        let header = self.mapped(n)?.entry(offset).ok()?.header;
        self.pages += 1;
        Some(header)
    }

    /// Unmaps the pack data files once about [`PAGES_MAPPED`] pages were read through them (the
    /// delta-base cache stays): the resident pages stay bounded however far apart a part of the
    /// pack order puts its blobs and their bases.
    pub(super) fn unmap_when_full(&mut self) {
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
pub(super) fn delta_order(reader: &mut PackReader, order: Vec<(u64, usize)>) -> Vec<(u64, usize)> {
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
pub(super) fn place_of(n: usize, offset: u64) -> u64 {
    ((n as u64) << 48) | offset
}

/// The pack data file and the offset of a place ([`place_of`]).
pub(super) fn split_place(place: u64) -> (usize, u64) {
    ((place >> 48) as usize, place & ((1 << 48) - 1))
}

/// The entries of a forest given as each entry's base (`u32::MAX` for a root; a base precedes
/// its dependants), depth first: roots in order, each entry followed by its dependants' trees,
/// in order.
pub(super) fn depth_first(base: &[u32]) -> Vec<u32> {
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
pub(super) const PAGES_MAPPED: usize = 2048;

/// The stretches of `order` that `workers` threads take in turn, each a share of what is left
/// (half of it split among the threads), down to [`MIN_STRETCH`]: long stretches keep delta
/// chains whole, and short ones at the end let the threads finish together (a blob's cost
/// varies with its chain: two fixed halves finished 1.3 s apart, eight equal stretches each
/// about 0.4 s apart).
pub(super) fn stretches<T>(order: &[T], workers: usize) -> Vec<&[T]> {
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
pub(super) const MIN_STRETCH: usize = 256;

/// How many blobs' results a reader thread hands over at a time.
pub(super) const BATCH: usize = 64;

/// How many ids are looked up in the pack indexes through one mapping of them.
pub(super) const LOOKUPS_MAPPED: usize = 4096;

/// Reads the blob of `e` through `repo` and maps it with `f`.
pub(super) fn read_one<T>(
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
        return Err(Error::NotABlob { id: id.to_string(), kind: obj.kind });
    }
    Ok(f(e, Blob::Bytes(&obj.data)))
}

/// The size object `id`'s header declares, when it is more than `cap` bytes: read from the
/// loose object's zlib header or the pack entry's header, without inflating the object (a 100
/// MiB blob, or a small one that inflates huge, is never decompressed).
pub(super) fn oversize(repo: &gix::Repository, id: ObjectId, cap: u64) -> Result<Option<u64>, Error> {
    let header = repo.find_header(id).map_err(gxe)?;
    Ok((header.size() > cap).then(|| header.size()))
}
