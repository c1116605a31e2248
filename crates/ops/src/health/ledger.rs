//! The ledger's health rules (docs/REFERENCE.md#findings): malformed lines, unregistered events, retention, the
//! task's outcome against the ledger (a `task.resumed` undoes the finish or close before it), and the stopped knowledge writer — all from one streaming
//! pass over the ledger (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow) that keeps only what the rules need.
//!
//! Owns: [`LedgerScan`] and the rules that read it. Must not touch: clap, `Ui`.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::clock::parse_stamp;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::finding::{Category, Finding, Level};
use crate::model::labels::span;
use crate::model::policy::Policy;
use crate::model::task::{Outcome, Task};
use crate::store::ledger::{self, Line, Picked, Problem};
use crate::store::records::names;

const VALIDATE: &str = "git majordomus history --validate";

/// What the rules need from the ledger, gathered in one forward pass.
#[derive(Debug, Default)]
pub(super) struct LedgerScan {
    /// Non-blank lines; `None` when there is no ledger yet.
    pub lines: Option<usize>,
    /// `(subject, problem)` of each line that is not a valid, registered event, in ledger order.
    problems: Vec<(String, Problem)>,
    /// The active task's newest `task.finished`: `(outcome, ts)`.
    finished: Option<(String, String)>,
    /// The active task's newest closing `task.handed_over`: its `ts`.
    closed: Option<String>,
    /// Whether the live ledger has a `task.resumed` of the active task: what came before it
    /// (here or in the rotated archives) no longer describes the task.
    resumed: bool,
    /// Whether any `knowledge.derived` line exists.
    any_derived: bool,
    /// The newest `session.closed`: `(ts, episode)`.
    last_closed: Option<(String, Option<String>)>,
    /// Episodes named by `knowledge.derived` lines.
    derived: BTreeSet<String>,
}

/// The keys the rules read, and their positions in [`Picked`].
const KEYS: [&str; 7] = ["ts", "event", "task_id", "outcome", "closed", "session", "episode"];
const TS: usize = 0;
const EVENT: usize = 1;
const TASK_ID: usize = 2;
const OUTCOME: usize = 3;
const CLOSED: usize = 4;
const SESSION: usize = 5;
const EPISODE: usize = 6;

/// What a line says of task `id`, read from a whole line or a picked one.
trait Fields {
    fn field(&self, key: usize) -> Option<&Value>;
    fn text(&self, key: usize) -> Option<&str> {
        self.field(key)?.as_str()
    }
}

impl Fields for Picked {
    fn field(&self, key: usize) -> Option<&Value> {
        self.get(key)
    }
}

impl Fields for Line {
    fn field(&self, key: usize) -> Option<&Value> {
        self.pairs.as_ref()?.get(KEYS[key])
    }
}

fn finished_of(l: &impl Fields, id: &str) -> Option<(String, String)> {
    (l.text(EVENT) == Some("task.finished") && l.text(TASK_ID) == Some(id))
        .then(|| (l.text(OUTCOME).unwrap_or("?").to_string(), l.text(TS).unwrap_or("?").to_string()))
}

/// Whether `l` is the `task.resumed` of task `id`: it undoes the finish or close before it.
fn resumed_of(l: &impl Fields, id: &str) -> bool {
    l.text(EVENT) == Some("task.resumed") && l.text(TASK_ID) == Some(id)
}

/// The newest of `pick`'s answers in the rotated archives, unless a `task.resumed` of `id` is
/// newer (then the task was reopened after it: `None`).
fn archived_unless_resumed<T>(ctx: &Ctx, id: &str, pick: impl Fn(&Line, &str) -> Option<T>) -> Result<Option<T>> {
    let found = ledger::archived_last(&ctx.layout.ledger(), |l| {
        if resumed_of(l, id) {
            Some(None)
        } else {
            pick(l, id).map(Some)
        }
    })?;
    Ok(found.flatten())
}

fn closed_of(l: &impl Fields, id: &str) -> Option<String> {
    let closes = l.text(EVENT) == Some("task.handed_over")
        && l.text(TASK_ID) == Some(id)
        && l.field(CLOSED).and_then(Value::as_bool) == Some(true);
    closes.then(|| l.text(TS).unwrap_or("?").to_string())
}

