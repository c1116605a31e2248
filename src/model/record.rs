//! Checkpoint and handover records: front matter, body sections, identity refusal (SPEC §6.2–§6.3).

use serde_yaml::Mapping;

use super::markdown;
use serde::Deserialize;

use super::yaml::{list, list_field, quoted, scalar};

/// Front matter larger than this is refused unparsed (a YAML bomb never reaches the parser).
pub const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

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
];

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
    pub changed_files: Vec<String>,
    /// Set on handovers that arrived from another machine.
    pub continuity_record: Option<String>,
    pub continuity_device: Option<String>,
    pub continuity_created_at: Option<String>,
    pub issue: Option<String>,
    pub milestone: Option<String>,
}

impl RecordMeta {
    /// The timestamp freshness judges: the origin's for a resumed handover.
    pub fn judged_at(&self) -> &str {
        self.continuity_created_at.as_deref().unwrap_or(&self.created_at)
    }

    /// Emits the whole record file: front matter in the exact order, a blank line, the body.
    pub fn render(&self, body: &str) -> String {
        let mut s = String::from("---\nschema_version: 1\n");
        s.push_str(&format!("created_at: {}\n", self.created_at));
        s.push_str(&format!("task_id: {}\n", scalar(&self.task_id)));
        s.push_str(&format!("profile: {}\n", scalar(&self.profile)));
        s.push_str(&format!("owner: {}\n", quoted(&self.owner)));
        s.push_str(&format!("repository_id: {}\n", scalar(&self.repository_id)));
        s.push_str(&format!("worktree: {}\n", scalar(&self.worktree)));
        s.push_str(&format!("branch: {}\n", scalar(&self.branch)));
        s.push_str(&format!("head: {}\n", scalar(&self.head)));
        s.push_str(&format!("working_tree: {}\n", self.working_tree));
        s.push_str(&list("changed_files", &self.changed_files));
        if let Some(r) = &self.continuity_record {
            s.push_str(&format!("continuity_record: {r}\n"));
        }
        if let Some(d) = &self.continuity_device {
            s.push_str(&format!("continuity_device: {}\n", scalar(d)));
        }
        if let Some(c) = &self.continuity_created_at {
            s.push_str(&format!("continuity_created_at: {c}\n"));
        }
        if let Some(i) = &self.issue {
            s.push_str(&format!("issue: {}\n", quoted(i)));
        }
        if let Some(m) = &self.milestone {
            s.push_str(&format!("milestone: {}\n", quoted(m)));
        }
        s.push_str("---\n\n");
        s.push_str(body);
        if !body.ends_with('\n') {
            s.push('\n');
        }
        s
    }
}

/// Why a file that looks like a record was skipped (SPEC §5 step 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// First line is not `---`.
    NoFrontMatter,
    /// YAML did not parse (or front matter too large, or not a mapping).
    Malformed,
    /// `schema_version` is not 1.
    UnknownSchema,
    /// `head` or `created_at` missing.
    MissingFields,
}

impl Skip {
    /// The reason as the warning prints it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Skip::NoFrontMatter => "no front matter",
            Skip::Malformed => "malformed front matter",
            Skip::UnknownSchema => "unknown schema_version",
            Skip::MissingFields => "missing required fields",
        }
    }
}

/// Splits `---\n<yaml>\n---\n<body>`; `None` when the text has no front matter.
pub fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let body = &rest[offset + line.len()..];
            return Some((&rest[..offset], body));
        }
        offset += line.len();
    }
    None
}

/// Parses front matter YAML into a mapping, refusing oversize input.
pub fn parse_mapping(yaml: &str) -> Option<Mapping> {
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return None;
    }
    serde_yaml::from_str::<Mapping>(yaml).ok()
}

/// The front matter as written (SPEC §6.2): every scalar read as the text written, unknown keys
/// tolerated, absent fields defaulted by [`parse`].
#[derive(Debug, Deserialize)]
struct Front {
    schema_version: Option<String>,
    created_at: Option<String>,
    head: Option<String>,
    task_id: Option<String>,
    profile: Option<String>,
    owner: Option<String>,
    repository_id: Option<String>,
    worktree: Option<String>,
    branch: Option<String>,
    working_tree: Option<String>,
    #[serde(default, deserialize_with = "list_field")]
    changed_files: Vec<String>,
    continuity_record: Option<String>,
    continuity_device: Option<String>,
    continuity_created_at: Option<String>,
    issue: Option<String>,
    milestone: Option<String>,
}

/// Parses front matter into a typed struct: scalars read as the text written, unknown keys
/// tolerated. Oversize input is refused unparsed; text that could hold an anchor or alias (`&`
/// or `*` anywhere) first goes through the generic parse, which refuses alias bombs even under
/// keys the struct never reads (SPEC §14: such a file is skipped as malformed).
pub fn parse_typed<T: serde::de::DeserializeOwned>(yaml: &str) -> Option<T> {
    if yaml.len() > MAX_FRONT_MATTER_BYTES {
        return None;
    }
    if yaml.contains(['&', '*']) {
        parse_mapping(yaml)?;
    }
    serde_yaml::from_str(yaml).ok()
}

