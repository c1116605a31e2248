//! Lineage (docs/REFERENCE.md#lineage): the graph of admitted records through their `parent` links.
//! Must not touch: git, files, the clock.
//!
//! Pure: built from the records' ids, `line` and `parent` fields. Order is lineage, never clocks:
//! a child dated before its parent is still `newer`.

use crate::admission::{Code, Severity};
use crate::model::vocabulary::vocabulary;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use serde::Serialize;

use crate::admission::Diagnostic;
use crate::oid::RecordId;
use crate::record::{is_id, store_path, Record};
use crate::text::short_id;

/// Parent chains are followed at most this many steps; a longer chain (or a loop) answers "no".
pub const MAX_STEPS: usize = 100_000;

vocabulary! {
    /// How record `b` stands to record `a` (docs/REFERENCE.md#lineage).
    pub enum Relation in declaration order {
        /// The same record.
        Equal = "equal",
        /// `b` descends from `a`.
        Newer = "newer",
        /// `a` descends from `b`.
        Older = "older",
        /// Same line, neither descends from the other: the same work continued twice.
        Diverged = "diverged",
        /// Different lines: separate work.
        Independent = "independent",
    }
}

vocabulary! {
    /// The state of one line.
    pub enum LineState {
        /// At most one head.
        Linear = "linear",
        /// More than one head.
        Diverged = "diverged",
    }
}

/// One line of the store: `{line, state, records, heads[]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct LineSummary {
    /// The line id (the id of its first record).
    pub line: String,
    /// `linear` or `diverged`.
    pub state: LineState,
    /// How many admitted records it holds.
    pub records: usize,
    /// Its heads, sorted.
    pub heads: Vec<RecordId>,
}

vocabulary! {
    /// How a line of the local store compares with the same line of a remote store (sync).
    pub enum StoreRelation in declaration order {
        /// Both hold the same records of the line.
        Equal = "equal",
        /// The remote holds everything the local store holds, and more.
        RemoteNewer = "remote_newer",
        /// The local store holds everything the remote holds, and more.
        LocalNewer = "local_newer",
        /// Each holds a continuation the other lacks.
        Diverged = "diverged",
        /// Only the local store holds the line.
        LocalOnly = "local_only",
        /// Only the remote holds the line.
        RemoteOnly = "remote_only",
    }
}

/// One line of a store comparison: `{line, relation, heads[]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct LineComparison {
    /// The line id.
    pub line: String,
    /// How the two stores hold it.
    pub relation: StoreRelation,
    /// The heads of the line over both stores together (what a merge holds), sorted.
    pub heads: Vec<RecordId>,
}

/// No parent (a row number that cannot occur).
const NONE: u32 = u32::MAX;

/// A record id as its 32 raw bytes (the 64 hex digits of docs/REFERENCE.md#id-and-signature, decoded).
pub type RawId = [u8; 32];

/// A record's `line` or `parent` value as the lineage reads it, borrowed from where it is
/// stored: the raw id when it is one, else its text (hex of another length, or not hex at all;
/// it can name no record).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link<'a> {
    /// A record id.
    Id(RawId),
    /// Lowercase hex of another length, as its bytes.
    Hex(&'a [u8]),
    /// Anything else, as written.
    Text(&'a str),
}

impl<'a> Link<'a> {
    /// The link of a value as written.
    pub fn of(s: &'a str) -> Link<'a> {
        raw(s).map_or(Link::Text(s), Link::Id)
    }

    /// The value as written.
    fn text(self) -> String {
        match self {
            Link::Id(b) => hex(&b),
            Link::Hex(b) => hex(b),
            Link::Text(s) => s.to_string(),
        }
    }
}

/// A record's `line` or `parent` as a graph is built from it: absent, a row of the graph
/// already found (the read model stores them resolved), or a link still to be looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ref<'a> {
    /// No value: for `line`, the record starts its line; for `parent`, it has none.
    None,
    /// A row of the graph being built.
    Row(u32),
    /// A value to find among the ids (or to keep as text when no record has it).
    Link(Link<'a>),
}

/// A line's identity while the graph is built: the row of the record that starts it, or its
/// text when the graph lacks that record.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LineKey {
    Row(u32),
    Text(String),
}

/// The lineage graph over a set of admitted records, on raw ids and integer row numbers: row `i`
/// is the `i`-th id in byte order; parents, lines and heads are rows and indices, so a store of
/// a hundred thousand records costs a few vectors, and no string per record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lineage {
    /// Record ids, sorted and unique; the index is the row.
    ids: Ids,
    /// Per row: the parent's row, or [`NONE`] (no parent, or a parent the graph lacks).
    parent: Vec<u32>,
    /// Parents the graph does not hold, by row (sorted by row).
    outside: Vec<(u32, String)>,
    /// Per row: whether some record of the graph continues it.
    continued: Vec<bool>,
    /// Per row: its line, as an index into `line_ids`.
    line: Vec<u32>,
    /// Line ids, sorted.
    line_ids: Vec<String>,
    /// Per line: its rows, ascending (so in id order).
    members: Vec<Vec<u32>>,
    /// Finds a row by id.
    fan: Fan,
    /// More parents than `parent`, by row (a v2 record's `ends`: the other heads it ends):
    /// `(row, parent row)`, sorted.
    extra: Vec<(u32, u32)>,
    /// Ends the graph does not hold: `(row, id)`.
    extra_outside: Vec<(u32, String)>,
    /// Rows that carry no handover (a record that only ends its parent): never a head, sorted.
    terminal: Vec<u32>,
}

