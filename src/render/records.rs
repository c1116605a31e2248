//! Resolved records, record lists, and the decision log.
//! Must not touch: git, `ctx`, the store's readers and writers, the terminal.

use chrono::{DateTime, Utc};

use crate::model::labels::age;
use crate::model::record::RecordMeta;
use crate::ops::queries::questions::Listed;
use crate::ops::services::citations::Checked;
use crate::ops::services::labelled::Labelled;
use crate::store::decisions::{superseded_by, Decision};

/// `question list`: one line per entry shown, or `no open questions`.
pub fn questions(list: &[Listed]) -> String {
    if list.is_empty() {
        return "no open questions\n".into();
    }
    list.iter()
        .map(|q| match q {
            Listed::Unresolved { n, task, question, opened } => {
                format!("{n}  [unresolved] {task} — {question} ({opened})\n")
            }
            Listed::Resolved { date, task, text } => format!("-  [resolved {date}] {task} — {text}\n"),
        })
        .collect()
}

/// `Created: <ts> (<age>)`, or for a resumed handover the origin time and the resume time.
pub fn created_line(meta: &RecordMeta, now: DateTime<Utc>) -> String {
    match &meta.continuity_created_at {
        Some(origin) => format!("Created: {origin} ({}), resumed here {}", age(origin, now), meta.created_at),
        None => format!("Created: {} ({})", meta.created_at, age(&meta.created_at, now)),
    }
}

