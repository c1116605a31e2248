//! The text of the knowledge commands (docs/REFERENCE.md#knowledge): what `knowledge derive` wrote and the
//! `knowledge candidates` list.
//! Must not touch: git, `ctx`, files, the terminal.

use crate::model::knowledge::Knowledge;
use crate::ops::services::knowledge::DeriveReport;

/// `knowledge derive`: one line per candidate file and the counts, or why nothing was derived.
pub fn derive(r: &DeriveReport) -> String {
    if r.episode.is_none() {
        return "knowledge derive: no episode (none open here and none named with --episode); nothing derived\n".into();
    }
    let mut s: String = r.lines.iter().map(|(verdict, path)| format!("{verdict} {path}\n")).collect();
    s.push_str(&format!("knowledge derive: {} written, {} unchanged, {} skipped\n", r.written, r.unchanged, r.skipped));
    s
}

/// `knowledge candidates`: one line per candidate.
pub fn candidates(all: &[Knowledge]) -> String {
    if all.is_empty() {
        return "no knowledge candidates\n".into();
    }
    all.iter().map(|k| format!("{}  {:<10} {:<10} {}\n", k.id, k.status, k.class, k.title)).collect()
}
