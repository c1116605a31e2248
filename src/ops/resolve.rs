//! Record resolution (SPEC §5): which record on disk is about the work happening here.
//!
//! Two tiers only — same repository + worktree + branch, then same repository + branch (not
//! detached) — then nothing. Within a tier the greatest (`created_at`, ledger rank, file name)
//! wins; file modification times are never read.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::clock::parse_stamp;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::record::{branch_key, RecordMeta};
use crate::store::records::{load, names, Loaded};

/// Which tier matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Match {
    /// Tier 0.
    #[serde(rename = "same_worktree_same_branch")]
    SameWorktreeSameBranch,
    /// Tier 1.
    #[serde(rename = "same_branch")]
    SameBranch,
}

impl Match {
    /// The match name as printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Match::SameWorktreeSameBranch => "same_worktree_same_branch",
            Match::SameBranch => "same_branch",
        }
    }
}

/// A record that resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// File name.
    pub name: String,
    /// Absolute path.
    pub path: PathBuf,
    /// Parsed front matter.
    pub meta: RecordMeta,
    /// Body after the front matter.
    pub body: String,
    /// The tier it matched in.
    pub matched: Match,
}

/// What happened to one file.
#[derive(Debug, Clone, Serialize)]
pub struct TraceEntry {
    /// File name.
    pub file: String,
    /// `selected`, `superseded` or `rejected`.
    pub verdict: &'static str,
    /// Why (never empty).
    pub reason: String,
}

/// The answer of the resolver.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// The winner, when there is one.
    pub winner: Option<Resolved>,
    /// How many files were skipped as unreadable.
    pub skipped: usize,
    /// Per-file trace.
    pub trace: Vec<TraceEntry>,
}

/// The branch-key part of a record name, and whether it is a resumed (`continuity`) record.
fn name_branch_key(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".md")?;
    let rest = stem.get(18..)?;
    let mut it = rest.rsplitn(3, "--");
    let (_hex, _head, key) = (it.next()?, it.next()?, it.next()?);
    Some(key)
}

fn key_matches(name: &str, key: &str) -> bool {
    match name_branch_key(name) {
        Some(k) => k == key || k.strip_prefix("continuity--") == Some(key),
        None => true,
    }
}

/// Sort key inside one tier: parseable `created_at` above unparseable, then the time, then
/// ledger rank, then the file name.
fn order_key(meta: &RecordMeta, rank: usize, name: &str) -> (bool, i64, usize, String) {
    let t = parse_stamp(&meta.created_at);
    (t.is_some(), t.map(|t| t.timestamp()).unwrap_or(0), rank, name.to_string())
}

/// Warns about (and counts) a skipped file.
pub fn warn_skip(ctx: &Ctx, l: &Loaded, reason: &str) {
    ctx.warn(format!("skipped {}: {reason}", ctx.rel(&l.path)));
}

