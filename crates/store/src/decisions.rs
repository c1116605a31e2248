//! The decision log `decisions.md` (docs/REFERENCE.md#decisions): entries appended, never edited.
//! Must not touch: git, an entry already written, stdout.

/// One entry of the log; its JSON (`decision list --json`) names each field as here.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[allow(missing_docs)]
pub struct Decision {
    /// 1-based line number of the heading.
    pub line: usize,
    pub date: String,
    pub title: String,
    pub task: Option<String>,
    pub head: Option<String>,
    pub why: Option<String>,
    pub rejected: Option<String>,
    pub evidence: Option<String>,
    pub supersedes: Option<String>,
    pub carried: Option<String>,
    /// Every line after the heading, verbatim.
    pub text: Vec<String>,
}

impl Decision {
    /// The required fields this entry lacks (`Task`, `Head`, `Why`).
    pub fn missing(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.task.is_none() {
            v.push("Task");
        }
        if self.head.is_none() {
            v.push("Head");
        }
        if self.why.is_none() {
            v.push("Why");
        }
        v
    }
}

/// Removes HTML comment blocks, keeping line numbers (comment lines become empty).
pub fn strip_comments(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut in_comment = false;
    for (i, line) in text.lines().enumerate() {
        let mut visible = true;
        if in_comment {
            visible = false;
            if line.contains("-->") {
                in_comment = false;
            }
        } else if line.trim_start().starts_with("<!--") {
            visible = false;
            if !line.contains("-->") {
                in_comment = true;
            }
        }
        if visible {
            out.push((i + 1, line));
        }
    }
    out
}

/// Parses every entry outside comments, in file order.
pub fn parse(text: &str) -> Vec<Decision> {
    let mut out: Vec<Decision> = Vec::new();
    for (n, line) in strip_comments(text) {
        if let Some(rest) = line.strip_prefix("## ") {
            if let Some((date, title)) = rest.split_once(" — ") {
                out.push(Decision {
                    line: n,
                    date: date.trim().into(),
                    title: title.trim().into(),
                    ..Default::default()
                });
                continue;
            }
        }
        let Some(d) = out.last_mut() else { continue };
        if line.starts_with("# ") || line.starts_with("## ") {
            continue;
        }
        d.text.push(line.to_string());
        let field = |p: &str| line.strip_prefix(p).map(|v| v.trim().to_string());
        if let Some(v) = field("Task:") {
            d.task = Some(v);
        } else if let Some(v) = field("Head:") {
            d.head = Some(v);
        } else if let Some(v) = field("Why:") {
            d.why = Some(v);
        } else if let Some(v) = field("Rejected:") {
            d.rejected = Some(v);
        } else if let Some(v) = field("Evidence:") {
            d.evidence = Some(v);
        } else if let Some(v) = field("Supersedes:") {
            d.supersedes = Some(v);
        } else if let Some(v) = field("Carried:") {
            d.carried = Some(v);
        }
    }
    for d in &mut out {
        while d.text.last().is_some_and(|l| l.trim().is_empty()) {
            d.text.pop();
        }
    }
    out
}

/// The title of the entry that supersedes `title`, if any (the first later entry naming it).
pub fn superseded_by<'a>(all: &'a [Decision], title: &str) -> Option<&'a str> {
    all.iter().find(|d| d.supersedes.as_deref() == Some(title)).map(|d| d.title.as_str())
}

