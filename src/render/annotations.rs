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

/// The annotations of a verify report, one line each, followed by the text rendering.
pub fn verify(r: &VerifyReport) -> String {
    let mut s: String = r.problems.iter().map(annotation).collect();
    s.push_str(&super::continuity::verify(r));
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
}
