//! The append-only ledger `ledger.jsonl` (docs/REFERENCE.md#ledger): building lines, appending under a lock,
//! reading them back with duplicate keys preserved (readers take the FIRST `event` key).
//! Must not touch: record semantics beyond a line, gix, stdout.
//!
//! Reads stay bounded as the ledger grows (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow): tail questions read [`backward`] from
//! the end and stop when answered; whole-ledger scans stream [`forward`] one line at a time.
//! Nothing here reads the whole file into memory.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::atomic::{append_lines, guard, Lock};
use super::Layout;
use crate::model::events::{is_registered, Event};
use crate::{Error, Result};

/// The name of the lock every ledger writer (append and rotate) takes.
pub const LOCK: &str = "ledger";

/// The computed envelope of a line.
#[derive(Debug, Clone)]
pub struct Envelope<'a> {
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub ts: &'a str,
    /// Full SHA or `NONE`.
    pub head: &'a str,
    /// Branch or `DETACHED`.
    pub branch: &'a str,
    /// The episode of the writing process, when one resolves.
    pub session: Option<&'a str>,
}

/// Builds one ledger line. Field order: `ts, event, head, branch, by, session?`, then `fields`
/// as given (duplicate keys allowed, as receipts need).
pub fn build_line(env: &Envelope<'_>, event: Event, fields: &[(&str, Value)]) -> Result<String> {
    let mut pairs: Vec<(&str, Value)> = vec![
        ("ts", Value::from(env.ts)),
        ("event", Value::from(event.as_str())),
        ("head", Value::from(env.head)),
        ("branch", Value::from(env.branch)),
        ("by", Value::from(format!("git-majordomus/{}", env!("CARGO_PKG_VERSION")))),
    ];
    if let Some(s) = env.session {
        pairs.push(("session", Value::from(s)));
    }
    pairs.extend(fields.iter().cloned());
    let mut line = String::from("{");
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(&serde_json::to_string(k).unwrap_or_default());
        line.push(':');
        line.push_str(&serde_json::to_string(v).unwrap_or_default());
    }
    line.push('}');
    Ok(line)
}

/// Appends one line under the ledger lock; concurrent writers never tear or lose a line.
pub fn append_line(layout: &Layout, line: &str) -> Result<()> {
    let path = layout.ledger();
    guard(layout.root(), &path)?;
    let _lock = Lock::acquire(&layout.locks(), LOCK)?;
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    append_lines(&path, &torn_path(&path), &bytes).map(|_| ())
}

/// Where the bytes of a torn last line are moved before the next append (`<ledger>.torn`, beside
/// it): kept for `doctor` to show, never read as events.
pub fn torn_path(ledger: &Path) -> PathBuf {
    let mut name = ledger.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".torn");
    ledger.with_file_name(name)
}

/// A JSON object with its keys in order and duplicates kept.
#[derive(Debug, Clone, Default)]
pub struct Pairs(pub Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> std::result::Result<Pairs, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = m.next_entry::<String, Value>()? {
                    v.push((k, val));
                }
                Ok(Pairs(v))
            }
        }
        d.deserialize_map(V)
    }
}

impl Pairs {
    /// The FIRST value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// The first value of `key` as a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
    /// Whether `key` is present.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

/// One line of the ledger as read.
#[derive(Debug, Clone)]
pub struct Line {
    /// 1-based line number; `None` for a line read from the tail, whose number is not counted.
    pub number: Option<usize>,
    /// The line verbatim (without its newline; invalid UTF-8 replaced).
    pub raw: String,
    /// The parsed object, or `None` when the line is not a JSON object.
    pub pairs: Option<Pairs>,
}

impl Line {
    /// Parses one line's bytes (without the newline).
    pub fn parse(number: Option<usize>, bytes: &[u8]) -> Line {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let pairs = std::str::from_utf8(bytes).ok().and_then(|t| serde_json::from_str::<Pairs>(t).ok());
        Line { number, raw: String::from_utf8_lossy(bytes).into_owned(), pairs }
    }
    /// The first `event` key, when the line parses.
    pub fn event(&self) -> Option<&str> {
        self.pairs.as_ref()?.str("event")
    }
    /// The `ts` key, when the line parses.
    pub fn ts(&self) -> Option<&str> {
        self.pairs.as_ref()?.str("ts")
    }
    /// The first value of `key` as a string, when the line parses.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.pairs.as_ref()?.str(key)
    }
    /// Whether the line parses and carries both `ts` and `event`.
    pub fn is_valid(&self) -> bool {
        self.ts().is_some() && self.event().is_some()
    }
}

