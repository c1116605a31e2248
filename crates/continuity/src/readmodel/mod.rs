//! The continuity read model (docs/REFERENCE.md#read-model): per store file only what views and lineage need — for
//! a record its id, blob, line, parent, signer, repository, device, published time (as an integer
//! too), branch, head, task title, issue and objective line, never bodies; for any other file its
//! machine-independent verdict — and its compact on-disk form (byte by byte: [`View`]'s file
//! format), keyed by the store tip and the rules version. The caller says where the file is and where
//! a new one goes (`services::continuity::loaded`); a view reads its own file in place (the rows, and
//! a variable part when it is shown).
//!
//! Owns: [`Summary`], [`View`] (the file read in place) and its streamed update, [`RULES`].
//! Must not touch: git, trust (standing is judged per signer on every read, by the caller).

use crate::admission::{Code, Severity};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use chrono::DateTime;

use super::admission::{Diagnostic, Intrinsic};
use super::lineage::{hex, Ends, Fan, IdSource, Lineage, Link, RawId, Ref, Sorted};
use super::record::published_at;
use super::record::{Device, Record};
use crate::model::record::section_text;
use crate::oid::RecordId;
use crate::text::first_line;
use majordomus_core::hex::decode as unhex;

mod format;
mod merge;
mod rows;
mod summary;

pub use format::reseal;
use format::*;
use merge::*;
pub use merge::{lineage_in, lineage_over, Fresh};
pub use rows::ROW;
use rows::*;
pub use summary::{Compact, Entry, Other, OtherKind, Summary};

/// The format line every read-model file starts with; another format is ignored.
pub const FORMAT: &str = "majordomus-readmodel/5";

/// The version of the rules a cached value was decided under: every verdict (shape, bounds, id,
/// signature, portability, path), every summary field (objective, published time, the codes'
/// text) and the file format. A file written under other rules is ignored and rebuilt, so bump
/// it with any change of the code that decides such a value: `tests/rules.rs` hashes that code
/// (and the crates it runs) and fails until the version recorded in `rules.lock` is this one.
pub const RULES: &str = "rules/6";

/// The read model of one store tip, read in place: from memory when the view was built here,
/// else where the file holds it — the rows a window at a time as a pass reads them forward (one
/// row when one is looked up), the variable parts one at a time as records are shown. A warm read
/// of a million records holds neither its 72 MB of rows nor its heap.
///
/// File format (integers little-endian; `varint` is LEB128: 7 bits a byte, low ones first, the
/// high bit set on every byte but the last; `str` is a varint length then that many bytes of
/// UTF-8):
/// ```text
/// "majordomus-readmodel/5 <rules> <store tip, 40 hex>\n"          FORMAT, RULES
/// 3 string tables, in this order: signer keys (64 hex), repository identities,
/// devices ("<node>\n<label>"), each:
///   varint: count
///   count × str
/// varint: n, how many rows
/// n rows of ROW (72) bytes, sorted by id, no id twice:
///   0..32    id              raw bytes of the record id
///   32..40   published       i64, Unix seconds; i64::MIN when unreadable
///   40..44   signer          u32, index in the signer table
///   44..48   repository      u32, index in the repository table
///   48..52   device          u32, index in the device table
///   52..56   var offset      u32, where the row's variable part starts in the heap
///   56..60   var length      u32, its length, checksum included
///   60..64   parent          u32, the row of the record its `parent` names; NO_LINK
///                            (u32::MAX): no `parent`; ELSEWHERE (u32::MAX - 1): it names no
///                            row of the file, read it from the variable part
///   64..68   line            u32, the row of the record that starts its `line`; NO_LINK: no
///                            `line` (it starts its own); ELSEWHERE as for parent
///   68..72   flags           u32, bit 0 (ENDS): a v2 record that ends other heads or carries
///                            no handover (its variable part says which)
/// varint: heap length
/// heap: the rows' variable parts, each where its row says, in no particular order; a part is
///   hex? line, hex? parent, hex blob, opt session, str published_at, opt branch,
///   hex? head, str working tree, varint changed total, opt task, opt issue,
///   str objective (the first line of `# Objective`, "" when absent),
///   varint k, k × hex: the heads it ends (v2 `ends`), u8 terminal: 1 when it carries no handover
///   [u8; PART_SUM = 4]: the first bytes of BLAKE3 of the part before them
/// varint: count of the files that are not records, then count × (sorted by path):
///   str path, str blob, u8 kind (0 too new, 1 refused, 2 stray),
///   str severity, str code, str message
/// [u8; FILE_SUM = 16]: the first bytes of BLAKE3 of the whole file but the heap (whose parts
///   carry their own) and these bytes
/// ```
/// where `opt` is a byte 0 (none) or 1 then a str; `hex` is a byte 1 then a varint length and
/// the bytes that lowercase hex of an even length decodes to, or 2 then a str (any other
/// text); `hex?` is a `hex`, or a byte 0 (none).
///
/// Rows are fixed-size and sorted by id, so a row is found by binary search and read in place
/// ([`RowRef`], offsets in `mod field`): a warm read allocates nothing per record and builds the
/// lineage from the rows alone, with no lookup and without touching the variable parts. A
/// file of another format line or rules version is ignored; one whose checksums fail is damage.
#[derive(Debug, Clone)]
pub struct View {
    /// The file's bytes from its start: the whole file when built here, through the string
    /// tables when read from a file.
    bytes: Vec<u8>,
    place: Place,
    head: Head,
    others: Vec<Other>,
}

/// Where a view's rows and heap of variable parts are.
#[derive(Debug, Clone)]
enum Place {
    /// In the view's bytes.
    InBytes,
    /// In the file it was read from (the file stays valid: a cache is replaced by a rename, never
    /// rewritten in place; a row read from it is checked again all the same, [`View::row`]).
    OnDisk {
        file: Arc<File>,
        /// The heap, read whole the first time a caller borrows from it.
        whole: Arc<OnceLock<Vec<u8>>>,
        /// The rows a pass is reading.
        window: RefCell<RowWindow>,
        /// The first 8 bytes of the id of every [`MARK`]-th row: a lookup reads one block of
        /// rows, not the 20 of a binary search over the file.
        marks: Arc<Vec<u64>>,
    },
}

/// Rows read from a view's file, from row `first` ([`View::row`]), the row read last, and the
/// row read alone last (the fields of one record shown are read one after the other).
#[derive(Debug, Clone)]
struct RowWindow {
    first: usize,
    buf: Vec<u8>,
    /// `usize::MAX` before any.
    last: usize,
    alone: Option<(usize, Row)>,
}

impl Default for RowWindow {
    fn default() -> RowWindow {
        RowWindow { first: 0, buf: Vec::new(), last: usize::MAX, alone: None }
    }
}