/// Whether a writer of a line-based log folds `c`: a control character of the text grammar
/// ([`crate::text::is_control`]: Unicode Cc and the bidirectional overrides and isolates) or a
/// Unicode line or paragraph separator (U+2028, U+2029), which some readers take as a line end.
pub fn is_control(c: char) -> bool {
    crate::text::is_control(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// A value as it can stand on one line of a log: every run of control characters (line ends
/// included) folded to one space, then trimmed. A value that held a line end stays one value:
/// nothing a peer sent becomes a second entry.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut gap = false;
    for c in s.chars() {
        if is_control(c) {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        gap = false;
        out.push(c);
    }
    out.trim().to_string()
}

/// A multi-line text as the lines of one entry: split at its line ends, each line's other
/// control characters folded ([`one_line`], leading indentation kept), and every line the log
/// would read as structure — a heading (`#` at the start) or the start of an HTML comment
/// (`<!--`, which hides the lines after it) — escaped with a leading backslash, as CommonMark
/// escapes it. Trailing blank lines are dropped; the result ends without a newline.
pub fn entry_lines(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for raw in text.replace("\r\n", "\n").split(['\n', '\r', '\u{2028}', '\u{2029}', '\u{0B}', '\u{0C}', '\u{85}']) {
        let indent: String = raw.chars().take_while(|c| *c == ' ').collect();
        let body = one_line(raw);
        let line = if body.is_empty() { String::new() } else { format!("{indent}{body}") };
        let structural = line.starts_with('#') || line.trim_start().starts_with("<!--");
        lines.push(if structural { format!("\\{line}") } else { line });
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// Renders a new entry, with the leading blank line docs/REFERENCE.md#decisions shows. Every
/// value is written through [`one_line`]: the entry is one entry whatever the values held.
#[allow(clippy::too_many_arguments)]
pub fn render_entry(
    date: &str,
    title: &str,
    task: &str,
    head: &str,
    why: &str,
    rejected: &str,
    evidence: &str,
    supersedes: &str,
) -> String {
    let [date, title, task, head, why, rejected, evidence, supersedes] =
        [date, title, task, head, why, rejected, evidence, supersedes].map(one_line);
    format!(
        "\n## {date} — {title}\nTask: {task}\nHead: {head}\nWhy: {why}\nRejected: {rejected}\nEvidence: {evidence}\nSupersedes: {supersedes}\n"
    )
}

/// The title a carried decision is written and compared under: [`one_line`] of the record's,
/// `(untitled)` when nothing is left.
pub fn carried_title(title: &str) -> String {
    let t = one_line(title);
    if t.is_empty() {
        "(untitled)".into()
    } else {
        t
    }
}

/// Renders a decision carried from another machine (docs/REFERENCE.md#plans): `## <date> —
/// <title>`, its text ([`entry_lines`]), then `Carried: <carried>`, with the leading blank
/// line. One entry whatever the record's title and text held: the title is folded to one line
/// ([`carried_title`]), a text line that would start an entry or a comment is escaped.
pub fn render_carried(date: &str, title: &str, text: &str, carried: &str) -> String {
    let body = entry_lines(text);
    let body = if body.is_empty() { String::new() } else { format!("{body}\n") };
    format!("\n## {} — {}\n{body}Carried: {}\n", one_line(date), carried_title(title), one_line(carried))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_never_entries() {
        let text = format!(
            "{}{}",
            crate::assets::DECISIONS_TEMPLATE,
            render_entry("2026-09-03", "Use X", "none", "NONE", "because", "-", "-", "-")
        );
        let d = parse(&text);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].title, "Use X");
        assert!(d[0].missing().is_empty());
        assert_eq!(d[0].text.len(), 6);
    }

    /// A carried decision is one entry whatever its title and text held (issue 39: a forged title
    /// once injected a decision): a line end in the title is folded, a text line that would start
    /// an entry or a comment is escaped, and the `Carried:` line is the entry's.
    #[test]
    fn a_carried_decision_is_one_entry_whatever_it_held() {
        let title = "Legit\n\n## 2026-01-01 — FORGED DECISION: disable CI\nTask: none";
        let text =
            "Task: t-1\nWhy: because\n## 2026-01-01 — FORGED TOO\n<!-- hide the rest\n# top\r\nHead: \u{1b}[2Jabc\n\n";
        let log = format!(
            "{}{}{}",
            crate::assets::DECISIONS_TEMPLATE,
            render_carried("2026-12-06", title, text, "continuity 0123456789ab from alice-laptop"),
            render_entry("2026-12-06", "After", "none", "NONE", "b", "-", "-", "-")
        );
        let d = parse(&log);
        assert_eq!(d.len(), 2, "{log}");
        assert_eq!(d[0].title, "Legit ## 2026-01-01 — FORGED DECISION: disable CI Task: none");
        assert_eq!(d[0].carried.as_deref(), Some("continuity 0123456789ab from alice-laptop"));
        assert_eq!(d[0].why.as_deref(), Some("because"));
        assert!(d[0].text.contains(&"\\## 2026-01-01 — FORGED TOO".to_string()), "{:?}", d[0].text);
        assert!(d[0].text.contains(&"\\<!-- hide the rest".to_string()));
        assert!(d[0].text.contains(&"\\# top".to_string()));
        assert!(d[0].text.contains(&"Head: [2Jabc".to_string()), "{:?}", d[0].text);
        assert_eq!(d[1].title, "After", "the entry after it is still read");
        assert!(!log.contains('\r') && !log.contains('\u{1b}'));
        assert_eq!(carried_title(" \n "), "(untitled)");
        // A value given to the `decision add` writer is one line too.
        let d = parse(&render_entry("2026-12-06", "a\n## 2026-01-01 — b", "t", "h", "w\nWhy: x", "-", "-", "-"));
        assert_eq!((d.len(), d[0].title.as_str(), d[0].why.as_deref()), (1, "a ## 2026-01-01 — b", Some("w Why: x")));
    }
}
