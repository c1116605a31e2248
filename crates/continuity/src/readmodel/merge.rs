//! Writing a view: fresh entries ([`Fresh`], spilled past a bound), merged with an old view by
//! id, the links resolved and the lineage built from the rows.
//! Must not touch: git, trust.

use super::*;
use std::rc::Rc;

impl View {
    /// The file of this view after `change`, at `tip`: rows of gone paths dropped, added entries
    /// merged in by id, every kept row copied as bytes.
    #[cfg(test)]
    pub fn update(&self, tip: &str, change: Change<'_>, rules: &str) -> Vec<u8> {
        self.updated(tip, change, rules).bytes
    }

    /// [`View::update`], as a view (what it builds is consistent by construction).
    #[cfg(test)]
    pub fn updated(&self, tip: &str, change: Change<'_>, rules: &str) -> View {
        let mut fresh = Fresh::on(Some(self));
        for e in change.added {
            fresh.add(e);
        }
        View::merge(Some(self), tip, &change.gone, fresh, rules).expect("the old view's parts are read")
    }

    /// The view at `tip`, built in memory ([`View::write_merge`] into a buffer).
    /// Fails when a variable part cannot be read back (from the old file or the spill).
    pub fn merge(old: Option<&View>, tip: &str, gone: &[&str], mut fresh: Fresh, rules: &str) -> std::io::Result<View> {
        let mut buf = Vec::new();
        View::write_merge(old, tip, gone, &mut fresh, rules, &mut buf)?;
        View::parse(buf, rules)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, "a merged view does not parse"))
    }

    /// Writes to `out` the file of the view at `tip`: the rows of `old` (if any) but those of
    /// `gone` paths, and the `fresh` entries (sorted in place, so the same `fresh` can be
    /// written again), merged by id in one pass. Streamed: the rows, then the variable parts —
    /// the old ones kept, in their order in the old file, copied from it in one forward pass a
    /// window at a time, then the fresh ones in the order they came, copied from their spill —
    /// so what is held is the rows and the fresh links, never a file. A row's part is wherever
    /// its offset says: the heap is in no particular order.
    pub fn write_merge(
        old: Option<&View>,
        tip: &str,
        gone: &[&str],
        fresh: &mut Fresh,
        rules: &str,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let Fresh { tables, rows, heap: spill, others: fresh_others } = fresh;
        let mut others = fresh_others.clone();
        let gone_paths: HashSet<&str> = gone.iter().copied().collect();
        let gone_ids: HashSet<Vec<u8>> = gone
            .iter()
            .filter_map(|p| p.rsplit('/').next().and_then(|n| n.strip_suffix(".json")).and_then(unhex))
            .collect();
        if let Some(o) = old {
            others.extend(o.others.iter().filter(|x| !gone_paths.contains(x.path.as_str())).cloned());
        }
        // Stable: among equal ids the first added is kept.
        rows.sort_by_key(|a| a.row.id());
        rows.dedup_by(|a, b| a.row.id() == b.row.id());
        others.sort_by(|a, b| a.path.cmp(&b.path));
        // The merged order, as (old row | fresh row) sources.
        let mut order: Vec<Source> = Vec::with_capacity(old.map_or(0, |o| o.head.n) + rows.len());
        let mut fi = 0;
        if let Some(o) = old {
            for i in 0..o.head.n {
                let id = o.row(i).id();
                while fi < rows.len() && rows[fi].row.id() < id {
                    order.push(Source::Fresh(fi));
                    fi += 1;
                }
                if gone_ids.contains(&id[..]) || (fi < rows.len() && rows[fi].row.id() == id) {
                    continue;
                }
                order.push(Source::Old(i));
            }
        }
        order.extend((fi..rows.len()).map(Source::Fresh));
        let old_view = || old.expect("an old row comes from the old view");
        let row = |src: &Source| -> Row {
            match *src {
                Source::Old(i) => old_view().row(i),
                Source::Fresh(j) => rows[j].row,
            }
        };
        let links = resolve_links(old, &order, &row, &|j| &rows[j].links);
        // The heap: the old parts kept, in their old order (the old file is read forward), then
        // the fresh parts as they came (copied from the spill as they are). The old parts as
        // (where, which merged row, how long), in the old file's order.
        let mut olds: Vec<(u32, u32, u32)> = order
            .iter()
            .enumerate()
            .filter_map(|(k, src)| match *src {
                Source::Old(i) => {
                    let r = old_view().row(i);
                    Some((r.var_offset() as u32, k as u32, r.var_len() as u32))
                }
                Source::Fresh(_) => None,
            })
            .collect();
        olds.sort_unstable();
        let mut offset = vec![0usize; order.len()];
        let mut old_total = 0usize;
        for &(_, k, len) in &olds {
            offset[k as usize] = old_total;
            old_total += len as usize;
        }
        for (k, src) in order.iter().enumerate() {
            if let Source::Fresh(j) = *src {
                offset[k] = old_total + rows[j].row.var_offset();
            }
        }
        let heap_len = old_total + spill.len();
        if u32::try_from(heap_len).is_err() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "the read model would pass 4 GiB"));
        }
        let mut w = Writer::default();
        w.buf.extend_from_slice(format!("{FORMAT} {rules} {tip}\n").as_bytes());
        for t in tables.iter() {
            w.num(t.items.len() as u64);
            for s in &t.items {
                w.str(s);
            }
        }
        w.num(order.len() as u64);
        // Everything but the variable parts goes through the file's checksum.
        let mut sum = blake3::Hasher::new();
        let mut summed = |out: &mut dyn Write, bytes: &[u8]| {
            sum.update(bytes);
            out.write_all(bytes)
        };
        summed(out, &w.buf)?;
        for ((src, [parent, line]), at) in order.iter().zip(links).zip(offset) {
            // The row as it came, but where its part now sits and the rows its links now name.
            let mut r = row(src);
            r.set_var_offset(at);
            r.set_parent(parent);
            r.set_line(line);
            summed(out, r.bytes())?;
        }
        w.buf.clear();
        w.num(heap_len as u64);
        summed(out, &w.buf)?;
        if let Some(o) = old {
            let mut window = Window::of(o, WINDOW);
            for &(at, _, len) in &olds {
                out.write_all(window.part(at as usize, len as usize)?)?;
            }
        }
        spill.write_to(out)?;
        w.buf.clear();
        w.num(others.len() as u64);
        for o in &others {
            w.str(&o.path);
            w.str(&o.blob);
            w.buf.push(match o.kind {
                OtherKind::TooNew => 0,
                OtherKind::Refused => 1,
                OtherKind::Stray => 2,
            });
            w.str(o.diagnostic.severity.as_str());
            w.str(o.diagnostic.code.as_str());
            w.str(&o.diagnostic.message);
        }
        summed(out, &w.buf)?;
        out.write_all(&sum.finalize().as_bytes()[..FILE_SUM])
    }
}

