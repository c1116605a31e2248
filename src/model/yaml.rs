//! Emitting YAML scalars exactly, and reading loosely-typed scalars back.

use serde_yaml::Value;

/// A double-quoted YAML scalar (JSON string escaping is valid YAML).
pub fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A plain scalar when that reads back as the same string, else a double-quoted one.
pub fn scalar(s: &str) -> String {
    let plain_chars = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-' | '+'))
        && !s.starts_with(['-', '.', '+']);
    if plain_chars {
        if let Ok(Value::String(back)) = serde_yaml::from_str::<Value>(s) {
            if back == s {
                return s.to_string();
            }
        }
    }
    quoted(s)
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
        for s in ["lib/a", "a b", "true", "1.0", "null", "-x", "über", "x: y", "#c", "a\"b", "~", ""] {
            let y = format!("k: {}\n", scalar(s));
            let m: serde_yaml::Mapping = serde_yaml::from_str(&y).unwrap();
            assert_eq!(get(&m, "k").as_deref(), Some(s), "{y}");
        }
        assert_eq!(scalar("lib/a"), "lib/a");
        assert_eq!(scalar("true"), "\"true\"");
    }
}
