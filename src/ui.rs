//! Every byte written to stdout and stderr goes through here.
//!
//! Owns: `--quiet`, `--json`, the `error:`/`hint:`/`warning:` conventions, broken pipes.
//! Must not touch: records, git, use cases.
#![allow(clippy::disallowed_macros)]

use std::io::{self, Write};

use serde::Serialize;

use crate::error::Error;
use crate::model::finding::{Finding, Level};

/// The output handle of one process.
pub struct Ui {
    quiet: bool,
    json: bool,
    out: io::BufWriter<io::Stdout>,
    broken: bool,
}

impl Ui {
    /// A handle honouring `--quiet` and `--json`.
    pub fn new(quiet: bool, json: bool) -> Ui {
        Ui { quiet, json, out: io::BufWriter::new(io::stdout()), broken: false }
    }

    /// Whether `--json` is on.
    pub fn json_mode(&self) -> bool {
        self.json
    }

    /// Whether `--quiet` is on.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// Whether stdout was closed by its reader (a broken pipe is not an error).
    pub fn broken_pipe(&self) -> bool {
        self.broken
    }

    fn write_out(&mut self, text: &str) {
        if self.broken {
            return;
        }
        if let Err(e) = self.out.write_all(text.as_bytes()) {
            if e.kind() == io::ErrorKind::BrokenPipe {
                self.broken = true;
            }
        }
    }

    /// A line of the result on stdout; always printed.
    pub fn line(&mut self, text: &str) {
        self.write_out(text);
        self.write_out("\n");
    }

    /// Result text on stdout, printed as given.
    pub fn text(&mut self, text: &str) {
        self.write_out(text);
    }

    /// A success line on stdout; silenced by `--quiet`.
    pub fn success(&mut self, text: &str) {
        if !self.quiet {
            self.line(text);
        }
    }

    /// A `next: ...` line on stdout; silenced by `--quiet`.
    pub fn next(&mut self, text: &str) {
        if !self.quiet {
            self.line(&format!("next: {text}"));
        }
    }

    /// A `warning: ...` line on stderr; never silenced.
    pub fn warn(&mut self, text: &str) {
        self.flush();
        eprintln!("warning: {text}");
    }

    /// A free-form status line on stderr; silenced by `--quiet`.
    pub fn status(&mut self, text: &str) {
        if !self.quiet {
            self.flush();
            eprintln!("{text}");
        }
    }

    /// One finding line, `<LEVEL> <category> <subject> — <message>  [reproduce: <cmd>]`;
    /// `--quiet` silences OK and INFO.
    pub fn finding(&mut self, f: &Finding) {
        if self.quiet && matches!(f.level, Level::Ok | Level::Info) {
            return;
        }
        let mut s = format!("{} {} {} — {}", f.level.as_str(), f.category, f.subject, f.message);
        if !f.reproduce.is_empty() {
            s.push_str(&format!("  [reproduce: {}]", f.reproduce));
        }
        self.line(&s);
    }

    /// Exactly one JSON document on stdout, written as it is serialised (a value made as it is
    /// written, like `continuity records`' list, is never held whole).
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) {
        if self.broken {
            return;
        }
        match serde_json::to_writer_pretty(&mut self.out, value) {
            Ok(()) => self.write_out("\n"),
            Err(e) if e.io_error_kind() == Some(io::ErrorKind::BrokenPipe) => self.broken = true,
            Err(e) if e.is_io() => {}
            Err(e) => eprintln!("error: internal: cannot serialise the result: {e}"),
        }
    }

    /// Prints an error: `error:`, `caused by:` and `hint:` lines, or one JSON object on stderr under
    /// `--json` (`caused_by` only when there is a cause).
    pub fn error(&mut self, e: &Error) {
        self.flush();
        if self.json {
            let mut v = serde_json::json!({"exit": e.exit.code(), "message": e.message, "hint": e.hint});
            let causes = e.causes();
            if !causes.is_empty() {
                v["caused_by"] = serde_json::json!(causes);
            }
            eprintln!("{}", serde_json::json!({ "error": v }));
        } else {
            eprintln!("error: {}", e.message);
            for c in e.causes() {
                eprintln!("caused by: {c}");
            }
            if let Some(h) = &e.hint {
                eprintln!("hint: {h}");
            }
        }
    }

    /// Flushes stdout (a broken pipe is remembered, not reported).
    pub fn flush(&mut self) {
        if !self.broken {
            if let Err(e) = self.out.flush() {
                if e.kind() == io::ErrorKind::BrokenPipe {
                    self.broken = true;
                }
            }
        }
    }
}

/// One diagnostic line on stderr from a long-running surface (MCP, HTTP) — never stdout.
pub fn note(text: &str) {
    eprintln!("{text}");
}

impl Drop for Ui {
    fn drop(&mut self) {
        self.flush();
    }
}