/// How many rows a forward pass reads at a time (288 KiB).
const ROWS_AT_ONCE: usize = 4096;

/// The furthest a row may follow the row read last and still be read as part of a pass (a pass
/// over the admitted records skips the few that are not): a walk whose rows lie further apart
/// (a line's records, spread over the file) reads each alone, not a window for each.
const STRIDE: usize = 16;

/// Every how many rows an id is marked ([`Place::OnDisk`]'s `marks`): 125 KiB of marks at a
/// million records, a lookup reading one block of 4.5 KiB.
const MARK: usize = 64;

/// The first 8 bytes of an id, big-endian: its order among marks.
fn mark_of(id: &RawId) -> u64 {
    u64::from_be_bytes(id[..8].try_into().expect("an id is 32 bytes"))
}

/// A window of a view's heap, read a [`WINDOW`] at a time from its file ([`View::each_blob`]).
#[derive(Default)]
struct PartWindow {
    at: usize,
    buf: Vec<u8>,
}

impl PartWindow {
    /// The `len` bytes of the heap at `off`: from memory, or from the window, read again from the
    /// file when they are not all in it.
    fn get<'v>(&'v mut self, view: &'v View, off: usize, len: usize) -> Option<&'v [u8]> {
        let Place::OnDisk { file, whole, .. } = &view.place else { return view.heap().get(off..off.checked_add(len)?) };
        if let Some(heap) = whole.get() {
            return heap.get(off..off.checked_add(len)?);
        }
        let end = off.checked_add(len).filter(|e| *e <= view.head.heap_len)?;
        if off < self.at || end > self.at + self.buf.len() {
            let n = WINDOW.max(len).min(view.head.heap_len - off);
            self.buf = read_at(file, view.head.heap_at + off, n)?;
            self.at = off;
        }
        self.buf.get(off - self.at..end - self.at)
    }
}

/// A view's ids, by row.
impl Sorted for View {
    fn count(&self) -> usize {
        self.head.n
    }
    fn at(&self, i: usize) -> RawId {
        self.raw_id(i)
    }
}

impl PartialEq for View {
    fn eq(&self, o: &View) -> bool {
        self.head.tip == o.head.tip
            && self.head.tables == o.head.tables
            && self.head.n == o.head.n
            && self.others == o.others
            && (0..self.head.n).all(|i| self.row(i) == o.row(i))
            && self.heap() == o.heap()
    }
}

impl Eq for View {}

/// What changed in a store's tree: the paths that left (or were replaced), and the entries of
/// the files that came.
#[derive(Debug, Default)]
pub struct Change<'a> {
    /// Paths no longer in the tree, or replaced.
    pub gone: Vec<&'a str>,
    /// Entries of the new or replaced files.
    pub added: Vec<Entry>,
}

impl View {
    /// The view of an empty store at `tip`.
    pub fn empty(tip: &str, rules: &str) -> View {
        // Nothing is read: an empty view is written to memory and cannot fail.
        View::merge(None, tip, &[], Fresh::default(), rules).expect("an empty view is built in memory")
    }

    /// Reads a file's bytes written under the same `rules`; `None` for another format or rules,
    /// or any damage (every row and every variable part is checked).
    pub fn parse(bytes: Vec<u8>, rules: &str) -> Option<View> {
        let head = Head::parse(&bytes, rules)?;
        let end = head.heap_at.checked_add(head.heap_len)?;
        let (tail, sum) = bytes.get(end..)?.split_at_checked(bytes.len().checked_sub(end + FILE_SUM)?)?;
        if file_sum(&bytes[..head.heap_at], tail) != *sum {
            return None;
        }
        let others = parse_others(tail)?;
        let v = head.view(bytes, Place::InBytes, others)?;
        (0..v.head.n).try_for_each(|i| v.var(i)?.check())?;
        Some(v)
    }

    /// Reads the read-model file at `path` if it was written under the same `rules`: its head,
    /// rows and trailing list of other files, every row checked; the variable parts stay in the
    /// file, read (and checked) when a record is shown. `None` for another format or rules, or
    /// damage.
    pub fn open(path: &Path, rules: &str) -> Option<View> {
        View::open_file(File::open(path).ok()?, rules)
    }

    /// [`View::open`] on an open file (one just written, before it is renamed into place): its
    /// head and trailing list read, its rows read forward once (checked and summed, every
    /// [`MARK`]-th id kept), none of them held.
    pub fn open_file(file: File, rules: &str) -> Option<View> {
        let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
        let mut bytes = read_at(&file, 0, len.min(1 << 16))?;
        let header = bytes.split(|&b| b == b'\n').next()?;
        if !header.starts_with(format!("{FORMAT} {rules} ").as_bytes()) {
            return None;
        }
        // The header and the string tables, read further while they are longer than what is read.
        let (tip, tables, n, rows_at) = loop {
            if let Some((tip, tables, mut r)) = Head::tables(&bytes, rules) {
                let n = usize::try_from(r.num()?).ok()?;
                break (tip, tables, n, r.pos);
            }
            if bytes.len() >= len {
                return None;
            }
            let at = bytes.len();
            read_onto(&file, at, at.min(len - at), &mut bytes)?;
        };
        bytes.truncate(rows_at);
        let rows_end = n.checked_mul(ROW)?.checked_add(rows_at).filter(|e| *e < len)?;
        let len_bytes = read_at(&file, rows_end, 10.min(len - rows_end))?;
        let mut r = Reader { buf: &len_bytes, pos: 0 };
        let heap_len = usize::try_from(r.num()?).ok()?;
        let len_bytes = &len_bytes[..r.pos];
        let heap_at = rows_end + len_bytes.len();
        let head = Head::new(tip, tables, n, rows_at, heap_at, heap_len)?;
        let end = heap_at.checked_add(heap_len).filter(|e| *e + FILE_SUM <= len)?;
        let tail = read_at(&file, end, len - end)?;
        let (tail, sum) = tail.split_at(tail.len() - FILE_SUM);
        let mut hash = blake3::Hasher::new();
        hash.update(&bytes);
        let mut marks = Vec::with_capacity(n / MARK + 1);
        let mut buf = Vec::new();
        let mut last: Option<RawId> = None;
        for first in (0..n).step_by(ROWS_AT_ONCE) {
            let count = ROWS_AT_ONCE.min(n - first);
            buf.clear();
            read_onto(&file, rows_at + first * ROW, count * ROW, &mut buf)?;
            hash.update(&buf);
            for (k, row) in buf.chunks_exact(ROW).enumerate() {
                let row = Row::at(row, 0);
                if !head.follows(&mut last, &row) {
                    return None;
                }
                if (first + k) % MARK == 0 {
                    marks.push(mark_of(&row.id()));
                }
            }
        }
        hash.update(len_bytes);
        hash.update(tail);
        if hash.finalize().as_bytes()[..FILE_SUM] != *sum {
            return None;
        }
        let others = parse_others(tail)?;
        let place = Place::OnDisk {
            file: Arc::new(file),
            whole: Arc::new(OnceLock::new()),
            window: RefCell::default(),
            marks: Arc::new(marks),
        };
        Some(View { bytes, place, head, others })
    }

