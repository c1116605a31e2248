//! What an agent hook says on stderr (docs/REFERENCE.md#hook-events): each receipt, skip,
//! failure and dry-run step `ops::hook` reports as a value, as the line the host's log shows.
//! Must not touch: git, `ctx`, the briefing (its words are `render::briefing`).

use crate::ops::hook::{DryRun, Said, Skip};

/// One stderr line of a hook.
pub fn say(said: &Said) -> String {
    match said {
        Said::UnknownProvider { provider, known } => {
            format!("majordomus: unknown provider {provider:?}; known: {}", known.join(", "))
        }
        Said::NoEvent { provider, event, known } => {
            format!("majordomus: {provider} has no {event:?} event; known: {}", known.join(", "))
        }
        Said::NotRecorded { provider, event, reason } => {
            format!("majordomus: {provider} {event} hook: {reason}; nothing recorded")
        }
        Said::NoLayer { provider, event } => format!(
            "majordomus: {provider} {event} hook: no majordomus layer in this repository; nothing recorded (run git majordomus init)"
        ),
        Said::BadPayload { provider, event, problem, key } => format!(
            "majordomus: {provider} {event} hook: {problem}; the event is still recorded, under session key {key}"
        ),
        Said::Failed { provider, event, reason } => format!("majordomus: {provider} {event} hook: {reason}"),
        Said::NoReceipt { provider, event, reason } => {
            format!("majordomus: {provider} {event} hook: the receipt could not be written: {reason}")
        }
        Said::SessionKept { id, since } => format!("session {id} already open here since {since}; kept"),
        Said::SessionOpened { id, at } => format!("session {id} opened at {at}"),
        Said::Server(server) => format!("Shared server: {server}"),
        Said::Checkpoint(path) => format!("checkpoint: {path}"),
        Said::CheckpointSkipped(skip) => format!("checkpoint: skipped — {}", why(*skip)),
        Said::NoEpisode(key) => no_episode(key),
        Said::Handover(path) => format!("handover: {path}"),
        Said::HandoverSkipped(skip) => format!("handover: skipped — {}", why(*skip)),
        Said::SessionClosed { id, outcome, path } => format!("session {id} {outcome}: {path}"),
        Said::Warning(w) => format!("warning: {w}"),
        Said::DryRun(DryRun::Receipt { provider, event, key }) => {
            format!("dry run ({provider} {event}): would append provider.event.received for session key {key}")
        }
        Said::DryRun(step) => format!("dry run: {}", dry_run(step)),
    }
}

/// Why a derived record is skipped, after `skipped — `.
fn why(skip: Skip) -> &'static str {
    match skip {
        Skip::Empty => "nothing happened in this episode since the last record (same head, same tree by content)",
        Skip::Unchanged => "nothing changed since the last checkpoint (same head, same working tree)",
        Skip::Finished => "the task is finished: nothing to hand over",
        Skip::AuthoredNewer => "an authored handover is newer than this episode's last activity",
    }
}

fn no_episode(key: &str) -> String {
    format!("end: no open episode for {key}; nothing to close")
}

fn dry_run(step: &DryRun) -> String {
    let checkpoint = |last: bool| if last { "a final derived checkpoint" } else { "a derived checkpoint" };
    match step {
        DryRun::Receipt { key, .. } => format!("would append provider.event.received for session key {key}"),
        DryRun::KeepEpisode(key) => format!("would keep the open episode sessions-open/{key}.yaml"),
        DryRun::OpenEpisode(key) => format!("would open an episode sessions-open/{key}.yaml"),
        DryRun::Briefing => "would print the briefing".into(),
        DryRun::Checkpoint { last, write: true } => format!("would write {}", checkpoint(*last)),
        DryRun::Checkpoint { last, write: false } => {
            format!("would skip {}: nothing changed since the last checkpoint", checkpoint(*last))
        }
        DryRun::Knowledge => "would derive knowledge".into(),
        DryRun::Handover => "would write a derived handover".into(),
        DryRun::HandoverSkipped(skip) => format!("would skip the derived handover: {}", why(*skip)),
        DryRun::Close(outcome) => format!("would close the episode as {outcome}"),
        DryRun::NoEpisode(key) => no_episode(key),
    }
}
