//! The doctor rules on files: every profile parses, every checkpoint or handover the resolver
//! would skip is a FAIL naming the file, and every staging file an interrupted write left is a
//! WARN naming it.
//! Must not touch: a command or a query, the files it judges (a finding names the fix, it never
//! repairs).

use crate::ctx::Ctx;
use crate::error::Result;
use crate::model::finding::{Category, Finding, Level};
use crate::model::policy::{interval_minutes, Policy};
use crate::store::atomic::{read_opt, staging_files};
use crate::store::format;
use crate::store::records::{file_names_where, load, names};
use std::path::Path;

/// The freshness thresholds `init` wrote before version 0.2 (12 h and 48 h), written as spans
/// so that no threshold is a literal in code (docs/REFERENCE.md#freshness).
const OLD_DEFAULTS: (i64, i64) = (12 * 60, 48 * 60);

/// INFO when the policy keeps the old default freshness thresholds: an existing policy keeps its
/// values, and this says what the new default is and why (docs/REFERENCE.md#policy).
pub(super) fn freshness_rules(policy: &Policy) -> Vec<Finding> {
    let t = policy.thresholds();
    if (t.fresh_minutes, t.stale_minutes) != (Some(OLD_DEFAULTS.0), Some(OLD_DEFAULTS.1)) {
        return Vec::new();
    }
    let new = Policy::defaults().thresholds();
    vec![Finding::new(
        Level::Info,
        Category::Policy,
        "session.freshness.stale_minutes",
        format!(
            "{} is the old default (48 h: a Friday-evening handover is stale on Monday); the default is now {} — change it in .ai/repo/policy.yaml if a working week should not age a handover into history",
            OLD_DEFAULTS.1,
            new.stale_minutes.map_or_else(|| "unset".to_string(), |m| m.to_string())
        ),
        "git majordomus doctor",
    )]
}

/// Every profile parses, and `profiles.default` names one.
pub(super) fn profile_rules(ctx: &Ctx, policy: Option<&Policy>) -> Vec<Finding> {
    let mut out = Vec::new();
    let names = ctx.profile_names();
    for n in &names {
        let subject = format!(".ai/repo/profiles/{n}.yaml");
        let reproduce = format!("cat {subject}");
        match ctx.profile(n) {
            Ok(p) if interval_minutes(&p.checkpoint_interval).is_none() => out.push(Finding::new(
                Level::Fail,
                Category::Profile,
                subject,
                format!("checkpoint_interval {:?} is not a span such as 15m", p.checkpoint_interval),
                &reproduce,
            )),
            Ok(_) => out.push(Finding::new(Level::Ok, Category::Profile, subject, "parses", &reproduce)),
            Err(e) => out.push(Finding::new(Level::Fail, Category::Profile, subject, e.message, &reproduce)),
        }
    }
    if let Some(p) = policy {
        if !names.contains(&p.profiles.default) {
            out.push(Finding::new(
                Level::Fail,
                Category::Profile,
                p.profiles.default.clone(),
                format!("profiles.default names no profile in .ai/repo/profiles/ (known: {})", names.join(", ")),
                "ls .ai/repo/profiles",
            ));
        }
        if interval_minutes(&p.profiles.checkpoint_interval_default).is_none() {
            out.push(Finding::new(
                Level::Fail,
                Category::Policy,
                ".ai/repo/policy.yaml",
                format!(
                    "profiles.checkpoint_interval_default {:?} is not a span such as 15m",
                    p.profiles.checkpoint_interval_default
                ),
                "git majordomus check",
            ));
        }
    }
    out
}

/// WARN for each tracked template under `.ai/repo/templates/` that holds entries: they are never
/// seeded (only headings, prose and comment blocks are), so they are dropped — and whoever
/// committed them may have meant them to appear as live decisions or questions here.
pub(super) fn template_rules(ctx: &Ctx) -> Result<Vec<Finding>> {
    Ok(crate::services::logs::template_entries(ctx)?
        .into_iter()
        .map(|(rel, n)| {
            Finding::new(
                Level::Warn,
                Category::Records,
                &rel,
                format!("the template holds {n} entr{}; templates seed only their headings and comment blocks, so they are dropped — remove them from the template", if n == 1 { "y" } else { "ies" }),
                &format!("git log -p -- {rel}"),
            )
        })
        .collect())
}

/// Every record file under `dir` the resolver would skip is a FAIL naming the file.
pub(super) fn record_rules(ctx: &Ctx, dir: &Path, kind: &str) -> Result<Vec<Finding>> {
    let reproduce = format!("git majordomus {kind} --list");
    let root = ctx.layout.root();
    let all = names(dir)?;
    let mut out = Vec::new();
    for n in &all {
        let l = load(root, dir, n);
        if let Err(reason) = &l.parsed {
            out.push(Finding::new(
                Level::Fail,
                Category::Records,
                ctx.rel(&l.path),
                format!("the resolver skips this {kind}: {reason}"),
                &reproduce,
            ));
        }
    }
    if out.is_empty() {
        out.push(Finding::new(
            Level::Ok,
            Category::Records,
            ctx.rel(dir),
            format!("{} {kind} record(s), all readable", all.len()),
            &reproduce,
        ));
    }
    Ok(out)
}

/// Every staging file under `.ai/` (a write killed before its rename left it; it is never read
/// as a record, so nothing is half-written) is a WARN naming the file, with how to remove it.
pub(super) fn staging_rules(ctx: &Ctx) -> Result<Vec<Finding>> {
    Ok(staging_files(&ctx.layout.ai())?
        .iter()
        .map(|p| {
            Finding::new(
                Level::Warn,
                Category::Records,
                ctx.rel(p),
                "staging file of an interrupted write, never read as a record; delete it when no git majordomus command is running",
                "git majordomus doctor",
            )
.fixed_by(format!("rm {}", ctx.rel(p)))
        })
        .collect())
}

/// The torn tail of a ledger line that a write cut short, moved aside by the next append
/// (`<ledger>.torn`, issue 41 item 5): a WARN naming the file and its size, so that what was
/// being written is not lost without a word.
pub(super) fn torn_rules(ctx: &Ctx) -> Vec<Finding> {
    let path = crate::store::ledger::torn_path(&ctx.layout.ledger());
    let Ok(meta) = std::fs::metadata(&path) else { return Vec::new() };
    vec![Finding::new(
        Level::Warn,
        Category::Ledger,
        ctx.rel(&path),
        format!(
            "{} byte(s) of ledger lines a write cut short, moved aside before the next event was appended; the ledger itself is whole. Read them, then delete the file",
            meta.len()
        ),
        &format!("cat {}", ctx.rel(&path)),
    )
.fixed_by(format!("rm {}", ctx.rel(&path)))]
}

/// The front matter of a Markdown file as a mapping, or why not.
pub(super) fn front_matter(path: &Path) -> std::result::Result<serde_yaml::Mapping, String> {
    let text = read_opt(path).map_err(|e| e.to_string())?.ok_or_else(|| "vanished while reading".to_string())?;
    let (fm, _) = format::split(&text).ok_or_else(|| "no front matter".to_string())?;
    format::mapping(fm).map_err(|e| e.to_string())
}

/// File names in `dir` ending in `ext`, temp files excluded, sorted; none when `dir` is absent.
/// A directory or an entry that cannot be read is an error, never a shorter list.
pub(super) fn files(dir: &Path, ext: &str) -> Result<Vec<String>> {
    Ok(file_names_where(dir, |n| n.ends_with(ext) && !n.starts_with('.'))?)
}
