//! Knowledge (docs/REFERENCE.md#knowledge): what the repository now knows because of an episode — each
//! decision recorded, question resolved and task finished, as one candidate assertion derived
//! from the ledger and git (never from a conversation), which a person promotes or rejects.
//! Must not touch: a command or a query, tracked files beyond the candidates directory, a
//! credential.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::events::Event;
use crate::model::finding::{Category, Finding, Level};
use crate::model::labels::head_of;
use crate::model::labels::Anchor;
use crate::model::record::{branch_key, section_text};
use crate::services::identity::digest_hex;
use crate::store::atomic::{guard, read_opt, replace};
use crate::store::{decisions, ledger, sessions};

pub use crate::model::knowledge::{Knowledge, CLASSES};

/// Whether text looks like a piece of a conversation (never knowledge, never evidence).
pub fn is_transcript(text: &str) -> bool {
    const MARKERS: &[&str] =
        &["\"messages\"", "\"transcript\"", "\"transcript_path\"", "\"completion\"", "\"role\":", "\"role\" :"];
    text.lines().any(|l| {
        let t = l.trim_start();
        MARKERS.iter().any(|m| l.contains(m))
            || ["Human:", "Assistant:", "User:", "AI:"].iter().any(|p| t.starts_with(p))
    })
}

pub(crate) fn candidates_dir(ctx: &Ctx) -> PathBuf {
    ctx.layout.repo().join("knowledge/candidates")
}

pub(crate) fn curated_dir(ctx: &Ctx) -> PathBuf {
    ctx.layout.repo().join("knowledge/curated")
}

/// The longest knowledge id (docs/REFERENCE.md#knowledge): a candidate's id is printed in every briefing.
pub const MAX_ID: usize = 64;

pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !id.starts_with('-')
}

/// The first credential shape (the publish scan's, without machine paths) in `text`: what
/// tracked `.ai/repo/` must never receive (docs/SECURITY.md).
pub fn credential_in(text: &str) -> Option<&'static str> {
    crate::continuity::portability::credential_shapes_in(text).first().copied()
}

/// `text` with each line that holds a credential shape replaced by `(withheld: it holds …)`
/// (the value is never kept); the whole text withheld when a shape spans lines.
pub fn withhold_credentials(text: &str) -> String {
    if credential_in(text).is_none() {
        return text.to_string();
    }
    let out: String = text
        .split_inclusive('\n')
        .map(|line| match credential_in(line) {
            Some(what) => {
                let end = if line.ends_with('\n') { "\n" } else { "" };
                format!("(withheld: it holds {what}){end}")
            }
            None => line.to_string(),
        })
        .collect();
    match credential_in(&out) {
        None => out,
        Some(what) => format!("(withheld: it holds {what})\n"),
    }
}

/// The credential shapes (the publish scan's, docs/SECURITY.md) a derived candidate carries, and
/// how the receipt names its source without quoting a value: `decision "<title>"` when the
/// title itself holds none.
fn secret_in(k: &Knowledge, text: &str) -> Option<String> {
    let found = crate::continuity::portability::credential_shapes_in(text);
    let what = found.first()?;
    let kind = k.tags.iter().find(|t| *t != "derived").map_or("entry", String::as_str);
    let source = if crate::continuity::portability::credential_shapes_in(&k.title).is_empty()
        && !k.title.chars().any(char::is_control)
    {
        format!("{kind} \"{}\"", crate::text::first_line(&k.title))
    } else {
        format!("the {kind} recorded on {}", k.date)
    };
    Some(format!("{source} holds {what}"))
}

/// What `knowledge derive` did (`schemas/knowledge-derive.schema.json`).
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct DeriveReport {
    /// The episode derived from (none → nothing done).
    pub episode: Option<String>,
    /// `(verdict, path)`: `written`, `unchanged`, `skipped (promoted|superseded|credential|transcript)`, `would write`.
    pub lines: Vec<(String, String)>,
    /// How many candidates were written.
    pub written: usize,
    /// How many were already there, the same bytes.
    pub unchanged: usize,
    /// How many were skipped (promoted, superseded, holding a credential, transcript lines).
    pub skipped: usize,
}

