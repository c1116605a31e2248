//! `continuity.explain` (docs/REFERENCE.md#surfaces): why `continuity.state` answered what it did — each question
//! answered with a non-empty reason and at least one citation (a file, the pointer symlink, a
//! numbered ledger line, or a policy key and its file). Unknown is an answer with its cause.
//!
//! Owns: the `Explain` read model. Must not touch: writes; resolution rules (it reads the
//! resolver's own per-file trace).

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::queries::lifecycle;
use crate::services::labelled::label;
use crate::services::resolve::{resolve_traced, Resolution, Trace};
use crate::services::task;
use crate::store::ledger;
use crate::store::sessions::{open_path, pointer_key, read_open};

/// Where an answer comes from.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Citation {
    /// `file`, `directory`, `symlink`, `ledger_line` or `policy_key`.
    pub kind: String,
    /// Repository-relative path.
    pub path: String,
    /// The 1-based ledger line, for `ledger_line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The policy key, for `policy_key`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

impl Citation {
    fn of(kind: &str, path: impl Into<String>) -> Citation {
        Citation { kind: kind.into(), path: path.into(), line: None, key: None }
    }
}

/// What happened to one candidate file in a selection.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Candidate {
    /// File name.
    pub file: String,
    /// `selected`, `superseded` or `rejected`.
    pub verdict: String,
    /// Why (never empty).
    pub reason: String,
}

/// One question and its answer.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Answer {
    /// The question (`episode.current`, `handover.selected`, ...).
    pub question: String,
    /// The answer, one word or value (`none` and `unknown` are answers).
    pub answer: String,
    /// Why, in one sentence (never empty).
    pub reason: String,
    /// Where it comes from (at least one).
    pub citations: Vec<Citation>,
    /// For a selection: every candidate with its verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
}

/// `continuity.explain`.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Explain {
    /// The worktree the answers are about.
    pub worktree: String,
    /// The answers, in a fixed order.
    pub answers: Vec<Answer>,
}

fn answer(question: &str, answer: impl Into<String>, reason: impl Into<String>, citations: Vec<Citation>) -> Answer {
    Answer {
        question: question.into(),
        answer: answer.into(),
        reason: reason.into(),
        citations,
        candidates: Vec::new(),
    }
}

const POINTER: &str = ".ai/local/state/session-current.yaml";
const LEDGER: &str = ".ai/local/state/ledger.jsonl";
const POLICY: &str = ".ai/repo/policy.yaml";

fn episode_current(ctx: &Ctx) -> Answer {
    let q = "episode.current";
    let Some(key) = pointer_key(&ctx.layout) else {
        let (a, why) = if ctx.layout.pointer().exists() {
            ("unknown", "session-current.yaml is not a symlink into sessions-open/, so it names no episode file")
        } else {
            ("none", "there is no session-current.yaml: no episode is current in this worktree")
        };
        return answer(q, a, why, vec![Citation::of("symlink", POINTER)]);
    };
    let file = format!(".ai/local/state/sessions-open/{key}.yaml");
    let cites = vec![Citation::of("symlink", POINTER), Citation::of("file", file.clone())];
    match read_open(&open_path(&ctx.layout, &key)) {
        Ok(Some(s)) => {
            answer(q, s.session_id, format!("session-current.yaml points at {file}, opened at {}", s.started_at), cites)
        }
        Ok(None) => answer(q, "none", format!("session-current.yaml points at {file}, which no longer exists"), cites),
        Err(e) => answer(q, "unknown", format!("{file} does not parse: {e}"), cites),
    }
}

/// The last `session.closed` ledger line and the provider `end` receipts seen before it, read in
/// one streaming pass.
fn last_close(ctx: &Ctx) -> Result<(Option<ledger::Line>, Vec<ledger::Line>)> {
    let (mut closed, mut ends, mut ends_before) = (None, Vec::new(), Vec::new());
    lifecycle::for_each_ledger_line(ctx, |l| match l.event() {
        Some("session.closed") => {
            ends_before = std::mem::take(&mut ends);
            closed = Some(l);
        }
        // A receipt carries `event` twice (docs/REFERENCE.md#ledger): the ledger event, then the provider's.
        Some("provider.event.received")
            if l.pairs.as_ref().is_some_and(|p| p.0.iter().any(|(k, v)| k == "event" && v == "end")) =>
        {
            ends.push(l);
            if ends.len() > 64 {
                ends.remove(0);
            }
        }
        _ => {}
    })?;
    Ok((closed, ends_before))
}

fn episode_close(closed: Option<ledger::Line>, ends: &[ledger::Line]) -> Answer {
    let q = "episode.close";
    let Some(closed) = closed else {
        return answer(
            q,
            "none",
            "the ledger holds no session.closed line: no episode has closed here",
            vec![Citation::of("file", LEDGER)],
        );
    };
    let p = closed.pairs.as_ref();
    let outcome = p.and_then(|p| p.str("outcome")).unwrap_or("unknown").to_string();
    let sid = p.and_then(|p| p.str("session")).unwrap_or("").to_string();
    let mut cites = vec![Citation { line: closed.number.map(|n| n as u64), ..Citation::of("ledger_line", LEDGER) }];
    let event = ends.iter().rev().find(|l| l.pairs.as_ref().is_some_and(|p| p.str("session") == Some(sid.as_str())));
    let reason = match event {
        Some(e) => {
            cites.push(Citation { line: e.number.map(|n| n as u64), ..Citation::of("ledger_line", LEDGER) });
            let provider = e.pairs.as_ref().and_then(|p| p.str("provider")).unwrap_or("a provider");
            format!("episode {sid} was {outcome} by the {provider} end event")
        }
        None => format!("episode {sid} was {outcome} by hand (no provider end event precedes its close)"),
    };
    if let Some(path) = p.and_then(|p| p.str("session_path")) {
        cites.push(Citation::of("file", path));
    }
    answer(q, outcome, reason, cites)
}

