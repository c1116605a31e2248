//! The decision log `decisions.md` (docs/REFERENCE.md#decisions): entries appended, never edited.

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

/// Renders a new entry, with the leading blank line docs/REFERENCE.md#decisions shows.
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
    format!(
        "\n## {date} — {title}\nTask: {task}\nHead: {head}\nWhy: {why}\nRejected: {rejected}\nEvidence: {evidence}\nSupersedes: {supersedes}\n"
    )
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
}