/// An old view's heap read forward a window at a time (or borrowed, when it is in memory).
pub(super) struct Window<'a> {
    pub(super) view: &'a View,
    pub(super) at: usize,
    pub(super) buf: Vec<u8>,
    /// How much is read at a time.
    pub(super) size: usize,
}

impl<'a> Window<'a> {
    pub(super) fn of(view: &'a View, size: usize) -> Window<'a> {
        Window { view, at: 0, buf: Vec::new(), size }
    }

    /// The `len` bytes at heap offset `at` (offsets only grow from one call to the next).
    pub(super) fn part(&mut self, at: usize, len: usize) -> std::io::Result<&[u8]> {
        let v = self.view;
        let Place::OnDisk { file, whole, .. } = &v.place else { return Ok(&v.heap()[at..at + len]) };
        if let Some(h) = whole.get() {
            return Ok(&h[at..at + len]);
        }
        if at < self.at || at + len > self.at + self.buf.len() {
            let want = len.max(self.size).min(v.head.heap_len.saturating_sub(at));
            self.buf.resize(want, 0);
            std::os::unix::fs::FileExt::read_exact_at(&**file, &mut self.buf, (v.head.heap_at + at) as u64)?;
            self.at = at;
        }
        Ok(&self.buf[at - self.at..at - self.at + len])
    }
}

/// How much of an old heap is read at a time while it is copied.
pub(super) const WINDOW: usize = 1 << 20;

/// The `parent` and `line` fields of every merged row (in `order`): an old row's links are
/// renumbered (a row that stays keeps its place in the graph), anything else — a fresh row, a
/// link to a row that left, a value that named no row before — is found by id among the
/// merged rows, through a fan-out table when many are to be found (a cold build).
pub(super) fn resolve_links<'a>(
    old: Option<&View>,
    order: &[Source],
    row: &impl Fn(&Source) -> Row,
    named: &impl Fn(usize) -> &'a [RawId; 2],
) -> Vec<[u32; 2]> {
    let mut new_of_old = vec![NO_LINK; old.map_or(0, |o| o.head.n)];
    for (k, src) in order.iter().enumerate() {
        if let Source::Old(i) = *src {
            new_of_old[i] = k as u32;
        }
    }
    let fresh = order.iter().filter(|s| matches!(s, Source::Fresh(_))).count();
    let ids: Vec<RawId> =
        if fresh >= order.len() / 8 { order.iter().map(|s| row(s).id()).collect() } else { Vec::new() };
    let fan = (!ids.is_empty()).then(|| Fan::of(ids.as_slice()));
    let find = |id: &RawId| -> u32 {
        let k = match &fan {
            Some(f) => f.find(ids.as_slice(), id),
            None => order.binary_search_by(|s| row(s).id().cmp(id)).ok(),
        };
        k.map_or(ELSEWHERE, |k| k as u32)
    };
    order
        .iter()
        .map(|src| {
            let row = row(src);
            let mut links = [0u32; 2];
            // An old part's (line, parent), each as its row (or NO_LINK / ELSEWHERE), read once.
            let mut written: Option<[u32; 2]> = None;
            for (j, field) in [row.parent(), row.line()].into_iter().enumerate() {
                let i = match *src {
                    Source::Fresh(f) => {
                        links[j] = if field == NAMED { find(&named(f)[j]) } else { field };
                        continue;
                    }
                    Source::Old(i) => i,
                };
                match field {
                    NO_LINK => {
                        links[j] = NO_LINK;
                        continue;
                    }
                    ELSEWHERE => {}
                    r if new_of_old[r as usize] != NO_LINK => {
                        links[j] = new_of_old[r as usize];
                        continue;
                    }
                    _ => {}
                }
                let [line, parent] = *written.get_or_insert_with(|| {
                    let var = old.map(|o| o.var_bytes(i)).unwrap_or_default();
                    let mut r = Reader { buf: &var, pos: 0 };
                    [r.link().unwrap_or(None), r.link().unwrap_or(None)].map(|l| match l {
                        None => NO_LINK,
                        Some(Link::Id(id)) => find(&id),
                        Some(_) => ELSEWHERE,
                    })
                });
                links[j] = if j == 0 { parent } else { line };
            }
            links
        })
        .collect()
}

