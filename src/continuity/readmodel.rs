//! The continuity read model (SPEC §A.17): per store file only what views and lineage need — for
//! a record its id, blob, line, parent, signer, repository, device, published time (as an integer
//! too), branch, head, task title, issue and objective line, never bodies; for any other file its
//! machine-independent verdict — and its compact on-disk form, keyed by the store tip and a rules
//! hash. Pure: the caller reads and writes the bytes (`ops::continuity::loaded`).
//!
//! Owns: [`Summary`], [`Model`], the binary codec, [`rules_hash`].
//! Must not touch: git, files, trust (standing is judged per signer on every read, by the caller).

use chrono::DateTime;

use super::admission::{Diagnostic, Intrinsic};
use super::record::{Device, Record};
use super::view::{first_line, published_at, section};

/// The format line every read-model file starts with; another format is ignored.
pub const FORMAT: &str = "majordomus-readmodel/1";

/// The hash of the rules a cache was written under: this executable's version, the format and
/// the source text of the admission and portability checks. A cache written under another hash
/// is ignored (and rebuilt), so a change of any rule re-admits every blob.
pub fn rules_hash() -> String {
    let mut h = blake3::Hasher::new();
    h.update(FORMAT.as_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(include_str!("admission.rs").as_bytes());
    h.update(include_str!("portability.rs").as_bytes());
    h.update(include_str!("record.rs").as_bytes());
    h.update(include_str!("readmodel.rs").as_bytes());
    h.finalize().to_hex()[..32].to_string()
}

/// What the read model keeps of one admitted-in-shape record (its intrinsic checks passed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The record id, 64 hex.
    pub id: String,
    /// The blob it was read from, 40 hex (bodies are read from it when shown).
    pub blob: String,
    /// The `line` field (absent on the first record of a line).
    pub line: Option<String>,
    /// The `parent` field.
    pub parent: Option<String>,
    /// The signer's raw public key, 64 hex.
    pub key: String,
    /// The record's repository identity.
    pub repository: String,
    /// The publishing device.
    pub device: Device,
    /// The episode open at publish.
    pub session: Option<String>,
    /// `published_at` as written.
    pub published_at: String,
    /// `published_at` as Unix seconds, when readable (sorting never parses text).
    pub published: Option<i64>,
    /// The origin's branch.
    pub branch: Option<String>,
    /// The origin's head.
    pub head: Option<String>,
    /// `clean` or `dirty`.
    pub working_tree: String,
    /// Paths uncommitted at the origin.
    pub changed_total: u64,
    /// The task's title.
    pub task: Option<String>,
    /// The issue carried along the line.
    pub issue: Option<String>,
    /// The first line of the handover's `# Objective` (`""` when absent).
    pub objective: String,
}

impl Summary {
    /// The summary of record `id` read from `blob`, signed by `key` (64 hex).
    pub fn of(id: &str, blob: &str, key: &str, r: &Record) -> Summary {
        Summary {
            id: id.to_string(),
            blob: blob.to_string(),
            line: r.line.clone(),
            parent: r.parent.clone(),
            key: key.to_string(),
            repository: r.repository.clone(),
            device: r.device.clone(),
            session: r.session.clone(),
            published_at: r.published_at.clone(),
            published: published_at(r).map(|t| t.timestamp()),
            branch: r.source.branch.clone(),
            head: r.source.head.clone(),
            working_tree: r.source.working_tree.clone(),
            changed_total: r.source.changed_total,
            task: r.task.as_ref().map(|t| t.title.clone()),
            issue: r.handover.issue.clone(),
            objective: first_line(&section(&r.handover.body, "Objective")),
        }
    }

    /// The record's line: its `line` field, or its own id for the first record of a line.
    pub fn line_id(&self) -> &str {
        self.line.as_deref().unwrap_or(&self.id)
    }

    /// `published` as a time.
    pub fn published_time(&self) -> Option<DateTime<chrono::Utc>> {
        self.published.and_then(|s| DateTime::from_timestamp(s, 0))
    }
}

/// A store file that is not a record in shape: its verdict is kept with its diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Other {
    /// Store path.
    pub path: String,
    /// Its blob.
    pub blob: String,
    /// What it is.
    pub kind: OtherKind,
    /// Its diagnostic.
    pub diagnostic: Diagnostic,
}

