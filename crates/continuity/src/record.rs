//! The continuity record (docs/REFERENCE.md#continuity-record): its fields, canonical form, id, the one
//! strict reader of its stored bytes (`read_stored`), its bounds and the text grammar of its
//! fields (`grammar`).
//! Must not touch: signing keys and trust (`signing`, `mesh`), files, git.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::oid::RecordId;

/// The schema string of this version.
pub const SCHEMA: &str = "majordomus-continuity/v1";

/// The schema of a record that ends a divergence or only ends a head
/// (docs/REFERENCE.md#continuity-record: one schema bump for every new field, v1 never extended):
/// v1's fields, `ends`, and a `handover` that may be absent. A record is written v2 only when it
/// needs one of them ([`Record::needs_v2`]), so older executables keep reading the rest.
pub const SCHEMA_V2: &str = "majordomus-continuity/v2";

/// How many other heads one record may end.
pub const MAX_ENDS: usize = 16;
/// A stored record (the whole envelope file) is at most this large.
pub const MAX_STORED_BYTES: usize = 160 * 1024;
/// A handover body is at most this large.
pub const MAX_BODY_BYTES: usize = 32 * 1024;
/// Identifier strings are at most this long.
pub const MAX_IDENT_CHARS: usize = 256;

/// How many citations a record may carry (docs/REFERENCE.md#citations: a handover keeps at most
/// `context.max_list_items`, whose bound is far below).
pub const MAX_CITATIONS: usize = 1000;
/// At most this many changed paths are listed.
pub const MAX_CHANGED: usize = 200;
/// At most this many decisions travel.
pub const MAX_DECISIONS: usize = 32;
/// A decision's text is at most this large.
pub const MAX_DECISION_TEXT: usize = 4096;

fn is_empty<T>(v: &[T]) -> bool {
    v.is_empty()
}

/// The publishing device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Device {
    /// 32 hex: first 16 bytes of BLAKE3 of the raw Ed25519 public key.
    pub node: String,
    /// Human label.
    pub label: String,
}

/// The origin's source state.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Branch name, absent when detached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Full head, absent when unborn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// `clean` or `dirty`.
    pub working_tree: String,
    /// Changed paths, sorted, at most [`MAX_CHANGED`].
    #[serde(default, skip_serializing_if = "is_empty")]
    pub changed: Vec<String>,
    /// How many paths changed in all.
    pub changed_total: u64,
    /// 32 hex fingerprint of the uncommitted change, only when dirty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

/// The intent: the task the handover was written under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct TaskIntent {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(default, skip_serializing_if = "is_empty")]
    pub scope: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

/// The instant a record says it was published: `YYYY-MM-DDTHH:MM:SSZ`, else any RFC 3339 form.
pub fn published_at(r: &Record) -> Option<chrono::DateTime<chrono::Utc>> {
    crate::clock::parse_stamp(&r.published_at).or_else(|| {
        chrono::DateTime::parse_from_rfc3339(r.published_at.trim()).ok().map(|t| t.with_timezone(&chrono::Utc))
    })
}

/// A carried decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarriedDecision {
    /// Its title.
    pub title: String,
    /// The entry's lines after the heading, verbatim.
    pub text: String,
}

/// A carried (unresolved) question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarriedQuestion {
    /// The question.
    pub text: String,
    /// Its opening date.
    pub opened: String,
}

/// The handover itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct HandoverPart {
    /// BLAKE3(body), first 32 hex.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub milestone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// The origin's file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub body: String,
    /// v2: the paths it cites, `path@<blob>` or `path@absent` as the handover's front matter
    /// keeps them (docs/REFERENCE.md#citations).
    #[serde(default, skip_serializing_if = "is_empty")]
    pub citations: Vec<String>,
}

/// The signed content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Record {
    pub schema: String,
    pub repository: String,
    pub device: Device,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// `open` or `none`.
    pub episode: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub published_at: String,
    pub producer: String,
    pub source: Source,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskIntent>,
    #[serde(default, skip_serializing_if = "is_empty")]
    pub decisions: Vec<CarriedDecision>,
    #[serde(default, skip_serializing_if = "is_empty")]
    pub questions: Vec<CarriedQuestion>,
    /// v2: the other heads of its line this record ends besides its parent.
    #[serde(default, skip_serializing_if = "is_empty")]
    pub ends: Vec<String>,
    /// The handover; absent (v2 only) in a record that only ends its parent
    /// (`continuity supersede`).
    #[serde(default, skip_serializing_if = "HandoverPart::is_absent")]
    pub handover: HandoverPart,
}

impl HandoverPart {
    /// Whether the record carries no handover (every field empty: what an absent one reads as).
    pub fn is_absent(&self) -> bool {
        *self == HandoverPart::default()
    }
}

impl Record {
    /// Whether the record carries a handover (only a v2 record that ends a head does not).
    pub fn has_handover(&self) -> bool {
        !self.handover.is_absent()
    }

    /// Whether it needs the v2 schema: it ends other heads, or carries no handover.
    pub fn needs_v2(&self) -> bool {
        !self.ends.is_empty() || !self.has_handover() || !self.handover.citations.is_empty()
    }

    /// The schema it is written under: v1 unless it [needs v2](Record::needs_v2).
    pub fn schema_for(&self) -> &'static str {
        if self.needs_v2() {
            SCHEMA_V2
        } else {
            SCHEMA
        }
    }
}

/// Whether `schema` is one this executable reads (v1 or v2).
pub fn is_known_schema(schema: &str) -> bool {
    schema == SCHEMA || schema == SCHEMA_V2
}

/// The stored envelope: `id, public_key, signature, record` in that order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// 64 hex BLAKE3 of canonical(record).
    pub id: String,
    /// Minisign public key (base64, starts `RW`).
    pub public_key: String,
    /// The complete minisign signature text (four lines).
    pub signature: String,
    /// The record, in canonical key order.
    pub record: Value,
}

