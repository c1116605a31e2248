//! The one line the pre-push hook's sync prints (docs/SYNC.md#the-pre-push-hook): what happened to the
//! continuity records, or nothing at all when none was pending.
//! Must not touch: git, the network, the terminal (`ui` prints the line).

use crate::continuity::admission::Code;
use crate::ops::commands::continuity::sync::{PrePush, SyncReport, PUSH_REFUSED, PUSH_REJECTED, REMOTE_UNREACHABLE};

/// The hook's line (without a newline), or `None` when there is nothing to say.
pub fn line(r: &PrePush) -> Option<String> {
    match r {
        PrePush::NothingPending => None,
        PrePush::NotChosen { remote, chosen: Some(chosen) } => {
            Some(format!("majordomus: records go to {chosen}, not {remote}: continuity.remote"))
        }
        PrePush::NotChosen { remote, chosen: None } => Some(format!(
            "majordomus: records go to no remote, not {remote}: several remotes and none chosen (set continuity.remote in .ai/repo/policy.yaml)"
        )),
        PrePush::NotARemote { remote } => Some(format!(
            "majordomus: continuity not synced: {remote} is not a configured remote name (run: git majordomus continuity sync --remote <name>)"
        )),
        PrePush::Busy { remote } => Some(format!(
            "majordomus: continuity not synced with {remote}: another continuity sync or publish is running; run: git majordomus continuity sync --remote {remote}"
        )),
        PrePush::Synced(s) => Some(synced(s)),
    }
}

fn synced(s: &SyncReport) -> String {
    let remote = s.remote.as_deref().unwrap_or("the remote");
    let first = |code: Code| s.diagnostics.iter().find(|d| d.code == code).map(|d| d.message.clone());
    if let Some(m) = first(PUSH_REJECTED) {
        return format!("majordomus: continuity not published ({PUSH_REJECTED}): {m}");
    }
    if first(PUSH_REFUSED).is_some() {
        return format!(
            "majordomus: continuity not published ({PUSH_REFUSED}): {remote} kept moving; run: git majordomus continuity sync --remote {remote}"
        );
    }
    if first(REMOTE_UNREACHABLE).is_some() {
        return format!(
            "majordomus: continuity not published ({REMOTE_UNREACHABLE}): {remote} could not be reached for the push; the records stay pending"
        );
    }
    let mut line = format!("majordomus: continuity synced with {remote}: {} record(s) published", s.published);
    if s.fetched > 0 {
        line.push_str(&format!(", {} fetched", s.fetched));
    }
    line
}