impl LedgerScan {
    /// Streams the ledger once; `task` is the active task whose outcome the ledger must back.
    /// Each line is parsed for the keys the rules read only ([`ledger::Picked`]).
    pub fn read(ctx: &Ctx, task: Option<&str>) -> Result<LedgerScan> {
        let rel = ctx.rel(&ctx.layout.ledger());
        let mut scan = LedgerScan::default();
        let Some(lines) = ledger::raw_lines(&ctx.layout.ledger())? else { return Ok(scan) };
        let mut count = 0;
        for l in lines {
            let (number, bytes) = l?;
            count += 1;
            let picked = Picked::parse(&bytes, &KEYS);
            match ledger::picked_problem(picked.as_ref()) {
                Some(p @ (Problem::NotObject | Problem::Lacks(_))) => {
                    scan.problems.push((format!("{rel}:{number}"), p));
                    continue;
                }
                Some(p) => scan.problems.push((format!("{rel}:{number}"), p)),
                None => {}
            }
            let Some(l) = picked else { continue };
            let event = l.str(EVENT).unwrap_or_default();
            if let Some(id) = task {
                if resumed_of(&l, id) {
                    scan.finished = None;
                    scan.closed = None;
                    scan.resumed = true;
                }
                scan.finished = finished_of(&l, id).or(scan.finished.take());
                scan.closed = closed_of(&l, id).or(scan.closed.take());
            }
            match event {
                "knowledge.derived" => {
                    scan.any_derived = true;
                    if let Some(ep) = l.str(EPISODE) {
                        scan.derived.insert(ep.to_string());
                    }
                }
                "session.closed" => {
                    scan.last_closed =
                        Some((l.str(TS).unwrap_or_default().to_string(), l.str(SESSION).map(str::to_string)))
                }
                _ => {}
            }
        }
        scan.lines = Some(count);
        Ok(scan)
    }

    /// A FAIL per line that is not a JSON object or lacks `ts`/`event`; with `registry`, also
    /// per unregistered event name; else one OK.
    pub fn rules(&self, ctx: &Ctx, registry: bool) -> Vec<Finding> {
        let rel = ctx.rel(&ctx.layout.ledger());
        let Some(lines) = self.lines else {
            return vec![Finding::new(Level::Ok, Category::Ledger, rel, "no ledger yet", VALIDATE)];
        };
        let mut out: Vec<Finding> = self
            .problems
            .iter()
            .filter(|(_, p)| registry || !matches!(p, Problem::Unregistered(_)))
            .map(|(subject, p)| Finding::new(Level::Fail, Category::Ledger, subject.clone(), p.to_string(), VALIDATE))
            .collect();
        if out.is_empty() {
            out.push(Finding::new(Level::Ok, Category::Ledger, rel, format!("{lines} line(s), all valid"), VALIDATE));
        }
        out
    }

    /// The newest `task.finished` of task `id` (the task [`LedgerScan::read`] was given):
    /// `(outcome, ts)`, looking in the rotated archives only when the live ledger has none.
    fn finished(&self, ctx: &Ctx, id: &str) -> Result<Option<(String, String)>> {
        match &self.finished {
            Some(x) => Ok(Some(x.clone())),
            None if self.resumed => Ok(None),
            None => archived_unless_resumed(ctx, id, finished_of),
        }
    }

    /// Doctor's rule for a finished task (terminal outcome): its `task.finished` line is there.
    /// A finish killed between writing the outcome and appending the line leaves none; re-running
    /// the same finish writes it (WARN, not FAIL: nothing is half-written).
    pub fn finish_recorded(&self, ctx: &Ctx, t: &Task) -> Result<Vec<Finding>> {
        if !t.outcome.is_terminal() {
            return Ok(Vec::new());
        }
        let reproduce = format!("git majordomus history --task {} --all", t.id);
        Ok(vec![match self.finished(ctx, &t.id)? {
            None => Finding::new(
                Level::Warn,
                Category::Verification,
                t.id.clone(),
                format!(
                    "outcome {0} without its task.finished line: the finish was interrupted; run git majordomus finish --outcome {0} to complete it",
                    t.outcome
                ),
                &reproduce,
            )
.fixed_by(format!("git majordomus finish --outcome {}", t.outcome)),
            Some((_, ts)) => Finding::new(
                Level::Ok,
                Category::Verification,
                t.id.clone(),
                format!("outcome {}, task.finished at {ts}", t.outcome),
                &reproduce,
            ),
        }])
    }

