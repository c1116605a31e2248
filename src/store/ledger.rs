//! The append-only ledger `ledger.jsonl` (SPEC §6.6): building lines, appending under a lock,
//! reading them back with duplicate keys preserved (readers take the FIRST `event` key).

use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::atomic::{append, guard, read_opt, Lock};
use super::Layout;
use crate::error::{Error, Result};
use crate::model::events::is_registered;

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
pub fn build_line(env: &Envelope<'_>, event: &str, fields: &[(&str, Value)]) -> Result<String> {
    if !is_registered(event) {
        return Err(Error::io(format!("internal: unregistered ledger event {event:?}")));
    }
    let mut pairs: Vec<(&str, Value)> = vec![
        ("ts", Value::from(env.ts)),
        ("event", Value::from(event)),
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
    append(&path, &bytes)
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
    /// 1-based line number.
    pub number: usize,
    /// The line verbatim (without its newline).
    pub raw: String,
    /// The parsed object, or `None` when the line is not a JSON object.
    pub pairs: Option<Pairs>,
}

impl Line {
    /// The first `event` key, when the line parses.
    pub fn event(&self) -> Option<&str> {
        self.pairs.as_ref()?.str("event")
    }
    /// The `ts` key, when the line parses.
    pub fn ts(&self) -> Option<&str> {
        self.pairs.as_ref()?.str("ts")
    }
    /// Whether the line parses and carries both `ts` and `event`.
    pub fn is_valid(&self) -> bool {
        self.ts().is_some() && self.event().is_some()
    }
}

/// Reads every line (blank lines skipped); `Ok(None)` when there is no ledger yet.
pub fn read_all(path: &Path) -> Result<Option<Vec<Line>>> {
    let Some(text) = read_opt(path)? else { return Ok(None) };
    Ok(Some(parse_lines(&text)))
}

/// Parses ledger text into lines.
pub fn parse_lines(text: &str) -> Vec<Line> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| Line { number: i + 1, raw: l.to_string(), pairs: serde_json::from_str::<Pairs>(l).ok() })
        .collect()
}

/// The ledger rank of each name: the number of the LAST line whose text contains it (0 when none).
///
/// Record names are made of `[A-Za-z0-9._-]` only, so each line is cut into maximal runs of
/// those characters and every run is looked up: one pass over the ledger whatever the number of
/// names. A name embedded in a longer run (never the case for our paths, which separate names by
/// `/` and quotes) is found by the slower substring check, which runs only for names not found.
pub fn ranks(path: &Path, names: &[&str]) -> Result<Vec<usize>> {
    let mut out = vec![0; names.len()];
    if names.is_empty() {
        return Ok(out);
    }
    let Some(text) = read_opt(path)? else { return Ok(out) };
    let index: std::collections::HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    for (i, line) in text.lines().enumerate() {
        for token in line.split(|c: char| !is_name_char(c)) {
            if let Some(&j) = index.get(token) {
                out[j] = i + 1;
            }
        }
    }
    for (j, n) in names.iter().enumerate() {
        if out[j] == 0 {
            if let Some((i, _)) = text.lines().enumerate().filter(|(_, l)| l.contains(n)).last() {
                out[j] = i + 1;
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
            "provider.event.received",
            &[("provider", "claude-code".into()), ("event", "start".into())],
        )
        .unwrap();
        assert!(l.starts_with(r#"{"ts":"2026-09-03T19:30:12Z","event":"provider.event.received","head":"NONE","branch":"main","by":"git-majordomus/"#));
        let lines = parse_lines(&l);
        assert_eq!(lines[0].event(), Some("provider.event.received"));
        assert!(build_line(&env, "no.such", &[]).is_err());
    }
}