fn episode_task(ctx: &Ctx) -> Answer {
    let q = "episode.task";
    let cites = vec![Citation::of("file", ".ai/local/state/current.yaml")];
    match task::read(ctx) {
        Ok(None) => answer(q, "none", "there is no current.yaml: no task is recorded in this checkout", cites),
        Ok(Some(r)) if r.foreign => answer(
            q,
            "none",
            format!("current.yaml names another checkout ({}); it is not this one's task", r.task.worktree),
            cites,
        ),
        Ok(Some(r)) => answer(
            q,
            r.task.id,
            format!("current.yaml records {:?} with outcome {}", r.task.task, r.task.outcome),
            cites,
        ),
        Err(e) => answer(q, "unknown", e.message, cites),
    }
}

fn episode_recovery(ctx: &Ctx) -> Answer {
    let q = "episode.recovery";
    let cites = vec![
        Citation::of("directory", ".ai/local/state/sessions-open"),
        Citation::of("directory", ".ai/repo/sessions"),
        Citation::of("file", LEDGER),
    ];
    match lifecycle::recovery(ctx) {
        Ok(r) => {
            let mut parts = Vec::new();
            if !r.stranded.is_empty() {
                parts.push(format!("{} stranded episode(s)", r.stranded.len()));
            }
            if !r.orphans.is_empty() {
                parts.push(format!("{} orphan temporary file(s)", r.orphans.len()));
            }
            if !r.balance.agrees {
                parts.push(format!("{} episode(s) unaccounted for", r.balance.unaccounted));
            }
            if parts.is_empty() {
                answer(
                    q,
                    "nothing_to_recover",
                    format!("no stranded episode, no orphan file; {}", r.balance.note),
                    cites,
                )
            } else {
                answer(
                    q,
                    "needs_recovery",
                    format!("{}; git majordomus lifecycle recovery lists them", parts.join(", ")),
                    cites,
                )
            }
        }
        Err(e) => answer(q, "unknown", e.message, cites),
    }
}

fn selected(ctx: &Ctx, q: &str, dir_rel: &str, res: &Resolution) -> Answer {
    let candidates: Vec<Candidate> = res
        .trace
        .iter()
        .map(|t| Candidate { file: t.file.clone(), verdict: t.verdict.into(), reason: t.reason.clone() })
        .collect();
    let mut cites: Vec<Citation> =
        res.trace.iter().map(|t| Citation::of("file", format!("{dir_rel}/{}", t.file))).collect();
    if cites.is_empty() {
        cites.push(Citation::of("directory", dir_rel));
    }
    let mut a = match &res.winner {
        Some(w) => answer(
            q,
            ctx.rel(&w.path),
            format!(
                "it matched {} (tier {}) and is the newest there; {} other candidate(s)",
                w.matched.as_str(),
                w.matched as u8,
                res.trace.len().saturating_sub(1)
            ),
            cites,
        ),
        None if res.trace.is_empty() => answer(q, "none", format!("{dir_rel} holds no record"), cites),
        None => answer(
            q,
            "none",
            format!("none of the {} file(s) is about this worktree and branch; absence is the answer", res.trace.len()),
            cites,
        ),
    };
    a.candidates = candidates;
    a
}

fn freshness(ctx: &Ctx, q: &str, kind: &str, res: &Resolution) -> Answer {
    let Some(w) = res.winner.clone() else {
        return answer(
            q,
            "unknown",
            format!("no {kind} resolves here, so there is nothing to judge"),
            vec![Citation::of("directory", format!(".ai/local/state/{kind}s"))],
        );
    };
    let path = ctx.rel(&w.path);
    let l = match label(ctx, w) {
        Ok(l) => l,
        Err(e) => return answer(q, "unknown", e.message, vec![Citation::of("file", path)]),
    };
    let key = match l.freshness.label.as_str() {
        "fresh" | "aging" => "session.freshness.fresh_minutes",
        _ => "session.freshness.stale_minutes",
    };
    let cites =
        vec![Citation::of("file", path), Citation { key: Some(key.into()), ..Citation::of("policy_key", POLICY) }];
    answer(q, l.freshness.label.as_str(), l.freshness.reason.clone(), cites)
}

/// `continuity.explain`.
pub fn explain(ctx: &Ctx) -> Result<Explain> {
    ctx.require_layer()?;
    let (closed, ends) = last_close(ctx)?;
    let handovers = resolve_traced(ctx, &ctx.layout.handovers(), None, Trace::EveryFile)?;
    let task = task::active(ctx)?.map(|t| t.id);
    let checkpoints = resolve_traced(ctx, &ctx.layout.checkpoints(), task.as_deref(), Trace::EveryFile)?;
    let answers = vec![
        episode_current(ctx),
        episode_close(closed, &ends),
        episode_task(ctx),
        episode_recovery(ctx),
        selected(ctx, "handover.selected", ".ai/local/state/handovers", &handovers),
        selected(ctx, "checkpoint.selected", ".ai/local/state/checkpoints", &checkpoints),
        freshness(ctx, "handover.freshness", "handover", &handovers),
        freshness(ctx, "checkpoint.freshness", "checkpoint", &checkpoints),
    ];
    Ok(Explain { worktree: ctx.layout.root().display().to_string(), answers })
}