/// Sorted unique ids by index: held, or read where they lie ([`IdSource`]).
pub(crate) trait Sorted {
    /// How many.
    fn count(&self) -> usize;
    /// The `i`-th.
    fn at(&self, i: usize) -> RawId;

    /// The first index from `lo` to `hi` whose id is not below `id`, by binary search.
    fn lower_bound(&self, mut lo: usize, mut hi: usize, id: &RawId) -> usize {
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.at(mid) < *id {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The index of `id` among those from `lo` to `hi`.
    fn search(&self, lo: usize, hi: usize, id: &RawId) -> Option<usize> {
        let i = self.lower_bound(lo, hi, id);
        (i < hi && self.at(i) == *id).then_some(i)
    }
}

impl Sorted for [RawId] {
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> RawId {
        self[i]
    }
}

/// Where a graph whose ids are not held reads them (a read model's rows: a million ids are
/// 32 MB the graph need not copy).
pub trait IdSource: std::fmt::Debug {
    /// How many ids.
    fn count(&self) -> usize;
    /// The `i`-th id (ascending, unique).
    fn id(&self, i: usize) -> RawId;
}

/// A graph's ids: held, or read from their source each time one is needed.
#[derive(Debug, Clone)]
enum Ids {
    Held(Vec<RawId>),
    Read(Rc<dyn IdSource>),
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::Held(Vec::new())
    }
}

impl Sorted for Ids {
    fn count(&self) -> usize {
        match self {
            Ids::Held(ids) => ids.len(),
            Ids::Read(src) => src.count(),
        }
    }
    fn at(&self, i: usize) -> RawId {
        match self {
            Ids::Held(ids) => ids[i],
            Ids::Read(src) => src.id(i),
        }
    }
}

impl PartialEq for Ids {
    fn eq(&self, o: &Ids) -> bool {
        self.count() == o.count() && (0..self.count()).all(|i| self.at(i) == o.at(i))
    }
}

impl Eq for Ids {}

/// What a v2 record adds to its row's lineage: the other heads it ends, and whether it carries
/// no handover (it only ends its parent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ends<'a> {
    /// The heads it ends besides its parent.
    pub ends: Vec<Link<'a>>,
    /// Whether it carries no handover.
    pub terminal: bool,
}

impl Lineage {
    /// Builds the graph from admitted records.
    pub fn new<'a, I>(records: I) -> Lineage
    where
        I: IntoIterator<Item = (&'a str, &'a Record)>,
    {
        Lineage::from_links(records.into_iter().map(|(id, r)| (id.to_string(), r.line.clone(), r.parent.clone())))
    }

    /// Builds the graph from `(id, line, parent)` triples (a repeated id: the last one counts; a
    /// value that is not a record id names no record).
    pub fn from_links<I>(links: I) -> Lineage
    where
        I: IntoIterator<Item = (String, Option<String>, Option<String>)>,
    {
        let mut links: Vec<(RawId, Option<String>, Option<String>)> =
            links.into_iter().filter_map(|(id, l, p)| Some((raw(&id)?, l, p))).collect();
        // Stable: among equal ids the last given stays last, and is the one kept.
        links.sort_by_key(|a| a.0);
        let mut kept: Vec<(RawId, Option<String>, Option<String>)> = Vec::with_capacity(links.len());
        for l in links {
            match kept.last_mut() {
                Some(last) if last.0 == l.0 => *last = l,
                _ => kept.push(l),
            }
        }
        Lineage::from_rows(kept.len(), |row| {
            let (id, line, parent) = &kept[row];
            (*id, line.as_deref().map(Link::of), parent.as_deref().map(Link::of))
        })
    }

    /// Builds the graph from `n` rows, row `i` giving its id (ascending and unique), `line` and
    /// `parent`, read in place from where they are stored (the read model's rows): nothing but
    /// the raw ids and a few integers is held per record.
    pub fn from_rows<'a, F>(n: usize, rows: F) -> Lineage
    where
        F: Fn(usize) -> (RawId, Option<Link<'a>>, Option<Link<'a>>),
    {
        Lineage::from_refs(n, |row| {
            let (id, line, parent) = rows(row);
            (id, line.map_or(Ref::None, Ref::Link), parent.map_or(Ref::None, Ref::Link))
        })
    }

    /// Builds the graph from `n` rows, row `i` giving its id (ascending and unique), its `line`
    /// ([`Ref::None`]: the record starts its line) and its `parent` ([`Ref::None`]: none), each
    /// either a row already resolved (what the read model stores: no lookup at all) or a link
    /// still to be found among the ids.
    pub fn from_refs<'a, F>(n: usize, rows: F) -> Lineage
    where
        F: Fn(usize) -> (RawId, Ref<'a>, Ref<'a>),
    {
        // Two passes over the rows (reading one is cheap): the ids, then the links, which may
        // name any row; nothing else is held per row.
        let mut ids: Vec<RawId> = Vec::with_capacity(n);
        for row in 0..n {
            let (id, _, _) = rows(row);
            debug_assert!(ids.last().is_none_or(|last| *last < id), "ids must be sorted and unique");
            ids.push(id);
        }
        Lineage::on(Ids::Held(ids), |row| {
            let (_, line, parent) = rows(row);
            (line, parent)
        })
    }