/// Builds the candidates of episode `ep` from its stamped ledger lines (pure apart from reads).
fn build(ctx: &Ctx, ep: &str) -> Result<(Vec<Knowledge>, usize)> {
    let log = decisions::parse(&read_opt(&ctx.layout.decisions())?.unwrap_or_default());
    let mut out = Vec::new();
    let mut transcript = 0;
    // The n-th last `decision.recorded` line of a (title, task, head) is the n-th last such entry
    // of the log: a later decision with the same title never rewrites an earlier candidate's
    // reason. Counted from the end, so that only the lines since the episode began are read.
    let mut lines = Vec::new();
    for l in ledger::episode(&ctx.layout.ledger(), ep)?.into_iter().flatten() {
        let l = l?;
        if l.event() == Some("decision.recorded") || l.str("session") == Some(ep) {
            lines.push(l);
        }
    }
    let key_of = |p: &ledger::Pairs| {
        (
            p.str("decision").unwrap_or("").to_string(),
            p.str("task_id").unwrap_or("none").to_string(),
            p.str("head").unwrap_or("").to_string(),
        )
    };
    let mut later: std::collections::HashMap<(String, String, String), usize> = std::collections::HashMap::new();
    let mut from_end = vec![0; lines.len()];
    for (i, l) in lines.iter().enumerate().rev() {
        if let Some(p) = l.pairs.as_ref().filter(|_| l.event() == Some("decision.recorded")) {
            let n = later.entry(key_of(p)).or_insert(0);
            from_end[i] = *n;
            *n += 1;
        }
    }
    for (l, nth_last) in lines.iter().zip(from_end) {
        let Some(p) = &l.pairs else { continue };
        let ev = l.event().unwrap_or("");
        if p.str("session") != Some(ep) {
            continue;
        }
        if !matches!(ev, "decision.recorded" | "question.resolved" | "task.finished") {
            continue;
        }
        if is_transcript(&l.raw) {
            transcript += 1;
            continue;
        }
        let date = l.ts().unwrap_or("").get(..10).unwrap_or("").to_string();
        let task = p.str("task_id").unwrap_or("none").to_string();
        let (class, epistemics, tag, title, description, from) = match ev {
            "decision.recorded" => {
                let title = p.str("decision").unwrap_or("").to_string();
                let same: Vec<_> = log.iter().filter(|d| d.title == title).collect();
                let exact: Vec<_> = same
                    .iter()
                    .copied()
                    .filter(|d| d.task.as_deref().unwrap_or("none") == task && d.head.as_deref() == p.str("head"))
                    .collect();
                let pool = if exact.is_empty() { same } else { exact };
                let nth = pool.len().checked_sub(nth_last + 1);
                let why = nth.and_then(|n| pool.get(n)).or(pool.first()).and_then(|d| d.why.clone());
                (
                    "convention",
                    "decided",
                    "decision",
                    title.clone(),
                    why.map(|w| format!("Decided because {w}")).unwrap_or(title),
                    format!("decision:{task}"),
                )
            }
            "question.resolved" => {
                let q = p.str("question").unwrap_or("").to_string();
                (
                    "fact",
                    "observed",
                    "question",
                    q,
                    p.str("answer").unwrap_or("").to_string(),
                    format!("question:{task}"),
                )
            }
            _ => {
                let outcome = p.str("outcome").unwrap_or("");
                let verify = p.get("verify").filter(|v| !v.is_null());
                match (outcome, verify) {
                    ("blocked" | "failed" | "no_match", _) => {
                        let note = read_opt(&ctx.layout.completed().join(format!("{task}.md")))
                            .ok()
                            .flatten()
                            .unwrap_or_default();
                        let reason = section_text(&note, "Reason")
                            .or_else(|| section_text(&note, "Next Action"))
                            .and_then(|t| t.lines().find(|l| !l.trim().is_empty()).map(str::to_string))
                            .unwrap_or_else(|| "no note gave a reason".into());
                        (
                            "lesson",
                            "inferred",
                            "task",
                            format!("Task {task} ended {outcome}"),
                            reason,
                            format!("task:{task}"),
                        )
                    }
                    ("completed", Some(v)) => {
                        let cmd = v.get("command").and_then(Value::as_str).unwrap_or("");
                        let exit = v.get("exit").map(|e| e.to_string()).unwrap_or_default();
                        (
                            "fact",
                            "observed",
                            "task",
                            format!("Task {task} completed and verified"),
                            format!("`{cmd}` exited {exit}"),
                            format!("task:{task}"),
                        )
                    }
                    _ => continue,
                }
            }
        };
        let id = format!("{ep}-{}", digest_hex("majordomus-knowledge/v1\n", &l.raw, 6));
        if out.iter().any(|k: &Knowledge| k.id == id) {
            continue; // a byte-identical evidence line: one candidate
        }
        out.push(Knowledge {
            id,
            class: class.into(),
            title,
            description,
            status: "candidate".into(),
            epistemics: epistemics.into(),
            date,
            tags: vec!["derived".into(), tag.into()],
            derived_from: vec![format!("session:{ep}"), from],
            relations: Vec::new(),
            superseded_by: None,
            extra: String::new(),
        });
    }
    let (commits, files) = rule_commits(ctx, ep)?;
    for k in &mut out {
        k.derived_from.extend(commits.iter().map(|c| format!("commit:{c}")));
        k.relations.extend(files.iter().map(|f| format!("file:{f}")));
    }
    Ok((out, transcript))
}

