//! Provider hooks (docs/REFERENCE.md#hook-events): `hook <provider> start|compact|end` with the provider's payload
//! on stdin. A receipt first, then the lifecycle step; never fails the provider.
//! Must not touch: the health rules; the provider (it never fails it: every event exits 0).

use std::path::Path;

use serde_json::Value;

use crate::commands::{checkpoint, handover, session};
use crate::ctx::{Ctx, Env};
use crate::error::Error;
use crate::model::events::Event;
use crate::model::providers::{self, sanitise, Cap, HookEvent, Output, Provider};
use crate::services::context::Renderer;
use crate::services::{briefing, gap, knowledge, task};
use crate::store::atomic::{append, ensure_dir};
use crate::store::sessions::{key_of, open_path};
use crate::text::escape;

/// What the hook printed: the briefing (stdout) and everything else (stderr), the latter as
/// values the root crate's `render::hook` words.
#[derive(Debug, Default)]
pub struct HookReport {
    /// Lines for stdout (only the start hook's briefing, worded and shaped for the host).
    pub stdout: Vec<String>,
    /// What it says on stderr.
    pub stderr: Vec<Said>,
}

/// Why a derived record is skipped (docs/REFERENCE.md#origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Nothing happened in the episode since the last record (same head, same tree by content).
    Empty,
    /// Nothing changed since the last checkpoint (same head, same working tree).
    Unchanged,
    /// The task is finished: nothing to hand over.
    Finished,
    /// An authored handover is newer than the episode's last activity.
    AuthoredNewer,
}

/// One thing a hook says on stderr, before it is worded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// The provider is not one of `known`.
    UnknownProvider {
        /// As given.
        provider: String,
        /// The providers there are.
        known: Vec<String>,
    },
    /// The provider has no such event.
    NoEvent {
        /// The provider.
        provider: String,
        /// As given.
        event: String,
        /// Its events.
        known: Vec<String>,
    },
    /// The checkout could not be opened: nothing recorded.
    NotRecorded {
        /// The provider.
        provider: String,
        /// The event.
        event: String,
        /// Why.
        reason: String,
    },
    /// No majordomus layer: nothing recorded.
    NoLayer {
        /// The provider.
        provider: String,
        /// The event.
        event: String,
    },
    /// The payload could not be read; the event is still recorded under `key`.
    BadPayload {
        /// The provider.
        provider: String,
        /// The event.
        event: String,
        /// What is wrong with it.
        problem: String,
        /// The session key used.
        key: String,
    },
    /// A step failed (also in the ledger and `hooks.log`).
    Failed {
        /// The provider.
        provider: String,
        /// The event.
        event: String,
        /// `<step>: <message>`.
        reason: String,
    },
    /// The receipt could not be written.
    NoReceipt {
        /// The provider.
        provider: String,
        /// The event.
        event: String,
        /// Why.
        reason: String,
    },
    /// The episode was open already and is kept.
    SessionKept {
        /// Its id.
        id: String,
        /// When it opened.
        since: String,
    },
    /// An episode was opened.
    SessionOpened {
        /// Its id.
        id: String,
        /// When.
        at: String,
    },
    /// The shared server's state.
    Server(String),
    /// A derived checkpoint was written at this path.
    Checkpoint(String),
    /// The derived checkpoint was skipped.
    CheckpointSkipped(Skip),
    /// No open episode for this session key: nothing to close.
    NoEpisode(String),
    /// A derived handover was written at this path.
    Handover(String),
    /// The derived handover was skipped.
    HandoverSkipped(Skip),
    /// The episode was closed.
    SessionClosed {
        /// Its id.
        id: String,
        /// `closed` or `interrupted`.
        outcome: &'static str,
        /// The closed record.
        path: String,
    },
    /// A warning a step collected.
    Warning(String),
    /// What a dry run would do.
    DryRun(DryRun),
}