/// Sorts every object's keys by byte order, recursively.
pub fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The canonical form of a record value: keys sorted by bytes, no insignificant whitespace.
/// Written straight from `v` (the same bytes as `serde_json::to_string(&sorted(v))`, without
/// copying the value first).
pub fn canonical_value(v: &Value) -> String {
    let mut out = Vec::with_capacity(1024);
    // Writing a `Value` into a `Vec` cannot fail: its keys are strings and it holds no float
    // that serde_json refuses (a non-finite float cannot be parsed into a `Value`).
    let _ = serde_json::to_writer(&mut out, &Sorted(v));
    String::from_utf8(out).unwrap_or_default()
}

/// A value serialised with every object's keys in byte order (what [`sorted`] builds), read in
/// place.
struct Sorted<'a>(&'a Value);

impl Serialize for Sorted<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Value::Object(m) => {
                let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, &Sorted(v))?;
                }
                map.end()
            }
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(&Sorted(v))?;
                }
                seq.end()
            }
            other => other.serialize(s),
        }
    }
}

/// Why a stored file is not the stored form of what it holds (docs/REFERENCE.md#continuity-record):
/// the byte where reading stopped and what was found there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotStored {
    /// Byte offset in the file.
    pub at: usize,
    /// What is wrong there.
    pub why: &'static str,
}

impl std::fmt::Display for NotStored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not in the stored form of a record at byte {}: {}", self.at, self.why)
    }
}

/// A store file read by [`read_stored`]: the envelope's three strings and the record's
/// canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The stored id (not yet compared with the digest).
    pub id: String,
    /// The minisign public key text.
    pub public_key: String,
    /// The minisign signature text.
    pub signature: String,
    /// canonical(record): the record's text without its whitespace.
    pub canonical: String,
    /// Where the record holds a value the stored form of a v1 record omits (`null`, `[]` or
    /// `{}`), if anywhere: a v1 record holding one is not the stored form of what it holds.
    pub omitted: Option<usize>,
}

/// The one strict reader of a store file (docs/REFERENCE.md#continuity-record): `bytes` must be, byte
/// for byte, the stored form — `{`, the envelope keys `id`, `public_key`, `signature` (strings)
/// and `record` in that order, the record's keys in strictly increasing byte order at every
/// level (so none twice) and without escapes, every string escaped exactly as serde_json
/// escapes it, every number a plain integer within 64 bits, two-space pretty printing as
/// `serde_json::to_string_pretty` writes it, and one trailing newline. Anything else is
/// [`NotStored`]. Read in one pass without building a value; `each_string` is called with every
/// string of the record (unescaped) and its JSON pointer (RFC 6901), as they are met. Admission
/// and every later read of a record go through it.
pub fn read_stored(bytes: &[u8], each_string: &mut dyn FnMut(&str, &str)) -> Result<Stored, NotStored> {
    let text = std::str::from_utf8(bytes).map_err(|e| NotStored { at: e.valid_up_to(), why: "not UTF-8" })?;
    let mut c = Canon::new(text);
    const ORDER: &str = "not an envelope of id, public_key, signature and record in that order";
    c.lit(b"{\n  \"id\": ", ORDER)?;
    let id = c.plain_string()?;
    c.lit(b",\n  \"public_key\": ", ORDER)?;
    let public_key = c.plain_string()?;
    c.lit(b",\n  \"signature\": ", ORDER)?;
    let signature = c.plain_string()?;
    c.lit(b",\n  \"record\": ", ORDER)?;
    c.value(each_string, 1)?;
    c.lit(b"\n}\n", "not the end of the envelope (another key, or other whitespace)")?;
    if c.at != c.b.len() {
        return Err(c.fail("bytes after the envelope"));
    }
    let canonical = String::from_utf8(c.out).map_err(|_| NotStored { at: 0, why: "not UTF-8" })?;
    Ok(Stored { id, public_key, signature, canonical, omitted: c.omitted })
}

/// [`read_stored`] of a v1 record as every read after admission takes it: the envelope's
/// parts and the record, or why the file is not one (the stored form, an omitted value, the
/// record's shape).
pub fn read_record(bytes: &[u8]) -> Result<(Stored, Record), String> {
    let stored = read_stored(bytes, &mut |_, _| {}).map_err(|e| e.to_string())?;
    if let Some(at) = stored.omitted {
        return Err(NotStored { at, why: OMITTED }.to_string());
    }
    let record: Record = serde_json::from_str(&stored.canonical).map_err(|e| e.to_string())?;
    Ok((stored, record))
}

/// What [`Stored::omitted`] reports.
pub const OMITTED: &str = "a null, an empty list or an empty object, which the stored form omits";

/// The canonical form of the JSON text `text` when it is exactly as `serde_json::to_string_pretty`
/// writes a value whose keys are sorted ([`read_stored`]'s rules, for a value alone): it then
/// equals [`canonical_value`] of the parsed text byte for byte. `each_string` as there.
pub fn canonical_text(text: &str, each_string: &mut dyn FnMut(&str, &str)) -> Result<String, NotStored> {
    let mut c = Canon::new(text);
    c.value(each_string, 0)?;
    if c.at != c.b.len() {
        return Err(c.fail("bytes after the value"));
    }
    String::from_utf8(c.out).map_err(|_| NotStored { at: 0, why: "not UTF-8" })
}

/// Appends `/key` to the JSON pointer `pointer`, `~` and `/` escaped as RFC 6901 says.
pub(crate) fn push_pointer_key(pointer: &mut String, key: &str) {
    pointer.push('/');
    for c in key.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// How deep [`read_stored`] follows nested values (a record is four levels deep).
const CANON_DEPTH: usize = 32;

/// What the reader says of a byte where the pretty printer would have written another.
const LAYOUT: &str = "not the stored form's layout (two-space pretty printing)";

/// The reader behind [`read_stored`]: `b` read from `at`, the canonical bytes in `out`, the
/// pointer of the value being read in `pointer`.
struct Canon<'a> {
    t: &'a str,
    b: &'a [u8],
    at: usize,
    out: Vec<u8>,
    pointer: String,
    omitted: Option<usize>,
}

type Read<T = ()> = Result<T, NotStored>;

