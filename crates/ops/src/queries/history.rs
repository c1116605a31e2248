//! `history` (docs/REFERENCE.md#history): reading the ledger back with filters, validating every line, and
//! rotating the oldest lines into a dated archive.
//!
//! Owns: the history filters (`--task`, `--event`, `--since`, `--limit`), ledger validation
//! findings, the rotation transaction.
//! Must not touch: clap, `Ui`, the text layout of a line (that is `render::history`).

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, TimeZone, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::model::events::{is_registered, Event, EVENTS};
use crate::model::finding::{Category, Finding, Level};
use crate::model::labels::Anchor;
use crate::store::atomic::{create_if_absent_with, guard, replace_with, write_to, Lock};
use crate::store::ledger::{self, build_line, Envelope, Line};

/// How many matches `history` shows without `--limit`.
pub const DEFAULT_LIMIT: usize = 20;

/// What `history --validate` prints as the reproduce command.
const VALIDATE_CMD: &str = "git majordomus history --validate";

/// The filters of `history`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only lines whose `task_id` is this.
    pub task: Option<String>,
    /// Only lines whose (first) `event` is this registered name.
    pub event: Option<String>,
    /// Only lines whose `ts` is at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// The newest N matches; `None` shows every match.
    pub limit: Option<usize>,
}

impl Filter {
    /// Builds the filter from the command-line values, refusing (exit 2) an unknown event name,
    /// an unreadable `--since` and a zero `--limit`.
    pub fn new(
        task: Option<String>,
        event: Option<String>,
        since: Option<&str>,
        limit: Option<usize>,
        all: bool,
        now: DateTime<Utc>,
    ) -> Result<Filter> {
        if let Some(e) = &event {
            if !is_registered(e) {
                return Err(Error::usage(format!("history: unknown event {e:?}; known events: {}", EVENTS.join(", "))));
            }
        }
        if limit == Some(0) {
            return Err(Error::usage("history: --limit must be at least 1").hint("use --all to show every event"));
        }
        let since = since.map(|s| parse_since(s, now)).transpose()?;
        let limit = if all { None } else { Some(limit.unwrap_or(DEFAULT_LIMIT)) };
        Ok(Filter { task, event, since, limit })
    }

    /// Whether a valid line passes every filter.
    pub fn matches(&self, l: &Line) -> bool {
        let Some(p) = &l.pairs else { return false };
        if !l.is_valid() {
            return false;
        }
        if let Some(t) = &self.task {
            if p.str("task_id") != Some(t.as_str()) {
                return false;
            }
        }
        if let Some(e) = &self.event {
            if l.event() != Some(e.as_str()) {
                return false;
            }
        }
        if let Some(since) = self.since {
            match l.ts().and_then(parse_time) {
                Some(t) if t >= since => {}
                _ => return false,
            }
        }
        true
    }
}

/// Parses `--since`: `Nm`, `Nh`, `Nd` or `Ns` before `now`, or an ISO time (RFC 3339, a UTC
/// `YYYY-MM-DDTHH:MM:SS`, or a date meaning its midnight UTC). Anything else is a usage error.
pub fn parse_since(s: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let bad = || {
        Error::usage(format!("history: --since {s:?} is neither Nm, Nh, Nd, Ns nor an ISO time"))
            .hint("use a form such as 30m, 2h, 7d, 45s or 2026-09-03T19:30:12Z")
    };
    let t = s.trim();
    if let Some(unit) = t.chars().last() {
        let digits = &t[..t.len() - unit.len_utf8()];
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            let n: i64 = digits.parse().map_err(|_| bad())?;
            let d = match unit {
                's' => Duration::try_seconds(n),
                'm' => Duration::try_minutes(n),
                'h' => Duration::try_hours(n),
                'd' => Duration::try_days(n),
                _ => None,
            }
            .ok_or_else(bad)?;
            return now.checked_sub_signed(d).ok_or_else(bad);
        }
    }
    parse_time(t).ok_or_else(bad)
}

