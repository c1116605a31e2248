//! Provider hooks (SPEC §9.2): `hook <provider> start|compact|end` with the provider's payload
//! on stdin. A receipt first, then the lifecycle step; never fails the provider.

use std::path::Path;

use serde_json::Value;

use super::context::Renderer;
use super::{briefing, checkpoint, gap, handover, knowledge, session, task};
use crate::ctx::{Ctx, Env};
use crate::error::Error;
use crate::model::events::Event;
use crate::model::providers::{self, sanitise, HookEvent};
use crate::store::atomic::{append, ensure_dir};
use crate::store::sessions::{key_of, open_path};

/// What the hook printed: the briefing (stdout) and everything else (stderr).
#[derive(Debug, Default)]
pub struct HookReport {
    /// Lines for stdout (only the start hook's briefing).
    pub stdout: Vec<String>,
    /// Lines for stderr.
    pub stderr: Vec<String>,
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
    /// Why the payload could not be read, when it could not.
    pub problem: Option<String>,
}

/// Reads a payload: a JSON object; anything else still draws the boundary.
pub fn parse_payload(bytes: &[u8]) -> Payload {
    let text = String::from_utf8_lossy(bytes);
    if text.trim().is_empty() {
        return Payload { problem: Some("empty payload".into()), ..Default::default() };
    }
    let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&text) else {
        return Payload { problem: Some("payload is not a JSON object".into()), ..Default::default() };
    };
    let pick = |keys: &[&str]| {
        keys.iter().find_map(|k| m.get(*k).and_then(Value::as_str)).map(sanitise).filter(|s| !s.is_empty())
    };
    Payload {
        session: pick(&["session_id", "sessionId"]),
        source: pick(&["source", "session_source"]),
        reason: pick(&["reason", "end_reason"]),
        problem: None,
    }
}

/// The end reasons that close an episode as `closed` (anything else is `interrupted`).
const CLOSING_REASONS: &[&str] = &["clear", "logout", "prompt_input_exit"];

struct Run<'a> {
    ctx: &'a Ctx,
    renderer: &'a dyn Renderer,
    provider: &'a str,
    event: HookEvent,
    report: HookReport,
}

impl Run<'_> {
    fn err(&mut self, line: impl Into<String>) {
        self.report.stderr.push(line.into());
    }

    /// Records a failed step: a ledger line and a log line beside the working contexts.
    fn failed(&mut self, step: &str, e: &Error) {
        let reason = format!("{step}: {}", e.message);
        self.err(format!("majordomus: {} {} hook: {reason}", self.provider, self.event));
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
/// `renderer` lays out the context document the start hook freezes into the episode.
pub fn run(
    repo: Option<&Path>,
    env: &Env,
    provider: &str,
    event: &str,
    payload: &[u8],
    renderer: &dyn Renderer,
) -> HookReport {
    let mut report = HookReport::default();
    let Some(p) = providers::find(provider) else {
        report.stderr.push(format!(
            "majordomus: unknown provider {provider:?}; known: {}",
            providers::PROVIDERS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
        ));
        return report;
    };
    let Some(event) = HookEvent::parse(event).filter(|e| p.events.contains(e)) else {
        let known = p.events.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ");
        report.stderr.push(format!("majordomus: {provider} has no {event:?} event; known: {known}"));
        return report;
    };
    let pl = parse_payload(payload);
    let key = pl.session.clone().unwrap_or_else(|| "unknown".into());
    let mut env = env.clone();
    env.session_key = Some(key.clone());
    let ctx = match Ctx::open(repo, env) {
        Ok(c) => c,
        Err(e) => {
            report.stderr.push(format!("majordomus: {provider} {event} hook: {}; nothing recorded", e.message));
            return report;
        }
    };
    if !ctx.layout.exists() {
        report.stderr.push(format!("majordomus: {provider} {event} hook: no majordomus layer in this repository; nothing recorded (run git majordomus init)"));
        return report;
    }
    let mut run = Run { ctx: &ctx, renderer, provider, event, report };
    if let Some(problem) = &pl.problem {
        run.err(format!(
            "majordomus: {provider} {event} hook: {problem}; the event is still recorded, under session key {key}"
        ));
    }
    if ctx.env.dry_run {
        dry_run(&mut run, &key, &pl);
        return run.report;
    }
    // What a derived record would fill is read before the receipt, so that the receipt can say
    // what the event skips (SPEC §A.27); nothing is written before the receipt.
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
        run.err(format!("majordomus: {provider} {event} hook: the receipt could not be written: {}", e.message));
        log(ctx.layout.root(), &ctx.clock.stamp(), provider, event, &e.message);
    }
    match event {
        HookEvent::Start => start(&mut run, provider, &key),
        HookEvent::Compact => compact(&mut run, &plan),
        HookEvent::End => end(&mut run, &key, pl.reason.as_deref(), &plan),
    }
    for w in ctx.take_warnings() {
        run.report.stderr.push(format!("warning: {w}"));
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
            run.err(format!("session {} already open here since {}; kept", session.session_id, session.started_at))
        }
        Some(session::StartReport::Opened { session, .. }) => {
            run.err(format!("session {} opened at {}", session.session_id, session.started_at))
        }
        None => {}
    }
    let policy = ctx.policy().ok();
    let server = super::server::hook_line(ctx, std::env::current_exe().ok().as_deref());
    run.err(format!("Shared server: {server}"));
    // The briefing names the server only when the start hook was asked to ensure one (§A.27).
    let server = policy.is_some_and(|p| p.session.ensure_server_on_start).then_some(server);
    if policy.is_some_and(|p| !p.session.briefing_on_start) {
        return;
    }
    let max_lines =
        policy.map(|p| p.session.briefing_budget_lines.unwrap_or(p.context.always_loaded_budget_lines)).unwrap_or(60);
    let max_chars = policy.and_then(|p| p.session.briefing_budget_chars);
    if let Some(lines) = run.step("briefing", briefing::lines(ctx, server.as_deref())) {
        run.report.stdout = briefing::bounded(lines, max_lines, max_chars);
    }
}