impl<'a> Canon<'a> {
    fn new(t: &'a str) -> Canon<'a> {
        Canon { t, b: t.as_bytes(), at: 0, out: Vec::with_capacity(t.len()), pointer: String::new(), omitted: None }
    }

    fn fail(&self, why: &'static str) -> NotStored {
        NotStored { at: self.at, why }
    }

    /// The bytes `s` next (not copied).
    fn lit(&mut self, s: &[u8], why: &'static str) -> Read {
        if !self.b[self.at..].starts_with(s) {
            return Err(self.fail(why));
        }
        self.at += s.len();
        Ok(())
    }

    /// A newline and the indentation of `depth` (not copied).
    fn newline(&mut self, depth: usize) -> Read {
        self.lit(b"\n", LAYOUT)?;
        let spaces = 2 * depth;
        if self.b.len() - self.at < spaces || self.b[self.at..self.at + spaces].iter().any(|&c| c != b' ') {
            return Err(self.fail(LAYOUT));
        }
        self.at += spaces;
        Ok(())
    }

    fn next(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    /// An envelope string: its unescaped text (nothing copied to `out`).
    fn plain_string(&mut self) -> Read<String> {
        let mark = self.out.len();
        let (start, end) = self.string()?;
        self.out.truncate(mark);
        let raw = &self.t[start..end];
        if raw.contains('\\') {
            serde_json::from_str(&self.t[start - 1..=end]).map_err(|_| NotStored { at: start, why: "a bad escape" })
        } else {
            Ok(raw.to_string())
        }
    }

    fn value(&mut self, f: &mut dyn FnMut(&str, &str), depth: usize) -> Read {
        if depth > CANON_DEPTH {
            return Err(self.fail("nested too deep"));
        }
        let at = self.pointer.len();
        match self.next() {
            Some(open @ (b'{' | b'[')) => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.at += 1;
                self.out.push(open);
                if self.next() == Some(close) {
                    self.omitted.get_or_insert(self.at - 1);
                    self.at += 1;
                    self.out.push(close);
                    return Ok(());
                }
                let mut last: Option<&'a str> = None;
                for i in 0usize.. {
                    self.newline(depth + 1)?;
                    if open == b'{' {
                        let key_at = self.at;
                        let (start, end) = self.string()?;
                        let t: &'a str = self.t;
                        let key: &'a str = &t[start..end];
                        // A key with an escape would have to be compared unescaped: no key of
                        // a record has one.
                        if key.contains('\\') {
                            return Err(NotStored { at: key_at, why: "a key with an escape" });
                        }
                        if last.is_some_and(|l| l >= key) {
                            return Err(NotStored { at: key_at, why: "a key out of order or repeated" });
                        }
                        last = Some(key);
                        push_pointer_key(&mut self.pointer, key);
                        self.lit(b": ", LAYOUT)?;
                        self.out.push(b':');
                    } else {
                        use std::fmt::Write as _;
                        let _ = write!(self.pointer, "/{i}");
                    }
                    self.value(f, depth + 1)?;
                    self.pointer.truncate(at);
                    if self.next() == Some(b',') {
                        self.at += 1;
                        self.out.push(b',');
                    } else {
                        break;
                    }
                }
                self.newline(depth)?;
                self.lit(&[close], LAYOUT)?;
                self.out.push(close);
                Ok(())
            }
            Some(b'"') => {
                let (start, end) = self.string()?;
                let raw = &self.t[start..end];
                if raw.contains('\\') {
                    let text: String = serde_json::from_str(&self.t[start - 1..=end])
                        .map_err(|_| NotStored { at: start, why: "a bad escape" })?;
                    f(&self.pointer, &text);
                } else {
                    f(&self.pointer, raw);
                }
                Ok(())
            }
            Some(c @ (b't' | b'f' | b'n')) => {
                let word: &[u8] = match c {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if c == b'n' {
                    self.omitted.get_or_insert(self.at);
                }
                self.lit(word, "not JSON")?;
                self.out.extend_from_slice(word);
                Ok(())
            }
            _ => self.integer(),
        }
    }

    /// A string at `at`, copied with its quotes; the range of its text between them (escapes
    /// as written). Only serde_json's own escapes are taken: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
    /// `\t`, and `\u00xx` (lowercase hex) for the other control characters.
    fn string(&mut self) -> Read<(usize, usize)> {
        let b = self.b;
        if self.next() != Some(b'"') {
            return Err(self.fail("not a string where one belongs"));
        }
        let start = self.at + 1;
        let mut i = start;
        let bad = |i: usize, why| NotStored { at: i, why };
        loop {
            match *b.get(i).ok_or(bad(i, "an unterminated string"))? {
                b'"' => break,
                b'\\' => match *b.get(i + 1).ok_or(bad(i, "an unterminated string"))? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        let hex = b.get(i + 2..i + 6).ok_or(bad(i, "an unterminated string"))?;
                        let lower = hex.iter().all(|&c| crate::hex::nibble(c).is_some());
                        let code = std::str::from_utf8(&hex[2..]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                        let short = matches!(code, Some(0x08 | 0x09 | 0x0a | 0x0c | 0x0d));
                        if &hex[..2] != b"00" || !lower || code.is_none_or(|c| c >= 0x20) || short {
                            return Err(bad(i, "an escape serde_json does not write"));
                        }
                        i += 6;
                    }
                    _ => return Err(bad(i, "an escape serde_json does not write")),
                },
                c if c < 0x20 => return Err(bad(i, "a control character not escaped")),
                _ => i += 1,
            }
        }
        self.out.extend_from_slice(&b[self.at..=i]);
        self.at = i + 1;
        Ok((start, i))
    }

    /// A plain integer: `0`, or an optional `-` and digits without a leading zero, within 64
    /// bits (serde_json reads anything else as a float, written back otherwise).
    fn integer(&mut self) -> Read {
        let b = self.b;
        let start = self.at;
        let sign = usize::from(b.get(start) == Some(&b'-'));
        let digits = b[start + sign..].iter().take_while(|c| c.is_ascii_digit()).count();
        let end = start + sign + digits;
        let text = &self.t[start..end];
        let leading_zero = digits > 1 && b[start + sign] == b'0';
        if digits == 0 {
            return Err(self.fail("not JSON"));
        }
        if leading_zero || text == "-0" || matches!(b.get(end), Some(b'.' | b'e' | b'E')) {
            return Err(self.fail("a number that is not a plain integer"));
        }
        if text.parse::<u64>().is_err() && text.parse::<i64>().is_err() {
            return Err(self.fail("an integer over 64 bits"));
        }
        self.out.extend_from_slice(text.as_bytes());
        self.at = end;
        Ok(())
    }
}

/// The canonical form of a record.
pub fn canonical(r: &Record) -> String {
    serde_json::to_value(r).map(|v| canonical_value(&v)).unwrap_or_default()
}

/// 64 lowercase hex BLAKE3.
pub fn blake3_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The record id of a canonical form: BLAKE3 over it (the text [`blake3_hex`] gives).
pub fn id_of_canonical(canonical: &str) -> RecordId {
    RecordId::from_raw(blake3::hash(canonical.as_bytes()).as_bytes())
}

/// The record id: BLAKE3 over canonical(record).
pub fn id_of(r: &Record) -> String {
    blake3_hex(canonical(r).as_bytes())
}

/// The id of a record value as stored (canonicalised first).
pub fn id_of_value(v: &Value) -> String {
    blake3_hex(canonical_value(v).as_bytes())
}

/// What the signed message puts before the canonical form.
pub const MESSAGE_PREFIX: &[u8] = b"majordomus-continuity-record/v1\n";

/// The message a signature covers: `majordomus-continuity-record/v1\n` ‖ canonical(record).
pub fn signed_message(canonical: &str) -> Vec<u8> {
    let mut m = MESSAGE_PREFIX.to_vec();
    m.extend_from_slice(canonical.as_bytes());
    m
}

/// The store path of a record id: `records/<id[0..2]>/<id[2..4]>/<id>.json`.
pub fn store_path(id: &str) -> String {
    format!("records/{}/{}/{id}.json", &id[..2], &id[2..4])
}

/// Whether `s` is 64 lowercase hex.
pub fn is_id(s: &str) -> bool {
    s.len() == 64 && crate::hex::is_lowercase(s)
}

/// The stored bytes of an envelope: pretty JSON (two-space indent) and a trailing newline.
pub fn stored_bytes(e: &Envelope) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(e).unwrap_or_default();
    s.push('\n');
    s.into_bytes()
}