/// The lineage over `n` rows drawn from `views`, the `i`-th being row `row(i).1` of view
/// `row(i).0` (ids ascending and unique: the admitted records of one store, or of two being
/// merged), built from the links the files store, with no lookup. A link to a row left out is a
/// link to its id, which the graph finds if another view brought that id.
pub fn lineage_over(views: &[&View], n: usize, row: impl Fn(usize) -> (usize, usize)) -> Lineage {
    let to = graph_rows(views, n, &row);
    Lineage::from_refs(n, |i| {
        let (k, r) = row(i);
        let (line, parent) = links_in(views[k], Some(&to[k]), r);
        (views[k].raw_id(r), line, parent)
    })
    .with_ends(ends_in(views, n, &row))
}

/// The lineage over `rows` of `view` (ascending: the admitted ones; every row when `None`), as
/// [`lineage_over`] builds it, but for its ids: read from the view's rows each time one is
/// needed, never held (a million ids are 32 MB).
pub fn lineage_in(view: &Rc<View>, rows: Option<Rc<[u32]>>) -> Lineage {
    let n = rows.as_ref().map_or(view.len(), |r| r.len());
    let ids = Rc::new(RowIds { view: Rc::clone(view), rows });
    let views = [&**view];
    let row = |i: usize| (0, ids.row(i));
    // Every row in the graph: a row's graph row is itself.
    let to = ids.rows.is_some().then(|| graph_rows(&views, n, &row).remove(0));
    Lineage::from_source(ids.clone(), |i| links_in(view, to.as_deref(), ids.row(i))).with_ends(ends_in(&views, n, &row))
}