/// What is wrong with a ledger line (docs/REFERENCE.md#history `--validate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The line is not a JSON object.
    NotObject,
    /// The object lacks `ts`, `event` or both (the names, joined by " and ").
    Lacks(&'static str),
    /// The first `event` names no registered event.
    Unregistered(String),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotObject => f.write_str("not a JSON object"),
            Problem::Lacks(what) => write!(f, "lacks {what}"),
            Problem::Unregistered(e) => write!(f, "unregistered event {e:?}"),
        }
    }
}

impl Line {
    /// What is wrong with this line, if anything (the whole-parse oracle [`Picked`] is tested
    /// against; readers judge lines with [`picked_problem`]).
    #[cfg(test)]
    pub fn problem(&self) -> Option<Problem> {
        judge(self.pairs.as_ref().map(|p| (p.str("ts").is_some(), p.str("event"))))
    }
}

/// The one rule of docs/REFERENCE.md#history `--validate`: `None` for a line that is not a JSON object, else
/// whether it has a string `ts` and its first `event`.
fn judge(object: Option<(bool, Option<&str>)>) -> Option<Problem> {
    let Some((ts, event)) = object else { return Some(Problem::NotObject) };
    match (ts, event) {
        (false, None) => Some(Problem::Lacks("ts and event")),
        (false, Some(_)) => Some(Problem::Lacks("ts")),
        (true, None) => Some(Problem::Lacks("event")),
        (true, Some(e)) => (!is_registered(e)).then(|| Problem::Unregistered(e.to_string())),
    }
}

/// A ledger line parsed for a few keys only: the first value of each key asked for is kept,
/// every other value is skipped unbuilt — a whole-ledger scan pays for what it reads.
#[derive(Debug, Clone, Default)]
pub struct Picked {
    /// The first value of each asked key, by the key's position in the list asked for.
    values: Vec<Option<Value>>,
}

impl Picked {
    /// Parses `bytes` as a JSON object, keeping the first value of each of `keys`; `None` when
    /// the line is not a JSON object.
    pub fn parse(bytes: &[u8], keys: &[&str]) -> Option<Picked> {
        use serde::de::{DeserializeSeed, IgnoredAny};
        struct Seed<'k>(&'k [&'k str]);
        impl<'de> DeserializeSeed<'de> for Seed<'_> {
            type Value = Picked;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Picked, D::Error> {
                d.deserialize_map(self)
            }
        }
        impl<'de> Visitor<'de> for Seed<'_> {
            type Value = Picked;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> std::result::Result<Picked, A::Error> {
                let mut values: Vec<Option<Value>> = vec![None; self.0.len()];
                let mut seen = vec![false; self.0.len()];
                while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                    match self.0.iter().position(|x| *x == k) {
                        Some(i) if !seen[i] => {
                            seen[i] = true;
                            values[i] = Some(m.next_value::<Value>()?);
                        }
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Picked { values })
            }
        }
        let mut de = serde_json::Deserializer::from_slice(bytes.strip_suffix(b"\r").unwrap_or(bytes));
        let picked = Seed(keys).deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(picked)
    }

    /// The first value of the `i`-th key asked for.
    pub fn get(&self, i: usize) -> Option<&Value> {
        self.values.get(i)?.as_ref()
    }

    /// The first value of the `i`-th key asked for, as a string.
    pub fn str(&self, i: usize) -> Option<&str> {
        self.get(i)?.as_str()
    }
}