    /// [`Lineage::from_refs`] over ids read where they lie: `source` gives row `i`'s id, `rows`
    /// its `line` and `parent`; the graph holds no id.
    pub fn from_source<'a, F>(source: Rc<dyn IdSource>, rows: F) -> Lineage
    where
        F: Fn(usize) -> (Ref<'a>, Ref<'a>),
    {
        Lineage::on(Ids::Read(source), rows)
    }

    /// The graph over `ids`, row `i`'s `line` and `parent` being `rows(i)`.
    fn on<'a, F>(ids: Ids, rows: F) -> Lineage
    where
        F: Fn(usize) -> (Ref<'a>, Ref<'a>),
    {
        let n = ids.count();
        let mut g = Lineage { fan: Fan::of(&ids), ids, ..Lineage::default() };
        g.parent = vec![NONE; n];
        g.continued = vec![false; n];
        // A line is keyed by the row of the record that starts it when the graph holds that
        // record, else by its text; keys become dense indices in order of first use.
        let mut by_root = vec![NONE; n];
        let mut by_text: HashMap<String, u32> = HashMap::new();
        let mut keys: Vec<LineKey> = Vec::new();
        g.line = Vec::with_capacity(n);
        for row in 0..n {
            let (line, parent) = rows(row);
            let root = match line {
                Ref::None => Ok(row),
                Ref::Row(r) => Ok(r as usize),
                Ref::Link(Link::Id(l)) => g.fan.find(&g.ids, &l).ok_or_else(|| hex(&l)),
                Ref::Link(other) => Err(other.text()),
            };
            let li = match root {
                Ok(r) => {
                    if by_root[r] == NONE {
                        by_root[r] = keys.len() as u32;
                        keys.push(LineKey::Row(r as u32));
                    }
                    by_root[r]
                }
                Err(text) => {
                    let next = keys.len() as u32;
                    *by_text.entry(text).or_insert_with_key(|t| {
                        keys.push(LineKey::Text(t.clone()));
                        next
                    })
                }
            };
            g.line.push(li);
            let held = match parent {
                Ref::None => continue,
                Ref::Row(p) => Ok(p as usize),
                Ref::Link(Link::Id(pid)) => g.fan.find(&g.ids, &pid).ok_or(Link::Id(pid)),
                Ref::Link(other) => Err(other),
            };
            match held {
                Ok(pr) => {
                    g.parent[row] = pr as u32;
                    if pr != row {
                        g.continued[pr] = true;
                    }
                }
                Err(p) => g.outside.push((row as u32, p.text())),
            }
        }
        // Line ids sorted by their text (a raw id's text is its hex, so byte order is kept).
        let mut names: Vec<(String, u32)> = keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| {
                let name = match k {
                    LineKey::Row(r) => hex(&g.ids.at(r as usize)),
                    LineKey::Text(s) => s,
                };
                (name, i as u32)
            })
            .collect();
        names.sort_unstable();
        let mut rank = vec![0u32; names.len()];
        for (new, (_, old)) in names.iter().enumerate() {
            rank[*old as usize] = new as u32;
        }
        g.members = vec![Vec::new(); names.len()];
        for (row, li) in g.line.iter_mut().enumerate() {
            *li = rank[*li as usize];
            g.members[*li as usize].push(row as u32);
        }
        g.line_ids = names.into_iter().map(|(n, _)| n).collect();
        g
    }

    /// The graph with what v2 records add (`ends`, a record that only ends its parent), by row:
    /// each head a row ends is continued by it, and a row that carries no handover is no head.
    pub fn with_ends<'a>(mut self, rows: impl IntoIterator<Item = (u32, Ends<'a>)>) -> Lineage {
        for (row, e) in rows {
            for link in e.ends {
                let held = match link {
                    Link::Id(id) => self.fan.find(&self.ids, &id),
                    _ => None,
                };
                match held {
                    Some(p) if p as u32 != row => {
                        self.extra.push((row, p as u32));
                        self.continued[p] = true;
                    }
                    Some(_) => {}
                    None => self.extra_outside.push((row, link.text())),
                }
            }
            if e.terminal {
                self.terminal.push(row);
                self.continued[row as usize] = true;
            }
        }
        self.extra.sort_unstable();
        self.extra.dedup();
        self.terminal.sort_unstable();
        self.terminal.dedup();
        self
    }

    /// The parents of row `row` the graph holds: its `parent`, then the heads it ends.
    fn parents_of(&self, row: u32) -> impl Iterator<Item = u32> + '_ {
        let start = self.extra.partition_point(|(r, _)| *r < row);
        let first = Some(self.parent[row as usize]).filter(|p| *p != NONE);
        first.into_iter().chain(self.extra[start..].iter().take_while(move |(r, _)| *r == row).map(|(_, p)| *p))
    }

    /// Whether record `id` carries no handover (it only ends its parent).
    pub fn is_terminal(&self, id: &str) -> bool {
        self.row(id).is_some_and(|r| self.terminal.binary_search(&r).is_ok())
    }

    /// The heads record `id` ends besides its parent (held or not), as written.
    pub fn ends_of(&self, id: &str) -> Vec<String> {
        let Some(row) = self.row(id) else { return Vec::new() };
        let held = self.parents_of(row).skip(usize::from(self.parent[row as usize] != NONE)).map(|p| self.id(p).into());
        held.chain(self.extra_outside.iter().filter(|(r, _)| *r == row).map(|(_, t)| t.clone())).collect()
    }

    /// The row of `id`.
    fn row(&self, id: &str) -> Option<u32> {
        self.fan.find(&self.ids, &raw(id)?).map(|r| r as u32)
    }

    /// Record `row`'s id.
    fn id(&self, row: u32) -> RecordId {
        RecordId::from_raw(&self.ids.at(row as usize))
    }

    /// How many records the graph holds.
    pub fn len(&self) -> usize {
        self.ids.count()
    }

    /// Whether the graph holds no record.
    pub fn is_empty(&self) -> bool {
        self.ids.count() == 0
    }

    /// Whether the graph holds record `id`.
    pub fn contains(&self, id: &str) -> bool {
        self.row(id).is_some()
    }

    /// Every record id, sorted.
    pub fn ids(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.len() as u32).map(|r| self.id(r).into())
    }

    /// The ids starting with `prefix` (hex), sorted: found by binary search, not by a scan.
    pub fn ids_with_prefix(&self, prefix: &str) -> Vec<String> {
        let Some(lo) = prefix_bound(prefix) else { return Vec::new() };
        let start = self.ids.lower_bound(0, self.len(), &lo);
        (start..self.len()).map(|r| self.id(r as u32).into()).take_while(|id: &String| id.starts_with(prefix)).collect()
    }

    fn parent_of_row(&self, row: u32) -> Option<String> {
        match self.parent[row as usize] {
            NONE => self.outside.binary_search_by(|(r, _)| r.cmp(&row)).ok().map(|i| self.outside[i].1.clone()),
            p => Some(self.id(p).into()),
        }
    }

    /// The record `id` continues, if any (whether or not the graph holds it).
    pub fn parent_of(&self, id: &str) -> Option<String> {
        self.parent_of_row(self.row(id)?)
    }

    /// The line of record `id`: its `line` field, or its own id for a first record;
    /// `None` for a record the graph does not hold.
    pub fn line_of(&self, id: &str) -> Option<&str> {
        let row = self.row(id)?;
        Some(&self.line_ids[self.line[row as usize] as usize])
    }

    /// The line of `id`, taking an unknown record as the first of its own line.
    fn line_or_self<'s>(&'s self, id: &'s str) -> &'s str {
        self.line_of(id).unwrap_or(id)
    }

    /// Whether `child` descends (strictly) from `ancestor` through parent links; the walk stops
    /// after [`MAX_STEPS`] links, so a loop answers `false`.
    pub fn descends(&self, child: &str, ancestor: &str) -> bool {
        let Some(mut cur) = self.row(child) else { return false };
        let target = self.row(ancestor);
        if !self.extra.is_empty() || !self.extra_outside.is_empty() {
            return self.descends_through_ends(cur, target, ancestor);
        }
        let mut steps = 0usize;
        loop {
            steps += 1;
            if steps > MAX_STEPS {
                return false;
            }
            match self.parent[cur as usize] {
                NONE => return target.is_none() && self.parent_of_row(cur).as_deref() == Some(ancestor),
                p if Some(p) == target => return true,
                p => cur = p,
            }
        }
    }

    /// [`Lineage::descends`] over every parent a row names (its `parent` and its `ends`): a walk
    /// of the ancestors, each visited once, at most [`MAX_STEPS`] of them.
    fn descends_through_ends(&self, start: u32, target: Option<u32>, ancestor: &str) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![start];
        while let Some(cur) = stack.pop() {
            if seen.len() > MAX_STEPS {
                return false;
            }
            let named_outside = |list: &[(u32, String)]| list.iter().any(|(r, t)| *r == cur && t == ancestor);
            if target.is_none() && (named_outside(&self.outside) || named_outside(&self.extra_outside)) {
                return true;
            }
            for p in self.parents_of(cur) {
                if Some(p) == target {
                    return true;
                }
                if seen.insert(p) {
                    stack.push(p);
                }
            }
        }
        false
    }

    /// How `b` stands to `a` (docs/REFERENCE.md#lineage): equal; different lines → independent; `b` descends
    /// from `a` → newer; `a` descends from `b` → older; else diverged.
    pub fn relation(&self, a: &str, b: &str) -> Relation {
        if a == b {
            Relation::Equal
        } else if self.line_or_self(a) != self.line_or_self(b) {
            Relation::Independent
        } else if self.descends(b, a) {
            Relation::Newer
        } else if self.descends(a, b) {
            Relation::Older
        } else {
            Relation::Diverged
        }
    }

    /// Whether no record of the graph continues `id` (and the graph holds it).
    pub fn is_head(&self, id: &str) -> bool {
        self.row(id).is_some_and(|r| !self.continued[r as usize])
    }

    /// The heads: records no admitted record continues, sorted.
    pub fn heads(&self) -> Vec<RecordId> {
        (0..self.len() as u32).filter(|r| !self.continued[*r as usize]).map(|r| self.id(r)).collect()
    }

    /// Every row of the graph, line by line (lines sorted by id, rows ascending within a line):
    /// row `i` is the `i`-th id in byte order.
    pub fn rows_by_line(&self) -> impl Iterator<Item = u32> + '_ {
        self.members.iter().flatten().copied()
    }

    /// The summary of one line, if the graph holds any of its records.
    pub fn line(&self, line: &str) -> Option<LineSummary> {
        let li = self.line_ids.binary_search_by(|x| x.as_str().cmp(line)).ok()?;
        Some(self.summary(li))
    }

    /// The state of the line of record `id` (`linear` for a record the graph does not hold).
    pub fn line_state_of(&self, id: &str) -> LineState {
        self.line(self.line_or_self(id)).map_or(LineState::Linear, |s| s.state)
    }

    fn summary(&self, li: usize) -> LineSummary {
        let rows = &self.members[li];
        let heads: Vec<RecordId> = rows.iter().filter(|r| !self.continued[**r as usize]).map(|r| self.id(*r)).collect();
        let state = if heads.len() > 1 { LineState::Diverged } else { LineState::Linear };
        LineSummary { line: self.line_ids[li].clone(), state, records: rows.len(), heads }
    }

    /// Every line, sorted by line id.
    pub fn lines(&self) -> Vec<LineSummary> {
        (0..self.line_ids.len()).filter(|li| !self.members[*li].is_empty()).map(|li| self.summary(li)).collect()
    }

    /// The findings: `continuity.dangling_parent` (warning) and `continuity.broken_lineage`
    /// (error) per record in id order (path: the record's store path), then
    /// `continuity.diverged` (warning, no path) per line in line order. `refused` says why the
    /// store refused the file at a store path, if it did: a parent the store holds but refused is
    /// named as refused, not as one a sync may fetch.
    pub fn findings(&self, refused: &dyn Fn(&str) -> Option<Code>) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (row, (&pr, &li)) in self.parent.iter().zip(&self.line).enumerate() {
            if pr == NONE {
                let Some(parent) = self.parent_of_row(row as u32) else { continue };
                let id = self.id(row as u32);
                let why = match refused(&path_of(&parent)) {
                    Some(code) => format!("which this store holds but refused ({code})"),
                    None => "which this store does not hold (a sync may fetch it)".to_string(),
                };
                out.push(Diagnostic::new(
                    Severity::Warning,
                    Code::DanglingParent,
                    Some(&path_of(&id)),
                    format!("record {} continues {}, {why}", short_id(&id), short_id(&parent)),
                ));
                continue;
            }
            if li != self.line[pr as usize] {
                let (id, parent) = (self.id(row as u32), self.id(pr));
                let declared = self.line_ids[li as usize].as_str();
                let parents = self.line_ids[self.line[pr as usize] as usize].as_str();
                out.push(Diagnostic::new(
                    Severity::Error,
                    Code::BrokenLineage,
                    Some(&path_of(&id)),
                    format!(
                        "record {} declares line {} but its parent {} is on line {}",
                        short_id(&id),
                        short_id(declared),
                        short_id(&parent),
                        short_id(parents)
                    ),
                ));
            }
        }
        for &(row, p) in &self.extra {
            if self.line[row as usize] != self.line[p as usize] {
                let (id, end) = (self.id(row), self.id(p));
                out.push(Diagnostic::new(
                    Severity::Error,
                    Code::BrokenLineage,
                    Some(&path_of(&id)),
                    format!("record {} ends {}, a head of another line", short_id(&id), short_id(&end)),
                ));
            }
        }
        for (row, end) in &self.extra_outside {
            let id = self.id(*row);
            out.push(Diagnostic::new(
                Severity::Warning,
                Code::DanglingParent,
                Some(&path_of(&id)),
                format!(
                    "record {} also ends {}, which this store does not hold (a sync may fetch it)",
                    short_id(&id),
                    short_id(end)
                ),
            ));
        }
        for s in self.lines() {
            if s.state == LineState::Diverged {
                let heads: Vec<&str> = s.heads.iter().map(|h| short_id(h)).collect();
                out.push(Diagnostic::new(
                    Severity::Warning,
                    Code::Diverged,
                    None,
                    format!("line {} has diverged: {} heads {}", short_id(&s.line), s.heads.len(), heads.join(", ")),
                ));
            }
        }
        out
    }

    /// Compares, line by line, a local and a remote set of record ids (the graph holding both):
    /// `equal`, `remote_newer`, `local_newer`, `diverged`, `local_only`, `remote_only`.
    /// Sorted by line id; each line's heads are those of both sets together.
    pub fn compare_stores(&self, local: &BTreeSet<RawId>, remote: &BTreeSet<RawId>) -> Vec<LineComparison> {
        let rows = |set: &BTreeSet<RawId>| -> Vec<u32> {
            set.iter().filter_map(|id| self.fan.find(&self.ids, id)).map(|r| r as u32).collect()
        };
        let mut by_line: BTreeMap<u32, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
        for r in rows(local) {
            by_line.entry(self.line[r as usize]).or_default().0.insert(r);
        }
        for r in rows(remote) {
            by_line.entry(self.line[r as usize]).or_default().1.insert(r);
        }
        by_line
            .into_iter()
            .map(|(li, (l, r))| {
                let relation = self.compare_line(&l, &r);
                let union: BTreeSet<u32> = l.union(&r).copied().collect();
                let heads = self.heads_within(&union).into_iter().map(|r| self.id(r)).collect();
                LineComparison { line: self.line_ids[li as usize].clone(), relation, heads }
            })
            .collect()
    }

    fn compare_line(&self, l: &BTreeSet<u32>, r: &BTreeSet<u32>) -> StoreRelation {
        if l.is_empty() {
            return StoreRelation::RemoteOnly;
        }
        if r.is_empty() {
            return StoreRelation::LocalOnly;
        }
        if l == r {
            return StoreRelation::Equal;
        }
        if l.is_subset(r) {
            return StoreRelation::RemoteNewer;
        }
        if r.is_subset(l) {
            return StoreRelation::LocalNewer;
        }
        let (hl, hr) = (self.heads_within(l), self.heads_within(r));
        match (self.covers(&hr, &hl), self.covers(&hl, &hr)) {
            (true, false) => StoreRelation::RemoteNewer,
            (false, true) => StoreRelation::LocalNewer,
            _ => StoreRelation::Diverged,
        }
    }

    /// Rows of `set` that no row of `set` continues.
    fn heads_within(&self, set: &BTreeSet<u32>) -> Vec<u32> {
        let parents: BTreeSet<u32> = set.iter().flat_map(|r| self.parents_of(*r)).collect();
        set.iter().copied().filter(|r| !parents.contains(r) && self.terminal.binary_search(r).is_err()).collect()
    }

    /// Whether row `child` descends (strictly) from row `ancestor` (at most [`MAX_STEPS`] links).
    fn descends_row(&self, mut child: u32, ancestor: u32) -> bool {
        if !self.extra.is_empty() {
            return self.descends_through_ends(child, Some(ancestor), "");
        }
        for _ in 0..MAX_STEPS {
            match self.parent[child as usize] {
                NONE => return false,
                p if p == ancestor => return true,
                p => child = p,
            }
        }
        false
    }

    /// Whether every row of `older` equals or is an ancestor of some row of `newer`.
    fn covers(&self, newer: &[u32], older: &[u32]) -> bool {
        older.iter().all(|o| newer.iter().any(|n| n == o || self.descends_row(*n, *o)))
    }
}

