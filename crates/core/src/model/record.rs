//! Checkpoint and handover records: their computed front matter (written and read by
//! `store::format::record`), body sections, identity refusal (docs/REFERENCE.md#records).
//! Must not touch: files, git, the clock (the identity fields are computed by `ops`).

use super::markdown;
use crate::model::vocabulary::vocabulary;

/// Body lines that would author a computed field.
pub const IDENTITY_KEYS: &[&str] = &[
    "schema_version:",
    "created_at:",
    "task_id:",
    "repository_id:",
    "worktree:",
    "branch:",
    "head:",
    "working_tree:",
    "changed_files:",
    "changed_total:",
    "citations:",
    "citations_total:",
    "origin:",
    "session:",
    "continuity_label:",
    "continuity_key_id:",
];

pub use super::markdown::PROVENANCE;

/// A path list bounded as front matter keeps it (docs/REFERENCE.md#front-matter): the first `max` items and how
/// many there were in all (the record's `changed_total`).
pub fn bounded<'a>(items: impl IntoIterator<Item = &'a String>, max: usize) -> (Vec<String>, usize) {
    let mut kept = Vec::new();
    let mut total = 0;
    for i in items {
        if kept.len() < max {
            kept.push(i.clone());
        }
        total += 1;
    }
    (kept, total)
}

vocabulary! {
    /// Who wrote a checkpoint or handover (docs/REFERENCE.md#origin): a person or an agent (`authored`), or the
    /// tool from its records and git (`derived`: `--derive`, the compact and end hooks).
    #[derive(Default)]
    pub enum Origin {
        /// Written by a person or an agent.
        #[default]
        Authored = "authored",
        /// Composed by the tool.
        Derived = "derived",
    }
}

impl Origin {
    /// The origin of a record written before `origin` existed (docs/REFERENCE.md#origin): `derived` when its
    /// body ends with the provenance line, else `authored`.
    pub fn of_body(body: &str) -> Origin {
        if body.trim_end().ends_with(PROVENANCE) {
            Origin::Derived
        } else {
            Origin::Authored
        }
    }
}

/// The computed front matter of a checkpoint or handover.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub struct RecordMeta {
    pub created_at: String,
    pub task_id: String,
    pub profile: String,
    pub owner: String,
    pub repository_id: String,
    pub worktree: String,
    pub branch: String,
    pub head: String,
    pub working_tree: String,
    /// At most `context.max_list_items` entries (docs/REFERENCE.md#front-matter); `changed_total` counts them all.
    pub changed_files: Vec<String>,
    /// How many changed entries there were in all (`None` in records written before the key).
    pub changed_total: Option<usize>,
    /// What the body names and the changed files, each `path@<blob at head>` or `path@absent`
    /// (docs/REFERENCE.md#citations; computed, refused when authored). At most
    /// `context.max_list_items`; none in records written before the key.
    pub citations: Vec<String>,
    /// How many paths were cited in all, when more than `citations` holds.
    pub citations_total: Option<usize>,
    /// Who wrote it (docs/REFERENCE.md#origin).
    pub origin: Origin,
    /// The episode it was written in, or `none`.
    pub session: String,
    /// Set on handovers that arrived from another machine.
    pub continuity_record: Option<String>,
    pub continuity_device: Option<String>,
    /// The label of the device whose record a resumed handover came from, as that record
    /// carried it (computed at resume; refused when authored).
    pub continuity_label: Option<String>,
    /// The minisign key id (16 uppercase hex) of the key that signed that record (computed at
    /// resume; refused when authored).
    pub continuity_key_id: Option<String>,
    pub continuity_created_at: Option<String>,
    pub issue: Option<String>,
    pub milestone: Option<String>,
}

impl RecordMeta {
    /// The timestamp freshness judges: the origin's for a resumed handover.
    pub fn judged_at(&self) -> &str {
        self.continuity_created_at.as_deref().unwrap_or(&self.created_at)
    }
}

vocabulary! {
    /// Why a file that looks like a record was skipped (docs/REFERENCE.md#resolution step 1), as
    /// the warning prints it.
    pub enum Skip {
        /// First line is not `---`.
        NoFrontMatter = "no front matter",
        /// YAML did not parse (or front matter too large, or not a mapping).
        Malformed = "malformed front matter",
        /// `schema_version` is not 1.
        UnknownSchema = "unknown schema_version",
        /// `head` or `created_at` missing.
        MissingFields = "missing required fields",
    }
}

