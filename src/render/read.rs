//! The short text of the read models `state`, `explain` and `lifecycle` print without `--json`
//! (docs/REFERENCE.md#surfaces): built from the same JSON value every surface returns, so the text can never
//! say something the value does not.
//! Must not touch: git, `ctx`, files, the terminal; anything the value does not say.

use serde_json::Value;

use crate::text::short;

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// One resolved record of `state` (a handover or checkpoint), or "none".
fn record(s_: &mut String, what: &str, r: &Value) {
    if r.is_null() {
        s_.push_str(&format!("{what}: none for this worktree and branch\n"));
        return;
    }
    let mut word = s(r, "divergence").to_string();
    if let Some(rw) = r.get("rewrite").filter(|v| v.is_object()) {
        let by = match s(rw, "by") {
            "unknown" => String::new(),
            b => format!(" by {b}"),
        };
        word.push_str(&format!(" (rewritten from {}{by} — {})", short(s(rw, "from")), s(&rw["proof"], "kind")));
    }
    // A resumed handover names the device and key it came from (issue 39).
    let arrived = match r.get("arrived").filter(|a| a.is_object()) {
        Some(a) => format!(
            ", arrived from {} (key {})",
            a.get("device").and_then(Value::as_str).unwrap_or("a device"),
            s(a, "key_id")
        ),
        None => String::new(),
    };
    s_.push_str(&format!(
        "{what}: {} — {}, {} ({}), {}{arrived}\n",
        s(r, "path"),
        word,
        s(r, "freshness"),
        s(r, "freshness_reason"),
        s(r, "origin")
    ));
    if let Some(na) = r.get("next_action").and_then(Value::as_str) {
        let first = na.lines().next().unwrap_or("");
        let more = na.lines().count().saturating_sub(1);
        let more = if more > 0 { format!(" (+{more} line(s))") } else { String::new() };
        s_.push_str(&format!("  Next Action: {first}{more}\n"));
    } else if let Some(w) = r.get("next_action_withheld").and_then(Value::as_str) {
        s_.push_str(&format!("  Next Action withheld: {w}\n"));
    }
}

/// `state`.
pub fn state(v: &Value) -> String {
    let mut o = format!(
        "Checkout {} on {} at {}, working tree {}\n",
        s(v, "worktree"),
        s(v, "branch"),
        short(s(v, "head")),
        s(v, "working_tree")
    );
    match v.get("session").filter(|x| !x.is_null()) {
        Some(e) => o.push_str(&format!("Episode: {} (since {})\n", s(e, "session_id"), s(e, "started_at"))),
        None => o.push_str("Episode: none open here\n"),
    }
    match v.get("task").filter(|x| !x.is_null()) {
        Some(t) => o.push_str(&format!(
            "Task: {} \"{}\" ({}, {})\n",
            s(t, "id"),
            s(t, "task"),
            s(t, "outcome"),
            s(t, "profile")
        )),
        None => o.push_str("Task: none\n"),
    }
    record(&mut o, "Handover", &v["handover"]);
    record(&mut o, "Checkpoint", &v["checkpoint"]);
    let blockers = v["blockers"].as_array().map(Vec::len).unwrap_or(0);
    o.push_str(&format!("Blockers: {blockers} open question(s)\n"));
    for f in v["findings"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        o.push_str(&format!("- {f}\n"));
    }
    o.push_str("(git majordomus state --json: the whole value, as MCP and HTTP return it)\n");
    o
}

/// `explain`: each question with its answer, reason and citations.
pub fn explain(v: &Value) -> String {
    let mut o = String::new();
    for a in v["answers"].as_array().into_iter().flatten() {
        o.push_str(&format!("{}: {} — {}\n", s(a, "question"), s(a, "answer"), s(a, "reason")));
        for c in a["citations"].as_array().into_iter().flatten() {
            o.push_str(&format!("  {} {}\n", s(c, "kind"), s(c, "path")));
        }
    }
    o
}

/// Any other read model (`lifecycle …`): its value as an outline, one scalar a line.
pub fn outline(v: &Value) -> String {
    fn walk(v: &Value, indent: usize, key: Option<&str>, o: &mut String) {
        let pad = "  ".repeat(indent);
        let label = key.map(|k| format!("{k}: ")).unwrap_or_else(|| "- ".into());
        match v {
            Value::Object(m) if m.is_empty() => o.push_str(&format!("{pad}{label}(none)\n")),
            Value::Array(a) if a.is_empty() => o.push_str(&format!("{pad}{label}(none)\n")),
            Value::Object(m) => {
                if key.is_some() || indent > 0 {
                    o.push_str(&format!("{pad}{}\n", label.trim_end()));
                }
                let inner = if key.is_some() || indent > 0 { indent + 1 } else { indent };
                for (k, x) in m {
                    walk(x, inner, Some(k), o);
                }
            }
            Value::Array(a) => {
                o.push_str(&format!("{pad}{}\n", label.trim_end()));
                for x in a {
                    match x {
                        // An object in a list: its first field on the `- ` line, the rest under it.
                        Value::Object(m) if !m.is_empty() => {
                            let mut inner = String::new();
                            for (k, y) in m {
                                walk(y, indent + 2, Some(k), &mut inner);
                            }
                            let deeper = "  ".repeat(indent + 2);
                            let item = format!("{pad}  - {}", &inner[deeper.len()..]);
                            o.push_str(&item);
                        }
                        _ => walk(x, indent + 1, None, o),
                    }
                }
            }
            Value::Null => o.push_str(&format!("{pad}{label}none\n")),
            Value::String(t) => o.push_str(&format!("{pad}{label}{t}\n")),
            other => o.push_str(&format!("{pad}{label}{other}\n")),
        }
    }
    let mut o = String::new();
    walk(v, 0, None, &mut o);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outline_is_one_scalar_a_line() {
        let v = serde_json::json!({"a": 1, "b": {"c": "x"}, "d": [], "e": null, "f": [{"g": 1, "h": [2]}, 3]});
        assert_eq!(outline(&v), "a: 1\nb:\n  c: x\nd: (none)\ne: none\nf:\n  - g: 1\n    h:\n      - 2\n  - 3\n");
    }
}
