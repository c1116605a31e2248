//! The on-disk form of checkpoints and handovers (docs/REFERENCE.md#records): front matter in the exact order,
//! a blank line, the body.
//!
//! Owns: [`RecordMeta::render`] and [`parse`].
//! Must not touch: body sections (`model::record`, `model::markdown`), files.

use serde::Deserialize;

use super::{list_field, split, typed, Oversize, Writer};
use crate::model::record::{Origin, RecordMeta, Skip};

impl RecordMeta {
    /// Emits the whole record file: front matter in the exact order, a blank line, the body;
    /// refused when the front matter would pass the readers' cap (docs/REFERENCE.md#front-matter).
    pub fn render(&self, body: &str) -> Result<String, Oversize> {
        let mut w = Writer::front_matter();
        w.fixed("schema_version", 1)
            .fixed("created_at", &self.created_at)
            .text("task_id", &self.task_id)
            .text("profile", &self.profile)
            .quoted("owner", &self.owner)
            .text("repository_id", &self.repository_id)
            .text("worktree", &self.worktree)
            .text("branch", &self.branch)
            .text("head", &self.head)
            .fixed("working_tree", &self.working_tree)
            .list("changed_files", &self.changed_files);
        if let Some(n) = self.changed_total {
            w.fixed("changed_total", n);
        }
        // A record that cites nothing carries no key (records before citations read the same).
        if !self.citations.is_empty() {
            w.list("citations", &self.citations);
        }
        if let Some(n) = self.citations_total {
            w.fixed("citations_total", n);
        }
        w.fixed("origin", self.origin.as_str()).text("session", &self.session);
        if let Some(r) = &self.continuity_record {
            w.fixed("continuity_record", r);
        }
        if let Some(d) = &self.continuity_device {
            w.text("continuity_device", d);
        }
        if let Some(l) = &self.continuity_label {
            w.quoted("continuity_label", l);
        }
        if let Some(k) = &self.continuity_key_id {
            w.text("continuity_key_id", k);
        }
        if let Some(c) = &self.continuity_created_at {
            w.fixed("continuity_created_at", c);
        }
        if let Some(i) = &self.issue {
            w.quoted("issue", i);
        }
        if let Some(m) = &self.milestone {
            w.quoted("milestone", m);
        }
        w.document(body)
    }
}

/// The front matter as written (docs/REFERENCE.md#records): every scalar read as the text written, unknown keys
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
    changed_total: Option<String>,
    #[serde(default, deserialize_with = "list_field")]
    citations: Vec<String>,
    citations_total: Option<String>,
    origin: Option<String>,
    session: Option<String>,
    continuity_record: Option<String>,
    continuity_device: Option<String>,
    continuity_label: Option<String>,
    continuity_key_id: Option<String>,
    continuity_created_at: Option<String>,
    issue: Option<String>,
    milestone: Option<String>,
}

/// Parses a checkpoint or handover file into its meta and body.
pub fn parse(text: &str) -> Result<(RecordMeta, &str), Skip> {
    let (yaml, body) = split(text).ok_or(Skip::NoFrontMatter)?;
    let front: Front = typed(yaml).map_err(|_| Skip::Malformed)?;
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
        changed_total: front.changed_total.and_then(|n| n.parse().ok()),
        citations: front.citations,
        citations_total: front.citations_total.and_then(|n| n.parse().ok()),
        origin: front.origin.as_deref().and_then(Origin::parse).unwrap_or_else(|| Origin::of_body(body)),
        session: front.session.unwrap_or_else(|| "none".into()),
        continuity_record: front.continuity_record,
        continuity_device: front.continuity_device,
        continuity_label: front.continuity_label,
        continuity_key_id: front.continuity_key_id,
        continuity_created_at: front.continuity_created_at,
        issue: front.issue,
        milestone: front.milestone,
    };
    Ok((meta, body.strip_prefix('\n').unwrap_or(body)))
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
            changed_total: Some(2),
            origin: Origin::Derived,
            session: "s-20260903201455-ab12".into(),
            ..Default::default()
        }
    }

    #[test]
    fn render_parse_round_trip() {
        let text = meta().render("# Objective\nx\n").unwrap();
        let (m, body) = parse(&text).unwrap();
        assert_eq!(m, meta());
        assert_eq!(body, "# Objective\nx\n");
    }

    proptest::proptest! {
        /// Every authored or computed string field reads back equal (docs/REFERENCE.md#records front matter).
        #[test]
        fn any_field_round_trips(
            fields in proptest::collection::vec("\\PC{0,12}|(null|true|1e3|~|: x|#c| lead|-x)", 11),
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
                continuity_label: Some(fields[9].clone()),
                continuity_key_id: Some(fields[10].clone()),
                changed_files: changed,
                ..meta()
            };
            let text = m.render("# Objective\nx\n").unwrap();
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
}
