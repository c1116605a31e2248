//! The on-disk form of a knowledge record (docs/REFERENCE.md#knowledge): front matter in the documented order, then
//! the title as a heading, the description, and any later sections as written.
//!
//! Owns: [`Knowledge::render`] and [`Knowledge::parse`].
//! Must not touch: files, which records exist (`services::knowledge`).

use serde::Deserialize;
use serde_yaml::{Mapping, Value};

use super::{flow, get, get_list, list_field, quoted, split, typed, Oversize, Writer};
use crate::model::knowledge::Knowledge;

/// The front matter as written; unknown keys tolerated, nested parts read loosely.
#[derive(Deserialize)]
struct Front {
    schema: Option<String>,
    id: Option<String>,
    class: Option<String>,
    title: Option<String>,
    description: Option<String>,
    status: Option<String>,
    epistemics: Option<String>,
    date: Option<String>,
    #[serde(default, deserialize_with = "list_field")]
    tags: Vec<String>,
    provenance: Option<Mapping>,
    relations: Option<Value>,
    superseded_by: Option<String>,
}

impl Knowledge {
    /// The file text, front matter in docs/REFERENCE.md#knowledge order; refused when the front matter would
    /// pass the readers' cap (docs/REFERENCE.md#front-matter).
    pub fn render(&self) -> Result<String, Oversize> {
        let mut w = Writer::front_matter();
        w.fixed("schema", "knowledge/v1")
            .fixed("id", &self.id)
            .fixed("kind", "knowledge")
            .fixed("class", &self.class)
            .quoted("title", &self.title)
            .quoted("description", &self.description)
            .fixed("status", &self.status)
            .fixed("epistemics", &self.epistemics)
            .fixed("date", &self.date)
            .flow("tags", &self.tags)
            .line("provenance:")
            .line("  origin: extracted")
            .line(&format!("  derived_from: {}", flow(&self.derived_from)));
        if self.relations.is_empty() {
            w.line("relations: []");
        } else {
            w.line("relations:");
            for r in &self.relations {
                w.line("  - type: relates_to").line(&format!("    target: {}", quoted(r)));
            }
        }
        if let Some(b) = &self.superseded_by {
            w.fixed("superseded_by", b);
        }
        let mut text = w.close_with(&format!("# {}\n{}\n", self.title, self.description))?;
        text.push_str(&self.extra);
        Ok(text)
    }

    /// Parses a knowledge file; `None` when it is not one (wrong schema, a required key missing).
    pub fn parse(text: &str) -> Option<Knowledge> {
        let (yaml, body) = split(text)?;
        let f: Front = typed(yaml).ok()?;
        if f.schema.as_deref() != Some("knowledge/v1") {
            return None;
        }
        let relations = f
            .relations
            .as_ref()
            .and_then(|v| v.as_sequence())
            .map(|s| s.iter().filter_map(|r| r.as_mapping().and_then(|r| get(r, "target"))).collect())
            .unwrap_or_default();
        let title = f.title?;
        let description = f.description.unwrap_or_default();
        let head = format!("# {title}\n{description}\n");
        Some(Knowledge {
            id: f.id?,
            class: f.class?,
            status: f.status?,
            epistemics: f.epistemics.unwrap_or_default(),
            date: f.date.unwrap_or_default(),
            tags: f.tags,
            derived_from: f.provenance.as_ref().map(|p| get_list(p, "derived_from")).unwrap_or_default(),
            relations,
            superseded_by: f.superseded_by,
            extra: body.strip_prefix(&head).unwrap_or("").to_string(),
            title,
            description,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let k = Knowledge {
            id: "s-1-abcdefabcdef".into(),
            class: "convention".into(),
            title: "Use \"x\"".into(),
            description: "Decided because y".into(),
            status: "candidate".into(),
            epistemics: "decided".into(),
            date: "2026-09-03".into(),
            tags: vec!["derived".into(), "decision".into()],
            derived_from: vec!["session:s-1".into(), "decision:none".into()],
            relations: vec!["file:.ai/repo/adrs/1.md".into()],
            superseded_by: None,
            extra: String::new(),
        };
        assert_eq!(Knowledge::parse(&k.render().unwrap()).unwrap(), k);
    }
}