/// Parses an ISO time: RFC 3339, a `YYYY-MM-DDTHH:MM:SS` read as UTC, or a date (midnight UTC).
fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(n) = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S") {
        return Some(Utc.from_utc_datetime(&n));
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|n| Utc.from_utc_datetime(&n))
}

/// How many lines matched a listing in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matched {
    /// Counted: the read reached the ledger's first line.
    Exact(usize),
    /// Not counted: the tail read stopped once the limit was met (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow).
    Uncounted,
}

/// What `history` found.
#[derive(Debug, Clone)]
pub enum Listing {
    /// There is no `ledger.jsonl` yet.
    NoLedger {
        /// The ledger's repository-relative path.
        path: String,
    },
    /// The matching lines were handed to the caller, oldest first.
    Events {
        /// How many were shown.
        shown: usize,
        /// How many matched in all.
        matched: Matched,
    },
}

/// Bytes a limited listing reads past its newest matches to count the rest: a small ledger
/// gets an exact count, a large one says its count is not taken.
const COUNT_BUDGET: u64 = 256 * 1024;

/// Runs `history`: the newest `limit` lines that pass `filter` (all with `--all`), handed to
/// `emit` oldest first. Lines that are not JSON or lack `ts`/`event` are skipped (readers skip
/// them; `--validate` reports them). A limited listing reads the ledger from its tail; `--all`
/// streams it from the start; neither holds more than the lines it shows.
pub fn list(ctx: &Ctx, filter: &Filter, emit: &mut dyn FnMut(&Line)) -> Result<Listing> {
    ctx.require_layer()?;
    let path = ctx.layout.ledger();
    guard(ctx.layout.root(), &path)?;
    let Some(limit) = filter.limit else {
        let Some(lines) = ledger::forward(&path)? else { return Ok(Listing::NoLedger { path: ctx.rel(&path) }) };
        let mut shown = 0;
        for l in lines {
            let l = l?;
            if filter.matches(&l) {
                emit(&l);
                shown += 1;
            }
        }
        return Ok(Listing::Events { shown, matched: Matched::Exact(shown) });
    };
    let Some(mut lines) = ledger::backward(&path)? else { return Ok(Listing::NoLedger { path: ctx.rel(&path) }) };
    let mut newest = Vec::new();
    let mut counted = 0;
    // Where the tail read stood when the limit was met; counting goes on for COUNT_BUDGET bytes.
    let mut limit_met_at = None;
    let mut matched = None;
    while let Some(l) = lines.next() {
        if limit_met_at.is_some_and(|at: u64| at.saturating_sub(lines.unread()) > COUNT_BUDGET) {
            matched = Some(Matched::Uncounted);
            break;
        }
        let l = l?;
        if !filter.matches(&l) {
            continue;
        }
        counted += 1;
        if newest.len() < limit {
            newest.push(l);
            if newest.len() == limit {
                limit_met_at = Some(lines.unread());
            }
        }
    }
    let matched = matched.unwrap_or(Matched::Exact(counted));
    for l in newest.iter().rev() {
        emit(l);
    }
    Ok(Listing::Events { shown: newest.len(), matched })
}

/// The FAIL finding of one ledger line (`subject` `<rel>:<n>`) that is not a valid,
/// registered event.
fn line_finding(subject: String, problem: ledger::Problem) -> Finding {
    let message = match problem {
        ledger::Problem::NotObject => format!("line is {problem}"),
        ledger::Problem::Lacks(_) => format!("line {problem}"),
        ledger::Problem::Unregistered(_) => problem.to_string(),
    };
    Finding::new(Level::Fail, Category::Ledger, subject, message, VALIDATE_CMD)
}