/// The verdict on a store file that is not a record in shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherKind {
    /// A record of a later schema (kept across syncs).
    TooNew,
    /// Refused whoever reads it.
    Refused,
    /// Not a record of the store.
    Stray,
}

/// One store file's entry, from its [`Intrinsic`] verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A record whose intrinsic checks passed.
    Record(Box<Summary>),
    /// Anything else.
    Other(Other),
}

impl Entry {
    /// The entry of the file at `path` (blob `blob`) with verdict `i`.
    pub fn of(path: &str, blob: &str, i: Intrinsic) -> Entry {
        let other = |kind, diagnostic| Entry::Other(Other { path: path.into(), blob: blob.into(), kind, diagnostic });
        match i {
            Intrinsic::Record { id, public_key, record } => match super::signing::raw_public_key(&public_key) {
                Some(k) => {
                    let key: String = k.iter().map(|b| format!("{b:02x}")).collect();
                    Entry::Record(Box::new(Summary::of(&id, blob, &key, &record)))
                }
                None => other(
                    OtherKind::Refused,
                    Diagnostic::new("error", "continuity.bad_signature", Some(path), "the public key does not decode"),
                ),
            },
            Intrinsic::TooNew(d) => other(OtherKind::TooNew, d),
            Intrinsic::Refused(d) => other(OtherKind::Refused, d),
            Intrinsic::Stray(d) => other(OtherKind::Stray, d),
        }
    }
}

/// The read model of one store tip: records sorted by id, other files sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// The store commit it describes (40 hex).
    pub tip: String,
    /// Records in shape, sorted by id (which is their path order).
    pub records: Vec<Summary>,
    /// Every other file, sorted by path.
    pub others: Vec<Other>,
}

impl Model {
    /// Applies a tree difference: drops `removed` paths and the paths of `added`, then takes in
    /// the entries of the added files.
    pub fn apply(&mut self, removed: &[String], added: Vec<Entry>, added_paths: &[String]) {
        let gone: std::collections::HashSet<&str> =
            removed.iter().chain(added_paths.iter()).map(String::as_str).collect();
        if !gone.is_empty() {
            let id_of = |p: &str| p.rsplit('/').next().and_then(|n| n.strip_suffix(".json")).map(str::to_string);
            let gone_ids: std::collections::HashSet<String> = gone.iter().filter_map(|p| id_of(p)).collect();
            self.records.retain(|s| !gone_ids.contains(&s.id));
            self.others.retain(|o| !gone.contains(o.path.as_str()));
        }
        for e in added {
            match e {
                Entry::Record(s) => self.records.push(*s),
                Entry::Other(o) => self.others.push(o),
            }
        }
        // Both lists are sorted runs plus a few new entries: the stable sort merges them.
        self.records.sort_by(|a, b| a.id.cmp(&b.id));
        self.records.dedup_by(|a, b| a.id == b.id);
        self.others.sort_by(|a, b| a.path.cmp(&b.path));
    }

    /// The compact binary form: a text header line (`FORMAT rules tip`), string tables for
    /// signers, repositories and devices, then one row per record and per other file, strings as
    /// LEB128 length + UTF-8.
    pub fn encode(&self, rules: &str) -> Vec<u8> {
        let mut w = Writer::default();
        w.buf.extend_from_slice(format!("{FORMAT} {rules} {}\n", self.tip).as_bytes());
        let mut keys = Table::default();
        let mut repos = Table::default();
        let mut devices = Table::default();
        let rows: Vec<[u64; 3]> = self
            .records
            .iter()
            .map(|s| {
                [
                    keys.index(&s.key),
                    repos.index(&s.repository),
                    devices.index(&format!("{}\n{}", s.device.node, s.device.label)),
                ]
            })
            .collect();
        for t in [&keys, &repos, &devices] {
            w.num(t.items.len() as u64);
            for s in &t.items {
                w.str(s);
            }
        }
        w.num(self.records.len() as u64);
        for (s, [k, r, d]) in self.records.iter().zip(rows) {
            w.hex(&s.id);
            w.hex(&s.blob);
            w.opt_hex(s.line.as_deref());
            w.opt_hex(s.parent.as_deref());
            w.num(k);
            w.num(r);
            w.num(d);
            w.opt(s.session.as_deref());
            w.str(&s.published_at);
            match s.published {
                Some(t) => {
                    w.buf.push(1);
                    w.buf.extend_from_slice(&t.to_le_bytes());
                }
                None => w.buf.push(0),
            }
            w.opt(s.branch.as_deref());
            w.opt_hex(s.head.as_deref());
            w.str(&s.working_tree);
            w.num(s.changed_total);
            w.opt(s.task.as_deref());
            w.opt(s.issue.as_deref());
            w.str(&s.objective);
        }
        w.num(self.others.len() as u64);
        for o in &self.others {
            w.str(&o.path);
            w.str(&o.blob);
            w.buf.push(match o.kind {
                OtherKind::TooNew => 0,
                OtherKind::Refused => 1,
                OtherKind::Stray => 2,
            });
            w.str(&o.diagnostic.severity);
            w.str(&o.diagnostic.code);
            w.str(&o.diagnostic.message);
        }
        w.buf
    }

