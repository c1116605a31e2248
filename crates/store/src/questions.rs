//! The open-question store `open-questions.md` (docs/REFERENCE.md#questions): two valid entry shapes.
//! Must not touch: git, any line but the one resolved, stdout.

use super::decisions::{is_control, one_line, strip_comments};

/// One `- [` line outside comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// `- [unresolved] <task> — <question> (<date>)`.
    Unresolved {
        /// 1-based line number.
        line: usize,
        /// Task id the question was opened under.
        task: String,
        /// The question.
        question: String,
        /// Opening date.
        opened: String,
    },
    /// `- [resolved <date>] <task> — <text>`.
    Resolved {
        /// 1-based line number.
        line: usize,
        /// Resolution date.
        date: String,
        /// Task id.
        task: String,
        /// Everything after the task separator.
        text: String,
    },
    /// Any other `- [` line: a FAIL in check/doctor/watch.
    Malformed {
        /// 1-based line number.
        line: usize,
        /// The line verbatim.
        raw: String,
    },
}

/// Whether `s` is a `YYYY-MM-DD` date as entries write it.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn parse_line(line: usize, raw: &str) -> Entry {
    let bad = || Entry::Malformed { line, raw: raw.to_string() };
    if let Some(rest) = raw.strip_prefix("- [unresolved] ") {
        let Some((task, q)) = rest.split_once(" — ") else { return bad() };
        let Some(open) = q.strip_suffix(')') else { return bad() };
        let Some((question, date)) = open.rsplit_once(" (") else { return bad() };
        if task.is_empty() || task.contains(' ') || question.trim().is_empty() || !is_date(date) {
            return bad();
        }
        return Entry::Unresolved { line, task: task.into(), question: question.into(), opened: date.into() };
    }
    if let Some(rest) = raw.strip_prefix("- [resolved ") {
        let Some((date, rest)) = rest.split_once("] ") else { return bad() };
        let Some((task, text)) = rest.split_once(" — ") else { return bad() };
        if !is_date(date) || task.is_empty() || task.contains(' ') || text.trim().is_empty() {
            return bad();
        }
        return Entry::Resolved { line, date: date.into(), task: task.into(), text: text.into() };
    }
    bad()
}

/// Every `- [` entry outside HTML comments, in file order.
pub fn parse(text: &str) -> Vec<Entry> {
    strip_comments(text).into_iter().filter(|(_, l)| l.starts_with("- [")).map(|(n, l)| parse_line(n, l)).collect()
}

/// The question of a resolved entry's text (`<question> (<opened>) — <answer>`).
pub fn resolved_question(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find(" (") {
        let at = from + i;
        let rest = &text[at + 2..];
        if rest.get(..10).is_some_and(is_date) && rest[10..].starts_with(") — ") {
            return &text[..at];
        }
        from = at + 2;
    }
    text
}

/// Whether `s` can stand as an entry's task id: one word of printable characters.
pub fn is_task_id(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || is_control(c))
}

/// Renders an unresolved entry line (without newline): always one line, whatever the values
/// held — each is folded to one line ([`one_line`]), and a task that is not one word is
/// written `none` (callers that must keep a question blocking check [`is_task_id`] and
/// [`is_date`] first; a folded question is the entry a reader sees).
pub fn unresolved_line(task: &str, question: &str, opened: &str) -> String {
    let task = if is_task_id(task) { task.to_string() } else { "none".to_string() };
    format!("- [unresolved] {task} — {} ({})", one_line(question), one_line(opened))
}

/// Rewrites line `line` (1-based) of `text` as resolved on `date` with `answer`.
pub fn resolve_in(text: &str, line: usize, date: &str, answer: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + answer.len() + 16);
    let mut done = false;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let rest = l.trim_end_matches('\n').strip_prefix("- [unresolved] ")?;
            out.push_str(&format!("- [resolved {date}] {rest} — {answer}\n"));
            done = true;
        } else {
            out.push_str(l);
        }
    }
    done.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let text = format!(
            "{}{}\n- [resolved 2026-09-04] t-1 — q2 (2026-09-03) — yes\n- [oops] nothing\n",
            crate::assets::QUESTIONS_TEMPLATE,
            unresolved_line("t-1", "Which URL?", "2026-09-03")
        );
        let e = parse(&text);
        assert_eq!(e.len(), 3);
        assert!(matches!(&e[0], Entry::Unresolved { question, .. } if question == "Which URL?"));
        assert!(matches!(&e[1], Entry::Resolved { .. }));
        assert!(matches!(&e[2], Entry::Malformed { .. }));
        let Entry::Unresolved { line, .. } = &e[0] else { unreachable!() };
        let r = resolve_in(&text, *line, "2026-09-05", "x").unwrap();
        assert!(r.contains("- [resolved 2026-09-05] t-1 — Which URL? (2026-09-03) — x\n"));
        assert_eq!(resolved_question("Which (one) URL? (2026-09-03) — the (new) one"), "Which (one) URL?");
    }

    /// A question is one entry whatever its text held (issue 39: a forged text once injected a
    /// blocker): a line end is folded, never a second `- [unresolved]` line.
    #[test]
    fn a_question_with_a_line_end_is_one_entry() {
        let q = "q1\n- [unresolved] t-x — INJECTED QUESTION (2026-01-01)";
        let line = unresolved_line("t-1", q, "2026-12-06");
        assert!(!line.contains('\n'));
        let e = parse(&format!("{line}\n"));
        assert_eq!(e.len(), 1, "{e:?}");
        let Entry::Unresolved { task, question, opened, .. } = &e[0] else { panic!("{e:?}") };
        assert_eq!(
            (task.as_str(), question.as_str(), opened.as_str()),
            ("t-1", "q1 - [unresolved] t-x — INJECTED QUESTION (2026-01-01)", "2026-12-06")
        );
        // A task id that is not one word, or an opening date with a line end, stays one line.
        let e = parse(&format!("{}\n", unresolved_line("t 1\n- [unresolved] x", "q", "2026-12-06\n- [unresolved] y")));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(is_task_id("t-20260101000000-aaaa") && !is_task_id("t x") && !is_task_id(""));
    }
}
