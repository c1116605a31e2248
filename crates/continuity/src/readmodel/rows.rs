//! The fixed-size rows and the variable parts of a read-model file, byte by byte (the file
//! format is [`super::View`]'s), and the varint/str codec both use.
//! Must not touch: files, git, trust.

use super::*;

/// Bytes of one fixed-size row (its fields: [`View`]'s file format).
pub const ROW: usize = 72;

/// Where each field of a row starts ([`View`]'s file format), its size being its accessor's
/// type: the one place a row's byte offsets are written ([`Row`] reads and writes them).
pub(super) mod field {
    pub(in crate::readmodel) const ID: usize = 0;
    pub(in crate::readmodel) const PUBLISHED: usize = 32;
    pub(in crate::readmodel) const SIGNER: usize = 40;
    pub(in crate::readmodel) const REPOSITORY: usize = 44;
    pub(in crate::readmodel) const DEVICE: usize = 48;
    pub(in crate::readmodel) const VAR_OFFSET: usize = 52;
    pub(in crate::readmodel) const VAR_LEN: usize = 56;
    pub(in crate::readmodel) const PARENT: usize = 60;
    pub(in crate::readmodel) const LINE: usize = 64;
    pub(in crate::readmodel) const FLAGS: usize = 68;
}

/// A row flag: the record ends other heads or carries no handover (a v2 record); its variable
/// part says which ([`View::ends`]).
pub(super) const ENDS: u32 = 1;

/// One row of a read-model file: read a field at a time (the getters), or written a named
/// setter per field. Indices, offsets and lengths are cut to `u32` unchecked:
/// [`View::write_merge`] refuses a heap past 4 GiB, and no table comes near that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Row([u8; ROW]);

impl Default for Row {
    fn default() -> Row {
        Row([0u8; ROW])
    }
}

impl Row {
    /// What a row read from a file changed in place reads as: indices 0 (a file that held a row
    /// has an entry in each table), no links, and an empty variable part, which fails its
    /// checksum (the record shows as damaged, and the file is removed).
    pub(super) fn damaged() -> Row {
        let mut r = Row::default();
        r.set_parent(NO_LINK);
        r.set_line(NO_LINK);
        r
    }
}

/// Reading a row: a named accessor per field, each reading a fixed array at a constant offset
/// (once inlined it costs what a literal offset did, and allocates nothing).
impl Row {
    /// The row that starts at byte `at` of `bytes` (a copy: a row is read where it lies, from
    /// memory or from a window of the file, and kept by value).
    #[inline]
    pub(super) fn at(bytes: &[u8], at: usize) -> Row {
        Row(bytes[at..at + ROW].try_into().expect("a row's range is ROW bytes"))
    }

    #[inline]
    pub(super) fn array<const N: usize>(&self, at: usize) -> [u8; N] {
        self.0[at..at + N].try_into().expect("a field lies within its row")
    }

    #[inline]
    pub(super) fn u32_at(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.array(at))
    }

    /// The record's raw id.
    #[inline]
    pub(super) fn id(&self) -> RawId {
        self.array(field::ID)
    }

    /// Its published time, Unix seconds (`None` when it was unreadable).
    #[inline]
    pub(super) fn published(&self) -> Option<i64> {
        Some(i64::from_le_bytes(self.array(field::PUBLISHED))).filter(|t| *t != i64::MIN)
    }

    /// Its signer: an index of the key table.
    #[inline]
    pub(super) fn signer(&self) -> usize {
        self.u32_at(field::SIGNER) as usize
    }

    /// Its repository: an index of the repository table.
    #[inline]
    pub(super) fn repository(&self) -> usize {
        self.u32_at(field::REPOSITORY) as usize
    }

    /// Its device: an index of the device table.
    #[inline]
    pub(super) fn device(&self) -> usize {
        self.u32_at(field::DEVICE) as usize
    }

    /// Where its variable part starts in the heap.
    #[inline]
    pub(super) fn var_offset(&self) -> usize {
        self.u32_at(field::VAR_OFFSET) as usize
    }

    /// How long its variable part is.
    #[inline]
    pub(super) fn var_len(&self) -> usize {
        self.u32_at(field::VAR_LEN) as usize
    }

    /// The row of its `parent` ([`NO_LINK`], [`ELSEWHERE`], or in a fresh row [`NAMED`]).
    #[inline]
    pub(super) fn parent(&self) -> u32 {
        self.u32_at(field::PARENT)
    }

    /// The row of the record that starts its `line` (the same marks as [`Row::parent`]).
    #[inline]
    pub(super) fn line(&self) -> u32 {
        self.u32_at(field::LINE)
    }

    /// Its flags ([`ENDS`]).
    #[inline]
    pub(super) fn flags(&self) -> u32 {
        self.u32_at(field::FLAGS)
    }
}