    /// Decodes a file written by [`Model::encode`] under the same `rules`; `None` for another
    /// format or rules, or any damage (the caller then rebuilds: the cache is never an answer).
    pub fn decode(bytes: &[u8], rules: &str) -> Option<Model> {
        let nl = bytes.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&bytes[..nl]).ok()?;
        let mut parts = header.split(' ');
        if parts.next()? != FORMAT || parts.next()? != rules {
            return None;
        }
        let tip = parts.next()?.to_string();
        if tip.len() != 40 || parts.next().is_some() {
            return None;
        }
        let mut r = Reader { buf: bytes, pos: nl + 1 };
        let mut tables: Vec<Vec<String>> = Vec::with_capacity(3);
        for _ in 0..3 {
            let n = r.count()?;
            let mut t = Vec::with_capacity(n);
            for _ in 0..n {
                t.push(r.str()?);
            }
            tables.push(t);
        }
        let pick = |t: &Vec<String>, i: u64| t.get(usize::try_from(i).ok()?).cloned();
        let n = r.count()?;
        let mut records = Vec::with_capacity(n);
        for _ in 0..n {
            let id = r.hex()?;
            let blob = r.hex()?;
            let line = r.opt_hex()?;
            let parent = r.opt_hex()?;
            let key = pick(&tables[0], r.num()?)?;
            let repository = pick(&tables[1], r.num()?)?;
            let device = pick(&tables[2], r.num()?)?;
            let (node, label) = device.split_once('\n')?;
            let session = r.opt()?;
            let published_at = r.str()?;
            let published = match r.byte()? {
                0 => None,
                1 => Some(i64::from_le_bytes(r.take(8)?.try_into().ok()?)),
                _ => return None,
            };
            records.push(Summary {
                id,
                blob,
                line,
                parent,
                key,
                repository,
                device: Device { node: node.into(), label: label.into() },
                session,
                published_at,
                published,
                branch: r.opt()?,
                head: r.opt_hex()?,
                working_tree: r.str()?,
                changed_total: r.num()?,
                task: r.opt()?,
                issue: r.opt()?,
                objective: r.str()?,
            });
        }
        let n = r.count()?;
        let mut others = Vec::with_capacity(n);
        for _ in 0..n {
            let path = r.str()?;
            let blob = r.str()?;
            let kind = match r.byte()? {
                0 => OtherKind::TooNew,
                1 => OtherKind::Refused,
                2 => OtherKind::Stray,
                _ => return None,
            };
            let (severity, code, message) = (r.str()?, r.str()?, r.str()?);
            others.push(Other { path, blob, kind, diagnostic: Diagnostic { severity, code, path: None, message } });
        }
        for o in &mut others {
            o.diagnostic.path = Some(o.path.clone());
        }
        (r.pos == bytes.len()).then_some(Model { tip, records, others })
    }
}

#[derive(Default)]
struct Table {
    items: Vec<String>,
    index: std::collections::HashMap<String, u64>,
}