/// Commits of the episode that touch `.ai/repo/rules/` or `.ai/repo/adrs/`, and those paths.
/// A store or repository that cannot be read is an error, not "no such commits"; a record that
/// does not parse only leaves its start head unknown (doctor names it).
fn rule_commits(ctx: &Ctx, ep: &str) -> Result<(Vec<String>, Vec<String>)> {
    let closed = match sessions::find_closed(&ctx.layout, ep)? {
        Some(p) => read_opt(&p)?,
        None => None,
    };
    let start =
        match closed.and_then(|t| crate::model::session::ClosedSession::parse(&t).ok().map(|(c, _)| c.start_head)) {
            Some(s) => Some(s),
            None => sessions::list_open(&ctx.layout)?
                .into_iter()
                .find_map(|(_, o)| o.ok().filter(|o| o.session_id == ep).map(|o| o.start_head)),
        };
    let (Some(start), Some(head)) = (start, ctx.git.head()?) else { return Ok((Vec::new(), Vec::new())) };
    let Some(base) = ctx.git.base_of(head_of(&start)) else { return Ok((Vec::new(), Vec::new())) };
    let mut commits = Vec::new();
    let mut files = std::collections::BTreeSet::new();
    let mut prev = base;
    for (id, _) in ctx.git.commits_between(base, head)? {
        let touched: Vec<String> = ctx
            .git
            .changed_between(prev, id)?
            .into_iter()
            .filter(|f| f.starts_with(".ai/repo/rules/") || f.starts_with(".ai/repo/adrs/"))
            .collect();
        if !touched.is_empty() {
            commits.push(id.to_string());
            files.extend(touched);
        }
        prev = Some(id);
    }
    Ok((commits, files.into_iter().collect()))
}