/// Resolves the record of `dir` for this checkout; `task` filters on `task_id`.
pub fn resolve(ctx: &Ctx, dir: &Path, task: Option<&str>) -> Result<Resolution> {
    let id = ctx.identity()?;
    let root = ctx.layout.root();
    let root_s = root.display().to_string();
    let key = branch_key(&id.branch);
    let detached = id.branch == "DETACHED";
    let mut res = Resolution::default();
    let mut all = names(dir)?;
    all.reverse(); // newest name stamp first
    let mut cands: Vec<(Resolved, usize)> = Vec::new();
    let mut best0: Option<String> = None; // compact created_at of the newest tier-0 candidate
    for name in all {
        if !key_matches(&name, &key) {
            res.trace.push(TraceEntry { file: name, verdict: "rejected", reason: "its file name names another branch".into() });
            continue;
        }
        if let Some(b) = &best0 {
            if name.get(..16).is_some_and(|s| s < b.as_str()) {
                res.trace.push(TraceEntry { file: name, verdict: "superseded", reason: "older than the selected record of the nearest tier".into() });
                continue;
            }
        }
        let l = load(root, dir, &name);
        let (meta, body) = match l.parsed {
            Ok(ref mb) => mb.clone(),
            Err(ref reason) => {
                warn_skip(ctx, &l, reason);
                res.skipped += 1;
                res.trace.push(TraceEntry { file: name, verdict: "rejected", reason: reason.clone() });
                continue;
            }
        };
        if let Some(t) = task {
            if meta.task_id != t {
                res.trace.push(TraceEntry { file: name, verdict: "rejected", reason: format!("written under task {}, not {t}", meta.task_id) });
                continue;
            }
        }
        let matched = if meta.repository_id != id.repository_id {
            None
        } else if meta.worktree == root_s && meta.branch == id.branch {
            Some(Match::SameWorktreeSameBranch)
        } else if !detached && meta.branch == id.branch {
            Some(Match::SameBranch)
        } else {
            None
        };
        let Some(matched) = matched else {
            let why = if meta.repository_id != id.repository_id {
                format!("about another repository ({})", meta.repository_id)
            } else if meta.branch != id.branch {
                format!("about another branch ({})", meta.branch)
            } else {
                format!("about another worktree ({}) while HEAD is detached", meta.worktree)
            };
            res.trace.push(TraceEntry { file: name, verdict: "rejected", reason: why });
            continue;
        };
        if matched == Match::SameWorktreeSameBranch {
            if let Some(t) = parse_stamp(&meta.created_at) {
                let c = t.format("%Y%m%dT%H%M%SZ").to_string();
                if best0.as_ref().is_none_or(|b| c > *b) {
                    best0 = Some(c);
                }
            }
        }
        cands.push((Resolved { name: name.clone(), path: l.path.clone(), meta, body, matched }, 0));
    }
    let Some(best_tier) = cands.iter().map(|c| c.0.matched).min() else { return Ok(res) };
    // Ledger ranks matter only among the best tier's records that share the newest timestamp.
    let top = cands.iter().filter(|c| c.0.matched == best_tier).map(|c| order_key(&c.0.meta, 0, "").1).max();
    let tied: Vec<usize> = cands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.0.matched == best_tier && Some(order_key(&c.0.meta, 0, "").1) == top)
        .map(|(i, _)| i)
        .collect();
    if tied.len() > 1 {
        let tied_names: Vec<&str> = tied.iter().map(|&i| cands[i].0.name.as_str()).collect();
        let ranks = crate::store::ledger::ranks(&ctx.layout.ledger(), &tied_names)?;
        for (k, &i) in tied.iter().enumerate() {
            cands[i].1 = ranks[k];
        }
    }
    let win = cands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.0.matched == best_tier)
        .max_by_key(|(_, c)| order_key(&c.0.meta, c.1, &c.0.name))
        .map(|(i, _)| i)
        .unwrap_or(0);
    for (i, (c, _)) in cands.iter().enumerate() {
        let (verdict, reason) = if i == win {
            ("selected", format!("{} (tier {})", c.matched.as_str(), c.matched as u8))
        } else if c.matched != best_tier {
            ("superseded", "a record in a nearer tier exists".to_string())
        } else {
            ("superseded", "a newer record in the same tier exists".to_string())
        };
        res.trace.push(TraceEntry { file: c.name.clone(), verdict, reason });
    }
    res.winner = Some(cands.swap_remove(win).0);
    Ok(res)
}

/// Every readable record of `dir`, newest first by (`created_at`, ledger rank, file name);
/// unreadable ones are warned about and skipped.
pub fn list(ctx: &Ctx, dir: &Path) -> Result<Vec<(String, PathBuf, RecordMeta, String)>> {
    let root = ctx.layout.root();
    let all = names(dir)?;
    let mut v = Vec::new();
    for name in &all {
        let l = load(root, dir, name);
        match l.parsed {
            Ok((m, b)) => v.push((name.clone(), l.path, m, b)),
            Err(ref reason) => warn_skip(ctx, &l, reason),
        }
    }
    let refs: Vec<&str> = v.iter().map(|x| x.0.as_str()).collect();
    let ranks = crate::store::ledger::ranks(&ctx.layout.ledger(), &refs)?;
    let mut keyed: Vec<_> = v.into_iter().zip(ranks).collect();
    keyed.sort_by(|a, b| order_key(&b.0 .2, b.1, &b.0 .0).cmp(&order_key(&a.0 .2, a.1, &a.0 .0)));
    Ok(keyed.into_iter().map(|x| x.0).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_key_of_names() {
        assert_eq!(name_branch_key("20260903T201455Z--main--9b1e2d4--c0ffee12c0ffee12.md"), Some("main"));
        assert_eq!(name_branch_key("20260903T201455Z--a--b--NONE--c0ffee12c0ffee12.md"), Some("a--b"));
        assert!(key_matches("20260903T201455Z--continuity--feat-x--9b1e2d4--c0ffee12c0ffee12.md", "feat-x"));
        assert!(!key_matches("20260903T201455Z--other--9b1e2d4--c0ffee12c0ffee12.md", "main"));
    }
}
