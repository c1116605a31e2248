//! The one place the wall clock is read.
//!
//! Owns: "now", honouring `MAJORDOMUS_NOW`; the timestamp formats records use.
//! Must not touch: files, git.

use chrono::{DateTime, NaiveDateTime, SecondsFormat, TimeZone, Utc};

use crate::error::{Error, Result};

/// A fixed instant every reader and writer of one process agrees on.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    now: DateTime<Utc>,
}

impl Clock {
    /// Builds the clock from `MAJORDOMUS_NOW` when given (RFC 3339), else from the system clock.
    pub fn new(pinned: Option<&str>) -> Result<Clock> {
        let now = match pinned {
            Some(s) if !s.trim().is_empty() => DateTime::parse_from_rfc3339(s.trim())
                .map_err(|e| {
                    Error::usage(format!("MAJORDOMUS_NOW is not an RFC 3339 time ({s}): {e}"))
                        .hint("use a form such as 2026-09-03T19:30:12Z")
                })?
                .with_timezone(&Utc),
            _ => Utc::now(),
        };
        Ok(Clock { now: truncate(now) })
    }

    /// A clock fixed at the given instant (tests).
    pub fn at(now: DateTime<Utc>) -> Clock {
        Clock { now: truncate(now) }
    }

    /// The current instant.
    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn stamp(&self) -> String {
        stamp(self.now)
    }

    /// `YYYYMMDDTHHMMSSZ`, for file names.
    pub fn compact(&self) -> String {
        self.now.format("%Y%m%dT%H%M%SZ").to_string()
    }

    /// `YYYY-MM-DD`.
    pub fn date(&self) -> String {
        self.now.format("%Y-%m-%d").to_string()
    }

    /// `yyyymmddHHMMSS`, for task and session ids.
    pub fn id_stamp(&self) -> String {
        self.now.format("%Y%m%d%H%M%S").to_string()
    }
}

fn truncate(t: DateTime<Utc>) -> DateTime<Utc> {
    Utc.timestamp_opt(t.timestamp(), 0).single().unwrap_or(t)
}

/// Nanoseconds of the wall clock, as a seed only (never a time a record asserts): the fallback
/// when the operating system offers no randomness.
pub fn entropy_seed() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Formats an instant as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Parses the only timestamp form records carry: `YYYY-MM-DDTHH:MM:SSZ`.
pub fn parse_stamp(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if s.len() != 20 || !s.ends_with('Z') {
        return None;
    }
    NaiveDateTime::parse_from_str(&s[..19], "%Y-%m-%dT%H:%M:%S").ok().map(|n| Utc.from_utc_datetime(&n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_clock_formats() {
        let c = Clock::new(Some("2026-09-03T19:30:12Z")).unwrap();
        assert_eq!(c.stamp(), "2026-09-03T19:30:12Z");
        assert_eq!(c.compact(), "20260903T193012Z");
        assert_eq!(c.id_stamp(), "20260903193012");
        assert_eq!(c.date(), "2026-09-03");
    }

    #[test]
    fn bad_pin_is_usage_error() {
        assert_eq!(Clock::new(Some("yesterday")).unwrap_err().exit, crate::error::Exit::Usage);
    }

    #[test]
    fn parse_stamp_is_strict() {
        assert!(parse_stamp("2026-09-03T19:30:12Z").is_some());
        assert!(parse_stamp("2026-09-03 19:30:12").is_none());
        assert!(parse_stamp("garbage").is_none());
        assert!(parse_stamp("").is_none());
    }
}
