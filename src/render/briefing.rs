//! The start-hook briefing's words (docs/REFERENCE.md#briefing): each fact `ops` gathers
//! ([`Said`]) as the line a new episode reads, and the overflow line of a trimmed briefing.
//! Must not touch: git, `ctx`, the budget (the hook applies it to these lines).

use crate::ops::services::briefing::{By, Operation, Said, Words};

/// The briefing in English.
#[derive(Debug, Clone, Copy, Default)]
pub struct Briefing;

impl Words for Briefing {
    fn say(&self, said: &Said) -> String {
        match said {
            Said::Header => "## Majordomus — what this repository already knows".into(),
            Said::Episode { episode, branch, head, working_tree } => format!(
                "Episode {}, on {branch} at {head}, working tree {working_tree}.",
                episode.as_deref().unwrap_or("(none open)")
            ),
            Said::Operation(op) => operation(op),
            Said::Offered { branch, name, origin, label } => format!(
                "Offered, not resolved as this checkout's: the newest handover of {branch}, {name} ({origin}, {label})."
            ),
            Said::OfferedNextAction(first) => format!("  Its Next Action: {first}"),
            Said::OthersOpen(n) => format!("Also open in this checkout: {n} other episode(s)."),
            Said::OtherEpisode { host, id, opened, activity } => format!(
                "- {host} episode {id}, opened {opened}, last activity {}",
                activity.as_deref().unwrap_or("none in the ledger's tail")
            ),
            Said::MoreOthers(n) => format!("- … and {n} more (git majordomus session status)"),
            Said::Task { id, outcome, profile, task, landed: Some((branch, where_)) } => format!(
                "Task {id} ({outcome} on {branch}, profile {profile}): {task} — its work {where_}: nothing left to do here but `git majordomus finish --outcome completed`."
            ),
            Said::Task { id, outcome, profile, task, landed: None } => {
                format!("Task {id} ({outcome}, profile {profile}): {task}")
            }
            Said::Scope(scope) => format!("Scope: {}", scope.join(", ")),
            Said::ForeignTask(worktree) => {
                format!("No task here: the task record names another checkout ({worktree}).")
            }
            Said::NoTask => "No task record: checkpoints and handovers are still written for this episode.".into(),
            Said::Server(server) => format!("Shared server: {server}"),
            Said::MeshOffers(n) => {
                format!("Mesh: {n} resumable handover(s) from other devices — run git majordomus continuity plan")
            }
            Said::Arrived { device, key_id, age_minutes, record, remote } => format!(
                "Arrived: a newer handover for this branch from {device} (key {key_id}), {}, record {record} on {remote} — run git majordomus continuity sync, then git majordomus continuity plan",
                age_minutes.map_or_else(|| "age unknown".to_string(), |m| format!("{m} min old"))
            ),
            Said::Kept(sentence) => sentence.clone(),
            Said::Blocked(n) => format!(
                "BLOCKED: {n} open question(s) in this checkout; finish --outcome completed is refused until each is resolved."
            ),
            Said::Question { question, task } => format!("- {question} ({task})"),
            Said::KnowledgeHere(ids) => {
                format!("Knowledge: {} candidate(s) awaiting review on this branch: {}", ids.len(), ids.join(", "))
            }
            Said::KnowledgeUnattributed(ids) => {
                format!("Knowledge: {} candidate(s) whose episode is unknown here: {}", ids.len(), ids.join(", "))
            }
            Said::NoHandover => {
                "No relevant handover for this worktree and branch; absence is the answer, not a stale match.".into()
            }
            Said::Handover { path, matched, git_state, age, origin, arrived } => {
                let origin = match arrived {
                    Some(a) => format!("{origin}, arrived from {a}"),
                    None => origin.clone(),
                };
                format!("Handover {path} ({matched}, {git_state}, {age}, {origin}).")
            }
            Said::PassedOver(name) => {
                format!("A newer derived handover ({name}) only restates it: the authored one is shown.")
            }
            Said::Untrusted(git_state) => {
                format!("Its commit is not in this history ({git_state}): trust git, not the record.")
            }
            Said::History { label, age, reason } => format!(
                "It is history ({label}, {age}): {reason}. Its next action is withheld; read it with git majordomus handover --resolve."
            ),
            Said::NextActionHead(Some(device)) => format!("Its Next Action (written on {device}):"),
            Said::NextActionHead(None) => "Its Next Action:".into(),
            Said::NextActionLine(line) => format!("  {line}"),
            Said::NextActionMore(n) => format!("  ... {n} more line(s) in the handover"),
            Said::CheckFirst(moved) => format!("check first: {}", moved.join("; ")),
            Said::Checkpoint { path, label, age } => format!(
                "Newest authored checkpoint {path} ({label}, {age}); read it with git majordomus checkpoint --show."
            ),
            Said::ContextHint => {
                "Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.".into()
            }
            Said::AskHandover => "Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).".into(),
        }
    }

    fn overflow(&self, n: usize, by: &By) -> String {
        let by = match by {
            By::Lines => "session.briefing_budget_lines".to_string(),
            By::PolicyChars => "session.briefing_budget_chars".to_string(),
            By::Host { title, max, bytes } => {
                format!("{title}'s {max}-{} hook output cap", if *bytes { "byte" } else { "character" })
            }
        };
        format!("... {n} more line(s) withheld by {by}; run `git majordomus context` for the whole briefing.")
    }
}

/// What git has in progress and how it ends.
fn operation(op: &Operation) -> String {
    let onto = |c: &Option<String>| c.as_deref().map(|c| format!(" ({c})")).unwrap_or_default();
    let (what, how) = match op {
        Operation::Rebase { branch, onto: o } => (
            format!("a rebase of {}{}", branch.as_deref().unwrap_or("a detached HEAD"), onto(o)),
            "`git status`, then `git rebase --continue` or `git rebase --abort`",
        ),
        Operation::Bisect { branch } => (
            format!("a bisect started from {}", branch.as_deref().unwrap_or("a detached HEAD")),
            "`git bisect reset` ends it",
        ),
        Operation::Other { kind, onto: o } => {
            (format!("a {kind}{} with conflicts to resolve", onto(o)), "`git status`, then commit or `--abort`")
        }
    };
    format!("Git: {what} is in progress; HEAD is detached until it ends: {how}.")
}