impl Row {
    /// The row's bytes, as the file holds them.
    #[inline]
    pub(super) fn bytes(&self) -> &[u8; ROW] {
        &self.0
    }

    #[inline]
    pub(super) fn put<const N: usize>(&mut self, at: usize, value: [u8; N]) {
        self.0[at..at + N].copy_from_slice(&value);
    }

    #[inline]
    pub(super) fn put_u32(&mut self, at: usize, value: usize) {
        self.put(at, (value as u32).to_le_bytes());
    }

    #[inline]
    pub(super) fn set_id(&mut self, id: &RawId) {
        self.put(field::ID, *id);
    }

    /// `None` is written `i64::MIN`.
    #[inline]
    pub(super) fn set_published(&mut self, t: Option<i64>) {
        self.put(field::PUBLISHED, t.unwrap_or(i64::MIN).to_le_bytes());
    }

    #[inline]
    pub(super) fn set_signer(&mut self, k: usize) {
        self.put_u32(field::SIGNER, k);
    }

    #[inline]
    pub(super) fn set_repository(&mut self, k: usize) {
        self.put_u32(field::REPOSITORY, k);
    }

    #[inline]
    pub(super) fn set_device(&mut self, k: usize) {
        self.put_u32(field::DEVICE, k);
    }

    #[inline]
    pub(super) fn set_var_offset(&mut self, at: usize) {
        self.put_u32(field::VAR_OFFSET, at);
    }

    #[inline]
    pub(super) fn set_var_len(&mut self, len: usize) {
        self.put_u32(field::VAR_LEN, len);
    }

    #[inline]
    pub(super) fn set_parent(&mut self, row: u32) {
        self.put(field::PARENT, row.to_le_bytes());
    }

    #[inline]
    pub(super) fn set_line(&mut self, row: u32) {
        self.put(field::LINE, row.to_le_bytes());
    }

    #[inline]
    pub(super) fn set_flags(&mut self, flags: u32) {
        self.put(field::FLAGS, flags.to_le_bytes());
    }
}

/// A row's link field when the record has no such value (no `parent`; no `line`, so it starts
/// its own).
pub(super) const NO_LINK: u32 = u32::MAX;

/// A row's link field when the value names no row of the file: it is read from the variable
/// part (and stays text, or an id the store lacks).
pub(super) const ELSEWHERE: u32 = u32::MAX - 1;

/// A row's variable part, its checksum last ([`View`]'s file format).
pub(super) fn encode_var(s: &Summary) -> Vec<u8> {
    let mut w = Writer::default();
    w.opt_hex(s.line.as_deref());
    w.opt_hex(s.parent.as_deref());
    w.hex(&s.blob);
    w.opt(s.session.as_deref());
    w.str(&s.published_at);
    w.opt(s.branch.as_deref());
    w.opt_hex(s.head.as_deref());
    w.str(&s.working_tree);
    w.num(s.changed_total);
    w.opt(s.task.as_deref());
    w.opt(s.issue.as_deref());
    w.str(&s.objective);
    w.num(s.ends.len() as u64);
    for e in &s.ends {
        w.hex(e);
    }
    w.buf.push(u8::from(s.terminal));
    let sum = part_sum(&w.buf);
    w.buf.extend_from_slice(&sum);
    w.buf
}

/// The checksum that ends each variable part: the first [`PART_SUM`] bytes of its BLAKE3.
pub(super) fn part_sum(part: &[u8]) -> [u8; PART_SUM] {
    let mut sum = [0u8; PART_SUM];
    sum.copy_from_slice(&blake3::hash(part).as_bytes()[..PART_SUM]);
    sum
}

/// How many checksum bytes end each variable part.
pub(super) const PART_SUM: usize = 4;

pub(super) struct Var<'a> {
    pub(super) r: Reader<'a>,
}

