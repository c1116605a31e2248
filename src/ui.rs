//! Every byte written to stdout and stderr goes through here, and every text is escaped here: a
//! control character (`text::is_control`: Unicode Cc and the bidirectional overrides) is shown as
//! `\u{XX}` (docs/REFERENCE.md#continuity-record), so that nothing a record, a commit, a tree entry
//! or an error message quoting input holds can clear a screen, retitle a terminal, hide a value or
//! reorder a line. Line feeds and tabs stay (output is line based); JSON keeps its own escaping.
//!
//! Under `continuity verify --format github` (`workflow_commands`) no line but the workflow
//! commands written through `workflow_command` can begin one: any other line that would is
//! written inert, on stdout and stderr alike.
//!
//! Owns: `--quiet`, `--json`, the `error:`/`hint:`/`warning:` conventions, broken pipes, the
//! escaping of text output.
//! Must not touch: records, git, use cases.
#![allow(clippy::disallowed_macros)]

use std::io::{self, Write};

use serde::Serialize;

use crate::error::Error;
use crate::model::finding::{Finding, Level};
use crate::text::{escape, escape_line};

/// The output handle of one process.
pub struct Ui {
    quiet: bool,
    json: bool,
    out: io::BufWriter<Box<dyn Write>>,
    err: Box<dyn Write>,
    broken: bool,
    /// Whether the output is read by a GitHub Actions runner (`workflow_commands`).
    workflow: bool,
    /// Whether stdout's current line holds nothing but white space so far.
    out_line_blank: bool,
}

impl Ui {
    /// A handle honouring `--quiet` and `--json`.
    pub fn new(quiet: bool, json: bool) -> Ui {
        Ui::to(quiet, json, Box::new(io::stdout()), Box::new(io::stderr()))
    }

    /// A handle writing to `out` and `err` instead of stdout and stderr.
    fn to(quiet: bool, json: bool, out: Box<dyn Write>, err: Box<dyn Write>) -> Ui {
        Ui { quiet, json, out: io::BufWriter::new(out), err, broken: false, workflow: false, out_line_blank: true }
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

    /// From now on the output is read by a GitHub Actions runner, which takes any line that
    /// starts with `::` (or the older `##[`) after white space for a workflow command: only
    /// `workflow_command` writes one, and every other such line is written inert.
    pub fn workflow_commands(&mut self) {
        self.workflow = true;
    }

    /// One workflow command (`::error title=…::…`), its property values and message already
    /// escaped by the caller as GitHub's workflow command syntax asks (`%`, CR, LF, …).
    pub fn workflow_command(&mut self, command: &str) {
        let line = escape_line(command);
        debug_assert!(line.starts_with("::"), "a workflow command starts with `::`: {line}");
        let guard = std::mem::replace(&mut self.workflow, false);
        self.line(&line);
        self.workflow = guard;
        self.out_line_blank = true;
    }

    /// Writes to stdout: text escaped, except under `--json`, whose documents (and JSON Lines)
    /// keep JSON's own escaping.
    fn write_out(&mut self, text: &str) {
        if self.broken {
            return;
        }
        let text = if self.json { text.into() } else { escape(text) };
        let text = if self.workflow { self.inert_out(&text).into() } else { text };
        if let Err(e) = self.out.write_all(text.as_bytes()) {
            if e.kind() == io::ErrorKind::BrokenPipe {
                self.broken = true;
            }
        }
    }

    /// Stdout's text with every line that would begin a workflow command made inert, across
    /// writes (a line may be written in pieces).
    fn inert_out(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for piece in text.split_inclusive('\n') {
            if self.out_line_blank {
                out.push_str(&inert(piece));
                self.out_line_blank = piece.trim().is_empty();
            } else {
                out.push_str(piece);
            }
            if piece.ends_with('\n') {
                self.out_line_blank = true;
            }
        }
        out
    }

    /// One line on stderr, escaped (stdout is flushed first, so that the two interleave as
    /// written). A stderr that cannot be written to is not reported anywhere.
    fn write_err(&mut self, text: &str) {
        self.flush();
        let text = escape(text);
        let text = if self.workflow { text.split('\n').map(inert).collect::<Vec<_>>().join("\n").into() } else { text };
        let _ = writeln!(self.err, "{text}");
        let _ = self.err.flush();
    }

    /// A line of the result on stdout; always printed.
    pub fn line(&mut self, text: &str) {
        self.write_out(text);
        self.write_out("\n");
    }

    /// Result text on stdout, printed as given (escaped).
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
        self.write_err(&format!("warning: {text}"));
    }