/// What a dry run (`MAJORDOMUS_DRY_RUN`) would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DryRun {
    /// Append the receipt.
    Receipt {
        /// The provider.
        provider: String,
        /// The event.
        event: String,
        /// The session key.
        key: String,
    },
    /// Keep the open episode (its file name).
    KeepEpisode(String),
    /// Open an episode (its file name).
    OpenEpisode(String),
    /// Print the briefing.
    Briefing,
    /// Write or skip a derived checkpoint (`final`: the end hook's).
    Checkpoint {
        /// The end hook's final checkpoint.
        last: bool,
        /// Written (else skipped: nothing changed).
        write: bool,
    },
    /// Derive knowledge.
    Knowledge,
    /// Write a derived handover.
    Handover,
    /// Skip it.
    HandoverSkipped(Skip),
    /// Close the episode as `closed` or `interrupted`.
    Close(&'static str),
    /// No open episode for this key.
    NoEpisode(String),
}

/// The fields the hooks read from a payload.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Payload {
    /// Provider session id, sanitised.
    pub session: Option<String>,
    /// Start source, sanitised.
    pub source: Option<String>,
    /// End reason, sanitised.
    pub reason: Option<String>,
    /// The session's working directory as the host sent it (not sanitised: it is a path, and
    /// only ever opened as one, docs/REFERENCE.md#hook-events).
    pub cwd: Option<String>,
    /// Why the payload could not be read, when it could not.
    pub problem: Option<String>,
}

/// Reads a payload by the host's keys (`Provider::session_keys` and the rest): a JSON object;
/// anything else still draws the boundary.
pub fn parse_payload(p: &Provider, bytes: &[u8]) -> Payload {
    let text = String::from_utf8_lossy(bytes);
    if text.trim().is_empty() {
        return Payload { problem: Some("empty payload".into()), ..Default::default() };
    }
    let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&text) else {
        return Payload { problem: Some("payload is not a JSON object".into()), ..Default::default() };
    };
    let raw = |keys: &[&str]| {
        keys.iter().find_map(|k| match m.get(*k) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(a)) => a.first().and_then(Value::as_str).map(str::to_string),
            _ => None,
        })
    };
    let pick = |keys: &[&str]| raw(keys).map(|v| sanitise(&v)).filter(|s| !s.is_empty());
    Payload {
        session: pick(p.session_keys),
        source: pick(p.source_keys),
        reason: pick(p.reason_keys),
        cwd: raw(p.cwd_keys).filter(|c| !c.is_empty()),
        problem: None,
    }
}

/// Opens the checkout a hook event is about (docs/REFERENCE.md#hook-events): `--repo`; else the process's
/// directory when it is inside a repository; else the payload's `cwd`; else
/// `CLAUDE_PROJECT_DIR`. A `fork` whose `cwd` is another worktree of the same repository is
/// about that worktree (the forked session works there).
fn open_checkout(repo: Option<&Path>, env: &Env, pl: &Payload) -> crate::error::Result<Ctx> {
    if repo.is_some() {
        return Ctx::open(repo, env.clone());
    }
    let here = Ctx::open(None, env.clone());
    let cwd = pl.cwd.as_deref().map(Path::new);
    if let (Ok(h), Some(c), Some("fork")) = (&here, cwd, pl.source.as_deref()) {
        if let Ok(other) = Ctx::open(Some(c), env.clone()) {
            if other.git.common_dir() == h.git.common_dir() && other.git.root() != h.git.root() {
                return Ok(other);
            }
        }
    }
    let mut first_error = match here {
        Ok(c) => return Ok(c),
        Err(e) => Some(e),
    };
    for dir in [cwd, env.claude_project_dir.as_deref().map(Path::new)].into_iter().flatten() {
        match Ctx::open(Some(dir), env.clone()) {
            Ok(c) => return Ok(c),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| Error::usage("no checkout")))
}

/// The briefing as the host wants it on stdout (docs/HOOKS.md): plain lines, or one JSON object.
fn shaped(p: &Provider, lines: Vec<String>) -> Vec<String> {
    let text = || Value::from(lines.join("\n"));
    let doc = match p.output {
        Output::Plain => return lines,
        Output::HookSpecific => serde_json::json!({
            "hookSpecificOutput": {"hookEventName": p.event_name(HookEvent::Start).unwrap_or("SessionStart"), "additionalContext": text()}
        }),
        Output::SnakeContext => serde_json::json!({ "additional_context": text() }),
        Output::CamelContext => serde_json::json!({ "additionalContext": text() }),
    };
    vec![doc.to_string()]
}