impl<'a> Var<'a> {
    /// The part in `buf`, `None` when its checksum does not match.
    pub(super) fn of(buf: &'a [u8]) -> Option<Var<'a>> {
        let (part, sum) = buf.split_at_checked(buf.len().checked_sub(PART_SUM)?)?;
        (part_sum(part) == *sum).then_some(Var { r: Reader { buf: part, pos: 0 } })
    }

    /// Decodes into `s` everything the fixed row does not hold.
    pub(super) fn fill(&mut self, s: &mut Summary) -> Option<()> {
        let r = &mut self.r;
        s.line = r.hex()?;
        s.parent = r.hex()?;
        s.blob = r.hex()?.unwrap_or_default();
        s.session = r.opt()?.map(str::to_string);
        s.published_at = r.str()?.to_string();
        s.branch = r.opt()?.map(str::to_string);
        s.head = r.hex()?;
        s.working_tree = r.str()?.to_string();
        s.changed_total = r.num()?;
        s.task = r.opt()?.map(str::to_string);
        s.issue = r.opt()?.map(str::to_string);
        s.objective = r.str()?.to_string();
        for _ in 0..r.num()? {
            s.ends.push(r.hex()?.unwrap_or_default());
        }
        s.terminal = r.byte()? == 1;
        (r.pos == r.buf.len()).then_some(())
    }

    /// Checks that the variable part decodes, without keeping anything.
    pub(super) fn check(&mut self) -> Option<()> {
        let r = &mut self.r;
        r.skip_hex()?;
        r.skip_hex()?;
        r.skip_hex()?;
        r.opt()?;
        r.str()?;
        r.opt()?;
        r.skip_hex()?;
        r.str()?;
        r.num()?;
        r.opt()?;
        r.opt()?;
        r.str()?;
        for _ in 0..r.num()? {
            r.skip_hex()?;
        }
        r.byte()?;
        (r.pos == r.buf.len()).then_some(())
    }
}

/// The raw id that `id` (64 hex) is, if it is one (decoded in place: [`View::find`] allocates
/// nothing).
pub(super) fn raw_id(id: &str) -> Option<RawId> {
    majordomus_core::hex::decode_array(id.as_bytes())
}

#[derive(Default)]
pub(super) struct Table {
    pub(super) items: Vec<String>,
    pub(super) index: HashMap<String, usize>,
}

impl Table {
    pub(super) fn index(&mut self, s: &str) -> usize {
        if let Some(i) = self.index.get(s) {
            return *i;
        }
        let i = self.items.len();
        self.items.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

#[derive(Default)]
pub(super) struct Writer {
    pub(super) buf: Vec<u8>,
}

impl Writer {
    pub(super) fn num(&mut self, mut n: u64) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.buf.push(b);
                return;
            }
            self.buf.push(b | 0x80);
        }
    }
    pub(super) fn str(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }
    pub(super) fn opt(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.buf.push(1);
                self.str(s);
            }
            None => self.buf.push(0),
        }
    }
    /// Hex is stored as its bytes, anything else as text ([`View`]'s file format), so every
    /// value survives.
    pub(super) fn hex(&mut self, s: &str) {
        match unhex(s) {
            Some(bytes) => {
                self.buf.push(1);
                self.num(bytes.len() as u64);
                self.buf.extend_from_slice(&bytes);
            }
            None => {
                self.buf.push(2);
                self.str(s);
            }
        }
    }
    pub(super) fn opt_hex(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.hex(s),
            None => self.buf.push(0),
        }
    }
}

pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
    pub(super) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.buf.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    pub(super) fn num(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }
    pub(super) fn count(&mut self) -> Option<usize> {
        usize::try_from(self.num()?).ok().filter(|n| *n <= self.buf.len())
    }
    /// A count of items of `size` bytes that the buffer can hold.
    pub(super) fn count_of(&mut self, size: usize) -> Option<usize> {
        usize::try_from(self.num()?).ok().filter(|n| n.checked_mul(size).is_some_and(|b| b <= self.buf.len()))
    }
    pub(super) fn str(&mut self) -> Option<&'a str> {
        let n = self.count()?;
        std::str::from_utf8(self.take(n)?).ok()
    }
    pub(super) fn opt(&mut self) -> Option<Option<&'a str>> {
        match self.byte()? {
            0 => Some(None),
            1 => self.str().map(Some),
            _ => None,
        }
    }
    pub(super) fn hex(&mut self) -> Option<Option<String>> {
        match self.byte()? {
            0 => Some(None),
            1 => {
                let n = self.count()?;
                Some(Some(hex(self.take(n)?)))
            }
            2 => self.str().map(|s| Some(s.to_string())),
            _ => None,
        }
    }
    pub(super) fn link(&mut self) -> Option<Option<Link<'a>>> {
        match self.byte()? {
            0 => Some(None),
            1 => {
                let n = self.count()?;
                let b = self.take(n)?;
                Some(Some(b.try_into().map_or(Link::Hex(b), Link::Id)))
            }
            2 => self.str().map(|s| Some(Link::Text(s))),
            _ => None,
        }
    }
    pub(super) fn skip_hex(&mut self) -> Option<()> {
        match self.byte()? {
            0 => Some(()),
            1 => {
                let n = self.count()?;
                self.take(n).map(|_| ())
            }
            2 => self.str().map(|_| ()),
            _ => None,
        }
    }
}