/// Structural bounds a record must respect (docs/REFERENCE.md#continuity-record), then the text
/// grammar of every field ([`crate::grammar::check`]); the first violation, as
/// `<JSON pointer>: <why>`. Publish and admission both call it: a record over a bound is
/// refused, never truncated.
pub fn check_bounds(r: &Record) -> Result<(), String> {
    let ident = |name: &str, v: &str| -> Result<(), String> {
        if v.chars().count() > MAX_IDENT_CHARS {
            return Err(format!("{name}: longer than {MAX_IDENT_CHARS} characters"));
        }
        Ok(())
    };
    if !is_known_schema(&r.schema) {
        return Err(format!("schema: expected {SCHEMA} or {SCHEMA_V2}"));
    }
    if r.schema == SCHEMA && r.needs_v2() {
        if !r.handover.citations.is_empty() {
            return Err(format!("/handover/citations: a {SCHEMA} record cites nothing ({SCHEMA_V2} may)"));
        }
        let what = if r.has_handover() { "/ends" } else { "/handover" };
        return Err(format!("{what}: a {SCHEMA} record holds a handover and ends no other head ({SCHEMA_V2} may)"));
    }
    if r.handover.citations.len() > MAX_CITATIONS {
        return Err(format!("/handover/citations: more than {MAX_CITATIONS}"));
    }
    if let Some((i, _)) =
        r.handover.citations.iter().enumerate().find(|(_, c)| crate::model::citations::Citation::parse(c).is_none())
    {
        return Err(format!("/handover/citations/{i}: expected <path>@<40 or 64 hex> or <path>@absent"));
    }
    let hex = |name: &str, v: &str, n: usize| {
        if v.len() == n && crate::hex::is_lowercase(v) {
            Ok(())
        } else {
            Err(format!("{name}: expected {n} lowercase hex"))
        }
    };
    hex("/repository", &r.repository, 32)?;
    hex("/device/node", &r.device.node, 32)?;
    ident("/device/label", &r.device.label)?;
    if !matches!(r.episode.as_str(), "open" | "none") {
        return Err("/episode: expected open or none".into());
    }
    if r.line.is_some() != r.parent.is_some() {
        return Err("/parent: present iff /line is present".into());
    }
    for (n, v) in [("/line", &r.line), ("/parent", &r.parent)] {
        if let Some(v) = v {
            hex(n, v, 64)?;
        }
    }
    if let Some(s) = &r.session {
        ident("/session", s)?;
    }
    if !matches!(r.source.working_tree.as_str(), "clean" | "dirty") {
        return Err("/source/working_tree: expected clean or dirty".into());
    }
    if r.source.changed.len() > MAX_CHANGED {
        return Err(format!("/source/changed: more than {MAX_CHANGED} paths"));
    }
    for (name, v) in [
        ("/source/branch", &r.source.branch),
        ("/source/head", &r.source.head),
        ("/handover/task", &r.handover.task),
        ("/handover/issue", &r.handover.issue),
        ("/handover/milestone", &r.handover.milestone),
        ("/handover/name", &r.handover.name),
    ] {
        if let Some(v) = v {
            ident(name, v)?;
        }
    }
    if r.ends.len() > MAX_ENDS {
        return Err(format!("/ends: {} heads, cap {MAX_ENDS}", r.ends.len()));
    }
    for (i, e) in r.ends.iter().enumerate() {
        hex(&format!("/ends/{i}"), e, 64)?;
        if r.parent.as_deref() == Some(e.as_str()) || r.ends[..i].contains(e) {
            return Err(format!("/ends/{i}: names its parent or another end twice"));
        }
    }
    if (!r.ends.is_empty() || !r.has_handover()) && r.parent.is_none() {
        return Err("/parent: a record that ends a head continues one".into());
    }
    if r.has_handover() && r.handover.body.trim().is_empty() {
        return Err("/handover/body: empty".into());
    }
    if r.handover.body.len() > MAX_BODY_BYTES {
        return Err(format!("/handover/body: {} bytes, cap {MAX_BODY_BYTES}", r.handover.body.len()));
    }
    if r.decisions.len() > MAX_DECISIONS {
        return Err(format!("/decisions: {} decisions, cap {MAX_DECISIONS}", r.decisions.len()));
    }
    if let Some((i, d)) = r.decisions.iter().enumerate().find(|(_, d)| d.text.len() > MAX_DECISION_TEXT) {
        return Err(format!("/decisions/{i}/text: {} bytes, cap {MAX_DECISION_TEXT}", d.text.len()));
    }
    grammar::check(r)
}