/// What is wrong with a line picked with `ts` at index 0 and `event` at index 1 (`None` for a
/// line that is not a JSON object).
pub fn picked_problem(p: Option<&Picked>) -> Option<Problem> {
    judge(p.map(|p| (p.str(0).is_some(), p.str(1))))
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

fn open(path: &Path) -> Result<Option<File>> {
    match File::open(path) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Streams a ledger's raw lines from the first, holding one at a time (blank lines skipped):
/// `(1-based line number, bytes without the newline)`.
pub struct RawLines {
    reader: BufReader<File>,
    path: PathBuf,
    number: usize,
}

impl Iterator for RawLines {
    type Item = Result<(usize, Vec<u8>)>;
    fn next(&mut self) -> Option<Result<(usize, Vec<u8>)>> {
        loop {
            let mut buf = Vec::new();
            match self.reader.read_until(b'\n', &mut buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(Error::io(&self.path, e))),
            }
            self.number += 1;
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            if !is_blank(&buf) {
                return Some(Ok((self.number, buf)));
            }
        }
    }
}

/// Opens `path` for a forward scan of raw lines; `Ok(None)` when there is no ledger yet.
pub fn raw_lines(path: &Path) -> Result<Option<RawLines>> {
    Ok(open(path)?.map(|f| RawLines {
        reader: BufReader::with_capacity(64 * 1024, f),
        path: path.to_path_buf(),
        number: 0,
    }))
}

/// Streams a ledger from its first line (or from an offset), parsed, holding one line at a time
/// (blank lines skipped).
pub struct Forward {
    lines: RawLines,
    /// Whether the scan began at the first line, so that its line numbers are the file's.
    numbered: bool,
}

impl Iterator for Forward {
    type Item = Result<Line>;
    fn next(&mut self) -> Option<Result<Line>> {
        Some(self.lines.next()?.map(|(n, bytes)| Line::parse(self.numbered.then_some(n), &bytes)))
    }
}

/// Opens `path` for a forward scan; `Ok(None)` when there is no ledger yet.
pub fn forward(path: &Path) -> Result<Option<Forward>> {
    Ok(raw_lines(path)?.map(|lines| Forward { lines, numbered: true }))
}

/// Opens `path` for a forward scan from byte `offset` (the start of a line, as
/// [`Backward::offset`] gives it); the lines carry no number.
pub fn forward_from(path: &Path, offset: u64) -> Result<Option<Forward>> {
    let Some(mut file) = open(path)? else { return Ok(None) };
    file.seek(SeekFrom::Start(offset)).map_err(|e| Error::io(path, e))?;
    let lines = RawLines { reader: BufReader::with_capacity(64 * 1024, file), path: path.to_path_buf(), number: 0 };
    Ok(Some(Forward { lines, numbered: offset == 0 }))
}

/// How many lines older than an episode's `session.started` line [`episode`] reads as well: a
/// command that found the episode's open file in the moment before `start` appended that line
/// stamped its own line with the episode first.
const BEFORE_START: usize = 64;

/// Every line written since episode `sid` began, whatever its stamp, oldest first, streamed:
/// from [`BEFORE_START`] lines before the episode's `session.started` line, found from the tail,
/// to the end. Without that line (a close that ran before `start` wrote it, a rotated ledger)
/// the whole ledger is read. The cost is the episode's share of the ledger, not its length.
pub fn episode(path: &Path, sid: &str) -> Result<Option<Forward>> {
    let Some(mut back) = backward(path)? else { return Ok(None) };
    let mut start = None;
    let mut older = 0;
    while let Some(l) = back.next() {
        let l = l?;
        if start.is_some() {
            older += 1;
            start = Some(back.offset());
            if older == BEFORE_START {
                break;
            }
        } else if l.event() == Some(Event::SessionStarted.as_str()) && l.str("session") == Some(sid) {
            start = Some(back.offset());
        }
    }
    forward_from(path, start.unwrap_or(0))
}

/// Reads a ledger from its end, newest line first, a block at a time (blank lines skipped):
/// the cost of a tail question is the tail it reads, not the ledger's length.
pub struct Backward {
    file: File,
    path: PathBuf,
    /// Bytes of the file not read yet: `[0, pos)`.
    pos: u64,
    /// The start of the oldest line read so far, which may continue into earlier bytes.
    carry: Vec<u8>,
    /// Whole lines of the last block with the byte offset each starts at, oldest first (popped
    /// from the end).
    ready: Vec<(u64, Vec<u8>)>,
    /// The byte offset of the line returned last.
    offset: u64,
}

/// The block a tail read takes at a time.
const BLOCK: u64 = 64 * 1024;

impl Backward {
    /// Bytes before the lines returned so far that were not read yet (0 once the start is reached).
    pub fn unread(&self) -> u64 {
        self.pos
    }

    /// The byte offset at which the line returned last starts: a [`forward_from`] there reads
    /// it and every line after it.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    fn fill(&mut self) -> Result<()> {
        let n = self.pos.min(BLOCK);
        self.pos -= n;
        let mut block = vec![0; usize::try_from(n).expect("a block is at most 64 KiB")];
        self.file.seek(SeekFrom::Start(self.pos)).map_err(|e| Error::io(&self.path, e))?;
        self.file.read_exact(&mut block).map_err(|e| Error::io(&self.path, e))?;
        block.append(&mut self.carry);
        let mut at = self.pos;
        let mut parts: Vec<(u64, Vec<u8>)> = block
            .split(|&b| b == b'\n')
            .map(|part| {
                let start = at;
                at += part.len() as u64 + 1;
                (start, part.to_vec())
            })
            .collect();
        // The first part may continue into earlier bytes unless the start of the file is reached.
        if self.pos != 0 && !parts.is_empty() {
            self.carry = parts.remove(0).1;
        }
        self.ready = parts;
        Ok(())
    }
}