    /// A free-form status line on stderr; silenced by `--quiet`.
    pub fn status(&mut self, text: &str) {
        if !self.quiet {
            self.write_err(text);
        }
    }

    /// What the argument parser printed (help, version, or a usage error quoting the command
    /// line): on stdout or stderr as it chose, escaped like every other text.
    pub fn parser(&mut self, text: &str, stderr: bool) {
        if stderr {
            self.write_err(text.strip_suffix('\n').unwrap_or(text));
        } else {
            self.write_out(text);
        }
    }

    /// One finding line, `<LEVEL> <category> <subject> — <message>  [reproduce: <cmd>]`;
    /// `--quiet` silences OK and INFO. One line whatever its fields hold: a line feed in one is
    /// shown escaped, so that no file name or quoted text can add a finding of its own.
    pub fn finding(&mut self, f: &Finding) {
        if self.quiet && matches!(f.level, Level::Ok | Level::Info) {
            return;
        }
        let mut s = format!("{} {} {} — {}", f.level.as_str(), f.category, f.subject, f.message);
        if !f.reproduce.is_empty() {
            s.push_str(&format!("  [reproduce: {}]", f.reproduce));
        }
        if let Some(fix) = &f.fix {
            s.push_str(&format!("  [fix: {fix}]"));
        }
        self.line(&escape_line(&s));
    }