/// The text grammar of a continuity record (docs/REFERENCE.md#continuity-record):
/// what each text field of a record may hold, checked at publish and at admission
/// (through [`check_bounds`]), the refusal naming the field by its JSON pointer.
/// Bytes from a peer are data: a single-line field holds no control character (Unicode Cc and
/// the bidirectional overrides U+202A–U+202E, U+2066–U+2069); a multi-line body holds none but
/// `\n`, `\t` and `\r\n` line ends; a carried decision's text holds no line that the decision
/// log's reader (`crate::store::decisions::parse`) reads as structure, and the fields a resume
/// writes into `decisions.md` and `open-questions.md` read back as exactly one entry there.
///
/// Owns: the grammar. Must not touch: files, the record's other bounds, output.
pub mod grammar {
    use super::Record;

    /// Whether `c` is a control character of the grammar: Unicode category Cc, or a bidirectional
    /// embedding, override or isolate (U+202A–U+202E, U+2066–U+2069) — the one definition, which
    /// output escapes by too.
    pub use crate::text::is_control;

    /// The first control character of `s`, where a body (`body`) may hold `\n`, `\t` and a `\r`
    /// that ends a line. One pass over the bytes: only the lead bytes of the non-ASCII control
    /// characters (`C2` for U+0080–U+009F, `E2` for the bidirectional ones) are decoded.
    fn first_control(s: &str, body: bool) -> Option<char> {
        let b = s.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            match c {
                0x20..=0x7e => {}
                b'\n' | b'\t' if body => {}
                b'\r' if body && b.get(i + 1) == Some(&b'\n') => {}
                0x00..=0x1f | 0x7f => return Some(char::from(c)),
                0xc2 | 0xe2 => {
                    // `i` is a lead byte, so a character boundary of `s`.
                    if let Some(ch) = s.get(i..).and_then(|rest| rest.chars().next()).filter(|&ch| is_control(ch)) {
                        return Some(ch);
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn named(c: char) -> String {
        format!("U+{:04X}", u32::from(c))
    }

    /// A single-line field (a title, a label, an id, a question, a branch, a name, a date): no
    /// control character at all.
    pub fn single_line(s: &str) -> Result<(), String> {
        match first_control(s, false) {
            Some(c) => Err(format!("holds the control character {}; a single-line field holds none", named(c))),
            None => Ok(()),
        }
    }

    /// A multi-line body (a handover's body, a carried decision's text): no control character but
    /// `\n`, `\t` and `\r\n` line ends.
    pub fn multi_line(s: &str) -> Result<(), String> {
        match first_control(s, true) {
            Some(c) => Err(format!(
                "holds the control character {}; a body holds none but line ends (\\n, \\r\\n) and tabs",
                named(c)
            )),
            None => Ok(()),
        }
    }

    /// What the decision log's reader would make of `line` as structure rather than text: a heading
    /// (`## ` starts a new entry, `# ` is skipped) or the start of an HTML comment (which hides the
    /// lines after it).
    pub fn structural_line(line: &str) -> Option<&'static str> {
        if line.starts_with("## ") {
            Some("a line starting `## ` (the decision log reads a new entry)")
        } else if line.starts_with("# ") {
            Some("a line starting `# ` (a heading the decision log skips)")
        } else if line.trim_start().starts_with("<!--") {
            Some("a line starting `<!--` (a comment that hides the lines after it)")
        } else {
            None
        }
    }

    /// A carried decision's text: a body, and no line of it structure in the decision log.
    pub fn decision_text(s: &str) -> Result<(), String> {
        multi_line(s)?;
        for (n, line) in s.lines().enumerate() {
            if let Some(what) = structural_line(line) {
                return Err(format!("line {} is {what}", n + 1));
            }
        }
        Ok(())
    }

    /// A task id: a single line without whitespace (`open-questions.md` reads an entry's task up to
    /// the first space).
    pub fn task_id(s: &str) -> Result<(), String> {
        single_line(s)?;
        if s.is_empty() || s.chars().any(char::is_whitespace) {
            return Err("empty or holds whitespace; a task id holds none".into());
        }
        Ok(())
    }

    /// Whether `s` is a date `YYYY-MM-DD` (what `open-questions.md` reads as an entry's date).
    pub fn is_date(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() == 10
            && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
    }

    /// Every text field of `r` against the grammar: the first violation, as `<pointer>: <why>`
    /// (a pointer is built only for the violation: a record that passes costs one pass over
    /// its text and no allocation).
    pub fn check(r: &Record) -> Result<(), String> {
        let at = |pointer: &str, verdict: Result<(), String>| verdict.map_err(|e| format!("{pointer}: {e}"));
        let single = |pointer: &str, v: &str| at(pointer, single_line(v));
        let opt = |pointer: &str, v: &Option<String>| v.as_deref().map_or(Ok(()), |v| single(pointer, v));
        let each = |list: &str, i: usize, field: &str, verdict: Result<(), String>| {
            verdict.map_err(|e| format!("/{list}/{i}{field}: {e}"))
        };
        single("/device/label", &r.device.label)?;
        opt("/session", &r.session)?;
        single("/published_at", &r.published_at)?;
        single("/producer", &r.producer)?;
        opt("/source/branch", &r.source.branch)?;
        opt("/source/head", &r.source.head)?;
        opt("/source/fingerprint", &r.source.fingerprint)?;
        for (i, p) in r.source.changed.iter().enumerate() {
            each("source/changed", i, "", single_line(p))?;
        }
        if let Some(t) = &r.task {
            at("/task/id", task_id(&t.id))?;
            single("/task/title", &t.title)?;
            opt("/task/profile", &t.profile)?;
            opt("/task/outcome", &t.outcome)?;
            for (i, s) in t.scope.iter().enumerate() {
                each("task/scope", i, "", single_line(s))?;
            }
        }
        for (i, d) in r.decisions.iter().enumerate() {
            each("decisions", i, "/title", single_line(&d.title))?;
            if d.title.trim().is_empty() || d.title.trim() != d.title {
                return Err(format!("/decisions/{i}/title: empty, or with leading or trailing whitespace"));
            }
            each("decisions", i, "/text", decision_text(&d.text))?;
        }
        for (i, q) in r.questions.iter().enumerate() {
            each("questions", i, "/text", single_line(&q.text))?;
            if q.text.trim().is_empty() {
                return Err(format!("/questions/{i}/text: empty"));
            }
            if !is_date(&q.opened) {
                return Err(format!("/questions/{i}/opened: expected a date YYYY-MM-DD"));
            }
        }
        let h = &r.handover;
        single("/handover/id", &h.id)?;
        if let Some(t) = &h.task {
            at("/handover/task", task_id(t))?;
        }
        opt("/handover/issue", &h.issue)?;
        opt("/handover/milestone", &h.milestone)?;
        opt("/handover/branch", &h.branch)?;
        opt("/handover/head", &h.head)?;
        opt("/handover/created_at", &h.created_at)?;
        opt("/handover/name", &h.name)?;
        at("/handover/body", multi_line(&h.body))
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::record::{CarriedDecision, CarriedQuestion, TaskIntent};

        #[test]
        fn control_characters_are_cc_and_the_bidirectional_overrides() {
            for c in ['\u{0}', '\u{1b}', '\n', '\r', '\t', '\u{7f}', '\u{80}', '\u{9b}', '\u{9f}'] {
                assert!(is_control(c), "{c:?}");
                assert!(single_line(&format!("a{c}b")).is_err(), "{c:?}");
            }
            for c in ['\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}'] {
                assert!(is_control(c), "{c:?}");
                assert!(single_line(&format!("a{c}b")).is_err(), "{c:?}");
                assert!(multi_line(&format!("a{c}b")).is_err(), "{c:?}");
            }
            for c in ['é', '\u{a0}', '\u{2028}', '\u{2029}', '\u{200b}', '\u{2065}', '\u{206a}', '\u{2029}', '😀', '—']
            {
                assert!(!is_control(c), "{c:?}");
                assert!(single_line(&format!("a{c}b")).is_ok(), "{c:?}");
            }
            assert_eq!(
                single_line("Fix \u{1b}[2J").unwrap_err(),
                "holds the control character U+001B; a single-line field holds none"
            );
        }

        #[test]
        fn a_body_holds_line_ends_and_tabs_only() {
            assert!(multi_line("a\n\tb\r\nc\n").is_ok());
            for bad in ["a\rb", "a\r", "\u{1b}]0;x\u{7}", "a\u{c}b", "a\u{85}b", "a\u{0}"] {
                assert!(multi_line(bad).is_err(), "{bad:?}");
            }
        }

        #[test]
        fn a_decision_text_holds_no_line_the_log_reads_as_structure() {
            assert!(decision_text("Task: t-1\nWhy: because ## not at the start\n #  indented heading").is_ok());
            for bad in ["x\n## 2026-01-01 — FORGED", "# Heading", "ok\n  <!-- hide", "ok\r\n## x"] {
                assert!(decision_text(bad).is_err(), "{bad:?}");
            }
        }

        fn with(edit: impl FnOnce(&mut Record)) -> Result<(), String> {
            let mut r = crate::record::tests::sample();
            edit(&mut r);
            check(&r)
        }

        #[test]
        fn every_refusal_names_its_field() {
            assert_eq!(with(|_| {}), Ok(()));
            let decision = |title: &str, text: &str| CarriedDecision { title: title.into(), text: text.into() };
            type Edit = Box<dyn FnOnce(&mut Record)>;
            let cases: Vec<(&str, Edit)> = vec![
                ("/device/label", Box::new(|r| r.device.label = "a\u{1b}[31m".into())),
                ("/source/changed/1", Box::new(|r| r.source.changed = vec!["a".into(), "b\nc".into()])),
                (
                    "/decisions/0/title",
                    Box::new(move |r| r.decisions = vec![decision("Legit\n\n## 2026-01-01 — FORGED", "Why: x")]),
                ),
                ("/decisions/0/title", Box::new(move |r| r.decisions = vec![decision(" padded", "Why: x")])),
                (
                    "/decisions/1/text",
                    Box::new(move |r| r.decisions = vec![decision("a", ""), decision("b", "x\n## y")]),
                ),
                (
                    "/questions/0/text",
                    Box::new(|r| {
                        r.questions = vec![CarriedQuestion {
                            text: "q1\n- [unresolved] t-x — INJECTED (2026-01-01)".into(),
                            opened: "2026-12-06".into(),
                        }]
                    }),
                ),
                (
                    "/questions/0/opened",
                    Box::new(|r| r.questions = vec![CarriedQuestion { text: "q".into(), opened: "soon".into() }]),
                ),
                (
                    "/task/id",
                    Box::new(|r| {
                        r.task = Some(TaskIntent {
                            id: "t 1".into(),
                            title: "x".into(),
                            profile: None,
                            scope: vec![],
                            outcome: None,
                        })
                    }),
                ),
                ("/handover/task", Box::new(|r| r.handover.task = Some("t-1 x".into()))),
                ("/handover/body", Box::new(|r| r.handover.body = "# Objective\n\u{1b}[2J\n".into())),
                ("/handover/body", Box::new(|r| r.handover.body = "# Objective\n\u{202e}txt.exe\n".into())),
            ];
            for (field, edit) in cases {
                let e = with(edit).unwrap_err();
                assert!(e.starts_with(&format!("{field}: ")), "{field}: {e}");
            }
        }

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
            /// What passes holds no control character, and no line of a decision text is structure.
            #[test]
            fn what_passes_is_data(s in "(\\PC|[\u{0}-\u{1f}\u{7f}-\u{9f}\u{202a}-\u{202e}\u{2066}-\u{2069}#<!\\- \n\r\t]){0,40}") {
                if single_line(&s).is_ok() {
                    proptest::prop_assert!(!s.chars().any(is_control));
                }
                if multi_line(&s).is_ok() {
                    proptest::prop_assert!(!s.replace("\r\n", "\n").chars().any(|c| is_control(c) && c != '\n' && c != '\t'));
                }
                if decision_text(&s).is_ok() {
                    proptest::prop_assert!(s.lines().all(|l| structural_line(l).is_none()));
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A valid record the continuity unit tests start from.
    pub(crate) fn sample() -> Record {
        Record {
            schema: SCHEMA.into(),
            repository: "0123456789abcdef0123456789abcdef".into(),
            device: Device { node: "fedcba9876543210fedcba9876543210".into(), label: "macbook-pro".into() },
            session: None,
            episode: "none".into(),
            line: None,
            parent: None,
            published_at: "2026-09-03T20:00:00Z".into(),
            producer: "git-majordomus/0.1.0".into(),
            source: Source {
                branch: Some("main".into()),
                head: None,
                working_tree: "clean".into(),
                changed: vec![],
                changed_total: 0,
                fingerprint: None,
            },
            task: None,
            decisions: vec![],
            questions: vec![],
            ends: Vec::new(),
            handover: HandoverPart {
                id: "00".repeat(16),
                task: None,
                issue: Some("#184".into()),
                milestone: None,
                branch: Some("main".into()),
                head: None,
                created_at: None,
                name: None,
                body: "# Objective\nx\n".into(),
                citations: Vec::new(),
            },
        }
    }

    #[test]
    fn canonical_is_sorted_compact_and_omits_empties() {
        let c = canonical(&sample());
        assert!(c.starts_with(r#"{"device":{"label":"macbook-pro","node":"#), "{c}");
        assert!(!c.contains("changed\"") && !c.contains("decisions") && !c.contains(": "));
        let back: Record = serde_json::from_str(&c).unwrap();
        assert_eq!(back, sample());
        assert_eq!(id_of(&sample()).len(), 64);
        assert_eq!(id_of(&sample()), id_of_value(&serde_json::to_value(sample()).unwrap()));
    }

    #[test]
    fn canonical_value_writes_the_bytes_of_the_sorted_copy() {
        let texts = [
            r#"{"b":1,"a":{"z":[3,{"y":null,"x":true}],"é":"\u2028\"\\\n\u0001"},"A":-0.5e3,"":[]}"#,
            r#"[{"b":2,"a":1},"s",1.0,18446744073709551615,-9223372036854775808]"#,
            r#"{"k":"\ud83d\ude00","K":{},"k2":{"b":{"d":1,"c":2},"a":[[],[{}]]}}"#,
            r#""just a string""#,
            r#"{"dup":1,"dup":2}"#,
        ];
        for t in texts {
            let v: Value = serde_json::from_str(t).unwrap();
            assert_eq!(canonical_value(&v), serde_json::to_string(&sorted(&v)).unwrap(), "{t}");
        }
        let v = serde_json::to_value(sample()).unwrap();
        assert_eq!(canonical_value(&v), serde_json::to_string(&sorted(&v)).unwrap());
    }

    #[test]
    fn unknown_fields_are_refused() {
        let mut v = serde_json::to_value(sample()).unwrap();
        v["extra"] = Value::from(1);
        assert!(serde_json::from_value::<Record>(v).is_err());
    }

    #[test]
    fn bounds() {
        assert!(check_bounds(&sample()).is_ok());
        let mut r = sample();
        r.line = Some("a".repeat(64));
        assert!(check_bounds(&r).is_err());
        let mut r = sample();
        r.handover.body = " ".into();
        assert!(check_bounds(&r).is_err());
    }

    /// Every string value of `v` with its pointer, as the portability scan walks a value.
    fn strings_of(v: &Value, pointer: &str, out: &mut Vec<(String, String)>) {
        match v {
            Value::String(s) => out.push((pointer.to_string(), s.clone())),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| strings_of(x, &format!("{pointer}/{i}"), out)),
            Value::Object(m) => m.iter().for_each(|(k, x)| {
                strings_of(x, &format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")), out)
            }),
            _ => {}
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let text = || {
            proptest::string::string_regex("([a-z~/ é\"\\\\\u{1}\u{8}\u{9}\n\u{1f}\u{7f}]|\u{2028}|😀){0,12}").unwrap()
        };
        // Keys with nothing to escape (a key with an escape is taken by the general path).
        let key = || proptest::string::string_regex("([a-z~/ é]|\u{2028}|😀){0,6}").unwrap();
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            text().prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec((key(), inner), 0..5).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// A value written as this tool stores it (keys sorted, pretty-printed) reads back to
        /// its canonical form in one pass, and hands over exactly its strings.
        #[test]
        fn canonical_text_of_a_stored_value_is_its_canonical_form(v in json_value()) {
            let stored = serde_json::to_string_pretty(&sorted(&v)).unwrap();
            let mut seen = Vec::new();
            let got = canonical_text(&stored, &mut |p, t| seen.push((p.to_string(), t.to_string())));
            proptest::prop_assert_eq!(got, Ok(canonical_value(&v)));
            let mut want = Vec::new();
            strings_of(&sorted(&v), "", &mut want);
            proptest::prop_assert_eq!(seen, want);
        }
    }

    #[test]
    fn canonical_text_refuses_what_is_not_the_stored_form() {
        let read = |t: &str| canonical_text(t, &mut |_, _| {});
        assert_eq!(
            read("{\n  \"a\": [\n    1,\n    true,\n    null,\n    \"x\"\n  ],\n  \"b\": {}\n}").as_deref(),
            Ok(r#"{"a":[1,true,null,"x"],"b":{}}"#)
        );
        // A member `"a": <value>` written as the pretty printer would, with `<value>` as given.
        let member = |v: &str| format!("{{\n  \"a\": {v}\n}}");
        for v in [
            r#""\/""#,
            r#""\u0041""#,
            r#""\u001F""#,
            r#""\u000a""#,
            r#""\ud83d\ude00""#,
            "1.0",
            "1e3",
            "-0",
            "01",
            "18446744073709551616",
            "tru",
            "\"\u{1}\"",
            "[1,2]",
            "[\n    1\n   ]",
            "{\"b\":1}",
        ] {
            assert!(read(&member(v)).is_err(), "{v}");
        }
        for t in [
            "{\n  \"b\": 1,\n  \"a\": 2\n}",
            "{\n  \"a\": 1,\n  \"a\": 2\n}",
            "{\n  \"a\\u0062\": 1\n}",
            "{\n  \"a\":1\n}",
            "{\n  \"a\" : 1\n}",
            "{\n\t\"a\": 1\n}",
            "{\r\n  \"a\": 1\r\n}",
            "{\n  \"a\": 1\n} ",
            "{\n  \"a\": 1,\n}",
            "{ }",
            "{\"a\":1}",
            "",
        ] {
            assert!(read(t).is_err(), "{t:?}");
        }
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        assert!(read(&deep).is_err());
    }

    fn sample_stored() -> Vec<u8> {
        let key = crate::signing::DeviceKey::from_seed([7; 32], Some("laptop".into()), "2026-09-03T20:00:00Z");
        let r = Record { device: key.device(), ..sample() };
        stored_bytes(&key.sign(&r))
    }

    #[test]
    fn v2_holds_what_v1_may_not_and_each_is_written_only_when_needed() {
        let (p, o) = ("a".repeat(64), "b".repeat(64));
        let on_line = Record { line: Some(p.clone()), parent: Some(p.clone()), ..sample() };
        assert_eq!(on_line.schema_for(), SCHEMA);
        // Ending another head needs v2; written v1 it is refused, naming the field.
        let heal = Record { ends: vec![o.clone()], ..on_line.clone() };
        assert_eq!(heal.schema_for(), SCHEMA_V2);
        assert!(check_bounds(&heal).unwrap_err().starts_with("/ends: "), "{:?}", check_bounds(&heal));
        assert_eq!(check_bounds(&Record { schema: SCHEMA_V2.into(), ..heal.clone() }), Ok(()));
        // A record that only ends its parent carries no handover: v2, and it continues a head.
        let end = Record { schema: SCHEMA_V2.into(), handover: HandoverPart::default(), ..on_line.clone() };
        assert!(!end.has_handover() && end.needs_v2());
        assert_eq!(check_bounds(&end), Ok(()));
        let v = serde_json::to_value(&end).unwrap();
        assert!(v.get("handover").is_none() && v.get("ends").is_none(), "{v}");
        assert_eq!(serde_json::from_value::<Record>(v).unwrap(), end, "it reads back");
        let nowhere = Record { line: None, parent: None, ..end.clone() };
        assert!(check_bounds(&nowhere).unwrap_err().starts_with("/parent: "));
        assert!(check_bounds(&Record { schema: SCHEMA.into(), ..end }).unwrap_err().starts_with("/handover: "));
        // Ends are record ids, never the parent, never twice, at most MAX_ENDS.
        for bad in [vec!["x".to_string()], vec![p.clone()], vec![o.clone(), o.clone()], vec![o; MAX_ENDS + 1]] {
            let r = Record { schema: SCHEMA_V2.into(), ends: bad.clone(), ..on_line.clone() };
            assert!(check_bounds(&r).unwrap_err().starts_with("/ends"), "{bad:?}");
        }
    }

    #[test]
    fn read_stored_takes_the_stored_form_and_nothing_else() {
        let bytes = sample_stored();
        let (stored, record) = read_record(&bytes).unwrap();
        assert_eq!(stored.canonical, canonical(&record));
        assert_eq!(stored.id, id_of(&record));
        assert_eq!(stored.omitted, None);
        assert!(stored.signature.starts_with("untrusted comment: ") && stored.signature.ends_with('\n'));
        let text = String::from_utf8(bytes).unwrap();
        let record_at = text.find("\"record\"").unwrap();
        for (what, bad) in [
            ("compact", serde_json::to_string(&serde_json::from_str::<Value>(&text).unwrap()).unwrap()),
            ("no final newline", text.trim_end().to_string()),
            ("a second newline", format!("{text}\n")),
            ("CRLF", text.replace('\n', "\r\n")),
            ("an escaped slash", text.replacen("git-majordomus/", "git-majordomus\\/", 1)),
            (
                "a record key twice",
                text.replacen("\"episode\": \"none\",", "\"episode\": \"none\",\n    \"episode\": \"none\",", 1),
            ),
            ("the record twice", format!("{}\"record\": {{}},\n  {}", &text[..record_at], &text[record_at..])),
            ("an envelope key more", text.replacen("\n}\n", ",\n  \"x\": 1\n}\n", 1)),
            ("envelope keys swapped", text.replacen("\"id\"", "\"tmp\"", 1).replacen("\"public_key\"", "\"id\"", 1)),
        ] {
            assert!(read_stored(bad.as_bytes(), &mut |_, _| {}).is_err(), "{what}");
            assert!(read_record(bad.as_bytes()).is_err(), "{what}");
        }
        // A null where the stored form omits the field: read, but reported.
        let with_null = text.replacen("\"device\": {", "\"decisions\": null,\n    \"device\": {", 1);
        assert!(read_stored(with_null.as_bytes(), &mut |_, _| {}).unwrap().omitted.is_some());
        assert!(read_record(with_null.as_bytes()).unwrap_err().contains(OMITTED));
        let e = read_stored(b"{\n  \"id\": 1", &mut |_, _| {}).unwrap_err();
        assert_eq!(e.to_string(), "not in the stored form of a record at byte 10: not a string where one belongs");
    }
}