/// The limits a host's briefing fits under: its own cap, and the policy's when lower.
fn limits(p: &Provider, policy_chars: Option<usize>) -> Vec<briefing::Limit> {
    let (max, bytes) = match p.cap {
        Cap::Chars(n) => (n, false),
        Cap::Bytes(n) => (n, true),
    };
    let mut v = vec![briefing::Limit { max, bytes, by: briefing::By::Host { title: p.title.to_string(), max, bytes } }];
    if let Some(c) = policy_chars.filter(|c| *c < max || bytes) {
        v.push(briefing::Limit { max: c, bytes: false, by: briefing::By::PolicyChars });
    }
    v
}

struct Run<'a> {
    ctx: &'a Ctx,
    renderer: &'a dyn Renderer,
    words: &'a dyn briefing::Words,
    host: &'static Provider,
    provider: &'a str,
    event: HookEvent,
    report: HookReport,
}

impl Run<'_> {
    fn err(&mut self, said: Said) {
        self.report.stderr.push(said);
    }

    /// Records a failed step: a ledger line and a log line beside the working contexts.
    fn failed(&mut self, step: &str, e: &Error) {
        let reason = format!("{step}: {}", e.message);
        self.err(Said::Failed {
            provider: self.provider.into(),
            event: self.event.as_str().into(),
            reason: reason.clone(),
        });
        let _ = self.ctx.record_event(
            Event::ProviderEventFailed,
            &[
                ("provider", Value::from(self.provider)),
                ("event", Value::from(self.event.as_str())),
                ("reason", Value::from(reason.clone())),
            ],
        );
        log(self.ctx.layout.root(), &self.ctx.clock.stamp(), self.provider, self.event, &reason);
    }

    fn step<T>(&mut self, name: &str, r: crate::error::Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.failed(name, &e);
                None
            }
        }
    }
}

fn log(root: &Path, ts: &str, provider: &str, event: HookEvent, reason: &str) {
    let dir = root.join(".ai/local/session-contexts");
    if ensure_dir(&dir).is_ok() {
        let _ = append(&dir.join("hooks.log"), format!("{ts} {provider} {event} failed: {reason}\n").as_bytes());
    }
}

/// Runs one hook event. Never returns an error: every failure is reported and recorded.
/// `renderer` lays out the context document the start hook freezes into the episode, `words`
/// words the briefing. For the
/// events a host shows its user the stderr of (Gemini CLI's compact and end), nothing is
/// printed there: the receipt is in the ledger, a failure in `hooks.log`.
pub fn run(
    repo: Option<&Path>,
    env: &Env,
    provider: &str,
    event: &str,
    payload: &[u8],
    renderer: &dyn Renderer,
    words: &dyn briefing::Words,
) -> HookReport {
    let mut report = run_event(repo, env, provider, event, payload, renderer, words);
    let silent = providers::find(provider).zip(HookEvent::parse(event)).is_some_and(|(p, e)| p.silent.contains(&e));
    if silent {
        report.stderr.clear();
    }
    report
}