/// The first body line that would author a computed field, if any.
pub fn identity_violation(body: &str) -> Option<&str> {
    body.lines().find(|l| IDENTITY_KEYS.iter().any(|k| l.starts_with(k)))
}

fn is_placeholder(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('<') && t.ends_with('>')
}

/// Whether section `name` is present with real content (placeholders count as empty).
///
/// Sections are CommonMark level-one headings (docs/REFERENCE.md#handover-body, [`super::markdown`]): a `# ...` line
/// inside a code block neither starts nor ends one.
pub fn has_section(body: &str, name: &str) -> bool {
    markdown::sections(body)
        .iter()
        .any(|s| s.name == name && body[s.content.clone()].lines().any(|l| !l.trim().is_empty() && !is_placeholder(l)))
}

/// The required sections missing or empty in `body`.
pub fn missing_sections(body: &str, required: &[String]) -> Vec<String> {
    required.iter().filter(|r| !has_section(body, r)).cloned().collect()
}

/// Replaces the whole content of the `# Next Action` section (code blocks included) with a
/// withheld notice; everything else stays as written.
pub fn withhold_next_action(body: &str, reason: &str) -> String {
    markdown::replace_content(body, "Next Action", &format!("(Next Action withheld: {reason})"))
}

/// `body` with the content of section `name` cut to its first `keep` non-blank lines and a
/// visible marker line; `None` when the section is no longer than that.
pub fn truncate_section(body: &str, name: &str, keep: usize, path: &str) -> Option<String> {
    let text = section_text(body, name)?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() <= keep {
        return None;
    }
    let marker = format!("({name} truncated for the context budget: {keep} of {} lines — read {path})", lines.len());
    let kept = lines[..keep].join("\n");
    Some(markdown::replace_content(body, name, &format!("{kept}\n{marker}")))
}

/// The sections of `body` called one of `names`, in body order, headings included.
pub fn only_sections(body: &str, names: &[&str]) -> String {
    let mut out = String::new();
    for s in markdown::sections(body).into_iter().filter(|s| names.contains(&s.name.as_str())) {
        out.push_str(&body[s.heading.start..s.content.end]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The content of one section, trimmed of leading and trailing blank lines.
pub fn section_text(body: &str, name: &str) -> Option<String> {
    markdown::find(body, name).map(trim_blank_lines)
}

/// Every level-one section of `body` by heading, each content trimmed as [`section_text`] trims
/// it; a heading that appears twice keeps both contents, a blank line apart. The provenance
/// footer and any text before the first heading belong to none.
pub fn section_texts(body: &str) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::<String, String>::new();
    for s in markdown::sections(body) {
        let text = trim_blank_lines(&body[s.content]);
        out.entry(s.name)
            .and_modify(|t| {
                t.push_str("\n\n");
                t.push_str(&text);
            })
            .or_insert(text);
    }
    out
}

fn trim_blank_lines(content: &str) -> String {
    let lines: Vec<&str> = content.lines().collect();
    let first = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let last = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(first, |i| i + 1);
    lines[first..last].join("\n")
}

/// The branch-key part of a checkpoint or handover name (a resumed record's `continuity--`
/// prefix kept).
///
/// Runs once per directory entry while a directory of thousands of records is listed, so it
/// scans bytes (the same cuts as `rsplitn(3, "--")`, without building a substring searcher).
pub fn record_name_key(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".md")?;
    let rest = stem.get(18..)?;
    let hex = last_double_dash(rest.as_bytes())?;
    let head = last_double_dash(&rest.as_bytes()[..hex])?;
    // `head` is the offset of an ASCII `-`, so a char boundary.
    Some(&rest[..head])
}

/// The offset of the last `--` of `b` (the one ending rightmost).
fn last_double_dash(b: &[u8]) -> Option<usize> {
    (1..b.len()).rev().find(|&i| b[i] == b'-' && b[i - 1] == b'-').map(|i| i - 1)
}

/// Whether a file name has the record shape `<YYYYMMDDTHHMMSSZ>--...--<16 hex>.md`.
pub fn is_record_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".md") else { return false };
    let b = stem.as_bytes();
    if b.len() < 16 + 2 + 16 + 2 || !stem.is_char_boundary(16) {
        return false;
    }
    let stamp_ok = b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && &stem[16..18] == "--";
    let tail = &b[b.len() - 16..];
    let tail_ok = tail.iter().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        && &stem[stem.len() - 18..stem.len() - 16] == "--";
    stamp_ok && tail_ok
}