/// What a compact or end event writes: each derived record only where it fills a gap
/// (SPEC §A.21, §A.27). `Some(true)`: write it; `Some(false)`: skip it (the receipt says so);
/// `None`: the policy turns it off.
#[derive(Debug, Default)]
struct Plan {
    checkpoint: Option<bool>,
    handover: Option<bool>,
    /// Whether this checkout has a task record (the handover is then not `--no-task`).
    has_task: bool,
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
}

fn plan(run: &mut Run<'_>, event: HookEvent, key: &str) -> Plan {
    let ctx = run.ctx;
    let Some(policy) = ctx.policy().ok().cloned() else { return Plan::default() };
    if event == HookEvent::End && !open_path(&ctx.layout, key).exists() {
        return Plan::default();
    }
    let task = task::local(ctx).ok().flatten();
    // A gap that cannot be read is no reason to write nothing: the records are written.
    let gap = run.step("reading the episode", gap::of_episode(ctx, task.as_ref())).unwrap_or_default();
    Plan {
        checkpoint: policy.session.checkpoint_on_compact.then_some(!gap.checkpoint_current),
        handover: (event == HookEvent::End && policy.session.handover_on_end).then_some(!gap.handover_covered),
        has_task: task.is_some(),
    }
}

/// Writes the derived checkpoint the plan asks for, or says why it is skipped.
fn derived_checkpoint(run: &mut Run<'_>, plan: &Plan, step: &str) {
    match plan.checkpoint {
        Some(true) => {
            if let Some(checkpoint::CheckpointReport::Written { path, .. }) =
                run.step(step, checkpoint::write(run.ctx, "", true))
            {
                run.err(format!("checkpoint: {}", run.ctx.rel(&path)));
            }
        }
        Some(false) => {
            run.err("checkpoint: skipped — nothing changed since the last checkpoint (same head, same working tree)")
        }
        None => {}
    }
}

fn compact(run: &mut Run<'_>, plan: &Plan) {
    let ctx = run.ctx;
    let Some(policy) = run.step("policy", ctx.policy().cloned()) else { return };
    derived_checkpoint(run, plan, "derived checkpoint");
    if policy.session.knowledge_on_compact {
        run.step("knowledge derive", knowledge::derive(ctx, None, false));
    }
}

fn end(run: &mut Run<'_>, key: &str, reason: Option<&str>, plan: &Plan) {
    let ctx = run.ctx;
    if !open_path(&ctx.layout, key).exists() {
        run.err(format!("end: no open episode for {}; nothing to close", key_of(key)));
        return;
    }
    let outcome = if reason.is_some_and(|r| CLOSING_REASONS.contains(&r)) { "closed" } else { "interrupted" };
    if run.step("policy", ctx.policy().cloned()).is_some() {
        derived_checkpoint(run, plan, "final checkpoint");
        match plan.handover {
            Some(true) => {
                // A session ending does not end the task (SPEC §A.22): never `--close`.
                let p = handover::HandoverParams {
                    derive: true,
                    close: false,
                    no_task: !plan.has_task,
                    ..Default::default()
                };
                if let Some(r) = run.step("derived handover", handover::write(ctx, p)) {
                    run.err(format!("handover: {}", ctx.rel(&r.path)));
                }
            }
            Some(false) => {
                run.err("handover: skipped — an authored handover is newer than this episode's last activity")
            }
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
        run.err(format!("session {} {outcome}: {}", r.session_id, ctx.rel(&r.path)));
    }
}

fn dry_run(run: &mut Run<'_>, key: &str, pl: &Payload) {
    let ctx = run.ctx;
    let (provider, event) = (run.provider, run.event);
    run.err(format!("dry run ({provider} {event}): would append provider.event.received for session key {key}"));
    let open = open_path(&ctx.layout, key).exists();
    let lines: Vec<String> = match event {
        HookEvent::Start if open => vec![
            format!("would keep the open episode sessions-open/{}.yaml", key_of(key)),
            "would print the briefing".into(),
        ],
        HookEvent::Start => {
            vec![format!("would open an episode sessions-open/{}.yaml", key_of(key)), "would print the briefing".into()]
        }
        HookEvent::Compact => vec!["would write a derived checkpoint".into(), "would derive knowledge".into()],
        HookEvent::End if !open => vec![format!("end: no open episode for {}; nothing to close", key_of(key))],
        HookEvent::End => {
            let outcome = if pl.reason.as_deref().is_some_and(|r| CLOSING_REASONS.contains(&r)) {
                "closed"
            } else {
                "interrupted"
            };
            vec![
                "would write a final derived checkpoint".into(),
                "would write a derived handover".into(),
                format!("would close the episode as {outcome}"),
            ]
        }
    };
    for l in lines {
        run.err(format!("dry run: {l}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads() {
        let p = parse_payload(br#"{"session_id":"cc-1","source":"startup","hook_event_name":"SessionStart"}"#);
        assert_eq!(p.session.as_deref(), Some("cc-1"));
        assert_eq!(p.source.as_deref(), Some("startup"));
        assert!(parse_payload(b"").problem.is_some());
        assert!(parse_payload(b"not json").problem.is_some());
        assert_eq!(parse_payload(br#"{"sessionId":"a b","end_reason":"clear"}"#).reason.as_deref(), Some("clear"));
    }
}
