//! `search` (docs/REFERENCE.md#search): a case-insensitive fixed-string grep over the records, in authority
//! order handover → checkpoint → decision → question → prompt → history.
//!
//! Owns: which files each kind reads, their order (record files newest first by their name
//! stamp, never by mtime), the `--task` filter of each kind, the per-kind limit.
//! Must not touch: clap, `Ui`, the text layout of a hit.

use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::store::atomic::{guard, read_opt};
use crate::store::decisions::{self, strip_comments};
use crate::store::format::record;
use crate::store::ledger;
use crate::store::questions::{self, Entry};

/// How many hits per kind `search` reports without `--limit`.
pub const DEFAULT_LIMIT: usize = 40;

majordomus_core::vocabulary! {
    /// A kind of record, in authority order.
    pub enum Kind in declaration order {
        /// `.ai/local/state/handovers/*.md`.
        Handover = "handover",
        /// `.ai/local/state/checkpoints/*.md`.
        Checkpoint = "checkpoint",
        /// `.ai/local/state/decisions.md`.
        Decision = "decision",
        /// `.ai/local/state/open-questions.md`.
        Question = "question",
        /// `.ai/repo/prompts/*.md`.
        Prompt = "prompt",
        /// `.ai/local/state/ledger.jsonl`.
        History = "history",
    }
}

impl Kind {
    /// Parses a kind name (exit 2 naming the known kinds otherwise).
    pub fn named(s: &str) -> Result<Kind> {
        Kind::parse(s.trim()).ok_or_else(|| {
            let known: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
            Error::usage(format!("search: unknown kind {s:?}; known kinds: {}", known.join(", ")))
        })
    }
}

/// Parameters of `search`.
#[derive(Debug, Clone, Default)]
pub struct SearchParams {
    /// The text to find (fixed string, case-insensitive).
    pub text: String,
    /// The kinds asked for (`--kind`, repeatable, commas allowed); empty means every kind.
    pub kinds: Vec<String>,
    /// Only records of this task.
    pub task: Option<String>,
    /// At most this many hits per kind (default 40).
    pub limit: Option<usize>,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Hit {
    /// The kind of record.
    pub kind: Kind,
    /// Repository-relative path of the file.
    pub path: String,
    /// 1-based line number in that file.
    pub line: usize,
    /// The line, without its newline.
    pub text: String,
}

/// The answer of `search`; its JSON is `{"hits":[...],"count":N}`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct SearchReport {
    /// Every hit, kinds in authority order.
    pub hits: Vec<Hit>,
    /// `hits.len()`.
    pub count: usize,
    /// The kinds searched, in authority order (for the no-match message).
    #[serde(skip)]
    pub kinds: Vec<Kind>,
}