/// The ids of some rows of a view (every row when `rows` is `None`), read from the view.
#[derive(Debug)]
struct RowIds {
    view: Rc<View>,
    rows: Option<Rc<[u32]>>,
}

impl RowIds {
    /// The view's row of the `i`-th id.
    fn row(&self, i: usize) -> usize {
        self.rows.as_ref().map_or(i, |r| r[i] as usize)
    }
}

impl IdSource for RowIds {
    fn count(&self) -> usize {
        self.rows.as_ref().map_or(self.view.len(), |r| r.len())
    }
    fn id(&self, i: usize) -> RawId {
        self.view.raw_id(self.row(i))
    }
}

/// Per view, the graph's row of each of its rows (or [`NO_LINK`]: not in the graph).
fn graph_rows(views: &[&View], n: usize, row: &impl Fn(usize) -> (usize, usize)) -> Vec<Vec<u32>> {
    let mut graph_row: Vec<Vec<u32>> = views.iter().map(|v| vec![NO_LINK; v.head.n]).collect();
    for i in 0..n {
        let (k, r) = row(i);
        graph_row[k][r] = i as u32;
    }
    graph_row
}

/// Row `r`'s `line` and `parent` as the graph takes them: a link to a row of the graph is that
/// row (`to` gives it; `None`: every row is in the graph, as itself), a link to a row left out
/// is a link to its id.
fn links_in<'v>(v: &'v View, to: Option<&[u32]>, r: usize) -> (Ref<'v>, Ref<'v>) {
    let (mut line, mut parent) = v.resolved_links(r);
    let Some(to) = to else { return (line, parent) };
    for l in [&mut line, &mut parent] {
        if let Ref::Row(f) = *l {
            *l = match to[f as usize] {
                NO_LINK => Ref::Link(Link::Id(v.raw_id(f as usize))),
                g => Ref::Row(g),
            };
        }
    }
    (line, parent)
}