    /// State and verification drift: the task's outcome against what the ledger says happened,
    /// looking in the rotated archives only when the live ledger has no answer.
    pub fn outcome_vs_ledger(&self, ctx: &Ctx, t: &Task) -> Result<Vec<Finding>> {
        let reproduce = format!("git majordomus history --task {} --all", t.id);
        let f = |level, category: Category, msg: String| Finding::new(level, category, t.id.clone(), msg, &reproduce);
        let outcome = t.outcome;
        let finished = || self.finished(ctx, &t.id);
        if outcome == Outcome::Active {
            return Ok(vec![match finished()? {
                Some((o, ts)) => f(
                    Level::Drift,
                    Category::State,
                    format!("outcome active, but the ledger finished it as {o} at {ts}"),
                ),
                None => f(Level::Ok, Category::State, "outcome active; the ledger has not finished it".into()),
            }]);
        }
        if outcome == Outcome::HandedOver {
            let closed = match &self.closed {
                Some(ts) => Some(ts.clone()),
                None if self.resumed => None,
                None => archived_unless_resumed(ctx, &t.id, closed_of)?,
            };
            return Ok(vec![match closed {
                Some(ts) => {
                    f(Level::Ok, Category::State, format!("outcome handed_over; task.handed_over closed it at {ts}"))
                }
                None => f(
                    Level::Drift,
                    Category::State,
                    "outcome handed_over, but no task.handed_over in the ledger closes it".into(),
                ),
            }]);
        }
        if outcome.is_terminal() {
            return Ok(vec![match finished()? {
                None => f(
                    Level::Drift,
                    Category::Verification,
                    format!("outcome {outcome} without a task.finished line in the ledger: nothing verified it"),
                ),
                Some((o, ts)) if o != outcome.as_str() => f(
                    Level::Drift,
                    Category::State,
                    format!("outcome {outcome}, but the ledger finished it as {o} at {ts}"),
                ),
                Some((_, ts)) => {
                    f(Level::Ok, Category::Verification, format!("outcome {outcome}, task.finished at {ts}"))
                }
            }]);
        }
        Ok(Vec::new())
    }

    /// The stopped-writer rule (`majordomus.knowledge-observed`): skipped while the ledger has no
    /// `knowledge.derived` at all.
    pub fn knowledge_observed(&self, ctx: &Ctx, policy: &Policy) -> Vec<Finding> {
        let reproduce = "git majordomus history --event knowledge.derived";
        let Some((ts, Some(ep))) = self.last_closed.as_ref().filter(|_| self.any_derived) else { return Vec::new() };
        let Some(stale) = policy.thresholds().stale_minutes else { return Vec::new() };
        let age = parse_stamp(ts).map(|t| (ctx.clock.now() - t).num_seconds() / 60);
        vec![match age {
            Some(age) if !self.derived.contains(ep) && age >= stale => Finding::new(
                Level::Fail,
                Category::Knowledge,
                "majordomus.knowledge-observed",
                format!("the newest closed episode {ep} ({} ago) has no knowledge.derived: the knowledge writer has stopped", span(age)),
                reproduce,
            ),
            _ => Finding::new(
                Level::Ok,
                Category::Knowledge,
                "majordomus.knowledge-observed",
                format!("newest closed episode {ep}: knowledge writer observed"),
                reproduce,
            ),
        }]
    }
}

/// Retention caps with figures: ledger lines, handover and checkpoint files; over a cap at `over`.
pub(super) fn retention(ctx: &Ctx, policy: &Policy, lines: Option<usize>, over: Level) -> Result<Vec<Finding>> {
    let ledger_rel = ctx.rel(&ctx.layout.ledger());
    let handovers = names(&ctx.layout.handovers())?.len();
    let checkpoints = names(&ctx.layout.checkpoints())?.len();
    let rows = [
        (
            ledger_rel.clone(),
            "ledger",
            "lines",
            lines.unwrap_or(0),
            policy.ledger.retention_max_lines,
            "ledger.retention_max_lines",
            format!("wc -l {ledger_rel}"),
            "; run git majordomus history --rotate",
        ),
        (
            ctx.rel(&ctx.layout.handovers()),
            "handovers",
            "files",
            handovers,
            policy.handover.retention_max_files,
            "handover.retention_max_files",
            "git majordomus handover --list".to_string(),
            "; move old handovers out of the store",
        ),
        (
            ctx.rel(&ctx.layout.checkpoints()),
            "checkpoints",
            "files",
            checkpoints,
            policy.checkpoint.retention_max_files,
            "checkpoint.retention_max_files",
            "git majordomus checkpoint --list".to_string(),
            "; move old checkpoints out of the store",
        ),
    ];
    Ok(rows
        .into_iter()
        .map(|(subject, what, unit, n, cap, key, reproduce, remedy)| {
            if n > cap {
                Finding::new(
                    over,
                    Category::Retention,
                    subject,
                    format!("{what} {n} {unit}, cap {cap} ({key}){remedy}"),
                    &reproduce,
                )
            } else {
                Finding::new(
                    Level::Ok,
                    Category::Retention,
                    subject,
                    format!("{what} {n} {unit}, cap {cap}"),
                    &reproduce,
                )
            }
        })
        .collect())
}
