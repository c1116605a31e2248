//! GitHub Actions workflow annotations (`::error title=…::…`) for `continuity verify --format
//! github` (docs/SYNC.md#the-ci-step): one per refused, too-new or untrusted record, printed before the
//! ordinary summary. Diagnostics never carry a secret, so neither do the annotations.

use crate::continuity::admission::{Diagnostic, Severity};
use crate::ops::commands::continuity::device::VerifyReport;

/// Escapes the message of a workflow command (`%`, CR, LF).
fn data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value of a workflow command (also `:` and `,`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

fn annotation(d: &Diagnostic) -> String {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let subject = d.path.as_deref().map(|p| format!("{p}: ")).unwrap_or_default();
    format!(
        "::{level} title={}::{}\n",
        property(&format!("majordomus {}", d.code)),
        data(&format!("{subject}{}", d.message))
    )
}

/// A line of the plain text made inert for the runner, which reads a workflow command (`::`,
/// or the older `##[`) from any line that starts with one after leading white space: such a
/// line's first character is written as a workflow command's data escape would write it.
fn inert(line: &str) -> String {
    let t = line.trim_start();
    if t.starts_with("::") || t.starts_with("##[") {
        let (lead, rest) = line.split_at(line.len() - t.len());
        let first = if rest.starts_with(':') { "%3A" } else { "%23" };
        format!("{lead}{first}{}", &rest[1..])
    } else {
        line.to_string()
    }
}

/// The annotations of a verify report, one line each, followed by the text rendering, no line of
/// which can begin a workflow command (docs/SYNC.md#the-ci-step, §A.28).
pub fn verify(r: &VerifyReport) -> String {
    let mut s: String = r.problems.iter().map(annotation).collect();
    for line in super::continuity::verify(r).lines() {
        s.push_str(&inert(line));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuity::admission::Code;

    #[test]
    fn annotations_escape_and_name_each_record() {
        let r = VerifyReport {
            verified: 3,
            admitted: 2,
            refused: 1,
            untrusted: 1,
            too_new: 0,
            problems: vec![
                Diagnostic::new(
                    Severity::Error,
                    Code::IdMismatch,
                    Some("records/ab/cd/abcd.json"),
                    "digest 100%\nwrong",
                ),
                Diagnostic::new(
                    Severity::Error,
                    Code::Untrusted,
                    Some("records/ef/01/ef01.json"),
                    "signed by desktop (x)",
                ),
            ],
        };
        let out = verify(&r);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "::error title=majordomus continuity.id_mismatch::records/ab/cd/abcd.json: digest 100%25%0Awrong"
        );
        assert_eq!(
            lines[1],
            "::error title=majordomus continuity.untrusted::records/ef/01/ef01.json: signed by desktop (x)"
        );
        assert!(lines.last().unwrap().starts_with("verified 3 record(s): 2 admitted, 1 refused, 1 untrusted"));
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }

    #[test]
    fn no_line_that_content_shapes_begins_a_workflow_command() {
        // A7: a serde message quoting a record's unknown key holding a line feed.
        let message = "unknown field `x\n::warning title=INJECTED::x\r\n  ::error::y\n##[error]z`";
        let r = VerifyReport {
            verified: 1,
            admitted: 0,
            refused: 1,
            untrusted: 0,
            too_new: 0,
            problems: vec![Diagnostic::new(
                Severity::Error,
                Code::RecordMalformed,
                Some("records/ab/cd/x\n::notice::p.json"),
                message,
            )],
        };
        let out = verify(&r);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(lines[0].starts_with("::error title=majordomus continuity.record_malformed::"), "{out}");
        for l in &lines[1..] {
            assert!(!l.trim_start().starts_with("::") && !l.trim_start().starts_with("##["), "{l}");
        }
        assert_eq!(inert("::warning x"), "%3A:warning x");
        assert_eq!(inert("  ##[error]x"), "  %23#[error]x");
        assert_eq!(inert("ERROR   x ::y"), "ERROR   x ::y");
    }
}
