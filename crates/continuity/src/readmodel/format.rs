//! A read-model file's head (format line, rules, tip, string tables), the list of files that
//! are not records, the file checksum, and [`reseal`] for tests.
//! Must not touch: git, trust.

use super::*;

/// A read-model file's bytes with every checksum made to match what they hold, `None` when
/// they are not a file of this format: how tests edit a cache behind this program's back and
/// keep it one the reads answer from.
#[doc(hidden)]
pub fn reseal(bytes: &[u8]) -> Option<Vec<u8>> {
    let header = std::str::from_utf8(&bytes[..bytes.iter().position(|&b| b == b'\n')?]).ok()?;
    let rules = header.split(' ').nth(1)?;
    let mut out = bytes.to_vec();
    let head = Head::parse(&out, rules)?;
    for i in 0..head.n {
        let row = Row::at(&out, head.rows_at + i * ROW);
        let (off, len) = (row.var_offset(), row.var_len());
        let part = head.heap_at + off..(head.heap_at + off + len).checked_sub(PART_SUM)?;
        let sum = part_sum(out.get(part.clone())?);
        out[part.end..part.end + PART_SUM].copy_from_slice(&sum);
    }
    let end = head.heap_at + head.heap_len;
    let sum_at = out.len().checked_sub(FILE_SUM)?;
    let sum = file_sum(&out[..head.heap_at], out.get(end..sum_at)?);
    out[sum_at..].copy_from_slice(&sum);
    Some(out)
}

/// The file's checksum: BLAKE3 of what precedes the variable parts and what follows them.
pub(super) fn file_sum(before: &[u8], after: &[u8]) -> [u8; FILE_SUM] {
    let mut h = blake3::Hasher::new();
    h.update(before);
    h.update(after);
    let mut sum = [0u8; FILE_SUM];
    sum.copy_from_slice(&h.finalize().as_bytes()[..FILE_SUM]);
    sum
}

/// A read-model file's head: everything before its heap of variable parts ([`View`]'s file
/// format).
#[derive(Debug, Clone)]
pub(super) struct Head {
    pub(super) tip: String,
    pub(super) tables: [Vec<String>; 3],
    /// How many rows.
    pub(super) n: usize,
    pub(super) rows_at: usize,
    /// Where the heap starts in the file (and in the view's bytes when it is there).
    pub(super) heap_at: usize,
    pub(super) heap_len: usize,
}

impl Head {
    /// The head at the start of `buf` (which must hold it whole), written under `rules`.
    pub(super) fn parse(buf: &[u8], rules: &str) -> Option<Head> {
        let (tip, tables, mut r) = Head::tables(buf, rules)?;
        let n = r.count_of(ROW)?;
        let rows_at = r.pos;
        r.take(n.checked_mul(ROW)?)?;
        let heap_len = usize::try_from(r.num()?).ok()?;
        Head::new(tip, tables, n, rows_at, r.pos, heap_len)
    }

    /// The head of these parts; `None` when a device entry is not `node\nlabel` (checked once
    /// per entry, not once per row).
    pub(super) fn new(
        tip: String,
        tables: [Vec<String>; 3],
        n: usize,
        rows_at: usize,
        heap_at: usize,
        heap_len: usize,
    ) -> Option<Head> {
        tables[2].iter().all(|d| d.contains('\n')).then_some(Head { tip, tables, n, rows_at, heap_at, heap_len })
    }

    /// The header line and the string tables, and a reader after them.
    pub(super) fn tables<'a>(buf: &'a [u8], rules: &str) -> Option<(String, [Vec<String>; 3], Reader<'a>)> {
        let nl = buf.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&buf[..nl]).ok()?;
        let mut parts = header.split(' ');
        if parts.next()? != FORMAT || parts.next()? != rules {
            return None;
        }
        let tip = parts.next()?.to_string();
        if tip.len() != 40 || parts.next().is_some() {
            return None;
        }
        let mut r = Reader { buf, pos: nl + 1 };
        let mut tables: [Vec<String>; 3] = Default::default();
        for t in &mut tables {
            let n = r.count()?;
            for _ in 0..n {
                t.push(r.str()?.to_string());
            }
        }
        Some((tip, tables, r))
    }

    /// The view of this head over `bytes` (which hold at least the rows), its rows and heap
    /// where `place` says; `None` unless every row is in order and in bounds.
    pub(super) fn view(self, bytes: Vec<u8>, place: Place, others: Vec<Other>) -> Option<View> {
        let n = self.n;
        if bytes.len() < self.rows_at + n * ROW {
            return None;
        }
        let v = View { bytes, place, head: self, others };
        let mut last = None;
        (0..n).all(|i| v.head.follows(&mut last, &v.row(i))).then_some(v)
    }

    /// Whether `row`, read in order after the row whose id is `last`, comes after it and is in
    /// bounds ([`Head::holds`]); `last` becomes its id.
    pub(super) fn follows(&self, last: &mut Option<RawId>, row: &Row) -> bool {
        let id = row.id();
        let in_order = last.is_none_or(|l| l < id);
        *last = Some(id);
        in_order && self.holds(row)
    }

    /// Whether `row`'s indices, variable part and links are within this file's tables, heap and
    /// rows (its order is checked by whoever reads the rows in order).
    pub(super) fn holds(&self, r: &Row) -> bool {
        r.signer() < self.tables[0].len()
            && r.repository() < self.tables[1].len()
            && r.device() < self.tables[2].len()
            && r.var_offset().checked_add(r.var_len()).is_some_and(|e| e <= self.heap_len)
            && [r.parent(), r.line()].iter().all(|&l| (l as usize) < self.n || l >= ELSEWHERE)
    }
}

/// The list of files that are not records, which ends a read-model file but for its checksum
/// (all of `buf`).
pub(super) fn parse_others(buf: &[u8]) -> Option<Vec<Other>> {
    let mut r = Reader { buf, pos: 0 };
    let count = r.count()?;
    let mut others = Vec::with_capacity(count);
    for _ in 0..count {
        let path = r.str()?.to_string();
        let blob = r.str()?.to_string();
        let kind = match r.byte()? {
            0 => OtherKind::TooNew,
            1 => OtherKind::Refused,
            2 => OtherKind::Stray,
            _ => return None,
        };
        let (severity, code) = (Severity::parse(r.str()?)?, Code::parse(r.str()?)?);
        let message = r.str()?.to_string();
        let diagnostic = Diagnostic { severity, code, path: Some(path.clone()), message };
        others.push(Other { path, blob, kind, diagnostic });
    }
    (r.pos == buf.len()).then_some(others)
}

/// `len` bytes of `file` from `at`, or `None` when it is shorter or cannot be read.
pub(super) fn read_at(file: &File, at: usize, len: usize) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    read_onto(file, at, len, &mut buf)?;
    Some(buf)
}

/// Appends `len` bytes of `file` from `at` to `buf`, read in place (no second buffer the size of
/// what is read: the rows of a million records are 72 MB); `None` when the file is shorter or
/// cannot be read (`buf` is then as it was).
pub(super) fn read_onto(file: &File, at: usize, len: usize, buf: &mut Vec<u8>) -> Option<()> {
    use std::os::unix::fs::FileExt;
    let start = buf.len();
    buf.resize(start.checked_add(len)?, 0);
    if file.read_exact_at(&mut buf[start..], at as u64).is_err() {
        buf.truncate(start);
        return None;
    }
    Some(())
}

/// How many bytes of BLAKE3 end the file: the checksum of everything but the variable parts
/// (which carry their own, checked when one is read).
pub(super) const FILE_SUM: usize = 16;
