//! `init` (docs/REFERENCE.md#layout): create whatever of the layer is missing, never overwrite.
//! Must not touch: what an existing file holds (but the `.gitignore` line it adds), git's index
//! (nothing is staged), another command or a query.

use crate::assets;
use crate::ctx::Ctx;
use crate::error::Result;
use crate::store::atomic::{create_if_absent, guard, read_opt, replace};
use crate::store::layout::ignores_local;

/// What `init` created, as repository-relative paths.
#[derive(Debug, Clone, Default)]
pub struct InitReport {
    /// Paths created (or, for `.gitignore`, amended).
    pub created: Vec<String>,
}

/// Runs `init`.
pub fn run(ctx: &Ctx) -> Result<InitReport> {
    let l = &ctx.layout;
    let mut files: Vec<(std::path::PathBuf, &str)> = vec![(l.policy(), assets::POLICY)];
    for (name, text) in assets::PROFILES {
        files.push((l.profiles().join(format!("{name}.yaml")), text));
    }
    files.push((l.templates().join("decisions.md"), assets::DECISIONS_TEMPLATE));
    files.push((l.templates().join("open-questions.md"), assets::QUESTIONS_TEMPLATE));
    files.push((l.prompts().join("handover.md"), assets::HANDOVER_PROMPT));
    let mut report = InitReport::default();
    // The policy is written last: the layer exists iff it does, so an interrupted init is redone.
    files.rotate_left(1);
    for (path, text) in files {
        guard(l.root(), &path)?;
        if create_if_absent(&path, text.as_bytes())? {
            report.created.push(ctx.rel(&path));
        }
    }
    let gi = l.gitignore();
    guard(l.root(), &gi)?;
    let current = read_opt(&gi)?.unwrap_or_default();
    let has = current.lines().any(ignores_local);
    if !has {
        let mut next = current.clone();
        if !next.is_empty() && !next.ends_with('\n') {
            next.push('\n');
        }
        next.push_str(".ai/local/\n");
        replace(&gi, next.as_bytes())?;
        report.created.push(".gitignore".into());
    }
    Ok(report)
}
