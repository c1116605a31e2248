//! The `git` binary, for the few things gix does not do (docs/REFERENCE.md#git-binary): `config` (fetch refspecs),
//! push, fetch, ls-remote and `gc --auto` with the continuity store.
//!
//! Owns: how the `git` process is started — the explicit `--git-dir`/`--work-tree`, the C locale
//! (its messages are parsed), stdin closed, and for the network steps everything that keeps a
//! credential prompt from hanging a sync or a user's push (docs/REFERENCE.md#git-binary, issue 10).
//! Must not touch: the environment (the caller passes what it read through `Ctx`), record
//! semantics, stdout.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::Error;

/// What a network step needs so that nothing can prompt or hang: the ssh command to run in batch
/// mode, and an optional deadline after which the step is killed.
///
/// git chooses ssh from `GIT_SSH_COMMAND`, else `core.sshCommand`, else `GIT_SSH`, else `ssh`; we
/// keep that choice and append `-o BatchMode=yes` (added to, not replacing, the user's command),
/// so a passphrase-protected key or an unknown host fails at once instead of asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoPrompt {
    /// The `GIT_SSH_COMMAND` to set; `None` leaves git's own choice (a `GIT_SSH` program, which
    /// may be plink and not take `-o`).
    pub ssh_command: Option<String>,
    /// When set, a network step still running at this instant is killed and reported as failed
    /// ("timed out"): no sync waits on a remote unboundedly, and the pre-push hook's never
    /// delays the user's push past it.
    pub deadline: Option<Instant>,
    /// The whole budget the deadline was set from, named in the "timed out" line.
    pub budget: Option<Duration>,
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
        NoPrompt { ssh_command: base.map(|b| format!("{b} -o BatchMode=yes")), deadline: None, budget: None }
    }

    /// The same, with every network step of this process ending within `budget` from now, and
    /// ssh giving up connecting after as long (`ConnectTimeout`, unless the user's command sets
    /// one: theirs is kept, and the deadline still holds).
    pub fn within(self, budget: Duration) -> NoPrompt {
        let secs = budget.as_secs().max(1);
        let ssh_command = self.ssh_command.map(|c| {
            if c.to_ascii_lowercase().contains("connecttimeout") {
                c
            } else {
                format!("{c} -o ConnectTimeout={secs}")
            }
        });
        NoPrompt { ssh_command, deadline: Some(Instant::now() + budget), budget: Some(budget) }
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
pub(super) fn command(git_dir: &Path, root: &Path) -> Command {
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
    cmd.output().map_err(Error::Spawn)
}

/// Runs `git <args>` on this checkout (see `command`).
pub fn run(git_dir: &Path, root: &Path, args: &[&str]) -> Result<Output, Error> {
    let mut cmd = command(git_dir, root);
    cmd.args(args);
    output(cmd)
}

/// What our network steps tell git about memory. By default git maps packs in windows of up to
/// 1 GiB and keeps up to 96 MiB of delta bases: the `rev-list` that checks a fetch of a
/// 100,000-record store walks the store's trees and peaked at 142 MiB; with these, 57 MiB, and
/// no slower. They change how git reads, not what it does.
const BOUNDED_MEMORY: [&str; 6] =
    ["-c", "core.packedGitWindowSize=256k", "-c", "core.packedGitLimit=4m", "-c", "core.deltaBaseCacheLimit=2m"];

/// Runs a network step (`push`, `fetch`, `ls-remote`) that must never prompt: besides [`run`]'s
/// settings, `credential.interactive=false`, every askpass program disabled (an empty
/// `GIT_ASKPASS` makes git skip `core.askPass` and `SSH_ASKPASS` too; `GIT_TERMINAL_PROMPT=0`
/// alone does not stop an askpass GUI), and ssh in batch mode ([`NoPrompt`]). Its git processes
/// (and the connectivity check a fetch starts) also map packs in small windows under a small
/// total and keep a small delta-base cache ([`BOUNDED_MEMORY`]).
pub fn run_network(git_dir: &Path, root: &Path, args: &[&str], np: &NoPrompt) -> Result<Output, Error> {
    let mut cmd = command(git_dir, root);
    cmd.args(["-c", "credential.interactive=false"])
        .args(BOUNDED_MEMORY)
        .args(args)
        .env("GIT_ASKPASS", "")
        .env("SSH_ASKPASS", "");
    if let Some(ssh) = &np.ssh_command {
        cmd.env("GIT_SSH_COMMAND", ssh);
    }
    match np.deadline {
        None => output(cmd),
        Some(deadline) => output_until(cmd, deadline, np.budget),
    }
}

/// Runs `cmd` to completion or until `deadline`, when its whole process group (git and the ssh
/// or helper it started) is killed: its stderr then starts with `fatal: timed out` and its status is
/// the kill's. The child runs in a process group of its own, which also keeps it off the
/// terminal: a background process cannot read a password from it.
fn output_until(mut cmd: Command, deadline: Instant, budget: Option<Duration>) -> Result<Output, Error> {
    use std::os::unix::process::CommandExt;
    let spawn_error = Error::Spawn;
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).spawn().map_err(spawn_error)?;
    // Both pipes are drained while waiting, so a chatty child never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            let _ = tx.send(buf);
        });
        rx
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(spawn_error)? {
            break status;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            // The group's id is the child's pid (process_group(0)); the shell's kill reaches it.
            let _ = Command::new("sh")
                .args(["-c", &format!("kill -KILL -- -{}", child.id())])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            break child.wait().map_err(spawn_error)?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // A grandchild that left the group could keep a pipe open: never wait for it long.
    let grace = Duration::from_secs(if timed_out { 1 } else { 3600 });
    let stdout = stdout.recv_timeout(grace).unwrap_or_default();
    let mut stderr = stderr.recv_timeout(grace).unwrap_or_default();
    if timed_out {
        let after = budget.map(|b| format!(" after {} s", b.as_secs().max(1))).unwrap_or_default();
        // First: the cause, before whatever git had printed by then.
        let mut first = format!("fatal: timed out{after} (continuity.network_timeout)\n").into_bytes();
        first.append(&mut stderr);
        stderr = first;
    }
    Ok(Output { status, stdout, stderr })
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
        // A deadline also bounds ssh's connect, unless the user's command sets its own.
        let np = NoPrompt::new(None, Some("ssh -p 2222"), None).within(Duration::from_secs(30));
        assert_eq!(np.ssh_command.as_deref(), Some("ssh -p 2222 -o BatchMode=yes -o ConnectTimeout=30"));
        let np = NoPrompt::new(Some("ssh -o ConnectTimeout=5"), None, None).within(Duration::from_secs(30));
        assert_eq!(np.ssh_command.as_deref(), Some("ssh -o ConnectTimeout=5 -o BatchMode=yes"));
    }

    #[test]
    fn a_network_step_reads_packs_with_bounded_memory_whatever_the_repository_says() {
        let t = tempfile::tempdir().expect("tempdir");
        let dir = t.path();
        assert!(Command::new("git").args(["init", "-q"]).current_dir(dir).status().expect("git").success());
        let set = |k: &str, v: &str| Command::new("git").args(["config", k, v]).current_dir(dir).status().expect("git");
        assert!(set("core.packedGitLimit", "2g").success() && set("core.deltaBaseCacheLimit", "1g").success());
        for (key, want) in [
            ("core.packedGitWindowSize", "256k"),
            ("core.packedGitLimit", "4m"),
            ("core.deltaBaseCacheLimit", "2m"),
            ("credential.interactive", "false"),
        ] {
            let out =
                run_network(&dir.join(".git"), dir, &["config", "--get", key], &NoPrompt::default()).expect("git");
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), want, "{key}");
        }
    }

    #[test]
    fn a_network_step_past_its_deadline_is_killed() {
        let t = tempfile::tempdir().expect("tempdir");
        let dir = t.path();
        assert!(Command::new("git").args(["init", "-q"]).current_dir(dir).status().expect("git").success());
        // An upload-pack that never answers stands for a remote that hangs.
        let np = NoPrompt::default().within(Duration::from_millis(300));
        let started = Instant::now();
        let out = run_network(
            &dir.join(".git"),
            dir,
            &["ls-remote", "--upload-pack=sleep 30; :", dir.to_str().expect("utf-8 temp path")],
            &np,
        )
        .expect("git runs");
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("timed out after 1 s (continuity.network_timeout)"));
        // Without a deadline the same helper returns what git printed.
        let out =
            run_network(&dir.join(".git"), dir, &["ls-remote", dir.to_str().expect("utf-8")], &NoPrompt::default())
                .expect("git runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
}