/// Parses a checkpoint or handover file into its meta and body.
pub fn parse(text: &str) -> Result<(RecordMeta, &str), Skip> {
    let (yaml, body) = split_front_matter(text).ok_or(Skip::NoFrontMatter)?;
    let front: Front = parse_typed(yaml).ok_or(Skip::Malformed)?;
    if front.schema_version.as_deref() != Some("1") {
        return Err(Skip::UnknownSchema);
    }
    let (Some(head), Some(created_at)) = (front.head, front.created_at) else {
        return Err(Skip::MissingFields);
    };
    let meta = RecordMeta {
        created_at,
        head,
        task_id: front.task_id.unwrap_or_else(|| "none".into()),
        profile: front.profile.unwrap_or_else(|| "none".into()),
        owner: front.owner.unwrap_or_default(),
        repository_id: front.repository_id.unwrap_or_default(),
        worktree: front.worktree.unwrap_or_default(),
        branch: front.branch.unwrap_or_default(),
        working_tree: front.working_tree.unwrap_or_default(),
        changed_files: front.changed_files,
        continuity_record: front.continuity_record,
        continuity_device: front.continuity_device,
        continuity_created_at: front.continuity_created_at,
        issue: front.issue,
        milestone: front.milestone,
    };
    Ok((meta, body.strip_prefix('\n').unwrap_or(body)))
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
/// Sections are CommonMark level-one headings (SPEC §A.15, [`super::markdown`]): a `# ...` line
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

/// The content of one section, trimmed of leading and trailing blank lines.
pub fn section_text(body: &str, name: &str) -> Option<String> {
    let content = markdown::find(body, name)?;
    let lines: Vec<&str> = content.lines().collect();
    let first = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let last = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(first, |i| i + 1);
    Some(lines[first..last].join("\n"))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> RecordMeta {
        RecordMeta {
            created_at: "2026-09-03T20:14:55Z".into(),
            task_id: "none".into(),
            profile: "none".into(),
            owner: "alice".into(),
            repository_id: "/r/.git".into(),
            worktree: "/r".into(),
            branch: "feat/x".into(),
            head: "NONE".into(),
            working_tree: "dirty".into(),
            changed_files: vec!["lib/a".into(), "odd name: x".into()],
            ..Default::default()
        }
    }

    #[test]
    fn render_parse_round_trip() {
        let text = meta().render("# Objective\nx\n");
        let (m, body) = parse(&text).unwrap();
        assert_eq!(m, meta());
        assert_eq!(body, "# Objective\nx\n");
    }

    proptest::proptest! {
        /// Every authored or computed string field reads back equal (SPEC §6.2 front matter).
        #[test]
        fn any_field_round_trips(
            fields in proptest::collection::vec("\\PC{0,12}|(null|true|1e3|~|: x|#c| lead|-x)", 9),
            changed in proptest::collection::vec("\\PC{0,10}|(null|1e3)", 0..3),
        ) {
            let m = RecordMeta {
                task_id: fields[0].clone(),
                profile: fields[1].clone(),
                owner: fields[2].clone(),
                repository_id: fields[3].clone(),
                worktree: fields[4].clone(),
                branch: fields[5].clone(),
                continuity_device: Some(fields[6].clone()),
                issue: Some(fields[7].clone()),
                milestone: Some(fields[8].clone()),
                changed_files: changed,
                ..meta()
            };
            let text = m.render("# Objective\nx\n");
            let (back, body) = parse(&text).unwrap();
            proptest::prop_assert_eq!(back, m);
            proptest::prop_assert_eq!(body, "# Objective\nx\n");
        }
    }

    #[test]
    fn skips() {
        assert_eq!(parse("hello").unwrap_err(), Skip::NoFrontMatter);
        assert_eq!(parse("---\n: : [\n---\n").unwrap_err(), Skip::Malformed);
        assert_eq!(parse("---\nschema_version: 2\nhead: x\ncreated_at: y\n---\n").unwrap_err(), Skip::UnknownSchema);
        assert_eq!(parse("---\nschema_version: 1\n---\n").unwrap_err(), Skip::MissingFields);
    }

    /// A billion-laughs document is malformed, wherever its aliases sit.
    #[test]
    fn yaml_bomb_is_malformed_not_fatal() {
        let mut y = String::from(
            "---\nschema_version: 1\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let mut prev = 'a';
        for c in 'b'..='k' {
            y.push_str(&format!(
                "{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
            prev = c;
        }
        let ignored = format!("{y}head: x\ncreated_at: y\n---\nbody\n");
        assert_eq!(parse(&ignored).unwrap_err(), Skip::Malformed);
        let read = format!("{y}head: x\ncreated_at: y\nchanged_files: *k\n---\nbody\n");
        assert_eq!(parse(&read).unwrap_err(), Skip::Malformed);
    }

    #[test]
    fn sections_and_placeholders() {
        let body = "# Objective\n<one paragraph>\n\n# Current State\nok\n# Next Action\n\n";
        let req: Vec<String> = ["Objective", "Current State", "Next Action"].iter().map(|s| s.to_string()).collect();
        assert_eq!(missing_sections(body, &req), vec!["Objective".to_string(), "Next Action".to_string()]);
        // CommonMark: a line holding only a tag opens an HTML block that runs to the next blank
        // line, so a heading right under a placeholder is not a heading (SPEC §A.15).
        let glued = "# Objective\n<one paragraph>\n# Current State\nok\n";
        assert_eq!(missing_sections(glued, &req[1..2]), vec!["Current State".to_string()]);
        let w = withhold_next_action("# Objective\na\n# Next Action\ndo it\n# Risks\nr\n", "stale");
        assert!(w.contains("(Next Action withheld: stale)") && !w.contains("do it") && w.contains("# Risks\nr"));
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
    }
}