impl Table {
    fn index(&mut self, s: &str) -> u64 {
        if let Some(i) = self.index.get(s) {
            return *i;
        }
        let i = self.items.len() as u64;
        self.items.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

#[derive(Default)]
struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    fn num(&mut self, mut n: u64) {
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
    fn str(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.buf.extend_from_slice(s.as_bytes());
    }
    fn opt(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.buf.push(1);
                self.str(s);
            }
            None => self.buf.push(0),
        }
    }
    /// Lowercase hex of an even length is stored as its bytes (tag 1); anything else as text
    /// (tag 2), so every value survives.
    fn hex(&mut self, s: &str) {
        let raw = (s.len() % 2 == 0 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
            .then(|| (0..s.len()).step_by(2).filter_map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok()).collect());
        match raw {
            Some(bytes) => {
                let bytes: Vec<u8> = bytes;
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
    fn opt_hex(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.hex(s),
            None => self.buf.push(0),
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.buf.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    fn num(&mut self) -> Option<u64> {
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
    fn count(&mut self) -> Option<usize> {
        usize::try_from(self.num()?).ok().filter(|n| *n <= self.buf.len())
    }
    fn str(&mut self) -> Option<String> {
        let n = self.count()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    fn opt(&mut self) -> Option<Option<String>> {
        match self.byte()? {
            0 => Some(None),
            1 => self.str().map(Some),
            _ => None,
        }
    }
    fn hex(&mut self) -> Option<String> {
        self.opt_hex()?
    }
    fn opt_hex(&mut self) -> Option<Option<String>> {
        match self.byte()? {
            0 => Some(None),
            1 => {
                let n = self.count()?;
                let bytes = self.take(n)?;
                let mut s = String::with_capacity(n * 2);
                for b in bytes {
                    s.push_str(&format!("{b:02x}"));
                }
                Some(Some(s))
            }
            2 => self.str().map(Some),
            _ => None,
        }
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
        }
    }

    fn model() -> Model {
        Model {
            tip: "1".repeat(40),
            records: vec![summary('a', None), summary('f', Some('a'))],
            others: vec![Other {
                path: "records/zz".into(),
                blob: "2".repeat(40),
                kind: OtherKind::Stray,
                diagnostic: Diagnostic::new("warning", "continuity.stray_file", Some("records/zz"), "ignored"),
            }],
        }
    }

    #[test]
    fn round_trips_and_refuses_other_rules_or_damage() {
        let m = model();
        let bytes = m.encode("r1");
        assert_eq!(Model::decode(&bytes, "r1"), Some(m.clone()));
        assert_eq!(Model::decode(&bytes, "r2"), None, "another rules hash is ignored");
        let other_format = String::from_utf8_lossy(&bytes).replace(FORMAT, "majordomus-readmodel/0");
        assert_eq!(Model::decode(other_format.as_bytes(), "r1"), None, "another format is ignored");
        assert_eq!(Model::decode(&bytes[..bytes.len() - 1], "r1"), None, "a truncated file is ignored");
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Model::decode(&longer, "r1"), None, "trailing bytes are damage");
    }

    #[test]
    fn odd_values_survive_the_hex_packing() {
        let mut m = model();
        m.records[0].head = Some("not-hex".into());
        m.records[1].parent = Some("ABC".into());
        assert_eq!(Model::decode(&m.encode("r"), "r"), Some(m));
    }

    #[test]
    fn apply_replaces_changed_paths_and_keeps_order() {
        let mut m = model();
        let path_a = crate::continuity::record::store_path(&"a".repeat(64));
        let mut b = summary('b', Some('a'));
        b.objective = "new".into();
        m.apply(&[path_a.clone()], vec![Entry::Record(Box::new(b))], &[]);
        let ids: Vec<char> = m.records.iter().map(|s| s.id.chars().next().unwrap()).collect();
        assert_eq!(ids, vec!['b', 'f']);
        let mut f2 = summary('f', Some('a'));
        f2.objective = "changed".into();
        let path_f = crate::continuity::record::store_path(&"f".repeat(64));
        m.apply(&[], vec![Entry::Record(Box::new(f2))], &[path_f]);
        assert_eq!(m.records.len(), 2);
        assert_eq!(m.records[1].objective, "changed");
    }

    #[test]
    fn rules_hash_is_stable_within_a_build() {
        assert_eq!(rules_hash(), rules_hash());
        assert_eq!(rules_hash().len(), 32);
    }
}