fn run_event(
    repo: Option<&Path>,
    env: &Env,
    provider: &str,
    event: &str,
    payload: &[u8],
    renderer: &dyn Renderer,
    words: &dyn briefing::Words,
) -> HookReport {
    let mut report = HookReport::default();
    let Some(p) = providers::find(provider) else {
        report.stderr.push(Said::UnknownProvider {
            provider: provider.into(),
            known: providers::PROVIDERS.iter().map(|p| p.name.to_string()).collect(),
        });
        return report;
    };
    let Some(event) = HookEvent::parse(event).filter(|e| p.has(*e)) else {
        let known = p.events.iter().map(|(e, _)| e.as_str().to_string()).collect();
        report.stderr.push(Said::NoEvent { provider: provider.into(), event: event.into(), known });
        return report;
    };
    let pl = parse_payload(p, payload);
    let key = pl.session.clone().unwrap_or_else(|| "unknown".into());
    let mut env = env.clone();
    env.session_key = Some(key.clone());
    let ctx = match open_checkout(repo, &env, &pl) {
        Ok(c) => c,
        Err(e) => {
            report.stderr.push(Said::NotRecorded {
                provider: provider.into(),
                event: event.as_str().into(),
                reason: e.message,
            });
            return report;
        }
    };
    if !ctx.layout.exists() {
        report.stderr.push(Said::NoLayer { provider: provider.into(), event: event.as_str().into() });
        return report;
    }
    let mut run = Run { ctx: &ctx, renderer, words, host: p, provider, event, report };
    if let Some(problem) = &pl.problem {
        run.err(Said::BadPayload {
            provider: provider.into(),
            event: event.as_str().into(),
            problem: problem.clone(),
            key: key.clone(),
        });
    }
    if ctx.env.dry_run {
        dry_run(&mut run, &key, &pl);
        return run.report;
    }
    // What a derived record would fill is read before the receipt, so that the receipt can say
    // what the event skips (docs/REFERENCE.md#origin); nothing is written before the receipt.
    let plan = match event {
        HookEvent::Start => Plan::default(),
        HookEvent::Compact | HookEvent::End => plan(&mut run, event, &key),
    };
    let mut fields = vec![
        ("provider", Value::from(provider)),
        ("event", Value::from(event.as_str())),
        ("provider_session", Value::from(key.clone())),
    ];
    let skipped = plan.skipped();
    if !skipped.is_empty() {
        fields.push(("skipped", Value::from(skipped)));
    }
    let receipt = ctx.record_event(Event::ProviderEventReceived, &fields);
    if let Err(e) = receipt {
        run.err(Said::NoReceipt { provider: provider.into(), event: event.as_str().into(), reason: e.message.clone() });
        log(ctx.layout.root(), &ctx.clock.stamp(), provider, event, &e.message);
    }
    match event {
        HookEvent::Start => start(&mut run, provider, &key),
        HookEvent::Compact => compact(&mut run, &plan),
        HookEvent::End => end(&mut run, &key, pl.reason.as_deref(), &plan),
    }
    for w in ctx.take_warnings() {
        run.report.stderr.push(Said::Warning(w));
    }
    run.report
}

fn start(run: &mut Run<'_>, provider: &str, key: &str) {
    let ctx = run.ctx;
    let opened = session::start(
        ctx,
        session::StartParams {
            keep: true,
            provider: Some(provider.into()),
            provider_session: Some(key.into()),
            ..Default::default()
        },
        run.renderer,
    );
    match run.step("session start", opened) {
        Some(session::StartReport::Kept { session }) => {
            run.err(Said::SessionKept { id: session.session_id, since: session.started_at })
        }
        Some(session::StartReport::Opened { session, .. }) => {
            run.err(Said::SessionOpened { id: session.session_id, at: session.started_at })
        }
        None => {}
    }
    let policy = ctx.policy().ok();
    let server = crate::commands::server::hook_line(ctx, std::env::current_exe().ok().as_deref());
    run.err(Said::Server(server.clone()));
    // The briefing names the server only when the start hook was asked to ensure one (docs/REFERENCE.md#briefing).
    let server = policy.is_some_and(|p| p.session.ensure_server_on_start).then_some(server);
    if policy.is_some_and(|p| !p.session.briefing_on_start) {
        return;
    }
    let max_lines =
        policy.map(|p| p.session.briefing_budget_lines.unwrap_or(p.context.always_loaded_budget_lines)).unwrap_or(60);
    let limits = limits(run.host, policy.and_then(|p| p.session.briefing_budget_chars));
    if let Some(items) = run.step("briefing", briefing::items(ctx, server.as_deref())) {
        // Escaped before it is bounded (the cap counts what the host shows) and before a host's
        // JSON shape wraps it: the host decodes the JSON and hands the raw text on.
        let readable = |t: String| if run.host.escapes_angles { t.replace('<', "‹").replace('>', "›") } else { t };
        let lines = items
            .iter()
            .map(|i| briefing::Line { text: readable(escape(&run.words.say(&i.said)).into_owned()), rank: i.rank })
            .collect();
        run.report.stdout = shaped(run.host, briefing::bounded(lines, max_lines, &limits, run.words));
    }
}

