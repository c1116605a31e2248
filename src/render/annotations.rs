//! GitHub Actions workflow annotations (`::error title=…::…`) for `continuity verify --format
//! github` (docs/SYNC.md#the-ci-step): one per refused, too-new or untrusted record, printed before the
//! ordinary summary. Diagnostics never carry a secret, so neither do the annotations.
//! Must not touch: git, files, the terminal (`ui` prints it); it decides nothing.

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

/// One workflow command per refused, too-new or untrusted record (`::error title=…::…`, no line
/// end): its property and message escaped as GitHub's syntax asks, so that it stays one line.
/// The caller writes them with `Ui::workflow_command`, then the text rendering, under the `Ui`
/// guard that keeps any other line from beginning a workflow command (docs/SYNC.md#the-ci-step).
pub fn commands(r: &VerifyReport) -> Vec<String> {
    r.problems.iter().map(annotation).collect()
}

fn annotation(d: &Diagnostic) -> String {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let subject = d.path.as_deref().map(|p| format!("{p}: ")).unwrap_or_default();
    format!(
        "::{level} title={}::{}",
        property(&format!("majordomus {}", d.code)),
        data(&format!("{subject}{}", d.message))
    )
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
            retired: 0,
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
        let lines = commands(&r);
        assert_eq!(
            lines[0],
            "::error title=majordomus continuity.id_mismatch::records/ab/cd/abcd.json: digest 100%25%0Awrong"
        );
        assert_eq!(
            lines[1],
            "::error title=majordomus continuity.untrusted::records/ef/01/ef01.json: signed by desktop (x)"
        );
        assert_eq!(lines.len(), 2);
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }

    #[test]
    fn a_message_quoting_line_feeds_stays_one_command() {
        // A7: a serde message quoting a record's unknown key holding a line feed.
        let message = "unknown field `x\n::warning title=INJECTED::x\r\n`";
        let d = Diagnostic::new(Severity::Error, Code::RecordMalformed, Some("records/a\nb.json"), message);
        let r = VerifyReport {
            verified: 1,
            admitted: 0,
            refused: 1,
            untrusted: 0,
            retired: 0,
            too_new: 0,
            problems: vec![d],
        };
        assert_eq!(
            commands(&r),
            ["::error title=majordomus continuity.record_malformed::records/a%0Ab.json: unknown field `x%0A::warning title=INJECTED::x%0D%0A`"]
        );
    }
}
