//! The text of `history` (docs/REFERENCE.md#history): one line per ledger event, and the trailer.
//! Must not touch: git, `ctx`, reading the ledger (`queries::history` does), the terminal.

use std::path::Path;

use serde_json::Value;

use crate::ops::queries::history::Matched;
use crate::store::ledger::{Line, Pairs};
use crate::text::short;

/// One event: `<ts>  <event:19> <task or -:22> <short:8> <detail>` (trailing spaces trimmed).
pub fn line(l: &Line) -> String {
    let empty = Pairs::default();
    let p = l.pairs.as_ref().unwrap_or(&empty);
    let ts = p.str("ts").unwrap_or("-");
    let event = p.str("event").unwrap_or("-");
    let task = p.get("task_id").map(text).unwrap_or_else(|| "-".into());
    let head = p.str("head").map(short).unwrap_or("-");
    let s = format!("{}  {:<19} {:<22} {:<8} {}", ts, event, task, head, detail(p));
    s.trim_end().to_string()
}

/// The trailer under a list the limit cut: `(L of N events; --all for everything)`, or
/// `(the newest L events; --all for everything)` when the rest was not counted; none when
/// nothing was cut.
pub fn trailer(shown: usize, matched: Matched) -> Option<String> {
    match matched {
        Matched::Exact(n) if n > shown => Some(format!("({shown} of {n} events; --all for everything)")),
        Matched::Exact(_) => None,
        Matched::Uncounted => Some(format!("(the newest {shown} events; --all for everything)")),
    }
}

/// A JSON value as shown: strings bare, everything else as JSON.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The last path component of a string value.
fn basename(v: &Value) -> String {
    let t = text(v);
    Path::new(&t).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(t)
}

/// The event-specific detail column.
pub fn detail(p: &Pairs) -> String {
    let field = |k: &str| p.get(k).map(text).unwrap_or_default();
    // The second `event` key of provider receipts (readers take the first as the event name).
    let second_event = || p.0.iter().filter(|(k, _)| k == "event").nth(1).map(|(_, v)| text(v)).unwrap_or_default();
    match p.str("event").unwrap_or("") {
        "task.started" => format!("profile={} scope={}", field("profile"), field("scope")),
        "task.finished" => {
            let mut s = format!("outcome={}", field("outcome"));
            if let Some(exit) = p.get("verify").and_then(|v| v.get("exit")) {
                s.push_str(&format!(" verify_exit={}", text(exit)));
            }
            s
        }
        "worktree.adopted" => format!("{} task={}", field("worktree"), field("task_id")),
        "task.resumed" => format!("was={} from={}", field("previous_outcome"), field("from")),
        "task.handed_over" => {
            let name = p.get("handover_path").map(basename).unwrap_or_else(|| "-".into());
            format!("{name} closed={}", p.get("closed").map(text).unwrap_or_else(|| "false".into()))
        }
        "task.checkpoint" => p.get("checkpoint_path").map(basename).unwrap_or_else(|| "(no body)".into()),
        "decision.recorded" => field("decision"),
        "question.opened" => field("question"),
        "question.resolved" => format!("{} -> {}", field("question"), field("answer")),
        "ledger.rotated" => format!("archived={} kept={}", field("archived"), field("kept")),
        "session.started" => match p.get("worker") {
            Some(w) => format!("owner={} worker={}", field("owner"), text(w)),
            None => format!("owner={}", field("owner")),
        },
        "session.closed" => {
            let name = p.get("session_path").map(basename).unwrap_or_default();
            format!("outcome={} {name}", field("outcome"))
        }
        "provider.event.received" => format!("{} {}", field("provider"), second_event()),
        "provider.event.failed" => format!("{} {}: {}", field("provider"), second_event(), field("reason")),
        "knowledge.derived" => {
            format!("written={} unchanged={} skipped={}", field("written"), field("unchanged"), field("skipped"))
        }
        "knowledge.promoted" => format!("{} {}", field("id"), field("path")),
        "knowledge.rejected" => format!("{} {}", field("id"), field("reason")),
        _ => String::new(),
    }
    .trim()
    .to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::store::ledger::Line;

    fn one(raw: &str) -> String {
        line(&Line::parse(Some(1), raw.as_bytes()))
    }

    #[test]
    fn columns_and_details() {
        let head = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            one(&format!(
                r#"{{"ts":"2026-09-03T20:00:00Z","event":"task.started","head":"{head}","branch":"main","task_id":"t-1","profile":"routine","scope":"lib doc"}}"#
            )),
            "2026-09-03T20:00:00Z  task.started        t-1                    0123456  profile=routine scope=lib doc"
        );
        assert_eq!(
            one(r#"{"ts":"2026-09-03T20:00:00Z","event":"task.checkpoint","head":"NONE"}"#),
            "2026-09-03T20:00:00Z  task.checkpoint     -                      NONE     (no body)"
        );
        assert!(one(r#"{"ts":"t","event":"task.resumed","head":"NONE","task_id":"t","previous_outcome":"handed_over","from":"archive"}"#).ends_with(" was=handed_over from=archive"));
        assert!(one(r#"{"ts":"t","event":"task.handed_over","head":"NONE","task_id":"t","handover_path":".ai/local/state/handovers/x.md","closed":true}"#).ends_with(" x.md closed=true"));
        assert!(one(r#"{"ts":"t","event":"task.finished","head":"NONE","outcome":"completed","verify":{"command":"true","exit":0,"seconds":1}}"#).ends_with(" outcome=completed verify_exit=0"));
        assert!(one(r#"{"ts":"t","event":"task.finished","head":"NONE","outcome":"partial","verify":null}"#)
            .ends_with(" outcome=partial"));
        assert!(one(r#"{"ts":"t","event":"question.resolved","head":"NONE","question":"q","answer":"a"}"#)
            .ends_with(" q -> a"));
        assert!(one(r#"{"ts":"t","event":"ledger.rotated","head":"NONE","archived":2,"kept":3}"#)
            .ends_with(" archived=2 kept=3"));
        assert!(one(
            r#"{"ts":"t","event":"provider.event.received","head":"NONE","provider":"claude-code","event":"start"}"#
        )
        .ends_with(" claude-code start"));
    }

    #[test]
    fn trailer_text() {
        assert_eq!(trailer(2, Matched::Exact(5)).unwrap(), "(2 of 5 events; --all for everything)");
        assert_eq!(trailer(2, Matched::Exact(2)), None);
        assert_eq!(trailer(2, Matched::Uncounted).unwrap(), "(the newest 2 events; --all for everything)");
    }
}