/// What a compact or end event writes: each derived record only where it fills a gap
/// (docs/REFERENCE.md#origin). `Some(true)`: write it; `Some(false)`: skip it (the receipt says so);
/// `None`: the policy turns it off.
#[derive(Debug, Default)]
struct Plan {
    checkpoint: Option<bool>,
    handover: Option<bool>,
    /// Whether this checkout has a task record (the handover is then not `--no-task`).
    has_task: bool,
    /// The episode did nothing since the last record (or its opening): why both are skipped.
    empty: bool,
    /// The task is finished (`finish` set its outcome): nothing to hand over (the end hook after
    /// `finish` once wrote a derived handover of a completed task).
    finished: bool,
}

impl Plan {
    /// The records the event skips, as the receipt names them.
    fn skipped(&self) -> Vec<&'static str> {
        [("checkpoint", self.checkpoint), ("handover", self.handover)]
            .into_iter()
            .filter(|(_, w)| *w == Some(false))
            .map(|(name, _)| name)
            .collect()
    }

    /// Why the derived handover is skipped.
    fn handover_skipped(&self) -> Skip {
        if self.empty {
            Skip::Empty
        } else if self.finished {
            Skip::Finished
        } else {
            Skip::AuthoredNewer
        }
    }
}

fn plan(run: &mut Run<'_>, event: HookEvent, key: &str) -> Plan {
    let (plan, problem) = plan_of(run.ctx, event, key);
    if let Some(e) = problem {
        run.failed("reading the episode", &e);
    }
    plan
}

/// The plan, reading only (a dry run asks it too), and why the episode could not be read.
fn plan_of(ctx: &Ctx, event: HookEvent, key: &str) -> (Plan, Option<Error>) {
    let Some(policy) = ctx.policy().ok().cloned() else { return (Plan::default(), None) };
    if event == HookEvent::End && !open_path(&ctx.layout, key).exists() {
        return (Plan::default(), None);
    }
    let task = task::local(ctx).ok().flatten();
    // A handed-over task may still gather work (a later episode's edits); a finished one not.
    let finished = task.as_ref().is_some_and(|t| {
        !matches!(t.outcome, crate::model::task::Outcome::Active | crate::model::task::Outcome::HandedOver)
    });
    // A gap that cannot be read is no reason to write nothing: the records are written.
    let (gap, problem) = match gap::of_episode(ctx, task.as_ref()) {
        Ok(g) => (g, None),
        Err(e) => (Default::default(), Some(e)),
    };
    // An episode that did nothing writes no derived record (docs/REFERENCE.md#origin).
    let plan = Plan {
        checkpoint: policy.session.checkpoint_on_compact.then_some(!gap.checkpoint_current && !gap.empty),
        handover: (event == HookEvent::End && policy.session.handover_on_end)
            .then_some(!gap.handover_covered && !gap.empty && !finished),
        has_task: task.is_some(),
        empty: gap.empty,
        finished,
    };
    (plan, problem)
}

/// Why an empty episode's derived records are skipped.
/// Writes the derived checkpoint the plan asks for, or says why it is skipped.
fn derived_checkpoint(run: &mut Run<'_>, plan: &Plan, step: &str) {
    match plan.checkpoint {
        Some(true) => {
            if let Some(checkpoint::CheckpointReport::Written { path, .. }) =
                run.step(step, checkpoint::write(run.ctx, "", true))
            {
                run.err(Said::Checkpoint(run.ctx.rel(&path)));
            }
        }
        Some(false) if plan.empty => run.err(Said::CheckpointSkipped(Skip::Empty)),
        Some(false) => run.err(Said::CheckpointSkipped(Skip::Unchanged)),
        None => {}
    }
}

fn compact(run: &mut Run<'_>, plan: &Plan) {
    let ctx = run.ctx;
    let Some(policy) = run.step("policy", ctx.policy().cloned()) else { return };
    derived_checkpoint(run, plan, "derived checkpoint");
    // An empty compact derives nothing either (Gemini CLI compacts before every model request).
    if policy.session.knowledge_on_compact && !plan.empty {
        run.step("knowledge derive", knowledge::derive(ctx, None, false));
    }
}

