//! The `git` binary, for the few things gix does not do (SPEC §A.4): `config` (fetch refspecs)
//! now; push, fetch, ls-remote and `gc --auto` with the continuity store.

use std::path::Path;
use std::process::{Command, Output};

use super::Error;

/// Runs `git --git-dir=<git_dir> --work-tree=<root> <args>` with prompts off, messages in the C
/// locale (they are parsed), the caller's `GIT_DIR`/`GIT_WORK_TREE`/`GIT_INDEX_FILE` removed, and
/// `MAJORDOMUS_HOOK=1`: a push made here must not run our pre-push sync again (it would wait for
/// the lock the running sync holds).
pub fn run(git_dir: &Path, root: &Path, args: &[&str]) -> Result<Output, Error> {
    Command::new("git")
        .arg(format!("--git-dir={}", git_dir.display()))
        .arg(format!("--work-tree={}", root.display()))
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .env("MAJORDOMUS_HOOK", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .current_dir(root)
        .output()
        .map_err(|e| Error::Gix(format!("cannot run git: {e}")))
}