impl Iterator for Backward {
    type Item = Result<Line>;
    fn next(&mut self) -> Option<Result<Line>> {
        loop {
            if let Some((offset, bytes)) = self.ready.pop() {
                if !is_blank(&bytes) {
                    self.offset = offset;
                    return Some(Ok(Line::parse(None, &bytes)));
                }
                continue;
            }
            if self.pos == 0 {
                return None;
            }
            if let Err(e) = self.fill() {
                self.pos = 0;
                return Some(Err(e));
            }
        }
    }
}

/// Opens `path` for a tail read; `Ok(None)` when there is no ledger yet.
pub fn backward(path: &Path) -> Result<Option<Backward>> {
    let Some(file) = open(path)? else { return Ok(None) };
    let pos = file.metadata().map_err(|e| Error::io(path, e))?.len();
    Ok(Some(Backward { file, path: path.to_path_buf(), pos, carry: Vec::new(), ready: Vec::new(), offset: pos }))
}

/// The newest line satisfying `hit`, read from the tail.
pub fn last(path: &Path, mut hit: impl FnMut(&Line) -> bool) -> Result<Option<Line>> {
    let Some(lines) = backward(path)? else { return Ok(None) };
    for l in lines {
        let l = l?;
        if hit(&l) {
            return Ok(Some(l));
        }
    }
    Ok(None)
}

/// The newest answer `pick` finds in the rotated archives of `ledger` (the
/// `ledger.<utc>.jsonl.archived` files `history --rotate` writes beside it), newest archive
/// first, each read from its tail.
pub fn archived_last<T>(ledger: &Path, mut pick: impl FnMut(&Line) -> Option<T>) -> Result<Option<T>> {
    let Some(Ok(rd)) = ledger.parent().map(std::fs::read_dir) else { return Ok(None) };
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ledger.") && n.ends_with(".jsonl.archived"))
        })
        .collect();
    files.sort();
    for file in files.iter().rev() {
        let mut found = None;
        last(file, |l| {
            found = pick(l);
            found.is_some()
        })?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// Every line satisfying `keep`, oldest first, from one forward scan (only the kept lines are held).
pub fn select(path: &Path, mut keep: impl FnMut(&Line) -> bool) -> Result<Vec<Line>> {
    let mut out = Vec::new();
    for l in forward(path)?.into_iter().flatten() {
        let l = l?;
        if keep(&l) {
            out.push(l);
        }
    }
    Ok(out)
}

/// Parses ledger text into lines (for tests; readers stream with [`forward`] or [`backward`]).
#[cfg(test)]
pub fn parse_lines(text: &str) -> Vec<Line> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| Line::parse(Some(i + 1), l.as_bytes()))
        .collect()
}