    /// Exactly one JSON document on stdout, written as it is serialised (a value made as it is
    /// written, like `continuity records`' list, is never held whole).
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) {
        if self.broken {
            return;
        }
        match serde_json::to_writer_pretty(&mut self.out, value) {
            Ok(()) => {
                if let Err(e) = self.out.write_all(b"\n") {
                    self.broken = e.kind() == io::ErrorKind::BrokenPipe;
                }
            }
            Err(e) if e.io_error_kind() == Some(io::ErrorKind::BrokenPipe) => self.broken = true,
            Err(e) if e.is_io() => {}
            Err(e) => self.write_err(&format!("error: internal: cannot serialise the result: {e}")),
        }
    }

    /// Prints an error: `error:`, `caused by:` and `hint:` lines, or one JSON object on stderr under
    /// `--json` (`caused_by` only when there is a cause).
    pub fn error(&mut self, e: &Error) {
        if self.json {
            let doc = crate::error::ErrorDocument::of(e);
            // JSON escapes its own control characters; the document is written as serialised
            // (through a JSON value, whose key order is the one the document always had).
            self.flush();
            let _ = writeln!(self.err, "{}", serde_json::to_value(&doc).unwrap_or_default());
            let _ = self.err.flush();
        } else {
            self.write_err(&format!("error: {}", e.message));
            for c in e.causes() {
                self.write_err(&format!("caused by: {c}"));
            }
            if let Some(h) = &e.hint {
                self.write_err(&format!("hint: {h}"));
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

/// A line made inert for a GitHub Actions runner: when, after leading white space, it starts
/// with `:` or `#` in a way that is or could become a workflow command (`::`, `##[`, or a lone
/// `:`/`#`/`##` a later write could complete), that character is written as the runner's own
/// data escape writes it (`%3A`, `%23`). Any other line is returned as it is.
fn inert(line: &str) -> std::borrow::Cow<'_, str> {
    let t = line.trim_start();
    let body = t.trim_end_matches(['\n', '\r']);
    let command = body.starts_with("::") || body.starts_with("##[") || matches!(body, ":" | "#" | "##");
    if !command {
        return line.into();
    }
    let lead = &line[..line.len() - t.len()];
    let first = if t.starts_with(':') { "%3A" } else { "%23" };
    format!("{lead}{first}{}", &t[1..]).into()
}

/// One diagnostic line on stderr from a long-running surface (MCP, HTTP) — never stdout —
/// escaped like every other text.
pub fn note(text: &str) {
    let _ = writeln!(io::stderr(), "{}", escape(text));
}

impl Drop for Ui {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::error::Exit;

    /// A writer whose bytes a test reads back.
    #[derive(Clone, Default)]
    struct Sink(Rc<RefCell<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Sink {
        fn text(&self) -> String {
            String::from_utf8(self.0.borrow().clone()).unwrap()
        }
    }

    fn ui(json: bool) -> (Ui, Sink, Sink) {
        let (out, err) = (Sink::default(), Sink::default());
        (Ui::to(false, json, Box::new(out.clone()), Box::new(err.clone())), out, err)
    }

    const HOSTILE: &str = "a\u{1b}[2J\u{1b}]0;PWNED\u{7}\r\u{9b}\u{202e}\u{2066}z\n\tnext";
    const SHOWN: &str = "a\\u{1B}[2J\\u{1B}]0;PWNED\\u{07}\\u{0D}\\u{9B}\\u{202E}\\u{2066}z\n\tnext";

    #[test]
    fn every_text_channel_escapes_control_characters() {
        let (mut u, out, err) = ui(false);
        u.line(HOSTILE);
        u.text(HOSTILE);
        u.success(HOSTILE);
        u.next(HOSTILE);
        u.parser(HOSTILE, false);
        let f = Finding::new(Level::Fail, crate::model::finding::Category::Task, HOSTILE, HOSTILE, HOSTILE);
        u.finding(&f);
        u.warn(HOSTILE);
        u.status(HOSTILE);
        u.parser(HOSTILE, true);
        u.error(&Error::new(Exit::Refused, HOSTILE).hint(HOSTILE));
        u.flush();
        for (name, got) in [("stdout", out.text()), ("stderr", err.text())] {
            assert!(!got.chars().any(|c| crate::text::is_control(c) && c != '\n' && c != '\t'), "{name}: {got:?}");
            assert!(got.contains(SHOWN), "{name}: {got:?}");
        }
        assert!(err.text().contains(&format!("warning: {SHOWN}")) && err.text().contains(&format!("hint: {SHOWN}")));
        let one = SHOWN.replace('\n', "\\u{0A}");
        assert!(
            out.text().lines().any(|l| l.contains(&format!("FAIL task {one} — {one}"))),
            "a finding stays on one line"
        );
    }

    #[test]
    fn under_workflow_commands_only_ours_begin_one() {
        let (mut u, out, err) = ui(false);
        u.workflow_commands();
        u.workflow_command("::error title=majordomus x::a%0Ab");
        u.text("ERROR x: unknown field `a\n::warning title=INJECTED::x`\n  ::notice::y\n##[error]z\n");
        u.text(":");
        u.text(":error::split\n");
        u.line("  ");
        u.line("# fine");
        u.warn("w\n::warning::from a warning");
        u.status("::set-output name=x::y");
        u.error(&Error::new(Exit::Refused, "e\n  ##[warning]x").hint("::debug::h"));
        u.flush();
        let (out, err) = (out.text(), err.text());
        let commands: Vec<&str> = out
            .lines()
            .chain(err.lines())
            .filter(|l| {
                let t = l.trim_start();
                t.starts_with("::") || t.starts_with("##[")
            })
            .collect();
        assert_eq!(commands, ["::error title=majordomus x::a%0Ab"], "{out}{err}");
        assert!(
            out.contains("\n%3A:warning title=INJECTED::x`\n  %3A:notice::y\n%23#[error]z\n%3A:error::split\n"),
            "{out}"
        );
        assert!(out.contains("\n# fine\n"), "{out}");
        assert!(err.contains("w\n%3A:warning::from a warning") && err.contains("hint: ::debug::h"), "{err}");
        assert_eq!(inert("ERROR  x ::y"), "ERROR  x ::y");
    }

    #[test]
    fn json_keeps_its_own_escaping() {
        let (mut u, out, err) = ui(true);
        u.json(&serde_json::json!({ "title": HOSTILE }));
        u.line(&serde_json::json!({ "raw": "\u{202e}" }).to_string());
        u.error(&Error::new(Exit::Refused, HOSTILE));
        u.flush();
        let out = out.text();
        let mut docs = serde_json::Deserializer::from_str(&out).into_iter::<serde_json::Value>();
        assert_eq!(docs.next().unwrap().unwrap()["title"], HOSTILE);
        assert_eq!(docs.next().unwrap().unwrap()["raw"], "\u{202e}", "a JSON line is written as serialised");
        let e: serde_json::Value = serde_json::from_str(&err.text()).unwrap();
        assert_eq!(e["error"]["message"], HOSTILE);
        assert!(!err.text().contains('\u{1b}'), "JSON escapes ESC itself");
    }
}
