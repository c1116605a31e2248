//! The continuity record (docs/REFERENCE.md#continuity-record): its fields, canonical form, id and bounds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::oid::RecordId;

/// The schema string of this version.
pub const SCHEMA: &str = "majordomus-continuity/v1";
/// A stored record (the whole envelope file) is at most this large.
pub const MAX_STORED_BYTES: usize = 160 * 1024;
/// A handover body is at most this large.
pub const MAX_BODY_BYTES: usize = 32 * 1024;
/// Identifier strings are at most this long.
pub const MAX_IDENT_CHARS: usize = 256;
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    pub handover: HandoverPart,
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

/// The canonical form of the JSON text `text` (a record as stored, pretty-printed), read in one
/// pass without building a value, when `text` is canonical but for insignificant whitespace:
/// every object's keys in strictly increasing byte order (so none twice) and without escapes,
/// every string escaped as serde_json escapes it, every number a plain integer within 64 bits.
/// It then equals [`canonical_value`] of the parsed text byte for byte. `None` for anything
/// else: the caller takes the general path (parse, then canonicalise). `each_string` is called
/// with every string value (unescaped) and its JSON pointer (RFC 6901), as they are met.
pub fn canonical_text(text: &str, each_string: &mut dyn FnMut(&str, &str)) -> Option<String> {
    let mut c = Canon { b: text.as_bytes(), at: 0, out: Vec::with_capacity(text.len()), pointer: String::new() };
    c.value(each_string, 0)?;
    c.blank();
    (c.at == c.b.len()).then_some(())?;
    String::from_utf8(c.out).ok()
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

/// How deep [`canonical_text`] follows nested values (a record is four levels deep).
const CANON_DEPTH: usize = 32;

/// The reader behind [`canonical_text`]: `b` read from `at`, the canonical bytes in `out`, the
/// pointer of the value being read in `pointer`.
struct Canon<'a> {
    b: &'a [u8],
    at: usize,
    out: Vec<u8>,
    pointer: String,
}