/// The findings of `--validate` for raw ledger lines `(number, bytes)`: one FAIL per line that
/// is not a JSON object or lacks `ts` or `event`, one FAIL per unregistered event name, else one
/// OK. Each line is parsed for `ts` and `event` only. `rel` is the ledger's repository-relative
/// path (the findings' subject).
pub fn validate_lines<E>(
    lines: impl Iterator<Item = std::result::Result<(usize, Vec<u8>), E>>,
    rel: &str,
) -> Result<Vec<Finding>>
where
    Error: From<E>,
{
    let mut out = Vec::new();
    let mut n = 0;
    for l in lines {
        let (number, bytes) = l?;
        n += 1;
        let picked = ledger::Picked::parse(&bytes, &["ts", "event"]);
        if let Some(problem) = ledger::picked_problem(picked.as_ref()) {
            out.push(line_finding(format!("{rel}:{number}"), problem));
        }
    }
    if out.is_empty() {
        out.push(Finding::new(Level::Ok, Category::Ledger, rel, format!("{n} line(s), every one valid"), VALIDATE_CMD));
    }
    Ok(out)
}

/// Runs `history --validate`, streaming the ledger. No ledger yet is an OK finding.
pub fn validate(ctx: &Ctx) -> Result<Vec<Finding>> {
    ctx.require_layer()?;
    let rel = ctx.rel(&ctx.layout.ledger());
    guard(ctx.layout.root(), &ctx.layout.ledger())?;
    let Some(lines) = ledger::raw_lines(&ctx.layout.ledger())? else {
        return Ok(vec![Finding::new(Level::Ok, Category::Ledger, rel, "no ledger yet", VALIDATE_CMD)]);
    };
    validate_lines(lines, &rel)
}

/// What `history --rotate` did (`schemas/history-rotate.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Rotation {
    /// The ledger is within its cap.
    Nothing {
        /// Lines in the ledger.
        lines: usize,
        /// `ledger.retention_max_lines`.
        cap: usize,
    },
    /// The oldest lines moved to an archive.
    Rotated {
        /// Lines moved to the archive.
        archived: usize,
        /// Lines kept in the ledger (the `ledger.rotated` line not counted).
        kept: usize,
        /// The archive's repository-relative path.
        archive: String,
    },
}