    /// The store tip this view describes.
    pub fn tip(&self) -> &str {
        &self.head.tip
    }

    /// The file's bytes (read whole from the file when the view was read from one).
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        match &self.place {
            Place::InBytes => Cow::Borrowed(&self.bytes),
            Place::OnDisk { .. } => {
                let mut buf = Vec::new();
                self.write_to(&mut buf).map_or(Cow::Owned(Vec::new()), |()| Cow::Owned(buf))
            }
        }
    }

    /// Writes the file's bytes to `out` (from the file, a window at a time, when the view was
    /// read from one).
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let Place::OnDisk { file, .. } = &self.place else { return out.write_all(&self.bytes) };
        let len = file.metadata()?.len() as usize;
        let mut buf = vec![0u8; WINDOW];
        let mut at = 0;
        while at < len {
            let n = WINDOW.min(len - at);
            std::os::unix::fs::FileExt::read_exact_at(&**file, &mut buf[..n], at as u64)?;
            out.write_all(&buf[..n])?;
            at += n;
        }
        Ok(())
    }

    /// The heap of variable parts, read whole from the file the first time.
    fn heap(&self) -> &[u8] {
        match &self.place {
            Place::InBytes => &self.bytes[self.head.heap_at..self.head.heap_at + self.head.heap_len],
            Place::OnDisk { file, whole, .. } => {
                whole.get_or_init(|| read_at(file, self.head.heap_at, self.head.heap_len).unwrap_or_default())
            }
        }
    }

    /// Record `i`'s variable part: borrowed when the heap is in memory, else read from the file
    /// alone (a record shown costs one read, not the heap).
    fn var_bytes(&self, i: usize) -> Cow<'_, [u8]> {
        let row = self.row(i);
        let (off, len) = (row.var_offset(), row.var_len());
        match &self.place {
            Place::OnDisk { file, whole, .. } if whole.get().is_none() => {
                Cow::Owned(read_at(file, self.head.heap_at + off, len).unwrap_or_default())
            }
            _ => Cow::Borrowed(self.heap().get(off..off + len).unwrap_or_default()),
        }
    }

    /// Calls `f(row, blob)` with every row's blob, reading the variable parts in the order the
    /// heap holds them, a window of the file at a time when the view was read from one (the heap
    /// is never held whole), each part checked. `false` when a part is damaged or `f` says so.
    pub fn each_blob(&self, mut f: impl FnMut(usize, &str) -> bool) -> bool {
        // (where, how long, which row), read in one forward pass over the rows.
        let mut order: Vec<(u32, u32, u32)> = (0..self.head.n)
            .map(|i| {
                let row = self.row(i);
                (row.var_offset() as u32, row.var_len() as u32, i as u32)
            })
            .collect();
        order.sort_unstable();
        let mut window = PartWindow::default();
        for (at, len, i) in order {
            let Some(part) = window.get(self, at as usize, len as usize) else { return false };
            let mut s = Summary::default();
            if Var::of(part).and_then(|mut v| v.fill(&mut s)).is_none() || !f(i as usize, &s.blob) {
                return false;
            }
        }
        true
    }

    /// How many records in shape it holds.
    pub fn len(&self) -> usize {
        self.head.n
    }

    /// Whether it holds no record in shape.
    pub fn is_empty(&self) -> bool {
        self.head.n == 0
    }

    /// Every file that is not a record in shape, sorted by path.
    pub fn others(&self) -> &[Other] {
        &self.others
    }

    /// Row `i`: from memory, or from the file — from the window of rows a forward pass is
    /// reading (read again from `i` when `i` is not in it and follows the row read last by at
    /// most [`STRIDE`]: a pass, from its second row), else alone (a lookup, or a walk whose rows
    /// lie far apart, leaves the pass's window as it was). A row read from the file is checked as when
    /// the file was opened: one that fails (the file was changed in place behind this program)
    /// is read as [`Row::damaged`], whose variable part no read accepts.
    #[inline]
    fn row(&self, i: usize) -> Row {
        match &self.place {
            Place::OnDisk { file, window, .. } => self.row_from(file, window, i),
            Place::InBytes => Row::at(&self.bytes, self.head.rows_at + i * ROW),
        }
    }

    fn row_from(&self, file: &File, window: &RefCell<RowWindow>, i: usize) -> Row {
        let at = |i: usize| self.head.rows_at + i * ROW;
        let mut w = window.borrow_mut();
        let (held, last) = (w.buf.len() / ROW, std::mem::replace(&mut w.last, i));
        if (w.first..w.first + held).contains(&i) {
            return self.checked(Row::at(&w.buf, (i - w.first) * ROW));
        }
        if let Some((_, row)) = w.alone.filter(|(at, _)| *at == i) {
            return row;
        }
        // `last` + 1 ..= `last` + STRIDE (the first row of all, before any, included).
        if i.wrapping_sub(last).wrapping_sub(1) < STRIDE && i < self.head.n {
            let count = ROWS_AT_ONCE.min(self.head.n - i);
            w.buf.clear();
            w.first = i;
            return match read_onto(file, at(i), count * ROW, &mut w.buf) {
                Some(()) => self.checked(Row::at(&w.buf, 0)),
                None => Row::damaged(),
            };
        }
        let mut one = [0u8; ROW];
        let row = match std::os::unix::fs::FileExt::read_exact_at(file, &mut one, at(i) as u64) {
            Ok(()) => self.checked(Row::at(&one, 0)),
            Err(_) => Row::damaged(),
        };
        w.alone = Some((i, row));
        row
    }

    /// `row`, or [`Row::damaged`] when it fails the bounds the file was opened with.
    fn checked(&self, row: Row) -> Row {
        if self.head.holds(&row) {
            row
        } else {
            Row::damaged()
        }
    }

    fn var(&self, i: usize) -> Option<Var<'_>> {
        let row = self.row(i);
        let off = row.var_offset();
        Var::of(self.heap().get(off..off + row.var_len())?)
    }

    /// Record `i`'s id.
    pub fn id(&self, i: usize) -> RecordId {
        RecordId::from_raw(&self.row(i).id())
    }

    /// The row of record `id` (64 hex).
    pub fn find(&self, id: &str) -> Option<usize> {
        self.find_raw(&raw_id(id)?)
    }

    /// The row of the record whose id is `raw`.
    pub fn find_raw(&self, raw: &RawId) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.head.n);
        if let Place::OnDisk { file, marks, .. } = &self.place {
            // The rows from the block before the first mark not below the id's to the last block
            // whose mark is not above it: read at once when they are a few blocks (as they are
            // but for ids made to share their first 8 bytes), else searched row by row.
            let key = mark_of(raw);
            lo = marks.partition_point(|m| *m < key).saturating_sub(1) * MARK;
            hi = (marks.partition_point(|m| *m <= key) * MARK).min(self.head.n);
            if hi <= lo {
                return None;
            }
            if hi - lo <= 4 * MARK {
                let rows = read_at(file, self.head.rows_at + lo * ROW, (hi - lo) * ROW)?;
                let found = rows.chunks_exact(ROW).position(|r| Row::at(r, 0).id() == *raw)?;
                return Some(lo + found);
            }
        }
        self.search(lo, hi, raw)
    }

    /// Record `i`'s published time, Unix seconds.
    pub fn published(&self, i: usize) -> Option<i64> {
        self.row(i).published()
    }

    /// Record `i`'s signer and repository, as indices of their tables ([`View::key_at`],
    /// [`View::repository_at`]): standing is judged once per pair.
    pub fn standing_key(&self, i: usize) -> (usize, usize) {
        let row = self.row(i);
        (row.signer(), row.repository())
    }

    /// A signer key (64 hex) of the key table.
    pub fn key_at(&self, k: usize) -> &str {
        &self.head.tables[0][k]
    }

    /// A repository identity of the repository table.
    pub fn repository_at(&self, k: usize) -> &str {
        &self.head.tables[1][k]
    }

    /// Record `i`'s device node and label.
    pub fn device(&self, i: usize) -> (&str, &str) {
        self.head.tables[2][self.row(i).device()].split_once('\n').unwrap_or(("", ""))
    }

    /// Record `i`'s `(id, line, parent)`.
    pub fn links(&self, i: usize) -> (String, Option<String>, Option<String>) {
        let var = self.var_bytes(i);
        let mut r = Reader { buf: &var, pos: 0 };
        let line = r.hex().unwrap_or(None);
        let parent = r.hex().unwrap_or(None);
        (self.id(i).into(), line, parent)
    }

    /// Record `i`'s raw id.
    pub fn raw_id(&self, i: usize) -> RawId {
        self.row(i).id()
    }

    /// Record `i`'s `line` and `parent`, read in place (what the lineage is built from).
    pub fn raw_links(&self, i: usize) -> (Option<Link<'_>>, Option<Link<'_>>) {
        // A damaged part names no link (the row's resolved links do not depend on it).
        let Some(mut v) = self.var(i) else { return (None, None) };
        let line = v.r.link().unwrap_or(None);
        let parent = v.r.link().unwrap_or(None);
        (line, parent)
    }

    /// Record `i`'s `line` and `parent` as the lineage takes them: rows of this file, found
    /// when the file was written (a value naming no row is read from the variable part).
    pub fn resolved_links(&self, i: usize) -> (Ref<'_>, Ref<'_>) {
        // `is_parent`: which of the part's (line, parent) the field stands for.
        let of = |field: u32, is_parent: bool| match field {
            NO_LINK => Ref::None,
            ELSEWHERE => {
                // An id is read from this record's part alone; text borrows from the heap.
                let var = self.var_bytes(i);
                let mut r = Reader { buf: &var, pos: 0 };
                let (line, parent) = (r.link().unwrap_or(None), r.link().unwrap_or(None));
                match if is_parent { parent } else { line } {
                    None => Ref::None,
                    Some(Link::Id(id)) => Ref::Link(Link::Id(id)),
                    Some(_) => {
                        let (line, parent) = self.raw_links(i);
                        (if is_parent { parent } else { line }).map_or(Ref::None, Ref::Link)
                    }
                }
            }
            r => Ref::Row(r),
        };
        let row = self.row(i);
        (of(row.line(), false), of(row.parent(), true))
    }

    /// What record `i` adds to the lineage as a v2 record (the heads it ends, whether it carries
    /// no handover); `None` for every other row, read from the row's flags alone.
    pub fn ends(&self, i: usize) -> Option<Ends<'static>> {
        if self.row(i).flags() & ENDS == 0 {
            return None;
        }
        // A damaged part ends nothing.
        let s = self.summary(i)?;
        let ends = s.ends.iter().filter_map(|e| raw_id(e)).map(Link::Id).collect();
        Some(Ends { ends, terminal: s.terminal })
    }

    /// The lineage over `n` of this view's rows, the `i`-th being `row(i)` (ascending: the
    /// admitted ones): [`lineage_over`] one view.
    pub fn lineage_of(&self, n: usize, row: impl Fn(usize) -> usize) -> Lineage {
        lineage_over(&[self], n, |i| (0, row(i)))
    }

    /// Record `i` as the read model keeps it; `None` when its variable part is damaged (its
    /// checksum does not match: the file changed behind this program's back).
    pub fn summary(&self, i: usize) -> Option<Summary> {
        let mut s = self.row_summary(i);
        let var = self.var_bytes(i);
        Var::of(&var)?.fill(&mut s)?;
        Some(s)
    }

    /// What row `i` holds of its record (id, signer, repository, device, published time), the
    /// variable part's fields left empty.
    pub fn row_summary(&self, i: usize) -> Summary {
        let (node, label) = self.device(i);
        let (k, repo) = self.standing_key(i);
        Summary {
            id: self.id(i).into(),
            key: self.head.tables[0][k].clone(),
            repository: self.head.tables[1][repo].clone(),
            device: Device { node: node.into(), label: label.into() },
            published: self.published(i),
            ..Summary::default()
        }
    }

    /// Whether the file at `path` was written in this format under `rules` (its first line
    /// says so), whatever the rest holds: a file that says so but does not open is damaged.
    pub fn written_under(path: &Path, rules: &str) -> bool {
        use std::io::Read;
        let want = format!("{FORMAT} {rules} ");
        let mut head = vec![0u8; want.len()];
        File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && head == want.as_bytes()
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn summary(id: char, parent: Option<char>) -> Summary {
        Summary {
            id: id.to_string().repeat(64),
            blob: "b".repeat(40),
            line: parent.map(|p| p.to_string().repeat(64)),
            parent: parent.map(|p| p.to_string().repeat(64)),
            key: "c".repeat(64),
            repository: "0".repeat(32),
            device: Device { node: "d".repeat(32), label: "laptop".into() },
            session: Some("s-1".into()),
            published_at: "2026-09-03T20:00:00Z".into(),
            published: Some(1_788_465_600),
            branch: Some("main".into()),
            head: Some("e".repeat(40)),
            working_tree: "clean".into(),
            changed_total: 3,
            task: Some("Ship it".into()),
            issue: None,
            objective: "Move the parser.".into(),
            ends: Vec::new(),
            terminal: false,
        }
    }

    #[test]
    fn a_v2_record_ends_the_heads_it_names_and_one_without_a_handover_is_no_head() {
        let id = |c: char| c.to_string().repeat(64);
        let on_a =
            |c: char, parent: char| Summary { line: Some(id('a')), parent: Some(id(parent)), ..summary(c, None) };
        // a, then b and c both continue a: the line has diverged.
        let mut rows = vec![summary('a', None), on_a('b', 'a'), on_a('c', 'a')];
        let heads = |rows: &[Summary]| {
            let fresh: Vec<Entry> = rows.iter().map(Entry::record).collect();
            let mut f = Fresh::on(None);
            for e in fresh {
                f.add(e);
            }
            let v = View::merge(None, &"0".repeat(40), &[], f, "r").unwrap();
            let g = v.lineage_of(v.len(), |i| i);
            (g.heads().iter().map(|h| h[..1].to_string()).collect::<Vec<_>>(), g, v)
        };
        assert_eq!(heads(&rows).0, ["b", "c"]);
        // d continues b and ends c: one head, and c is older than d.
        rows.push(Summary { ends: vec![id('c')], ..on_a('d', 'b') });
        let (h, g, v) = heads(&rows);
        assert_eq!(h, ["d"]);
        assert_eq!(g.relation(&id('c'), &id('d')), crate::lineage::Relation::Newer);
        assert_eq!(g.ends_of(&id('d')), [id('c')]);
        assert_eq!(v.summary(v.find(&id('d')).unwrap()).unwrap().ends, [id('c')], "the part keeps the ends");
        // e only ends d (no handover): the line has no head left, and e is none.
        rows.push(Summary { terminal: true, ..on_a('e', 'd') });
        let (h, g, _) = heads(&rows);
        assert!(h.is_empty(), "{h:?}");
        assert!(g.is_terminal(&id('e')) && !g.is_head(&id('e')));
    }

    fn entries() -> Vec<Entry> {
        vec![
            Entry::record(&summary('f', Some('a'))),
            Entry::record(&summary('a', None)),
            Entry::Other(Other {
                path: "records/zz".into(),
                blob: "2".repeat(40),
                kind: OtherKind::Stray,
                diagnostic: Diagnostic::new(Severity::Warning, Code::StrayFile, Some("records/zz"), "ignored"),
            }),
        ]
    }

    fn build(rules: &str) -> View {
        let empty = View::empty(&"0".repeat(40), rules);
        let bytes = empty.update(&"1".repeat(40), Change { gone: vec![], added: entries() }, rules);
        View::parse(bytes, rules).unwrap()
    }

    /// A field read from another field's bytes, or the fields overlapping or leaving a gap, fails
    /// here: each field holds a value no other holds, in the order the file format gives.
    #[test]
    fn each_row_field_is_its_own_bytes_and_the_fields_tile_the_row() {
        let fields = [
            (field::ID, size_of::<RawId>()),
            (field::PUBLISHED, size_of::<i64>()),
            (field::SIGNER, size_of::<u32>()),
            (field::REPOSITORY, size_of::<u32>()),
            (field::DEVICE, size_of::<u32>()),
            (field::VAR_OFFSET, size_of::<u32>()),
            (field::VAR_LEN, size_of::<u32>()),
            (field::PARENT, size_of::<u32>()),
            (field::LINE, size_of::<u32>()),
            (field::FLAGS, size_of::<u32>()),
        ];
        let end = fields.iter().fold(0, |end, &(at, size)| {
            assert_eq!(at, end, "a field starts where the one before ends");
            at + size
        });
        assert_eq!(end, ROW);

        let id: RawId = std::array::from_fn(|k| k as u8 + 1);
        let published = -0x2122_2324_2526_2728_i64;
        let (signer, repository, device) = (0x3132_3334, 0x4142_4344, 0x5152_5354);
        let (var_offset, var_len, parent, line) = (0x6162_6364, 0x7172_7374, 0x8182_8384, 0x9192_9394);
        let mut row = Row::default();
        row.set_id(&id);
        row.set_published(Some(published));
        row.set_signer(signer);
        row.set_repository(repository);
        row.set_device(device);
        row.set_var_offset(var_offset);
        row.set_var_len(var_len);
        row.set_parent(parent);
        row.set_line(line);
        let flags = 0xa1a2_a3a4;
        row.set_flags(flags);
        assert_eq!(row.id(), id);
        assert_eq!(row.published(), Some(published));
        assert_eq!((row.signer(), row.repository(), row.device()), (signer, repository, device));
        assert_eq!((row.var_offset(), row.var_len()), (var_offset, var_len));
        assert_eq!((row.parent(), row.line(), row.flags()), (parent, line, flags));
        // The bytes are the values little-endian, in the file format's order.
        let le = |v: usize| (v as u32).to_le_bytes();
        let want = [
            &id[..],
            &published.to_le_bytes(),
            &le(signer),
            &le(repository),
            &le(device),
            &le(var_offset),
            &le(var_len),
            &parent.to_le_bytes(),
            &line.to_le_bytes(),
            &flags.to_le_bytes(),
        ]
        .concat();
        assert_eq!(&row.bytes()[..], &want[..]);
        // An unreadable published time is stored as `i64::MIN` and read as none.
        row.set_published(None);
        assert_eq!(row.published(), None);
        assert_eq!(row.bytes()[field::PUBLISHED..field::SIGNER], i64::MIN.to_le_bytes());
    }

    #[test]
    fn a_cold_merge_out_of_id_order_gives_the_view_of_one_in_order() {
        let merged = |ids: &[char]| {
            let mut fresh = Fresh::on(None);
            for (i, &id) in ids.iter().enumerate() {
                fresh.add(Entry::record(&summary(id, (i > 0).then_some(ids[0]))));
            }
            fresh.add(entries().pop().unwrap());
            View::merge(None, &"1".repeat(40), &[], fresh, "r1").unwrap()
        };
        let in_order = merged(&['1', '5', 'a', 'f']);
        let shuffled = merged(&['1', 'f', 'a', '5']);
        assert_eq!(in_order.len(), 4);
        // The same rows but for where each variable part sits (the heap is in arrival order).
        let rows = |v: &View| {
            (0..v.len())
                .map(|i| {
                    let mut r = v.row(i);
                    r.set_var_offset(0);
                    r
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(rows(&in_order), rows(&shuffled));
        assert_ne!(in_order.bytes(), shuffled.bytes(), "the parts are written as they came");
        assert_eq!(View::parse(in_order.bytes().to_vec(), "r1").as_ref(), Some(&in_order));
        assert_eq!(View::parse(shuffled.bytes().to_vec(), "r1").as_ref(), Some(&shuffled));
        let ids = |v: &View| (0..v.len()).map(|i| v.summary(i).unwrap()).collect::<Vec<_>>();
        assert_eq!(ids(&in_order), ids(&shuffled));
        assert_eq!(in_order.summary(3).unwrap(), summary('f', Some('1')));
    }

    #[test]
    fn fresh_parts_spill_to_a_file_and_stay_in_memory_when_none_can_be_made() {
        let dir = tempfile::tempdir().unwrap();
        let blocked = dir.path().join("a-file");
        std::fs::write(&blocked, "not a folder").unwrap();
        let build = |fresh: Fresh| {
            let mut fresh = fresh.spill_after(1);
            for id in ['1', 'f', 'a', '5'] {
                fresh.add(Entry::record(&summary(id, (id != '1').then_some('1'))));
            }
            let spilled = fresh.heap.file.as_ref().map(|f| f.1);
            (View::merge(None, &"1".repeat(40), &[], fresh, "r1").unwrap(), spilled)
        };
        let (in_memory, none) = build(Fresh::on(None));
        let (spilled, some) = build(Fresh::on(None).spilling_in(&dir.path().join("made/here")));
        let (refused, also_none) = build(Fresh::on(None).spilling_in(&blocked.join("sub")));
        assert_eq!((none, also_none), (None, None));
        assert!(some.is_some_and(|n| n > 0), "{some:?}");
        assert_eq!(spilled.bytes(), in_memory.bytes());
        assert_eq!(refused.bytes(), in_memory.bytes());
        assert_eq!(spilled.summary(3).unwrap(), summary('f', Some('1')));
    }

    #[test]
    fn round_trips_and_refuses_other_rules_or_damage() {
        let v = build("r1");
        assert_eq!(v.len(), 2);
        assert_eq!(v.tip(), "1".repeat(40));
        assert_eq!(v.summary(0).unwrap(), summary('a', None), "rows are sorted by id");
        assert_eq!(v.summary(1).unwrap(), summary('f', Some('a')));
        assert_eq!(v.find(&"f".repeat(64)), Some(1));
        assert_eq!(v.find(&"b".repeat(64)), None);
        assert_eq!(v.links(1), ("f".repeat(64), Some("a".repeat(64)), Some("a".repeat(64))));
        assert_eq!(v.resolved_links(1), (Ref::Row(0), Ref::Row(0)), "links to rows of the file are stored as rows");
        assert_eq!(v.resolved_links(0), (Ref::None, Ref::None));
        assert_eq!(v.others().len(), 1);
        let bytes = v.bytes().to_vec();
        assert_eq!(View::parse(bytes.clone(), "r1").as_ref(), Some(&v));
        assert_eq!(View::parse(bytes.clone(), "r2"), None, "another rules hash is ignored");
        let other_format = String::from_utf8_lossy(&bytes).replace(FORMAT, "majordomus-readmodel/1");
        assert_eq!(View::parse(other_format.into_bytes(), "r1"), None, "another format is ignored");
        assert_eq!(View::parse(bytes[..bytes.len() - 1].to_vec(), "r1"), None, "a truncated file is ignored");
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(View::parse(longer, "r1"), None, "trailing bytes are damage");
    }

    /// Every byte of a file flipped: outside the variable parts the file does not open (parsed
    /// or read in place); inside one, that record's part is refused when it is read.
    #[test]
    fn any_changed_byte_is_found_by_a_checksum() {
        let v = build("r1");
        let bytes = v.bytes().to_vec();
        let (heap_at, heap_len) = (v.head.heap_at, v.head.heap_len);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rm.bin");
        let header_len = bytes.iter().position(|&b| b == b'\n').unwrap();
        for at in header_len + 1..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            std::fs::write(&path, &damaged).unwrap();
            assert!(View::written_under(&path, "r1"));
            if (heap_at..heap_at + heap_len).contains(&at) {
                // Parsed whole, every part is checked; read in place, a part when it is read.
                assert_eq!(View::parse(damaged.clone(), "r1"), None, "byte {at}");
                let opened = View::open(&path, "r1").expect("the rows are intact");
                let broken = (0..opened.len()).filter(|&i| opened.summary(i).is_none()).count();
                assert_eq!(broken, 1, "byte {at}");
                assert_eq!(opened.row_summary(0).id, "a".repeat(64));
            } else {
                assert_eq!(View::parse(damaged.clone(), "r1"), None, "byte {at}");
                assert!(View::open(&path, "r1").is_none(), "byte {at}");
            }
        }
        assert!(!View::written_under(&dir.path().join("absent"), "r1"));
    }

    #[test]
    fn odd_values_survive_the_hex_packing() {
        let mut s = summary('c', None);
        s.head = Some("not-hex".into());
        s.parent = Some("ABC".into());
        let empty = View::empty(&"0".repeat(40), "r");
        let added = vec![Entry::record(&s)];
        let v = View::parse(empty.update(&"1".repeat(40), Change { gone: vec![], added }, "r"), "r").unwrap();
        assert_eq!(v.summary(0).unwrap(), s);
    }

    #[test]
    fn update_replaces_changed_paths_and_keeps_order() {
        let v = build("r");
        let path_a = crate::record::store_path(&"a".repeat(64));
        let mut b = summary('b', Some('a'));
        b.objective = "new".into();
        let change = Change { gone: vec![&path_a, "records/zz"], added: vec![Entry::record(&b)] };
        let v = View::parse(v.update(&"2".repeat(40), change, "r"), "r").unwrap();
        let ids: Vec<String> = (0..v.len()).map(|i| v.id(i)[..1].to_string()).collect();
        assert_eq!(ids, ["b", "f"]);
        assert!(v.others().is_empty());
        let mut f2 = summary('f', Some('a'));
        f2.objective = "changed".into();
        let path_f = crate::record::store_path(&"f".repeat(64));
        let change = Change { gone: vec![&path_f], added: vec![Entry::record(&f2)] };
        let v = View::parse(v.update(&"3".repeat(40), change, "r"), "r").unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v.summary(1).unwrap().objective, "changed");
        assert_eq!(v.summary(0).unwrap().objective, "new");
    }

    #[test]
    fn the_lineage_read_in_place_equals_the_lineage_of_the_links() {
        use crate::lineage::Lineage;
        let mut odd = summary('c', Some('a'));
        odd.parent = Some("not-an-id".into());
        odd.line = Some("abcd".into());
        let mut added = entries();
        added.push(Entry::record(&odd));
        added.push(Entry::record(&summary('e', Some('f'))));
        let empty = View::empty(&"0".repeat(40), "r");
        let v = View::parse(empty.update(&"1".repeat(40), Change { gone: vec![], added }, "r"), "r").unwrap();
        let in_place = Lineage::from_rows(v.len(), |i| {
            let (line, parent) = v.raw_links(i);
            (v.raw_id(i), line, parent)
        });
        assert_eq!(in_place, Lineage::from_links((0..v.len()).map(|i| v.links(i))));
        assert_eq!(in_place.len(), 4);
        assert_eq!(in_place.line_of(&"c".repeat(64)), Some("abcd"));
        assert_eq!(in_place.parent_of(&"c".repeat(64)).as_deref(), Some("not-an-id"));
    }

    #[test]
    fn a_view_opened_from_its_file_reads_variable_parts_only_as_records_are_shown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.bin");
        let v = build("r1");
        std::fs::write(&path, v.bytes()).unwrap();
        let opened = View::open(&path, "r1").unwrap();
        let heap_read = |v: &View| matches!(&v.place, Place::OnDisk { whole, .. } if whole.get().is_some());
        assert_eq!(opened.summary(1).unwrap(), summary('f', Some('a')));
        assert_eq!(opened.links(1), v.links(1));
        assert_eq!(opened.lineage_of(2, |i| i), v.lineage_of(2, |i| i));
        assert!(!heap_read(&opened), "a summary, the links and the lineage read no whole heap");
        assert_eq!(opened, v, "the same view as the bytes parsed in memory");
        assert!(heap_read(&opened));
        assert_eq!(opened.bytes().as_ref(), v.bytes().as_ref());
        assert_eq!(View::open(&path, "r2"), None, "another rules hash is ignored");
        // Large tables push the rows past the first read.
        let mut added = entries();
        for k in 0..3000 {
            let mut s = summary('b', None);
            s.id = format!("{k:064x}");
            s.key = format!("{:064x}", k + 1);
            added.push(Entry::record(&s));
        }
        let big = View::empty(&"0".repeat(40), "r1").updated(&"1".repeat(40), Change { gone: vec![], added }, "r1");
        std::fs::write(&path, big.bytes()).unwrap();
        assert!(big.bytes().len() > 1 << 18);
        assert_eq!(View::open(&path, "r1").as_ref(), Some(&big));
        let bytes = big.bytes().to_vec();
        for cut in [bytes.len() - 1, bytes.len() / 2, 100] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert_eq!(View::open(&path, "r1"), None, "a file cut at {cut} is ignored");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        std::fs::write(&path, &longer).unwrap();
        assert_eq!(View::open(&path, "r1"), None, "trailing bytes are damage");
        // A row pointing past the heap is damage found without reading the heap.
        let mut bad = bytes.clone();
        let at = big.head.rows_at + field::VAR_LEN;
        bad[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        std::fs::write(&path, &bad).unwrap();
        assert_eq!(View::open(&path, "r1"), None);
    }

    /// Views of `n` records whose ids spread over the id space, 300 of them sharing their first
    /// 8 bytes (so a lookup's block range is long): parsed in memory, and opened from `path`.
    fn many(n: usize, path: &Path) -> (View, View) {
        let added = (0..n)
            .map(|k| {
                let mut s = summary('b', if k % 5 == 0 { None } else { Some('a') });
                let spread = (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                s.id = if k < 300 { format!("{:016x}{k:048x}", 7) } else { format!("{spread:016x}{k:048x}") };
                s.key = format!("{:064x}", k % 3);
                Entry::record(&s)
            })
            .collect();
        let v = View::empty(&"0".repeat(40), "r").updated(&"1".repeat(40), Change { gone: vec![], added }, "r");
        std::fs::write(path, v.bytes()).unwrap();
        (v, View::open(path, "r").unwrap())
    }

    /// A view opened from its file holds none of its rows: each is read where it lies — a
    /// forward pass a window at a time, a lookup alone — and is what the file parsed in memory
    /// holds, whatever the order of the reads; every id is found, no absent one is.
    #[test]
    fn rows_are_read_where_they_lie_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let n = 3 * ROWS_AT_ONCE + 17;
        let (parsed, opened) = many(n, &dir.path().join("model.bin"));
        assert_eq!((opened.len(), opened.bytes.len()), (n, opened.head.rows_at), "no row is held");
        let window = |v: &View| match &v.place {
            Place::OnDisk { window, .. } => window.borrow().buf.len(),
            Place::InBytes => unreachable!("opened from a file"),
        };
        let same = |i: usize| {
            assert_eq!(opened.row(i), parsed.row(i), "row {i}");
            assert!(window(&opened) <= ROWS_AT_ONCE * ROW);
        };
        (0..n).for_each(same);
        (0..n).rev().for_each(same);
        (0..n).step_by(ROWS_AT_ONCE + 5).for_each(same);
        (0..n).for_each(same);
        (0..n).map(|i| (i * 7919) % n).for_each(same);
        for i in 0..n {
            let id = parsed.raw_id(i);
            assert_eq!(opened.find_raw(&id), Some(i));
            let mut absent = id;
            absent[31] ^= 1;
            assert_eq!(opened.find_raw(&absent), parsed.find_raw(&absent), "row {i}");
        }
        assert_eq!(opened.find_raw(&[0; 32]), None);
        assert_eq!(opened.find_raw(&[0xff; 32]), None);
        assert_eq!(opened, parsed);
        use std::rc::Rc;
        let ids = Rc::new(opened);
        let some: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 0).collect();
        for rows in [None, Some(Rc::<[u32]>::from(some.clone()))] {
            let held = match &rows {
                None => parsed.lineage_of(n, |i| i),
                Some(r) => parsed.lineage_of(r.len(), |i| r[i] as usize),
            };
            assert_eq!(lineage_in(&ids, rows), held, "the graph over ids read in place is the one over held ids");
        }
    }

    /// A file changed in place after it was opened (never by this program: a cache is replaced
    /// by a rename) reads as damage: a row out of the bounds it was opened with is read as
    /// [`Row::damaged`], whose part no read accepts (and whose fields index the tables): no
    /// read of a row, a summary or a lookup panics.
    #[test]
    fn a_file_changed_in_place_after_it_was_opened_reads_as_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.bin");
        let (_, opened) = many(2 * ROWS_AT_ONCE, &path);
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let rows_at = opened.head.rows_at as u64;
        std::os::unix::fs::FileExt::write_all_at(&file, &vec![0xff; 3 * ROW], rows_at).unwrap();
        assert_eq!(opened.row(1), Row::damaged());
        assert_eq!(opened.summary(1), None);
        assert_eq!(opened.standing_key(2), (0, 0));
        assert_eq!(opened.device(2), (&"d".repeat(32)[..], "laptop"));
        let n = opened.len();
        file.set_len(rows_at + 10).unwrap();
        assert_eq!(opened.row(n - 1), Row::damaged(), "a row past the file's end");
        assert_eq!(opened.find(&"7".repeat(64)), None);
    }

    #[test]
    fn an_old_heap_is_copied_forward_a_window_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.bin");
        let mut added = entries();
        added.extend((0..40).map(|k| {
            let mut s = summary('b', None);
            (s.id, s.objective) = (format!("{k:064x}"), "x".repeat(k));
            Entry::record(&s)
        }));
        let v = View::empty(&"0".repeat(40), "r").updated(&"1".repeat(40), Change { gone: vec![], added }, "r");
        std::fs::write(&path, v.bytes()).unwrap();
        let opened = View::open(&path, "r").unwrap();
        for size in [1, 7, 300, WINDOW] {
            let mut w = Window::of(&opened, size);
            for i in (0..v.len()).filter(|i| i % 3 != 1) {
                let (at, len) = (v.row(i).var_offset(), v.row(i).var_len());
                assert_eq!(w.part(at, len).unwrap(), &v.heap()[at..at + len], "window {size}, row {i}");
            }
        }
        // An update from the file, without its heap in memory, writes what one from memory does.
        let change = || Change { gone: vec!["records/zz"], added: vec![Entry::record(&summary('e', Some('a')))] };
        assert_eq!(opened.update(&"2".repeat(40), change(), "r"), v.update(&"2".repeat(40), change(), "r"));
        assert!(matches!(&opened.place, Place::OnDisk { whole, .. } if whole.get().is_none()));
    }

    /// One step of [`the_stored_links_give_the_lineage_of_the_links_after_any_updates`]:
    /// records to add (id, line, parent as choices of 0..=17: 16 ids, a short hex, a text) and
    /// ids to remove (an id both removed and added is replaced).
    type Step = (Vec<(u8, Option<u8>, Option<u8>)>, Vec<u8>);

    fn link_value(c: u8) -> String {
        match c {
            0..=15 => format!("{c:x}").repeat(64),
            16 => "abcd".into(),
            _ => "not-an-id".into(),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
        #[test]
        fn the_stored_links_give_the_lineage_of_the_links_after_any_updates(
            steps in proptest::collection::vec(
                (
                    proptest::collection::vec((0u8..16, proptest::option::of(0u8..18), proptest::option::of(0u8..18)), 0..6),
                    proptest::collection::vec(0u8..16, 0..4),
                ),
                1..8,
            ),
            mask in proptest::collection::vec(proptest::bool::ANY, 16),
            other in proptest::collection::vec(proptest::bool::ANY, 16),
            spill_at in 0usize..600,
        ) {
            use crate::lineage::Lineage;
            use std::collections::BTreeMap;
            let steps: Vec<Step> = steps;
            let mut model: BTreeMap<String, (Option<String>, Option<String>)> = BTreeMap::new();
            let mut v = View::empty(&"0".repeat(40), "r");
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("model.bin");
            for (k, (added, removed)) in steps.into_iter().enumerate() {
                let mut paths = Vec::new();
                for c in &removed {
                    let id = link_value(*c);
                    if model.remove(&id).is_some() {
                        paths.push(crate::record::store_path(&id));
                    }
                }
                let mut entries = Vec::new();
                for (c, line, parent) in added {
                    let mut s = summary('0', None);
                    s.id = link_value(c);
                    s.line = line.map(link_value);
                    s.parent = parent.map(link_value);
                    if model.insert(s.id.clone(), (s.line.clone(), s.parent.clone())).is_some() {
                        paths.push(crate::record::store_path(&s.id));
                    }
                    entries.push(Entry::record(&s));
                }
                // As the store's updates give them: one entry per path, the last one counting.
                entries.reverse();
                let mut seen = HashSet::new();
                entries.retain(|e| matches!(e, Entry::Record(c) if seen.insert(c.row.id())));
                let gone: Vec<&str> = paths.iter().map(String::as_str).collect();
                let tip = format!("{:040x}", k + 1);
                // Each update starts from the file the last one wrote, as a command does, its
                // fresh parts spilled to a file past a few records; written twice (as when the
                // cache cannot be written and the view is built in memory), the same bytes.
                let mut fresh = Fresh::on(Some(&v)).spilling_in(dir.path()).spill_after(spill_at);
                for e in entries {
                    fresh.add(e);
                }
                let (mut out, mut again) = (Vec::new(), Vec::new());
                View::write_merge(Some(&v), &tip, &gone, &mut fresh, "r", &mut out).unwrap();
                View::write_merge(Some(&v), &tip, &gone, &mut fresh, "r", &mut again).unwrap();
                proptest::prop_assert_eq!(&out, &again);
                std::fs::write(&file, out).unwrap();
                v = View::open(&file, "r").unwrap();
                for i in 0..v.len() {
                    let s = v.summary(i).unwrap();
                    proptest::prop_assert_eq!((&s.line, &s.parent), (&model[&s.id].0, &model[&s.id].1));
                }
                let links = |keep: &dyn Fn(&str) -> bool| {
                    model.iter().filter(|(id, _)| keep(id)).map(|(id, (l, p))| (id.clone(), l.clone(), p.clone())).collect::<Vec<_>>()
                };
                proptest::prop_assert_eq!(v.len(), model.len());
                proptest::prop_assert_eq!(v.lineage_of(v.len(), |i| i), Lineage::from_links(links(&|_| true)));
                let kept = |id: &str| mask[usize::from_str_radix(&id[..1], 16).unwrap()];
                let rows: Vec<usize> = (0..v.len()).filter(|&i| kept(&v.id(i))).collect();
                proptest::prop_assert_eq!(v.lineage_of(rows.len(), |i| rows[i]), Lineage::from_links(links(&kept)));
                // Two views merged (sync): this one's kept rows, and a cold view of other records.
                let theirs = |id: &str| other[usize::from_str_radix(&id[..1], 16).unwrap()];
                let mut fresh = Fresh::on(None);
                for (id, (l, p)) in model.iter().filter(|(id, _)| theirs(id)) {
                    let mut s = summary('0', None);
                    (s.id, s.line, s.parent) = (id.clone(), l.clone(), p.clone());
                    fresh.add(Entry::record(&s));
                }
                let u = View::merge(None, &tip, &[], fresh, "r").unwrap();
                let mut both: Vec<(usize, usize)> = rows.iter().map(|&r| (0, r)).collect();
                both.extend((0..u.len()).filter(|&i| !kept(&u.id(i))).map(|i| (1, i)));
                both.sort_by_key(|&(k, i)| if k == 0 { v.raw_id(i) } else { u.raw_id(i) });
                proptest::prop_assert_eq!(
                    lineage_over(&[&v, &u], both.len(), |i| both[i]),
                    Lineage::from_links(links(&|id| kept(id) || theirs(id)))
                );
            }
        }
    }
}