fn end(run: &mut Run<'_>, key: &str, reason: Option<&str>, plan: &Plan) {
    let ctx = run.ctx;
    if !open_path(&ctx.layout, key).exists() {
        run.err(Said::NoEpisode(key_of(key)));
        return;
    }
    let outcome = outcome_of(run.host, reason);
    if run.step("policy", ctx.policy().cloned()).is_some() {
        derived_checkpoint(run, plan, "final checkpoint");
        match plan.handover {
            Some(true) => {
                // A session ending does not end the task (docs/REFERENCE.md#task): never `--close`.
                let p = handover::HandoverParams {
                    derive: true,
                    close: false,
                    no_task: !plan.has_task,
                    ..Default::default()
                };
                if let Some(r) = run.step("derived handover", handover::write(ctx, p)) {
                    run.err(Said::Handover(ctx.rel(&r.path)));
                }
            }
            Some(false) => run.err(Said::HandoverSkipped(plan.handover_skipped())),
            None => {}
        }
    }
    let closed = session::close(
        ctx,
        session::CloseParams {
            outcome: outcome.into(),
            ignore_none: true,
            provider_session: Some(key.into()),
            summary: String::new(),
        },
    );
    if let Some(Some(r)) = run.step("session close", closed) {
        run.err(Said::SessionClosed { id: r.session_id, outcome, path: ctx.rel(&r.path) });
    }
}

/// How an end reason closes the episode: `closed` for the host's closing reasons, else
/// `interrupted`.
fn outcome_of(p: &Provider, reason: Option<&str>) -> &'static str {
    if reason.is_some_and(|r| p.closing_reasons.contains(&r)) {
        "closed"
    } else {
        "interrupted"
    }
}

/// What a dry run says of the plan's checkpoint.
fn planned(plan: &Plan, last: bool) -> Option<DryRun> {
    plan.checkpoint.map(|write| DryRun::Checkpoint { last, write })
}

fn dry_run(run: &mut Run<'_>, key: &str, pl: &Payload) {
    let ctx = run.ctx;
    let (provider, event) = (run.provider, run.event);
    run.err(Said::DryRun(DryRun::Receipt { provider: provider.into(), event: event.as_str().into(), key: key.into() }));
    let open = open_path(&ctx.layout, key).exists();
    let lines: Vec<DryRun> = match event {
        HookEvent::Start if open => vec![DryRun::KeepEpisode(key_of(key)), DryRun::Briefing],
        HookEvent::Start => vec![DryRun::OpenEpisode(key_of(key)), DryRun::Briefing],
        HookEvent::Compact => {
            let plan = plan_of(ctx, event, key).0;
            let mut v: Vec<DryRun> = planned(&plan, false).into_iter().collect();
            if !plan.empty && ctx.policy().is_ok_and(|p| p.session.knowledge_on_compact) {
                v.push(DryRun::Knowledge);
            }
            v
        }
        HookEvent::End if !open => vec![DryRun::NoEpisode(key_of(key))],
        HookEvent::End => {
            let plan = plan_of(ctx, event, key).0;
            let outcome = outcome_of(run.host, pl.reason.as_deref());
            let mut v: Vec<DryRun> = planned(&plan, true).into_iter().collect();
            match plan.handover {
                Some(true) => v.push(DryRun::Handover),
                Some(false) => v.push(DryRun::HandoverSkipped(plan.handover_skipped())),
                None => {}
            }
            v.push(DryRun::Close(outcome));
            v
        }
    };
    for l in lines {
        run.err(Said::DryRun(l));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads() {
        let claude = providers::find("claude-code").unwrap();
        let p = parse_payload(
            claude,
            br#"{"session_id":"cc-1","source":"startup","cwd":"/a b;c","hook_event_name":"SessionStart"}"#,
        );
        assert_eq!(p.session.as_deref(), Some("cc-1"));
        assert_eq!(p.source.as_deref(), Some("startup"));
        assert_eq!(p.cwd.as_deref(), Some("/a b;c"), "a path is kept as sent");
        assert!(parse_payload(claude, b"").problem.is_some());
        assert!(parse_payload(claude, b"not json").problem.is_some());
        let cursor = providers::find("cursor").unwrap();
        let p = parse_payload(cursor, br#"{"conversation_id":"c-1","workspace_roots":["/w"]}"#);
        assert_eq!((p.session.as_deref(), p.cwd.as_deref()), (Some("c-1"), Some("/w")));
        let copilot = providers::find("copilot-cli").unwrap();
        assert_eq!(parse_payload(copilot, br#"{"sessionId":"a b","reason":"x"}"#).session.as_deref(), Some("ab"));
    }
}