/// The branch key for file names: every char outside `[A-Za-z0-9._-]` becomes `-`.
pub fn branch_key(branch: &str) -> String {
    branch.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' }).collect()
}

impl super::labels::Anchor for RecordMeta {
    fn head_text(&self) -> &str {
        &self.head
    }
    fn branch_text(&self) -> &str {
        &self.branch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte scan cuts every name where `rsplitn(3, "--")` does: every string of up to 9
    /// characters over `-`, `a`, `é` after the stamp, with and without the suffix.
    #[test]
    fn name_key_cuts_like_rsplitn() {
        fn reference(name: &str) -> Option<&str> {
            let rest = name.strip_suffix(".md")?.get(18..)?;
            let mut it = rest.rsplitn(3, "--");
            let (_hex, _head, key) = (it.next()?, it.next()?, it.next()?);
            Some(key)
        }
        let alphabet = ["-", "a", "é"];
        let mut tails = vec![String::new()];
        let mut checked = 0;
        for _ in 0..9 {
            let mut next = Vec::new();
            for t in &tails {
                for c in alphabet {
                    let t = format!("{t}{c}");
                    for name in [format!("20260903T201455Z--{t}.md"), format!("20260903T201455Z-{t}.md"), t.clone()] {
                        assert_eq!(record_name_key(&name), reference(&name), "{name:?}");
                        checked += 1;
                    }
                    next.push(t);
                }
            }
            tails = next;
        }
        assert!(checked > 80_000, "{checked}");
    }

    #[test]
    fn sections_and_placeholders() {
        let body = "# Objective\n<one paragraph>\n\n# Current State\nok\n# Next Action\n\n";
        let req: Vec<String> = ["Objective", "Current State", "Next Action"].iter().map(|s| s.to_string()).collect();
        assert_eq!(missing_sections(body, &req), vec!["Objective".to_string(), "Next Action".to_string()]);
        // CommonMark: a line holding only a tag opens an HTML block that runs to the next blank
        // line, so a heading right under a placeholder is not a heading (docs/REFERENCE.md#handover-body).
        let glued = "# Objective\n<one paragraph>\n# Current State\nok\n";
        assert_eq!(missing_sections(glued, &req[1..2]), vec!["Current State".to_string()]);
        let w = withhold_next_action("# Objective\na\n# Next Action\ndo it\n# Risks\nr\n", "stale");
        assert!(w.contains("(Next Action withheld: stale)") && !w.contains("do it") && w.contains("# Risks\nr"));
    }

    #[test]
    fn truncation_and_essentials() {
        let body = "# Objective\no\n\n# Current State\na\nb\nc\n\n# Next Action\nn\n";
        let t = truncate_section(body, "Current State", 2, "h.md").unwrap();
        assert!(t.contains("a\nb\n(Current State truncated for the context budget: 2 of 3 lines — read h.md)"), "{t}");
        assert!(!t.contains("\nc\n") && t.contains("# Next Action\nn"), "{t}");
        assert_eq!(truncate_section(body, "Current State", 3, "h.md"), None);
        assert_eq!(only_sections(body, &["Objective", "Next Action"]), "# Objective\no\n\n# Next Action\nn\n");
    }

    #[test]
    fn names() {
        assert!(is_record_name("20260903T201455Z--main--9b1e2d4--c0ffee12c0ffee12.md"));
        assert!(is_record_name("20260903T201455Z--continuity--main--NONE--c0ffee12c0ffee12.md"));
        assert!(!is_record_name("README.md"));
        assert!(!is_record_name("20260903T201455Z--main--9b1e2d4--C0FFEE12C0FFEE12.md"));
        assert_eq!(branch_key("feat/x"), "feat-x");
        assert!(identity_violation("hello\nhead: abc\n").is_some());
        assert!(identity_violation("ahead: abc\n").is_none());
        assert!(identity_violation("x\ncontinuity_label: alice-laptop\n").is_some());
        assert!(identity_violation("continuity_key_id: 0123456789ABCDEF\n").is_some());
    }
}
