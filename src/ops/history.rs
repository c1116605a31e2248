//! `history` (SPEC §8.7): reading the ledger back with filters, validating every line, and
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
use crate::model::events::{is_registered, EVENTS};
use crate::model::finding::{Finding, Level};
use crate::store::atomic::{create_if_absent, guard, read_opt, replace, Lock};
use crate::store::ledger::{self, build_line, parse_lines, Envelope, Line};

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

/// What `history` found.
#[derive(Debug, Clone)]
pub enum Listing {
    /// There is no `ledger.jsonl` yet.
    NoLedger {
        /// The ledger's repository-relative path.
        path: String,
    },
    /// The ledger was read.
    Events {
        /// The newest `limit` matches, oldest first.
        shown: Vec<Line>,
        /// How many lines matched in all.
        matched: usize,
    },
}

fn read_ledger(ctx: &Ctx) -> Result<Option<String>> {
    let path = ctx.layout.ledger();
    guard(ctx.layout.root(), &path)?;
    read_opt(&path)
}

/// Runs `history`: the newest `limit` lines that pass `filter`, oldest first. Lines that are
/// not JSON or lack `ts`/`event` are skipped (readers skip them; `--validate` reports them).
pub fn list(ctx: &Ctx, filter: &Filter) -> Result<Listing> {
    ctx.require_layer()?;
    let Some(text) = read_ledger(ctx)? else {
        return Ok(Listing::NoLedger { path: ctx.rel(&ctx.layout.ledger()) });
    };
    let mut matches: Vec<Line> = parse_lines(&text).into_iter().filter(|l| filter.matches(l)).collect();
    let matched = matches.len();
    if let Some(n) = filter.limit {
        if matches.len() > n {
            matches.drain(..matches.len() - n);
        }
    }
    Ok(Listing::Events { shown: matches, matched })
}

/// The findings of `--validate` for already-parsed ledger lines: one FAIL per line that is not
/// a JSON object or lacks `ts` or `event`, one FAIL per unregistered event name, else one OK.
/// `rel` is the ledger's repository-relative path (the findings' subject).
pub fn validate_lines(lines: &[Line], rel: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in lines {
        let subject = format!("{rel}:{}", l.number);
        let Some(p) = &l.pairs else {
            out.push(Finding::new(Level::Fail, "ledger", subject, "line is not a JSON object", VALIDATE_CMD));
            continue;
        };
        let mut missing = Vec::new();
        if p.str("ts").is_none() {
            missing.push("ts");
        }
        if p.str("event").is_none() {
            missing.push("event");
        }
        if !missing.is_empty() {
            out.push(Finding::new(
                Level::Fail,
                "ledger",
                subject,
                format!("line lacks {}", missing.join(" and ")),
                VALIDATE_CMD,
            ));
            continue;
        }
        if let Some(e) = l.event() {
            if !is_registered(e) {
                out.push(Finding::new(
                    Level::Fail,
                    "ledger",
                    subject,
                    format!("unregistered event {e:?}"),
                    VALIDATE_CMD,
                ));
            }
        }
    }
    if out.is_empty() {
        out.push(Finding::new(
            Level::Ok,
            "ledger",
            rel,
            format!("{} line(s), every one valid", lines.len()),
            VALIDATE_CMD,
        ));
    }
    out
}

/// Runs `history --validate`. No ledger yet is an OK finding.
pub fn validate(ctx: &Ctx) -> Result<Vec<Finding>> {
    ctx.require_layer()?;
    let rel = ctx.rel(&ctx.layout.ledger());
    let Some(text) = read_ledger(ctx)? else {
        return Ok(vec![Finding::new(Level::Ok, "ledger", rel, "no ledger yet", VALIDATE_CMD)]);
    };
    Ok(validate_lines(&parse_lines(&text), &rel))
}

/// What `history --rotate` did.
#[derive(Debug, Clone, Serialize)]
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

/// Runs `history --rotate` (SPEC §8.7). Under the ledger lock: the oldest lines beyond
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
    let text = read_opt(&path)?.unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() <= cap {
        return Ok(Rotation::Nothing { lines: lines.len(), cap });
    }
    let cut = lines.len() - cap;
    let (old, kept) = lines.split_at(cut);
    let rotated = build_line(
        &Envelope { ts: &ts, head: &id.head, branch: &id.branch, session: session.as_deref() },
        "ledger.rotated",
        &[
            ("archived", Value::from(old.len())),
            ("kept", Value::from(kept.len())),
            ("archive", Value::from(archive_rel.as_str())),
        ],
    )?;
    let archived_text = join_lines(old.iter().copied());
    if !create_if_absent(&archive, archived_text.as_bytes())? {
        return Err(Error::conflict(format!("history --rotate: {archive_rel} already exists; nothing was moved"))
            .hint("archive names carry the second; rerun in a second, or move the existing archive aside"));
    }
    let new_text = join_lines(kept.iter().copied().chain(std::iter::once(rotated.as_str())));
    if let Err(e) = replace(&path, new_text.as_bytes()) {
        // The ledger is untouched: take the archive back so no line exists twice.
        let _ = std::fs::remove_file(&archive);
        return Err(e);
    }
    Ok(Rotation::Rotated { archived: old.len(), kept: kept.len(), archive: archive_rel })
}

fn join_lines<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
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
        let f = validate_lines(&parse_lines(text), "l");
        assert_eq!(f.iter().map(|f| f.subject.as_str()).collect::<Vec<_>>(), ["l:2", "l:3", "l:4"]);
        assert!(f.iter().all(|f| f.level == Level::Fail));
        let ok = validate_lines(&parse_lines(text.lines().next().unwrap()), "l");
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].level, Level::Ok);
    }
}