/// Resolves the `--kind` values into kinds in authority order, without duplicates.
pub fn kinds(asked: &[String]) -> Result<Vec<Kind>> {
    let mut out: Vec<Kind> = Vec::new();
    for s in asked.iter().flat_map(|s| s.split(',')) {
        out.push(Kind::named(s)?);
    }
    if out.is_empty() {
        return Ok(Kind::ALL.to_vec());
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Runs `search`.
pub fn search(ctx: &Ctx, p: &SearchParams) -> Result<SearchReport> {
    if p.text.trim().is_empty() {
        return Err(Error::usage("search: the text to find is empty"));
    }
    if p.limit == Some(0) {
        return Err(Error::usage("search: --limit must be at least 1"));
    }
    let kinds = kinds(&p.kinds)?;
    ctx.require_layer()?;
    let needle = p.text.to_lowercase();
    let limit = p.limit.unwrap_or(DEFAULT_LIMIT);
    let task = p.task.as_deref();
    let mut s = Searcher { ctx, needle: &needle, task, limit, hits: Vec::new() };
    for k in &kinds {
        match k {
            Kind::Handover => s.records(*k, &ctx.layout.handovers()),
            Kind::Checkpoint => s.records(*k, &ctx.layout.checkpoints()),
            Kind::Decision => s.decisions(),
            Kind::Question => s.questions(),
            Kind::Prompt => s.prompts(),
            Kind::History => s.history(),
        }?;
    }
    let count = s.hits.len();
    Ok(SearchReport { hits: s.hits, count, kinds })
}

struct Searcher<'a> {
    ctx: &'a Ctx,
    needle: &'a str,
    task: Option<&'a str>,
    limit: usize,
    hits: Vec<Hit>,
}

impl Searcher<'_> {
    /// Reads a file to search; an unreadable one is skipped with a warning.
    fn read(&self, path: &Path) -> Option<String> {
        let r = guard(self.ctx.layout.root(), path).and_then(|_| read_opt(path));
        match r {
            Ok(t) => t,
            Err(e) => {
                self.ctx.warn(format!("search: skipped {}: {}", self.ctx.rel(path), e));
                None
            }
        }
    }

    /// Adds the matching `(line number, text)` pairs of one file until the kind's limit;
    /// returns whether the limit is reached.
    fn add<'t>(
        &mut self,
        kind: Kind,
        path: &Path,
        lines: impl Iterator<Item = (usize, &'t str)>,
        taken: &mut usize,
    ) -> bool {
        let rel = self.ctx.rel(path);
        for (n, text) in lines {
            if *taken >= self.limit {
                return true;
            }
            if contains_folded(text, self.needle) {
                self.hits.push(Hit { kind, path: rel.clone(), line: n, text: text.trim_end().to_string() });
                *taken += 1;
            }
        }
        *taken >= self.limit
    }

    /// Checkpoints and handovers: every `*.md`, newest name stamp first; `--task` keeps the
    /// files whose front matter names it.
    fn records(&mut self, kind: Kind, dir: &Path) -> Result<()> {
        let mut taken = 0;
        for path in md_files(dir, true)? {
            let Some(text) = self.read(&path) else { continue };
            if let Some(t) = self.task {
                match record::parse(&text) {
                    Ok((meta, _)) if meta.task_id == t => {}
                    _ => continue,
                }
            }
            if self.add(kind, &path, numbered(&text), &mut taken) {
                break;
            }
        }
        Ok(())
    }

    /// `decisions.md` outside HTML comments; `--task` keeps the entries whose `Task:` names it.
    fn decisions(&mut self) -> Result<()> {
        let path = self.ctx.layout.decisions();
        let Some(text) = self.read(&path) else { return Ok(()) };
        let visible = strip_comments(&text);
        let mut taken = 0;
        match self.task {
            None => {
                self.add(Kind::Decision, &path, visible.into_iter(), &mut taken);
            }
            Some(t) => {
                let entries = decisions::parse(&text);
                // Each entry runs from its heading to the next entry's heading.
                let mut ranges = Vec::new();
                for (i, d) in entries.iter().enumerate() {
                    let end = entries.get(i + 1).map(|n| n.line).unwrap_or(usize::MAX);
                    if d.task.as_deref() == Some(t) {
                        ranges.push((d.line, end));
                    }
                }
                let lines = visible.into_iter().filter(|(n, _)| ranges.iter().any(|(a, b)| (*a..*b).contains(n)));
                self.add(Kind::Decision, &path, lines, &mut taken);
            }
        }
        Ok(())
    }

    /// `open-questions.md` outside HTML comments; `--task` keeps the entries of that task.
    fn questions(&mut self) -> Result<()> {
        let path = self.ctx.layout.questions();
        let Some(text) = self.read(&path) else { return Ok(()) };
        let visible = strip_comments(&text);
        let mut taken = 0;
        match self.task {
            None => {
                self.add(Kind::Question, &path, visible.into_iter(), &mut taken);
            }
            Some(t) => {
                let of_task: Vec<usize> = questions::parse(&text)
                    .into_iter()
                    .filter_map(|e| match e {
                        Entry::Unresolved { line, task, .. } | Entry::Resolved { line, task, .. } if task == t => {
                            Some(line)
                        }
                        _ => None,
                    })
                    .collect();
                let lines = visible.into_iter().filter(|(n, _)| of_task.contains(n));
                self.add(Kind::Question, &path, lines, &mut taken);
            }
        }
        Ok(())
    }

    /// `.ai/repo/prompts/*.md` in name order; prompts belong to no task, so `--task` skips them.
    fn prompts(&mut self) -> Result<()> {
        if self.task.is_some() {
            return Ok(());
        }
        let mut taken = 0;
        for path in md_files(&self.ctx.layout.prompts(), false)? {
            let Some(text) = self.read(&path) else { continue };
            if self.add(Kind::Prompt, &path, numbered(&text), &mut taken) {
                break;
            }
        }
        Ok(())
    }

    /// `ledger.jsonl`, newest line first; `--task` keeps the lines whose `task_id` names it.
    ///
    /// One forward stream over the ledger that keeps only the newest `limit` hits (docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow):
    /// the line numbers stay exact and memory stays bounded whatever the ledger's length.
    fn history(&mut self) -> Result<()> {
        let path = self.ctx.layout.ledger();
        if let Err(e) = guard(self.ctx.layout.root(), &path) {
            self.ctx.warn(format!("search: skipped {}: {}", self.ctx.rel(&path), e));
            return Ok(());
        }
        let Some(lines) = ledger::raw_lines(&path)? else { return Ok(()) };
        let mut newest: VecDeque<(usize, String)> = VecDeque::with_capacity(self.limit + 1);
        for l in lines {
            let (number, bytes) = l?;
            let raw = String::from_utf8_lossy(&bytes);
            // The text is checked first; only a hit is parsed for `--task`.
            if !contains_folded(&raw, self.needle) {
                continue;
            }
            let line = ledger::Line::parse(Some(number), &bytes);
            if self.task.is_none_or(|t| line.str("task_id") == Some(t)) && self.limit > 0 {
                if newest.len() == self.limit {
                    newest.pop_front();
                }
                newest.push_back((number, line.raw));
            }
        }
        let mut taken = 0;
        self.add(Kind::History, &path, newest.iter().rev().map(|(n, raw)| (*n, raw.as_str())), &mut taken);
        Ok(())
    }
}

