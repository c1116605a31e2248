//! The working context document `.ai/local/session-contexts/<stamp>--<sid>.md` (docs/REFERENCE.md#working-context):
//! what an episode was told when it opened, its notes, and its close. Written once, appended to,
//! never rewritten.
//!
//! Owns: the document's front matter and layout, where it lives, reading its anchor back.
//! Must not touch: git, the context builder (the briefing text is handed in), stdout.

use std::path::{Path, PathBuf};

use super::atomic::{append, create_new, read_opt};
use super::format::{get, mapping, split, Oversize, Writer};
use super::Layout;
use crate::model::session::OpenSession;
use crate::Result;

/// What the front matter says about the task at open.
#[derive(Debug, Clone, Default)]
pub struct TaskAtOpen {
    /// The task id, when a task was active.
    pub id: Option<String>,
    /// Its profile.
    pub profile: Option<String>,
}

/// The document's text: front matter, the briefing as it was at open, an empty notes section;
/// refused when the front matter would pass the readers' cap (docs/REFERENCE.md#front-matter).
pub fn render(s: &OpenSession, task: &TaskAtOpen, briefing: &str) -> std::result::Result<String, Oversize> {
    let mut w = Writer::front_matter();
    let quoted_or_none = |w: &mut Writer, key: &str, v: &Option<String>| {
        match v {
            Some(v) => w.quoted(key, v),
            None => w.fixed(key, "none"),
        };
    };
    w.fixed("schema", "session-context/v1")
        .fixed("kind", "session-context")
        .text("session_id", &s.session_id)
        .fixed("opened_at", &s.started_at)
        .fixed("opened_by", if s.provider.is_some() { "hook" } else { "hand" });
    quoted_or_none(&mut w, "provider", &s.provider);
    quoted_or_none(&mut w, "provider_session", &s.provider_session);
    w.text("branch", &s.branch).text("head", &s.start_head);
    w.text("task_id", task.id.as_deref().unwrap_or("none")).text("profile", task.profile.as_deref().unwrap_or("none"));
    quoted_or_none(&mut w, "worker", &s.worker);
    let mut text =
        w.document(&format!("# Working context of session {}\n\n## Context at open\n\n{briefing}", s.session_id))?;
    text.push_str("\n## Notes\n\n");
    Ok(text)
}

/// Writes a new document for `s` stamped `stamp` (a compact UTC time); never overwrites.
pub fn write(layout: &Layout, stamp: &str, s: &OpenSession, text: &str) -> Result<PathBuf> {
    let sid = s.session_id.clone();
    create_new(&layout.session_contexts(), || format!("{stamp}--{sid}.md"), text.as_bytes())
}

/// The newest document of episode `sid`, if any.
pub fn find(layout: &Layout, sid: &str) -> Option<PathBuf> {
    let suffix = format!("--{sid}.md");
    let rd = std::fs::read_dir(layout.session_contexts()).ok()?;
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(&suffix) && !n.starts_with('.')))
        .collect();
    v.sort();
    v.pop()
}

/// The `(head, branch)` the document was frozen at; `None` when it cannot be read or lacks them.
pub fn anchor(path: &Path) -> Option<(String, String)> {
    let text = read_opt(path).ok().flatten()?;
    let map = split(&text).and_then(|(y, _)| mapping(y).ok())?;
    Some((get(&map, "head")?, get(&map, "branch")?))
}

/// Appends the close block.
pub fn append_close(path: &Path, closed_at: &str, outcome: &str, head: &str, record: &str) -> Result<()> {
    let close =
        format!("\n## Close\n\n- closed_at: {closed_at}\n- outcome: {outcome}\n- head: {head}\n- record: {record}\n");
    append(path, close.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_reads_back_what_render_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let s = OpenSession {
            session_id: "s-1".into(),
            started_at: "2026-09-03T20:00:00Z".into(),
            branch: "null".into(),
            start_head: "1e3".into(),
            ..Default::default()
        };
        let text = render(&s, &TaskAtOpen::default(), "briefing\n").unwrap();
        let path = write(&layout, "20260903T200000Z", &s, &text).unwrap();
        assert_eq!(find(&layout, "s-1"), Some(path.clone()));
        assert_eq!(anchor(&path), Some(("1e3".into(), "null".into())));
        assert!(text.contains("task_id: none\nprofile: none\n"));
    }
}
