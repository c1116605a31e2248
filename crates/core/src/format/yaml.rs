//! YAML scalars of the record format: emitting each string so it reads back equal, and reading
//! loosely-typed scalars back as text.
//!
//! Owns: the quoting rule of every front-matter writer ([`super::Writer`]).
//! Must not touch: files, whole documents (see [`super`]).

use serde_yaml::Value;

/// A double-quoted YAML scalar. JSON's escaping, plus `\uXXXX` for every character a YAML
/// reader would not take back as itself inside double quotes: the C1 controls and DEL (not
/// printable in YAML), U+0085, U+2028 and U+2029 (line breaks to a YAML 1.1 reader, which folds
/// them and the spaces around them), and the byte-order mark and the two non-characters.
pub fn quoted(s: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A character written as `\uXXXX` inside double quotes (see [`quoted`]).
pub(super) fn needs_escape(c: char) -> bool {
    matches!(c, '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// `s` plain when it is made of alphanumerics and `extra` only, starts with neither `-`, `.`
/// nor `+`, and reads back as the same string (so `null`, `true`, `1e3` and `~` are quoted);
/// else double-quoted. The one rule every front-matter writer follows.
fn plain_or_quoted(s: &str, extra: &[char]) -> String {
    let plain_chars = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
        && !s.starts_with(['-', '.', '+', ':']);
    if plain_chars {
        if let Ok(Value::String(back)) = serde_yaml::from_str::<Value>(s) {
            if back == s {
                return s.to_string();
            }
        }
    }
    quoted(s)
}

/// A plain scalar when that reads back as the same string, else a double-quoted one.
pub fn scalar(s: &str) -> String {
    plain_or_quoted(s, &['.', '_', '/', '-', '+'])
}

/// A flow sequence `[a, b]` whose items read back as the same strings (`kind:value` items stay
/// plain, as docs/REFERENCE.md#knowledge writes them).
pub fn flow(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|i| plain_or_quoted(i, &['.', '_', '/', '-', ':'])).collect();
    format!("[{}]", items.join(", "))
}

/// A block list (`key:\n  - a\n`) or `key: []`.
pub fn list(key: &str, items: &[String]) -> String {
    if items.is_empty() {
        return format!("{key}: []\n");
    }
    let mut s = format!("{key}:\n");
    for i in items {
        s.push_str("  - ");
        s.push_str(&scalar(i));
        s.push('\n');
    }
    s
}

/// Reads a scalar as text: strings as they are, numbers and booleans printed.
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Reads `key` of a mapping as text.
pub fn get(map: &serde_yaml::Mapping, key: &str) -> Option<String> {
    map.get(key).and_then(text)
}

/// A list field of a typed front matter (`#[serde(default, deserialize_with = "list_field")]`):
/// items read as texts like [`get_list`] (a lone scalar is a one-item list, `null` none).
pub fn list_field<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match <Option<Value> as serde::Deserialize>::deserialize(d)? {
        Some(Value::Sequence(s)) => s.iter().filter_map(text).collect(),
        Some(v) => text(&v).into_iter().collect(),
        None => Vec::new(),
    })
}

/// Reads `key` of a mapping as a list of texts (a lone scalar is a one-item list).
pub fn get_list(map: &serde_yaml::Mapping, key: &str) -> Vec<String> {
    match map.get(key) {
        Some(Value::Sequence(s)) => s.iter().filter_map(text).collect(),
        Some(v) => text(v).into_iter().collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_round_trip() {
        let separators = ["\u{2028} ", " \u{2029}x", "\u{85} ", "a\u{feff}b", "\u{7f}\u{9f}", "\0\u{1}"];
        for s in ["lib/a", "a b", "true", "1.0", "null", "-x", "über", "x: y", "#c", "a\"b", "~", ""]
            .iter()
            .chain(&separators)
        {
            let y = format!("k: {}\n", scalar(s));
            let m: serde_yaml::Mapping = serde_yaml::from_str(&y).unwrap();
            assert_eq!(get(&m, "k").as_deref(), Some(*s), "{y}");
            let q: serde_yaml::Mapping = serde_yaml::from_str(&format!("k: {}\n", quoted(s))).unwrap();
            assert_eq!(get(&q, "k").as_deref(), Some(*s), "{}", quoted(s));
        }
        assert_eq!(scalar("lib/a"), "lib/a");
        assert_eq!(scalar("true"), "\"true\"");
        assert_eq!(
            flow(&["session:abc".into(), "derived".into(), "1e3".into(), "null".into()]),
            r#"[session:abc, derived, "1e3", "null"]"#
        );
    }

    fn reads_back(yaml: &str) -> serde_yaml::Mapping {
        serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("{e}: {yaml}"))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Every string the writers emit reads back equal: plain, quoted, block and flow lists.
        #[test]
        fn every_string_round_trips(
            s in proptest::prop_oneof![
                proptest::strategy::Just(String::new()),
                "(null|true|false|yes|no|on|off|~|1e3|0x1F|\\.inf|-\\.5|0o7|1_000|2026-09-03)",
                "[ -~]{0,16}",
                "\\PC{0,16}",
                "[a-z:/.#_+-]{0,10}( |: |\n|\t|  )?[a-z:#-]{0,6}",
            ],
            items in proptest::collection::vec("\\PC{0,10}|(null|1e3|~|true|a:b|: x|#x)", 0..4),
        ) {
            let m = reads_back(&format!("k: {}\nq: {}\n", scalar(&s), quoted(&s)));
            proptest::prop_assert_eq!(get(&m, "k"), Some(s.clone()));
            proptest::prop_assert_eq!(get(&m, "q"), Some(s.clone()));
            let m = reads_back(&format!("{}f: {}\n", list("b", &items), flow(&items)));
            proptest::prop_assert_eq!(get_list(&m, "b"), items.clone());
            proptest::prop_assert_eq!(get_list(&m, "f"), items);
        }
    }
}