/// Whether `text` contains `needle` (already lowercase) ignoring case: byte-wise for an ASCII
/// needle (no allocation per line), else through `to_lowercase`.
fn contains_folded(text: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return text.to_lowercase().contains(needle);
    }
    let (t, n) = (text.as_bytes(), needle.as_bytes());
    n.is_empty() || t.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// Lines with their 1-based numbers.
fn numbered(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l))
}

/// The `*.md` files of `dir` (dot files excluded), by name: descending when `newest_first`.
fn md_files(dir: &Path, newest_first: bool) -> Result<Vec<PathBuf>> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io_at(dir, e)),
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
        .collect();
    names.sort();
    if newest_first {
        names.reverse();
    }
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn case_folding_finds_what_to_lowercase_finds() {
        for (text, needle, found) in [
            ("Fix the OAuth Callback", "oauth callback", true),
            ("Fix the OAuth Callback", "oauth  callback", false),
            ("Straße über Brücke", "über", true),
            ("STRASSE ÜBER", "über", true),
            ("abc", "abcd", false),
        ] {
            assert_eq!(contains_folded(text, needle), found, "{text} / {needle}");
            assert_eq!(text.to_lowercase().contains(needle), found, "{text} / {needle}");
        }
    }

    #[test]
    fn kinds_in_authority_order() {
        let k = kinds(&["history".into(), "handover,decision".into(), "history".into()]).unwrap();
        assert_eq!(k, [Kind::Handover, Kind::Decision, Kind::History]);
        assert_eq!(kinds(&[]).unwrap(), Kind::ALL.to_vec());
        assert_eq!(kinds(&["nope".into()]).unwrap_err().exit, crate::error::Exit::Usage);
    }

    #[test]
    fn hit_json_shape() {
        let h = Hit { kind: Kind::Question, path: "p".into(), line: 3, text: "t".into() };
        let r = SearchReport { hits: vec![h], count: 1, kinds: vec![Kind::Question] };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"hits":[{"kind":"question","path":"p","line":3,"text":"t"}],"count":1}"#
        );
    }
}