/// The raw bytes of a record id (64 lowercase hex); `None` for anything else.
pub fn raw(s: &str) -> Option<RawId> {
    majordomus_core::hex::decode_array(s.as_bytes())
}

pub use majordomus_core::hex::encode as hex;
use majordomus_core::hex::nibble;

/// The smallest raw id whose hex starts with `prefix`; `None` when `prefix` is not lowercase hex
/// of at most 64 digits.
fn prefix_bound(prefix: &str) -> Option<RawId> {
    if prefix.len() > 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, c) in prefix.bytes().enumerate() {
        let n = nibble(c)?;
        out[i / 2] |= if i % 2 == 0 { n << 4 } else { n };
    }
    Some(out)
}

/// The store path of a record, or the id itself when it is not a record id.
fn path_of(id: &str) -> String {
    if is_id(id) {
        store_path(id)
    } else {
        id.to_string()
    }
}

/// Where the ids whose first bits are the same start, over sorted ids (a finer git fan-out
/// table): a lookup reads one bucket, about one id for BLAKE3 digests, instead of 17–20 levels
/// of a binary search over a table that no longer fits the caches (at 1,000,000 records that
/// search was two thirds of a warm `status`). Any sorted input gives the answer
/// `binary_search` gives; an uneven one only makes some buckets larger.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Fan {
    bits: u32,
    starts: Vec<u32>,
}