/// Runs `history --rotate` (docs/REFERENCE.md#history). Under the ledger lock: the oldest lines beyond
/// `ledger.retention_max_lines` are written to a new `ledger.<compact>.jsonl.archived` (an
/// existing archive of that name refuses with exit 15, nothing written), then the ledger is
/// replaced atomically by the newest `cap` lines followed by the `ledger.rotated` line — in one
/// rewrite, so no concurrent appender's line can fall between the read and the rewrite.
pub fn rotate(ctx: &Ctx) -> Result<Rotation> {
    ctx.require_layer()?;
    let cap = ctx.policy()?.ledger.retention_max_lines;
    let path = ctx.layout.ledger();
    guard(ctx.layout.root(), &path)?;
    let archive = ctx.layout.state().join(format!("ledger.{}.jsonl.archived", ctx.clock.compact()));
    guard(ctx.layout.root(), &archive)?;
    let archive_rel = ctx.rel(&archive);
    // Everything the new line needs is computed before the lock is taken.
    let id = ctx.identity()?;
    let ts = ctx.clock.stamp();
    let session = ctx.session_id();

    let _lock = Lock::acquire(&ctx.layout.locks(), ledger::LOCK)?;
    // Streamed three times (count, archive, keep): the ledger is never held whole (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow).
    let lines = || -> Result<ledger::RawLines> {
        ledger::raw_lines(&path)?
            .ok_or_else(|| Error::io(format!("{}: vanished under the ledger lock", ctx.rel(&path))))
    };
    let total = match ledger::raw_lines(&path)? {
        None => 0,
        Some(all) => all.map(|l| l.map(|_| 1)).sum::<crate::store::Result<usize>>()?,
    };
    if total <= cap {
        return Ok(Rotation::Nothing { lines: total, cap });
    }
    let cut = total - cap;
    let rotated = build_line(
        &Envelope { ts: &ts, head: id.head_text(), branch: id.branch_text(), session: session.as_deref() },
        Event::LedgerRotated,
        &[("archived", Value::from(cut)), ("kept", Value::from(cap)), ("archive", Value::from(archive_rel.as_str()))],
    )?;
    let copy = |w: &mut dyn std::io::Write, from: usize, to: usize, dest: &std::path::Path| -> Result<()> {
        for (i, l) in lines()?.enumerate() {
            let (_, bytes) = l?;
            if (from..to).contains(&i) {
                write_to(w, dest, &bytes)?;
                write_to(w, dest, b"\n")?;
            }
        }
        Ok(())
    };
    if !create_if_absent_with(&archive, |w| copy(w, 0, cut, &archive))? {
        return Err(Error::conflict(format!("history --rotate: {archive_rel} already exists; nothing was moved"))
            .hint("archive names carry the second; rerun in a second, or move the existing archive aside"));
    }
    let kept = replace_with(&path, |w| {
        copy(w, cut, total, &path)?;
        write_to(w, &path, rotated.as_bytes())?;
        Ok(write_to(w, &path, b"\n")?)
    });
    if let Err(e) = kept {
        // The ledger is untouched: take the archive back so no line exists twice.
        let _ = std::fs::remove_file(&archive);
        return Err(e);
    }
    Ok(Rotation::Rotated { archived: cut, kept: cap, archive: archive_rel })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        crate::clock::parse_stamp("2026-09-03T20:00:00Z").unwrap()
    }

    #[test]
    fn since_forms() {
        let ts = |s: &str| crate::clock::stamp(parse_since(s, now()).unwrap());
        assert_eq!(ts("30m"), "2026-09-03T19:30:00Z");
        assert_eq!(ts("2h"), "2026-09-03T18:00:00Z");
        assert_eq!(ts("1d"), "2026-09-02T20:00:00Z");
        assert_eq!(ts("45s"), "2026-09-03T19:59:15Z");
        assert_eq!(ts("2026-09-01T10:00:00Z"), "2026-09-01T10:00:00Z");
        assert_eq!(ts("2026-09-01T12:00:00+02:00"), "2026-09-01T10:00:00Z");
        assert_eq!(ts("2026-09-01"), "2026-09-01T00:00:00Z");
        for bad in ["", "m", "3w", "yesterday", "-3m", "99999999999999999999d"] {
            assert_eq!(parse_since(bad, now()).unwrap_err().exit, crate::error::Exit::Usage, "{bad}");
        }
    }

    #[test]
    fn unknown_event_is_usage() {
        let e = Filter::new(None, Some("no.such".into()), None, None, false, now()).unwrap_err();
        assert_eq!(e.exit, crate::error::Exit::Usage);
        assert!(e.message.contains("task.started"));
    }

    #[test]
    fn validation_findings() {
        let text = "{\"ts\":\"2026-09-03T20:00:00Z\",\"event\":\"task.started\"}\nnot json\n{\"event\":\"task.started\"}\n{\"ts\":\"2026-09-03T20:00:00Z\",\"event\":\"no.such\"}\n";
        let raw = |t: &str| -> Vec<Result<(usize, Vec<u8>)>> {
            t.lines().enumerate().map(|(i, l)| Ok((i + 1, l.as_bytes().to_vec()))).collect()
        };
        let f = validate_lines(raw(text).into_iter(), "l").unwrap();
        assert_eq!(f.iter().map(|f| f.subject.as_str()).collect::<Vec<_>>(), ["l:2", "l:3", "l:4"]);
        assert!(f.iter().all(|f| f.level == Level::Fail));
        let ok = validate_lines(raw(text.lines().next().unwrap()).into_iter(), "l").unwrap();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].level, Level::Ok);
    }
}