/// The ledger rank of each name: larger is later; 0 when no line names it. Only the order of
/// ranks means anything (they are not line numbers).
///
/// The ledger is read from its tail and the read stops once every name is found: the last
/// line that contains a name is the first one the tail read meets. Record names are made of
/// `[A-Za-z0-9._-]` only, so each line is cut into maximal runs of those characters and every
/// run is looked up; a name embedded in a longer run is found by a substring check.
pub fn ranks(path: &Path, names: &[&str]) -> Result<Vec<usize>> {
    let mut out = vec![0; names.len()];
    if names.is_empty() {
        return Ok(out);
    }
    let index: std::collections::HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let mut missing = names.len();
    for (k, l) in backward(path)?.into_iter().flatten().enumerate() {
        let l = l?;
        for token in l.raw.split(|c: char| !is_name_char(c)) {
            if let Some(&j) = index.get(token) {
                if out[j] == 0 {
                    out[j] = usize::MAX - k;
                    missing -= 1;
                }
            }
        }
        if missing == 0 {
            return Ok(out);
        }
    }
    // Names no token matched: the slower substring check, for those only.
    let unfound: Vec<usize> = (0..names.len()).filter(|&j| out[j] == 0).collect();
    for (k, l) in backward(path)?.into_iter().flatten().enumerate() {
        let l = l?;
        for &j in &unfound {
            if out[j] == 0 && l.raw.contains(names[j]) {
                out[j] = usize::MAX - k;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_order_and_duplicate_event() {
        let env = Envelope { ts: "2026-09-03T19:30:12Z", head: "NONE", branch: "main", session: None };
        let l = build_line(
            &env,
            Event::ProviderEventReceived,
            &[("provider", "claude-code".into()), ("event", "start".into())],
        )
        .unwrap();
        assert!(l.starts_with(r#"{"ts":"2026-09-03T19:30:12Z","event":"provider.event.received","head":"NONE","branch":"main","by":"git-majordomus/"#));
        let lines = parse_lines(&l);
        assert_eq!(lines[0].event(), Some("provider.event.received"));
    }

    #[test]
    fn every_tail_offset_starts_its_line_and_an_episode_reads_from_its_start() {
        let mut lines = Vec::new();
        for i in 0..2000 {
            lines.push(match i % 5 {
                0 => String::new(),
                3 => format!(r#"{{"ts":"t","event":"e{i}","pad":"{}"}}"#, "x".repeat(30_000)),
                _ => format!(r#"{{"ts":"t","event":"e{i}","session":"s{}"}}"#, i / 400),
            });
        }
        lines[1201] = r#"{"ts":"t","event":"session.started","session":"s3"}"#.into();
        let f = write(&lines);
        let mut back = backward(f.path()).unwrap().unwrap();
        while let Some(l) = back.next() {
            let l = l.unwrap();
            let from: Line = forward_from(f.path(), back.offset()).unwrap().unwrap().next().unwrap().unwrap();
            assert_eq!(from.raw, l.raw, "the offset of {:?}", &l.raw[..l.raw.len().min(40)]);
        }
        // From BEFORE_START non-blank lines before the start line to the end.
        let got: Vec<String> = episode(f.path(), "s3").unwrap().unwrap().map(|l| l.unwrap().raw).collect();
        let non_blank: Vec<&String> = lines.iter().filter(|l| !l.is_empty()).collect();
        let at = non_blank.iter().position(|l| l.contains("session.started")).unwrap();
        assert_eq!(got.len(), non_blank.len() - at + BEFORE_START);
        assert_eq!(&got[BEFORE_START], non_blank[at]);
        assert!(got.iter().all(|l| !l.is_empty()));
        // No start line: the whole ledger.
        let all: Vec<Line> = episode(f.path(), "s9").unwrap().unwrap().map(Result::unwrap).collect();
        assert_eq!(all.len(), non_blank.len());
        assert_eq!(all[1].number, Some(3), "a read from the first byte is numbered");
    }

    fn write(lines: &[String]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, lines.join("\n").as_bytes()).unwrap();
        f
    }

    #[test]
    fn picked_agrees_with_the_whole_parse() {
        let keys = ["ts", "event", "closed"];
        for line in [
            r#"{"ts":"t","event":"task.started","closed":true,"event":"second"}"#,
            r#"{"event":"task.started","x":{"deep":[1,2,{"ts":"no"}]}}"#,
            r#"{"ts":5,"event":"no.such"}"#,
            r#"not json"#,
            r#"[1,2]"#,
            r#"{"ts":"t","event":"task.started"} trailing"#,
        ] {
            let whole = parse_lines(line).pop().unwrap();
            let picked = Picked::parse(line.as_bytes(), &keys);
            assert_eq!(picked_problem(picked.as_ref()), whole.problem(), "{line}");
            if let Some(p) = picked {
                assert_eq!(p.str(1), whole.event(), "{line}");
                assert_eq!(p.get(2), whole.pairs.as_ref().and_then(|w| w.get("closed")), "{line}");
            }
        }
    }

    #[test]
    fn forward_and_backward_agree_across_blocks() {
        // Lines of varied length, some longer than a block, blank lines, no final newline.
        let mut lines = Vec::new();
        for i in 0..3000 {
            lines.push(match i % 7 {
                0 => String::new(),
                3 => format!(r#"{{"ts":"t","event":"e{i}","pad":"{}"}}"#, "x".repeat(70_000)),
                _ => format!(r#"{{"ts":"t","event":"e{i}"}}"#),
            });
        }
        let f = write(&lines);
        let fwd: Vec<Line> = forward(f.path()).unwrap().unwrap().map(Result::unwrap).collect();
        let mut back: Vec<Line> = backward(f.path()).unwrap().unwrap().map(Result::unwrap).collect();
        back.reverse();
        let expected: Vec<&String> = lines.iter().filter(|l| !l.is_empty()).collect();
        assert_eq!(fwd.iter().map(|l| &l.raw).collect::<Vec<_>>(), expected);
        assert_eq!(back.iter().map(|l| &l.raw).collect::<Vec<_>>(), expected);
        assert_eq!(fwd[1].number, Some(3), "numbers count blank lines");
        assert!(back.iter().all(|l| l.number.is_none() && l.event().is_some()));
        assert!(forward(&f.path().with_extension("none")).unwrap().is_none());
    }

    #[test]
    fn tail_reads_stop_early_and_ranks_order_by_position() {
        let lines: Vec<String> = (0..50_000).map(|i| format!(r#"{{"ts":"t","event":"e","path":"n{i}.md"}}"#)).collect();
        let f = write(&lines);
        let mut tail = backward(f.path()).unwrap().unwrap();
        assert_eq!(tail.next().unwrap().unwrap().str("path"), Some("n49999.md"));
        assert!(tail.unread() > 1_000_000, "one block read, not the whole file");
        let r = ranks(f.path(), &["n10.md", "n49998.md", "absent.md", "n4999"]).unwrap();
        assert!(r[1] > r[0] && r[0] > 0 && r[2] == 0, "{r:?}");
        assert!(r[3] > 0, "a name inside a longer run is found by substring");
        let hit = last(f.path(), |l| l.str("path") == Some("n7.md")).unwrap().unwrap();
        assert_eq!(hit.raw, lines[7]);
    }
}