impl<'a> Canon<'a> {
    fn blank(&mut self) {
        while self.b.get(self.at).is_some_and(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    /// The next byte after blanks, if it is `c` (copied).
    fn eat(&mut self, c: u8) -> Option<()> {
        self.blank();
        (self.b.get(self.at) == Some(&c)).then_some(())?;
        self.at += 1;
        self.out.push(c);
        Some(())
    }

    /// Whether the next byte after blanks is `c` (not read).
    fn next_is(&mut self, c: u8) -> bool {
        self.blank();
        self.b.get(self.at) == Some(&c)
    }

    fn value(&mut self, f: &mut dyn FnMut(&str, &str), depth: usize) -> Option<()> {
        self.blank();
        if depth > CANON_DEPTH {
            return None;
        }
        let b: &'a [u8] = self.b;
        let at = self.pointer.len();
        match *b.get(self.at)? {
            b'{' => {
                self.eat(b'{')?;
                if self.next_is(b'}') {
                    return self.eat(b'}');
                }
                let mut last: Option<&'a [u8]> = None;
                loop {
                    self.blank();
                    let (start, end) = self.string()?;
                    let key = &b[start..end];
                    // A key with an escape would have to be compared unescaped: not taken here.
                    if key.contains(&b'\\') || last.is_some_and(|l| l >= key) {
                        return None;
                    }
                    last = Some(key);
                    push_pointer_key(&mut self.pointer, std::str::from_utf8(key).ok()?);
                    self.eat(b':')?;
                    self.value(f, depth + 1)?;
                    self.pointer.truncate(at);
                    if !self.next_is(b',') {
                        return self.eat(b'}');
                    }
                    self.eat(b',')?;
                }
            }
            b'[' => {
                self.eat(b'[')?;
                if self.next_is(b']') {
                    return self.eat(b']');
                }
                for i in 0usize.. {
                    use std::fmt::Write as _;
                    let _ = write!(self.pointer, "/{i}");
                    self.value(f, depth + 1)?;
                    self.pointer.truncate(at);
                    if !self.next_is(b',') {
                        break;
                    }
                    self.eat(b',')?;
                }
                self.eat(b']')
            }
            b'"' => {
                let (start, end) = self.string()?;
                let raw = &b[start..end];
                if raw.contains(&b'\\') {
                    let text: String = serde_json::from_slice(&b[start - 1..=end]).ok()?;
                    f(&self.pointer, &text);
                } else {
                    f(&self.pointer, std::str::from_utf8(raw).ok()?);
                }
                Some(())
            }
            c @ (b't' | b'f' | b'n') => {
                let word: &[u8] = match c {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                b[self.at..].starts_with(word).then_some(())?;
                self.at += word.len();
                self.out.extend_from_slice(word);
                Some(())
            }
            _ => self.integer(),
        }
    }

    /// A string at `at`, copied with its quotes; the range of its text between them (escapes
    /// as written). Only serde_json's own escapes are taken: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
    /// `\t`, and `\u00xx` (lowercase hex) for the other control characters.
    fn string(&mut self) -> Option<(usize, usize)> {
        let b = self.b;
        (b.get(self.at) == Some(&b'"')).then_some(())?;
        let start = self.at + 1;
        let mut i = start;
        loop {
            match *b.get(i)? {
                b'"' => break,
                b'\\' => match *b.get(i + 1)? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        let hex = b.get(i + 2..i + 6)?;
                        let lower = hex.iter().all(|&c| crate::hex::nibble(c).is_some());
                        let code = u8::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()?;
                        let short = matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
                        if &hex[..2] != b"00" || !lower || code >= 0x20 || short {
                            return None;
                        }
                        i += 6;
                    }
                    _ => return None,
                },
                c if c < 0x20 => return None,
                _ => i += 1,
            }
        }
        self.out.extend_from_slice(&b[self.at..=i]);
        self.at = i + 1;
        Some((start, i))
    }

    /// A plain integer: `0`, or an optional `-` and digits without a leading zero, within 64
    /// bits (serde_json reads anything else as a float, written back otherwise).
    fn integer(&mut self) -> Option<()> {
        let b = self.b;
        let start = self.at;
        let sign = usize::from(b.get(start) == Some(&b'-'));
        let digits = b[start + sign..].iter().take_while(|c| c.is_ascii_digit()).count();
        let end = start + sign + digits;
        let text = std::str::from_utf8(&b[start..end]).ok()?;
        let leading_zero = digits > 1 && b[start + sign] == b'0';
        if digits == 0 || leading_zero || text == "-0" || matches!(b.get(end), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        if text.parse::<u64>().is_err() && text.parse::<i64>().is_err() {
            return None;
        }
        self.out.extend_from_slice(text.as_bytes());
        self.at = end;
        Some(())
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

/// Structural bounds a record must respect (docs/REFERENCE.md#continuity-record); the first violation, as text.
pub fn check_bounds(r: &Record) -> Result<(), String> {
    let ident = |name: &str, v: &str| -> Result<(), String> {
        if v.chars().count() > MAX_IDENT_CHARS || v.chars().any(char::is_control) {
            return Err(format!("{name}: longer than {MAX_IDENT_CHARS} characters or holds control characters"));
        }
        Ok(())
    };
    if r.schema != SCHEMA {
        return Err(format!("schema: expected {SCHEMA}"));
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
    if r.handover.body.trim().is_empty() {
        return Err("/handover/body: empty".into());
    }
    if r.handover.body.len() > MAX_BODY_BYTES {
        return Err(format!("/handover/body: {} bytes, cap {MAX_BODY_BYTES}", r.handover.body.len()));
    }
    if r.decisions.len() > MAX_DECISIONS || r.decisions.iter().any(|d| d.text.len() > MAX_DECISION_TEXT) {
        return Err(format!("/decisions: more than {MAX_DECISIONS} or a text over {MAX_DECISION_TEXT} bytes"));
    }
    Ok(())
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
            proptest::prop_assert_eq!(got, Some(canonical_value(&v)));
            let mut want = Vec::new();
            strings_of(&sorted(&v), "", &mut want);
            proptest::prop_assert_eq!(seen, want);
        }
    }

    #[test]
    fn canonical_text_refuses_what_is_not_canonical_but_for_whitespace() {
        let none = |t: &str| canonical_text(t, &mut |_, _| {});
        assert_eq!(none("{ \"a\" : [1, true, null, \"x\"] }\n").as_deref(), Some(r#"{"a":[1,true,null,"x"]}"#));
        for t in [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a\u0062":1}"#,
            r#"{"a":"\/"}"#,
            r#"{"a":"\u0041"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a":"\u000a"}"#,
            r#"{"a":"\ud83d\ude00"}"#,
            r#"{"a":1.0}"#,
            r#"{"a":1e3}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":18446744073709551616}"#,
            r#"{"a":1} x"#,
            r#"{"a":tru}"#,
            "{\"a\":\"\u{1}\"}",
            r#"{"a":1,}"#,
            "",
        ] {
            assert_eq!(none(t), None, "{t}");
        }
        // Each of those the general path reads, where it is JSON at all, to another text.
        for t in [r#"{"b":1,"a":2}"#, r#"{"a":"\/"}"#, r#"{"a":-0}"#] {
            let v: Value = serde_json::from_str(t).unwrap();
            assert_ne!(canonical_value(&v), t.replace(' ', ""), "{t}");
        }
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        assert_eq!(none(&deep), None);
    }
}
