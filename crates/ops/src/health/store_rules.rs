//! The store rules: `open-questions.md` and `decisions.md`.
//! Must not touch: a command or a query, the files it judges.

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::finding::{Category, Finding, Level};
use crate::store::atomic::read_opt;
use crate::store::{decisions, questions};

/// `open-questions.md`: malformed `- [` lines FAIL; unresolved entries FAIL each when
/// `blockers_fail` (check), else one INFO count.
pub(super) fn question_rules(ctx: &Ctx, blockers_fail: bool) -> Result<Vec<Finding>> {
    const REPRODUCE: &str = "git majordomus question list";
    let path = ctx.layout.questions();
    let rel = ctx.rel(&path);
    let Some(text) = read_opt(&path)? else {
        return Ok(vec![Finding::new(Level::Ok, Category::Questions, rel, "no question store yet", REPRODUCE)]);
    };
    let mut out = Vec::new();
    let mut open = 0;
    for e in questions::parse(&text) {
        match e {
            questions::Entry::Malformed { line, raw } => out.push(Finding::new(
                Level::Fail,
                Category::Questions,
                format!("{rel}:{line}"),
                format!(
                    "not a valid entry: {:?}; the shapes are \"- [unresolved] <task> — <question> (<date>)\" and \"- [resolved <date>] <task> — <text>\"",
                    cut(&raw, 120)
                ),
                &format!("sed -n {line}p {rel}"),
            )),
            questions::Entry::Unresolved { line, task, question, opened } => {
                open += 1;
                if blockers_fail {
                    out.push(Finding::new(
                        Level::Fail,
                        Category::Blockers,
                        format!("{rel}:{line}"),
                        format!("unresolved since {opened} (task {task}): {question} — refuses finish --outcome completed"),
                        REPRODUCE,
                    )
.fixed_by(format!("git majordomus question resolve {open} --answer \"<answer>\"")));
                }
            }
            questions::Entry::Resolved { .. } => {}
        }
    }
    if !blockers_fail && open > 0 {
        out.push(Finding::new(
            Level::Info,
            Category::Blockers,
            rel.clone(),
            format!("{open} unresolved question(s); each refuses finish --outcome completed"),
            REPRODUCE,
        ));
    }
    if out.is_empty() {
        out.push(Finding::new(Level::Ok, Category::Questions, rel, "every entry parses; none unresolved", REPRODUCE));
    }
    Ok(out)
}

/// `decisions.md`: an entry missing `Task:`, `Head:` or `Why:` is a WARN.
pub(super) fn decision_rules(ctx: &Ctx) -> Result<Vec<Finding>> {
    const REPRODUCE: &str = "git majordomus decision list";
    let path = ctx.layout.decisions();
    let rel = ctx.rel(&path);
    let Some(text) = read_opt(&path)? else {
        return Ok(vec![Finding::new(Level::Ok, Category::Decisions, rel, "no decision log yet", REPRODUCE)]);
    };
    let all = decisions::parse(&text);
    let mut out: Vec<Finding> = all
        .iter()
        .filter(|d| !d.missing().is_empty())
        .map(|d| {
            Finding::new(
                Level::Warn,
                Category::Decisions,
                format!("{rel}:{}", d.line),
                format!("entry {:?} lacks {}", d.title, d.missing().join(", ")),
                REPRODUCE,
            )
        })
        .collect();
    if out.is_empty() {
        out.push(Finding::new(
            Level::Ok,
            Category::Decisions,
            rel,
            format!("{} decision(s), each with Task, Head and Why", all.len()),
            REPRODUCE,
        ));
    }
    Ok(out)
}

/// `s` cut to `n` characters with an ellipsis.
pub(super) fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn cut_marks_the_cut() {
        assert_eq!(cut("abc", 5), "abc");
        assert_eq!(cut("abcdef", 3), "abc…");
    }
}