/// What the v2 records among the graph's `n` rows add to it.
fn ends_in<'v>(
    views: &'v [&View],
    n: usize,
    row: &'v impl Fn(usize) -> (usize, usize),
) -> impl Iterator<Item = (u32, Ends<'static>)> + 'v {
    (0..n).filter_map(move |i| {
        let (k, r) = row(i);
        views[k].ends(r).map(|e| (i as u32, e))
    })
}

/// Where a row of a merged view comes from.
pub(super) enum Source {
    Old(usize),
    Fresh(usize),
}

/// Admitted entries in their compact form, waiting to be merged into a view ([`View::merge`]):
/// a record costs its row and the ids its links name; its variable part waits in a
/// [`Spill`], never a [`Summary`].
#[derive(Default)]
pub struct Fresh {
    pub(super) tables: [Table; 3],
    pub(super) rows: Vec<FreshRow>,
    pub(super) heap: Spill,
    pub(super) others: Vec<Other>,
}

/// A fresh row, and the ids its `parent` and `line` name when its link fields say
/// [`NAMED`]: what finding the links needs, so that the variable parts can stay on disk.
#[derive(Clone)]
pub(super) struct FreshRow {
    pub(super) row: Row,
    pub(super) links: [RawId; 2],
}

/// A fresh row's link field when the id is in [`FreshRow::links`] (never written to a file).
pub(super) const NAMED: u32 = u32::MAX - 2;

impl Fresh {
    /// Entries to merge into `old` (its string tables are kept, so its rows stay valid).
    pub fn on(old: Option<&View>) -> Fresh {
        let mut f = Fresh::default();
        if let Some(o) = old {
            for (t, src) in f.tables.iter_mut().zip(&o.head.tables) {
                for s in src {
                    t.index(s);
                }
            }
        }
        f
    }

    /// Keeps the variable parts, past the first [`SPILL_AT`] bytes, in an unnamed temporary
    /// file in `dir`, made if need be (in memory when none can be made there): what a cold
    /// build holds is then the rows, not the parts.
    pub fn spilling_in(mut self, dir: &Path) -> Fresh {
        self.heap.dir = Some(dir.to_path_buf());
        self
    }

    /// [`Fresh::spilling_in`], past `bytes` bytes (for tests: a few records).
    #[cfg(test)]
    pub(super) fn spill_after(mut self, bytes: usize) -> Fresh {
        self.heap.limit = Some(bytes);
        self
    }

    /// Adds one entry.
    pub fn add(&mut self, e: Entry) {
        match e {
            Entry::Record(c) => {
                let Compact { mut row, links, tables, var, valid } = *c;
                if !valid {
                    return;
                }
                let [signer, repository, device] = &tables;
                row.set_signer(self.tables[0].index(signer));
                row.set_repository(self.tables[1].index(repository));
                row.set_device(self.tables[2].index(device));
                row.set_var_offset(self.heap.len());
                row.set_var_len(var.len());
                self.heap.push(&var);
                self.rows.push(FreshRow { row, links });
            }
            Entry::Other(o) => self.others.push(o),
        }
    }
}

/// The fresh variable parts, in the order they came: in memory, and past [`SPILL_AT`] bytes
/// in an unnamed temporary file when a folder was given for one (appended with positioned
/// writes, copied out with positioned reads, so they can be written out more than once).
#[derive(Default)]
pub(super) struct Spill {
    /// The parts not in `file`: all of them while there is none.
    pub(super) buf: Vec<u8>,
    /// The temporary file and how many bytes it holds.
    pub(super) file: Option<(File, usize)>,
    /// Where the file is made; `None` once making or writing it failed (the rest stays in
    /// memory).
    pub(super) dir: Option<std::path::PathBuf>,
    /// How many bytes are held before they go to the file ([`SPILL_AT`] unless a test says).
    pub(super) limit: Option<usize>,
}

/// How many bytes of fresh variable parts are held in memory before they go to the file.
pub(super) const SPILL_AT: usize = 1 << 20;

impl Spill {
    pub(super) fn len(&self) -> usize {
        self.file.as_ref().map_or(0, |f| f.1) + self.buf.len()
    }

    pub(super) fn push(&mut self, part: &[u8]) {
        use std::os::unix::fs::FileExt;
        self.buf.extend_from_slice(part);
        if self.buf.len() < self.limit.unwrap_or(SPILL_AT) {
            return;
        }
        let Some(dir) = &self.dir else { return };
        if self.file.is_none() {
            match std::fs::create_dir_all(dir).and_then(|()| tempfile::tempfile_in(dir)) {
                Ok(f) => self.file = Some((f, 0)),
                Err(_) => {
                    self.dir = None;
                    return;
                }
            }
        }
        if let Some((f, n)) = &mut self.file {
            if f.write_all_at(&self.buf, *n as u64).is_ok() {
                *n += self.buf.len();
                self.buf.clear();
            } else {
                self.dir = None;
            }
        }
    }

    /// Writes every part to `out`, in the order they came.
    pub(super) fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        if let Some((f, n)) = &self.file {
            use std::os::unix::fs::FileExt;
            let mut chunk = vec![0u8; WINDOW.min(*n)];
            let mut at = 0;
            while at < *n {
                let k = chunk.len().min(n - at);
                f.read_exact_at(&mut chunk[..k], at as u64)?;
                out.write_all(&chunk[..k])?;
                at += k;
            }
        }
        out.write_all(&self.buf)
    }
}
