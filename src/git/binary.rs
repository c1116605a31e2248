//! The `git` binary, for the few things gix does not do (SPEC §A.4): `config` (fetch refspecs),
//! push, fetch, ls-remote and `gc --auto` with the continuity store.
//!
//! Owns: how the `git` process is started — the explicit `--git-dir`/`--work-tree`, the C locale
//! (its messages are parsed), stdin closed, and for the network steps everything that keeps a
//! credential prompt from hanging a sync or a user's push (SPEC §A.19, issue 10).
//! Must not touch: the environment (the caller passes what it read through `Ctx`), record
//! semantics, stdout.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::Error;

/// What a network step needs so that nothing can prompt: the ssh command to run in batch mode.
///
/// git chooses ssh from `GIT_SSH_COMMAND`, else `core.sshCommand`, else `GIT_SSH`, else `ssh`; we
/// keep that choice and append `-o BatchMode=yes` (added to, not replacing, the user's command),
/// so a passphrase-protected key or an unknown host fails at once instead of asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoPrompt {
    /// The `GIT_SSH_COMMAND` to set; `None` leaves git's own choice (a `GIT_SSH` program, which
    /// may be plink and not take `-o`).
    pub ssh_command: Option<String>,
}

impl NoPrompt {
    /// The batch-mode ssh command for the user's `GIT_SSH_COMMAND`, `core.sshCommand` and
    /// `GIT_SSH` (each `None` when unset or empty).
    pub fn new(env_ssh_command: Option<&str>, config_ssh_command: Option<&str>, env_git_ssh: Option<&str>) -> NoPrompt {
        let nonempty = |s: Option<&str>| s.map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let base = match (nonempty(env_ssh_command), nonempty(config_ssh_command), nonempty(env_git_ssh)) {
            (Some(c), _, _) | (None, Some(c), _) => Some(c),
            (None, None, Some(_)) => None,
            (None, None, None) => Some("ssh".to_string()),
        };
        NoPrompt { ssh_command: base.map(|b| format!("{b} -o BatchMode=yes")) }
    }
}

impl Default for NoPrompt {
    fn default() -> NoPrompt {
        NoPrompt::new(None, None, None)
    }
}

/// `git --git-dir=<git_dir> --work-tree=<root>` with messages in the C locale (they are parsed),
/// stdin closed, the caller's `GIT_DIR`/`GIT_WORK_TREE`/`GIT_INDEX_FILE` removed, prompts off,
/// and `MAJORDOMUS_HOOK=1`: a git hook run by this process must not start our own sync again.
fn command(git_dir: &Path, root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg(format!("--git-dir={}", git_dir.display()))
        .arg(format!("--work-tree={}", root.display()))
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .env("MAJORDOMUS_HOOK", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .current_dir(root);
    cmd
}

fn output(mut cmd: Command) -> Result<Output, Error> {
    cmd.output().map_err(|e| Error::Gix(format!("cannot run git: {e}")))
}

/// Runs `git <args>` on this checkout (see [`command`]).
pub fn run(git_dir: &Path, root: &Path, args: &[&str]) -> Result<Output, Error> {
    let mut cmd = command(git_dir, root);
    cmd.args(args);
    output(cmd)
}

/// Runs a network step (`push`, `fetch`, `ls-remote`) that must never prompt: besides [`run`]'s
/// settings, `credential.interactive=false`, every askpass program disabled (an empty
/// `GIT_ASKPASS` makes git skip `core.askPass` and `SSH_ASKPASS` too; `GIT_TERMINAL_PROMPT=0`
/// alone does not stop an askpass GUI), and ssh in batch mode ([`NoPrompt`]).
pub fn run_network(git_dir: &Path, root: &Path, args: &[&str], np: &NoPrompt) -> Result<Output, Error> {
    let mut cmd = command(git_dir, root);
    cmd.args(["-c", "credential.interactive=false"]).args(args).env("GIT_ASKPASS", "").env("SSH_ASKPASS", "");
    if let Some(ssh) = &np.ssh_command {
        cmd.env("GIT_SSH_COMMAND", ssh);
    }
    output(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_batch_mode_keeps_the_users_command() {
        assert_eq!(NoPrompt::default().ssh_command.as_deref(), Some("ssh -o BatchMode=yes"));
        let np = NoPrompt::new(Some("ssh -i ~/.ssh/ci"), Some("ssh -p 2222"), None);
        assert_eq!(np.ssh_command.as_deref(), Some("ssh -i ~/.ssh/ci -o BatchMode=yes"));
        let np = NoPrompt::new(Some("  "), Some("ssh -p 2222"), None);
        assert_eq!(np.ssh_command.as_deref(), Some("ssh -p 2222 -o BatchMode=yes"));
        assert_eq!(NoPrompt::new(None, None, Some("plink")).ssh_command, None);
    }
}