/// `handover --resolve`.
pub fn handover(l: &Labelled, rel_path: &str, now: DateTime<Utc>, cited: &[Checked]) -> String {
    let m = &l.record.meta;
    let mut s = format!("Handover: {rel_path}\n");
    s.push_str(&format!("Match: {}\n", l.record.matched.as_str()));
    s.push_str(&format!("Git state: {}\n", l.git_state()));
    s.push_str(&created_line(m, now));
    s.push('\n');
    s.push_str(&format!("Task: {}\n", m.task_id));
    s.push_str(&format!("Freshness: {} — {}\n", l.freshness.label.as_str(), l.freshness.reason));
    s.push_str(&origin_line(l, rel_path));
    if let Some(a) = l.arrived() {
        s.push_str(&format!(
            "Arrived: from {}, continuity record {}\n",
            a.describe(),
            crate::text::short_id(&a.record)
        ));
    }
    if let Some(now_wt) = &l.working_tree_now {
        s.push_str(&format!("Divergence: working tree was {}, now {now_wt}\n", m.working_tree));
    }
    s.push_str(&citations(cited, m.citations_total, "handover"));
    s.push_str("---\n");
    s.push_str(&l.shown_body());
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// `Citations: N cited, M unchanged` and one line per citation that is not unchanged (none for
/// a record that cites nothing; docs/REFERENCE.md#citations).
fn citations(cited: &[Checked], total: Option<usize>, kind: &str) -> String {
    if cited.is_empty() {
        return String::new();
    }
    let unchanged = cited.iter().filter(|c| c.label == "unchanged").count();
    let more = total.map(|t| format!(" (of {t})")).unwrap_or_default();
    let mut s = format!("Citations: {} cited{more}, {unchanged} unchanged\n", cited.len());
    for c in cited.iter().filter(|c| c.label != "unchanged") {
        s.push_str(&format!("  {}\n", c.describe(kind)));
    }
    s
}

/// `Origin: authored|derived`, and which newer derived record an authored one was preferred to
/// (docs/REFERENCE.md#origin: every reader says which it chose).
fn origin_line(l: &Labelled, rel_path: &str) -> String {
    let mut s = format!("Origin: {}\n", l.record.meta.origin);
    if let Some(name) = &l.passed_over {
        let dir = rel_path.rsplit_once('/').map_or("", |(d, _)| d);
        s.push_str(&format!("Preferred to: {dir}/{name} (newer, derived; an authored record wins)\n"));
    }
    s
}

/// `checkpoint --show`.
pub fn checkpoint(l: &Labelled, rel_path: &str, now: DateTime<Utc>, cited: &[Checked]) -> String {
    let mut s = format!("Checkpoint: {rel_path}\n");
    s.push_str(&created_line(&l.record.meta, now));
    s.push('\n');
    s.push_str(&format!("Git state: {}\n", l.git_state()));
    s.push_str(&origin_line(l, rel_path));
    s.push_str(&citations(cited, l.record.meta.citations_total, "checkpoint"));
    s.push_str("---\n");
    s.push_str(&l.record.body);
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// One `--list` line: `<created_at>  <task_id %-24s> <label %-18s> <path>`.
pub fn list_line(meta: &RecordMeta, label: &str, rel_path: &str) -> String {
    format!("{}  {:<24} {:<18} {}", meta.created_at, meta.task_id, label, rel_path)
}

/// One `decision list` line, with the superseded mark.
pub fn decision_line(d: &Decision, all: &[Decision]) -> String {
    let mut s = format!("{}  {:<24} {}", d.date, d.task.as_deref().unwrap_or("-"), d.title);
    if let Some(by) = superseded_by(all, &d.title) {
        s.push_str(&format!("  (superseded by: {by})"));
    }
    s
}

/// `decision show`.
pub fn decision(d: &Decision, all: &[Decision]) -> String {
    let mut s = format!("## {} — {}\n", d.date, d.title);
    for l in &d.text {
        s.push_str(l);
        s.push('\n');
    }
    if let Some(by) = superseded_by(all, &d.title) {
        s.push_str(&format!("Superseded by: {by}\n"));
    }
    s
}

/// `hooks status`: one line per host file, git hook and remote.
pub fn hooks_status(r: &crate::ops::commands::install::StatusReport) -> String {
    let mut s = String::new();
    for h in &r.hosts {
        let n = if h.state == "partial" { format!(" ({} of {})", h.entries, h.expected) } else { String::new() };
        s.push_str(&format!("{:<12} {:<8} {:<34} {}{n}\n", h.provider, h.scope, h.path, h.state));
    }
    for g in &r.git_hooks {
        s.push_str(&format!("{:<12} {:<8} {:<34} {}\n", "git", "hook", g.hook, g.state));
    }
    for f in &r.fetch_refspecs {
        let state = if f.present { "fetches the continuity ref" } else { "no continuity refspec" };
        s.push_str(&format!("{:<12} {:<8} {:<34} {state}\n", "git", "remote", f.remote));
    }
    s
}

/// `worktree list`: one line per kept checkout, a removed one's records under it.
pub fn kept_list(list: &[crate::ops::queries::worktrees::KeptView]) -> String {
    if list.is_empty() {
        return "(no records are kept under the git directory yet: the first write here keeps them)\n".into();
    }
    let mut out = String::new();
    for k in list {
        let name = k.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
        out.push_str(&format!("{:<8} {}{name}  [{}]\n", k.standing, k.worktree, &k.id));
        if k.standing == "removed" {
            let task = k.task.as_deref().unwrap_or("no task");
            out.push_str(&format!(
                "         {task}; {} handover(s), {} checkpoint(s), {} decision(s), {} open question(s)\n",
                k.handovers, k.checkpoints, k.decisions, k.open_questions
            ));
            out.push_str(&format!(
                "         adopt: git majordomus worktree adopt {}\n",
                k.name.as_deref().unwrap_or(&k.id)
            ));
        }
    }
    out
}

/// `worktree adopt`'s success line.
pub fn adopted(a: &crate::ops::commands::worktree::Adopted) -> String {
    let task = match (&a.task, a.task_to.as_deref()) {
        (Some(t), Some("current")) => format!("; task {t} is this checkout's active task"),
        (Some(t), _) => format!("; task {t} is archived here (git majordomus start --resume {t})"),
        _ => String::new(),
    };
    format!(
        "adopted the records of {}: {} file(s), {} decision(s), {} question(s){task}",
        a.worktree, a.files, a.decisions, a.questions
    )
}