/// `knowledge derive`: writes (or, dry, reports) the candidates of the episode.
pub fn derive(ctx: &Ctx, episode: Option<&str>, dry_run: bool) -> Result<DeriveReport> {
    ctx.require_layer()?;
    ctx.policy()?;
    let Some(ep) = episode.map(str::to_string).or_else(|| ctx.session_id()) else { return Ok(DeriveReport::default()) };
    let (cands, transcript) = build(ctx, &ep)?;
    let mut r = DeriveReport { episode: Some(ep.clone()), skipped: transcript, ..Default::default() };
    for _ in 0..transcript {
        r.lines.push(("skipped (transcript)".into(), "a ledger line carrying a transcript marker".into()));
    }
    // Every candidate is rendered before any is written: one that every reader would skip
    // refuses the whole derivation, and nothing is written (docs/REFERENCE.md#front-matter).
    let cands = cands
        .into_iter()
        .map(|k| {
            let text = k.render().map_err(|o| o.refusal(&format!("knowledge derive: candidate {}", k.id)))?;
            Ok((k, text))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut paths = Vec::new();
    for (k, text) in cands {
        let path = candidates_dir(ctx).join(format!("{}.md", k.id));
        let rel = ctx.rel(&path);
        if curated_dir(ctx).join(format!("{}.md", k.id)).exists() {
            r.skipped += 1;
            r.lines.push(("skipped (promoted)".into(), rel));
            continue;
        }
        // Tracked `.ai/repo/` never receives a credential: the candidate is not written and the
        // receipt (a warning the hooks print) names the decision that holds it, never the value.
        if let Some(why) = secret_in(&k, &text) {
            r.skipped += 1;
            ctx.warn(format!("knowledge derive: candidate {} not written to .ai/repo/: {why}", k.id));
            r.lines.push(("skipped (credential)".into(), rel));
            continue;
        }
        guard(ctx.layout.root(), &path)?;
        let existing = read_opt(&path)?;
        if existing.as_deref().and_then(Knowledge::parse).is_some_and(|e| e.status == "superseded") {
            r.skipped += 1;
            r.lines.push(("skipped (superseded)".into(), rel));
            continue;
        }
        if existing.as_deref() == Some(text.as_str()) {
            r.unchanged += 1;
            r.lines.push(("unchanged".into(), rel));
        } else if dry_run {
            r.lines.push(("would write".into(), rel));
        } else {
            replace(&path, text.as_bytes())?;
            r.written += 1;
            paths.push(Value::from(rel.clone()));
            r.lines.push(("written".into(), rel));
        }
    }
    if !dry_run {
        ctx.record_event(
            Event::KnowledgeDerived,
            &[
                ("episode", Value::from(ep)),
                ("written", Value::from(r.written)),
                ("unchanged", Value::from(r.unchanged)),
                ("paths", Value::from(paths)),
                ("skipped", Value::from(r.skipped)),
            ],
        )?;
    }
    Ok(r)
}

/// Every knowledge file of one directory, parsed or not: `(file name, parsed)`.
fn read_dir(dir: &std::path::Path) -> Result<Vec<(String, Option<Knowledge>, String)>> {
    let mut v = Vec::new();
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(v),
        Err(source) => return Err(crate::store::Error::Io { path: dir.to_path_buf(), source }.into()),
    };
    for e in rd.filter_map(|e| e.ok()) {
        let Ok(name) = e.file_name().into_string() else { continue };
        if !name.ends_with(".md") || name.starts_with('.') || name == "README.md" {
            continue;
        }
        let text = read_opt(&e.path())?.unwrap_or_default();
        v.push((name, Knowledge::parse(&text), text));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(v)
}

/// `knowledge candidates --json` (`schemas/knowledge-candidates.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct Candidates {
    /// Every candidate, as [`candidates`] reads them.
    pub candidates: Vec<Knowledge>,
}

/// `knowledge candidates`: every record under `candidates/` (parsed ones).
/// A record whose id is not a knowledge id (over [`MAX_ID`] characters, or other than letters,
/// digits and `-`) is left out: `doctor` names its file.
pub fn candidates(ctx: &Ctx) -> Result<Vec<Knowledge>> {
    ctx.require_layer()?;
    Ok(read_dir(&candidates_dir(ctx))?.into_iter().filter_map(|(_, k, _)| k).filter(|k| valid_id(&k.id)).collect())
}

/// The knowledge store's findings: every record parses, carries the id of its file name and a
/// status that belongs in its directory (`knowledge-integrity`, FAIL otherwise), and the review
/// advisory (`knowledge candidates-reviewed`, WARN over `knowledge.candidates_max_files` or past
/// `knowledge.candidate_max_age_minutes`). Empty when the repository has no knowledge store.
pub fn store_findings(ctx: &Ctx, policy: &crate::model::policy::Policy) -> Result<Vec<Finding>> {
    let mut f = Vec::new();
    let (mut seen, mut pending, mut overdue) = (false, 0usize, 0usize);
    for (dir, want) in
        [(candidates_dir(ctx), ["candidate", "superseded"]), (curated_dir(ctx), ["verified", "superseded"])]
    {
        seen |= dir.is_dir();
        for (name, k, _) in read_dir(&dir)? {
            let rel = format!("{}/{name}", ctx.rel(&dir));
            let problem = match &k {
                None => Some("does not parse as a knowledge/v1 record".to_string()),
                Some(k) if !valid_id(&k.id) => Some(format!(
                    "its id ({} characters) is not a knowledge id: at most {MAX_ID} letters, digits and -; never shown in the briefing",
                    k.id.chars().count()
                )),
                Some(k) if format!("{}.md", k.id) != name => {
                    Some(format!("id does not match the file name {}", name.trim_end_matches(".md")))
                }
                Some(k) if !want.contains(&k.status.as_str()) || !CLASSES.contains(&k.class.as_str()) => {
                    Some(format!("status {} / class {} does not belong here", k.status, k.class))
                }
                Some(_) => None,
            };
            if let Some(p) = problem {
                f.push(Finding::new(
                    Level::Fail,
                    Category::KnowledgeIntegrity,
                    rel,
                    p,
                    "git majordomus knowledge check",
                ));
                continue;
            }
            if let Some(k) = k.filter(|k| k.status == "candidate") {
                pending += 1;
                let old = crate::clock::parse_stamp(&format!("{}T00:00:00Z", k.date))
                    .is_some_and(|d| (ctx.clock.now() - d).num_minutes() > policy.knowledge.candidate_max_age_minutes);
                overdue += usize::from(old);
            }
        }
    }
    if !seen {
        return Ok(f);
    }
    if f.is_empty() {
        f.push(Finding::new(
            Level::Ok,
            Category::KnowledgeIntegrity,
            ctx.rel(&ctx.layout.repo().join("knowledge")),
            "every knowledge record parses and sits in its directory",
            "git majordomus knowledge candidates",
        ));
    }
    let cap = policy.knowledge.candidates_max_files;
    let (level, msg) = if pending > cap {
        (Level::Warn, format!("{pending} candidates awaiting review, cap {cap} (knowledge.candidates_max_files)"))
    } else if overdue > 0 {
        (Level::Warn, format!("{overdue} candidate(s) awaiting review past knowledge.candidate_max_age_minutes"))
    } else {
        (Level::Ok, format!("{pending} candidates awaiting review, cap {cap}"))
    };
    f.push(Finding::new(level, Category::Knowledge, "candidates-reviewed", msg, "git majordomus knowledge candidates"));
    Ok(f)
}

/// `knowledge check`: [`store_findings`], or one OK line when there is no store yet.
pub fn check(ctx: &Ctx) -> Result<Vec<Finding>> {
    ctx.require_layer()?;
    let mut f = store_findings(ctx, ctx.policy()?)?;
    if f.is_empty() {
        f.push(Finding::new(
            Level::Ok,
            Category::KnowledgeIntegrity,
            ".ai/repo/knowledge",
            "no knowledge store yet: nothing to check",
            "git majordomus knowledge derive",
        ));
    }
    Ok(f)
}

/// The knowledge candidates awaiting review, by where their episode ran (the briefing names them).
#[derive(Debug, Default)]
pub struct Awaiting {
    /// Ids of candidates derived on this branch.
    pub here: Vec<String>,
    /// Ids of candidates whose episode is unknown here.
    pub unattributed: Vec<String>,
}

/// The candidates awaiting review on this branch (and unattributed).
pub fn awaiting_review(ctx: &Ctx) -> Result<Awaiting> {
    let pending: Vec<Knowledge> = candidates(ctx)?.into_iter().filter(|k| k.status == "candidate").collect();
    let key = branch_key(ctx.identity()?.branch_text());
    let session_names = crate::store::records::names(&ctx.layout.sessions())?;
    let open = sessions::list_open(&ctx.layout)?;
    let (mut here, mut unattributed) = (Vec::new(), Vec::new());
    for k in &pending {
        let ep = k.derived_from.iter().find_map(|d| d.strip_prefix("session:")).unwrap_or("");
        let closed_key = session_names.iter().find_map(|n| {
            n.split_once(&format!("--{ep}--")).map(|(_, rest)| rest.rsplitn(3, "--").nth(2).unwrap_or("").to_string())
        });
        let open_key = open
            .iter()
            .find_map(|(_, o)| o.as_ref().ok().filter(|o| o.session_id == ep).map(|o| branch_key(&o.branch)));
        match closed_key.or(open_key) {
            Some(b) if b == key => here.push(k.id.clone()),
            Some(_) => {}
            None => unattributed.push(k.id.clone()),
        }
    }
    Ok(Awaiting { here, unattributed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_markers() {
        assert!(is_transcript("Human: hi\n"));
        assert!(is_transcript(r#"{"role":"user"}"#));
        assert!(!is_transcript("The tests pass on main."));
    }
}