impl Fan {
    /// The table of sorted `ids`: about one bucket per id (at most 2^24).
    pub(crate) fn of<S: Sorted + ?Sized>(ids: &S) -> Fan {
        let bits = (usize::BITS - ids.count().leading_zeros()).clamp(1, 24);
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for i in 0..ids.count() {
            starts[bucket(&ids.at(i), bits) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        Fan { bits, starts }
    }

    /// The index of `id` in `ids` (the ids the table was built from).
    pub(crate) fn find<S: Sorted + ?Sized>(&self, ids: &S, id: &RawId) -> Option<usize> {
        if self.starts.len() < 2 {
            return ids.search(0, ids.count(), id);
        }
        let b = bucket(id, self.bits);
        ids.search(self.starts[b] as usize, self.starts[b + 1] as usize, id)
    }
}

/// The bucket of `id`: its first `bits` bits.
fn bucket(id: &RawId, bits: u32) -> usize {
    (u64::from_be_bytes([id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7]]) >> (64 - bits)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fan_finds_what_binary_search_finds_on_even_and_uneven_ids() {
        let mut seed = 7u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in [0usize, 1, 2, 3, 10, 257, 5000] {
            for uneven in [false, true] {
                let mut ids: Vec<RawId> = (0..n)
                    .map(|_| {
                        let mut id = [0u8; 32];
                        for c in id.chunks_mut(8) {
                            c.copy_from_slice(&next().to_be_bytes());
                        }
                        if uneven {
                            id[0] = (id[0] % 3) * 0x7f; // three clusters
                        }
                        id
                    })
                    .collect();
                ids.sort();
                ids.dedup();
                let fan = Fan::of(ids.as_slice());
                for (i, id) in ids.iter().enumerate() {
                    assert_eq!(fan.find(ids.as_slice(), id), Some(i), "n {n}");
                    let mut absent = *id;
                    absent[31] ^= 1;
                    assert_eq!(fan.find(ids.as_slice(), &absent), ids.binary_search(&absent).ok(), "n {n}");
                }
                for edge in [[0u8; 32], [0xff; 32]] {
                    assert_eq!(fan.find(ids.as_slice(), &edge), ids.binary_search(&edge).ok());
                }
            }
        }
    }
    use crate::record::blake3_hex;

    /// A 64-hex id named after `n`.
    pub(crate) fn rid(n: &str) -> String {
        blake3_hex(n.as_bytes())
    }

    /// `(id, line, parent)` for a record named `n` continuing `parent` (names), on `line` (a name).
    fn link(n: &str, parent: Option<&str>, line: Option<&str>) -> (String, Option<String>, Option<String>) {
        (rid(n), line.map(rid), parent.map(rid))
    }

    /// a ← b ← c, a ← d (line a diverged: heads c, d); x alone; y ← z on line y.
    fn graph() -> Lineage {
        Lineage::from_links([
            link("a", None, None),
            link("b", Some("a"), Some("a")),
            link("c", Some("b"), Some("a")),
            link("d", Some("a"), Some("a")),
            link("x", None, None),
            link("y", None, None),
            link("z", Some("y"), Some("y")),
        ])
    }

    #[test]
    fn every_relation() {
        let g = graph();
        let (a, b, c, d, x) = (rid("a"), rid("b"), rid("c"), rid("d"), rid("x"));
        assert_eq!(g.relation(&a, &a), Relation::Equal);
        assert_eq!(g.relation(&a, &c), Relation::Newer, "c descends from a through b");
        assert_eq!(g.relation(&b, &c), Relation::Newer);
        assert_eq!(g.relation(&c, &a), Relation::Older);
        assert_eq!(g.relation(&c, &d), Relation::Diverged);
        assert_eq!(g.relation(&b, &d), Relation::Diverged);
        assert_eq!(g.relation(&a, &x), Relation::Independent);
        assert_eq!(g.relation(&rid("z"), &c), Relation::Independent);
        assert_eq!(Relation::Diverged.as_str(), "diverged");
        assert_eq!(serde_json::to_value(Relation::Independent).unwrap(), "independent");
    }

    #[test]
    fn clocks_decide_nothing() {
        // The graph never sees timestamps: a child is newer whatever its publisher's clock said.
        let a = rid("a");
        let b = rid("b");
        let g = Lineage::from_links([(b.clone(), Some(a.clone()), Some(a.clone())), (a.clone(), None, None)]);
        assert_eq!(g.relation(&a, &b), Relation::Newer);
    }

    #[test]
    fn line_of_and_heads() {
        let g = graph();
        assert_eq!(g.line_of(&rid("a")), Some(rid("a").as_str()), "a first record is its own line");
        assert_eq!(g.line_of(&rid("c")), Some(rid("a").as_str()));
        assert_eq!(g.line_of(&rid("nope")), None);
        let mut heads = vec![rid("c"), rid("d"), rid("x"), rid("z")];
        heads.sort();
        assert_eq!(g.heads(), heads);
        assert!(g.is_head(&rid("c")) && !g.is_head(&rid("b")) && !g.is_head(&rid("nope")));
        assert_eq!(g.len(), 7);
        assert!(!g.is_empty() && Lineage::default().is_empty());
    }

    #[test]
    fn line_summaries() {
        let g = graph();
        let lines = g.lines();
        assert_eq!(lines.len(), 3);
        let mut sorted: Vec<String> = lines.iter().map(|l| l.line.clone()).collect();
        sorted.sort();
        assert_eq!(lines.iter().map(|l| l.line.clone()).collect::<Vec<_>>(), sorted);
        let a = g.line(&rid("a")).unwrap();
        assert_eq!(a.state, LineState::Diverged);
        assert_eq!(a.records, 4);
        assert_eq!(a.heads.len(), 2);
        let y = g.line(&rid("y")).unwrap();
        assert_eq!((y.state, y.records), (LineState::Linear, 2));
        assert_eq!(y.heads, vec![rid("z")]);
        assert_eq!(g.line_state_of(&rid("b")), LineState::Diverged);
        assert_eq!(g.line_state_of(&rid("x")), LineState::Linear);
        let j = serde_json::to_value(&y).unwrap();
        assert_eq!(j["state"], "linear");
    }

    #[test]
    fn findings_dangling_broken_diverged() {
        let mut links = vec![
            link("a", None, None),
            link("b", Some("a"), Some("a")),
            link("c", Some("a"), Some("a")),
            link("orphan", Some("gone"), Some("gone")),
            link("x", None, None),
            link("bad", Some("x"), Some("a")),
        ];
        links.reverse();
        let g = Lineage::from_links(links);
        let f = g.findings(&|_| None);
        let codes: Vec<Code> = f.iter().map(|f| f.code).collect();
        assert_eq!(codes.iter().filter(|c| **c == Code::DanglingParent).count(), 1);
        assert_eq!(codes.iter().filter(|c| **c == Code::BrokenLineage).count(), 1);
        let dangling = f.iter().find(|f| f.code == Code::DanglingParent).unwrap();
        assert_eq!(dangling.severity, Severity::Warning);
        assert_eq!(dangling.path.as_deref(), Some(store_path(&rid("orphan")).as_str()));
        assert!(
            dangling.message.ends_with("which this store does not hold (a sync may fetch it)"),
            "{}",
            dangling.message
        );
        // A parent the store holds but refused is named as refused, not as one a sync may fetch.
        let gone = store_path(&rid("gone"));
        let f = g.findings(&|p| (p == gone).then_some(Code::RevokedKey));
        let dangling = f.iter().find(|f| f.code == Code::DanglingParent).unwrap();
        assert!(
            dangling.message.ends_with("which this store holds but refused (continuity.revoked_key)"),
            "{}",
            dangling.message
        );
        let broken = f.iter().find(|f| f.code == Code::BrokenLineage).unwrap();
        assert_eq!(broken.severity, Severity::Error);
        assert!(broken.message.contains(short_id(&rid("bad"))));
        // Line a has heads b, c and "bad" (it declares line a): diverged, listing the heads.
        let div: Vec<&Diagnostic> = f.iter().filter(|f| f.code == Code::Diverged).collect();
        assert_eq!(div.len(), 1);
        assert_eq!(div[0].severity, Severity::Warning);
        assert!(
            div[0].message.contains(short_id(&rid("b"))) && div[0].message.contains(short_id(&rid("c"))),
            "{}",
            div[0].message
        );
        assert_eq!(serde_json::to_value(div[0]).unwrap()["severity"], "warning");
        assert!(graph_linear().findings(&|_| None).is_empty());
    }

    fn graph_linear() -> Lineage {
        Lineage::from_links([link("a", None, None), link("b", Some("a"), Some("a")), link("x", None, None)])
    }

    #[test]
    fn loops_answer_no() {
        let (p, q, r) = (rid("p"), rid("q"), rid("r"));
        let g = Lineage::from_links([
            (p.clone(), Some(p.clone()), Some(q.clone())),
            (q.clone(), Some(p.clone()), Some(p.clone())),
        ]);
        assert!(!g.descends(&p, &r), "a loop ends the walk");
        assert!(g.descends(&p, &q));
        assert_eq!(g.relation(&r, &p), Relation::Independent);
        let self_loop = Lineage::from_links([(p.clone(), Some(p.clone()), Some(p.clone()))]);
        assert!(!self_loop.descends(&p, &q));
        assert_eq!(self_loop.heads(), vec![p.clone()], "a record naming itself continues nothing");
    }

    #[test]
    fn long_chains_stop_at_the_bound() {
        let ids: Vec<String> = (0..=MAX_STEPS + 1).map(|i| format!("{i:064x}")).collect();
        let line = ids[0].clone();
        let g = Lineage::from_links(ids.iter().enumerate().map(|(i, id)| {
            if i == 0 {
                (id.clone(), None, None)
            } else {
                (id.clone(), Some(line.clone()), Some(ids[i - 1].clone()))
            }
        }));
        let last = &ids[MAX_STEPS + 1];
        assert!(g.descends(last, &ids[1]), "exactly MAX_STEPS links");
        assert!(!g.descends(last, &ids[0]), "one link more than the bound");
    }

    fn set(names: &[&str]) -> BTreeSet<RawId> {
        names.iter().filter_map(|n| raw(&rid(n))).collect()
    }

    #[test]
    fn store_comparison() {
        let g = graph();
        let rel = |l: &[&str], r: &[&str]| -> Vec<(String, StoreRelation)> {
            g.compare_stores(&set(l), &set(r)).into_iter().map(|c| (c.line, c.relation)).collect()
        };
        assert_eq!(rel(&["a", "b"], &["a", "b"]), vec![(rid("a"), StoreRelation::Equal)]);
        assert_eq!(rel(&["a"], &["a", "b", "c"]), vec![(rid("a"), StoreRelation::RemoteNewer)]);
        assert_eq!(rel(&["a", "b", "c"], &["a", "b"]), vec![(rid("a"), StoreRelation::LocalNewer)]);
        assert_eq!(rel(&["a", "b", "c"], &["a", "d"]), vec![(rid("a"), StoreRelation::Diverged)]);
        // The remote lacks the line's first record but holds a descendant of everything local.
        assert_eq!(rel(&["a"], &["b"]), vec![(rid("a"), StoreRelation::RemoteNewer)]);
        assert_eq!(rel(&["b"], &["a"]), vec![(rid("a"), StoreRelation::LocalNewer)]);
        let mut both = rel(&["x"], &["y"]);
        both.sort();
        let mut want = vec![(rid("x"), StoreRelation::LocalOnly), (rid("y"), StoreRelation::RemoteOnly)];
        want.sort();
        assert_eq!(both, want);
        let c = g.compare_stores(&set(&["a", "b", "c"]), &set(&["a", "d"]));
        let mut heads = vec![rid("c"), rid("d")];
        heads.sort();
        assert_eq!(c[0].heads, heads, "the heads of both stores together");
        assert_eq!(serde_json::to_value(&c[0]).unwrap()["relation"], "diverged");
        assert_eq!(StoreRelation::RemoteNewer.as_str(), "remote_newer");
        assert_eq!(serde_json::to_value(StoreRelation::RemoteOnly).unwrap(), "remote_only");
    }

    #[test]
    fn built_from_records() {
        use crate::record::{Device, HandoverPart, Source, SCHEMA};
        let r = |line: Option<String>, parent: Option<String>| Record {
            schema: SCHEMA.into(),
            repository: "0".repeat(32),
            device: Device { node: "a".repeat(32), label: "l".into() },
            session: None,
            episode: "none".into(),
            line,
            parent,
            published_at: "2026-09-03T20:00:00Z".into(),
            producer: "p".into(),
            source: Source { working_tree: "clean".into(), ..Source::default() },
            task: None,
            decisions: vec![],
            questions: vec![],
            ends: Vec::new(),
            handover: HandoverPart {
                id: "0".repeat(32),
                task: None,
                issue: None,
                milestone: None,
                branch: None,
                head: None,
                created_at: None,
                name: None,
                body: "b".into(),
                citations: Vec::new(),
            },
        };
        let first = r(None, None);
        let a = rid("a");
        let second = r(Some(a.clone()), Some(a.clone()));
        let b = rid("b");
        let recs = [(a.clone(), first), (b.clone(), second)];
        let g = Lineage::new(recs.iter().map(|(i, r)| (i.as_str(), r)));
        assert_eq!(g.relation(&a, &b), Relation::Newer);
        assert_eq!(g.parent_of(&b), Some(a.clone()));
        assert_eq!(g.ids().count(), 2);
    }
}
