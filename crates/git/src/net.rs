//! The network steps of the continuity store through the `git` binary (docs/REFERENCE.md#git-binary, docs/SYNC.md#outcomes-and-what-to-do):
//! `ls-remote`, `fetch`, `push` of `refs/majordomus/continuity`, and `gc --auto` after them.
//!
//! Owns: the typed failure of each step ([`NetError`]: git could not be started, this side
//! failed, the remote could not be reached, the remote refused) and the one classifier of git's
//! stderr that tells this side from the remote's for every direction ([`side_of`]).
//! Must not touch: record semantics, the clock, stdout; what a failure means for `last_sync` is
//! the caller's.

use std::process::Output;

use super::binary::NoPrompt;
use super::store::{remote_tracking_ref, CONTINUITY_REF};
use super::Git;

/// Why a network step failed, by the side that failed (in the style of gitoxide's per-operation
/// errors). Only [`NetError::Unreachable`] and [`NetError::Rejected`] are about the remote; the
/// others are this machine's and must never be recorded as the remote's standing.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// The `git` executable could not be started (not on `PATH`, no memory for a process).
    #[error("cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// git ran and failed on this side: the object database, a lock, a write cut short (disk
    /// full, a file-size limit). git's words.
    #[error("{0}")]
    Local(String),
    /// The remote could not be reached or did not answer in time (connection, authentication,
    /// not a repository, the deadline). git's words.
    #[error("{0}")]
    Unreachable(String),
    /// The remote answered and its hook or policy refused our ref (a push only).
    #[error("{summary}")]
    Rejected {
        /// The porcelain summary, e.g. `[remote rejected] (pre-receive hook declined)`.
        summary: String,
        /// The remote's own message lines (`remote: ` stripped, padding trimmed, empty lines
        /// dropped), at most [`REMOTE_LINES`]; the caller screens them for secrets.
        remote: Vec<String>,
    },
}

impl NetError {
    /// Whether the failure is this machine's (git not started, or failed on this side).
    pub fn is_local(&self) -> bool {
        matches!(self, NetError::Spawn(_) | NetError::Local(_))
    }
}

/// A remote reference as `git ls-remote` saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteRef {
    /// The reference exists and points at this object (40 hex).
    Present(String),
    /// The remote answered and has no such reference.
    Absent,
}

/// A push that reached the remote and was not refused by its policy
/// ([`Git::push_continuity`], classified by [`classify_push`]; docs/SYNC.md#outcomes-and-what-to-do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// The remote accepted the push (or was already up to date).
    Done,
    /// The remote moved under us (a race): `[rejected] (non-fast-forward | fetch first)`, or
    /// `[remote rejected]` with a lost-update reason ("failed to update ref", "incorrect old value
    /// provided", "cannot lock ref", "reference already exists"). Fetch, merge, push again.
    Race(String),
}

/// How many of the remote's message lines a rejection keeps.
pub const REMOTE_LINES: usize = 5;

/// How many times a fetch is tried while a ref lock of this clone is taken (0.1 + 0.2 + 0.3 +
/// 0.4 s of waiting in all).
const FETCH_LOCK_TRIES: u32 = 5;

/// The network and maintenance steps, through the `git` binary (docs/REFERENCE.md#git-binary).
impl Git {
    /// Runs a network step like [`super::binary::run_network`]: it never prompts.
    fn run_net(&self, args: &[&str], np: &NoPrompt) -> Result<Output, NetError> {
        super::binary::run_network(&self.git_dir, &self.root, args, np).map_err(|e| match e {
            super::Error::Spawn(io) => NetError::Spawn(io),
            other => NetError::Local(other.to_string()),
        })
    }

    /// `git ls-remote --exit-code --refs <remote> <refname>`: `Ok(Present(sha))` or
    /// `Ok(Absent)` when the remote answered.
    pub fn ls_remote(&self, remote: &str, refname: &str, np: &NoPrompt) -> Result<RemoteRef, NetError> {
        check_remote(remote)?;
        let out = self.run_net(&["ls-remote", "--exit-code", "--refs", remote, refname], np)?;
        match out.status.code() {
            Some(0) => {
                // ls-remote matches patterns by their tail; keep the exact name only.
                let stdout = String::from_utf8_lossy(&out.stdout);
                for line in stdout.lines() {
                    if let Some((sha, name)) = line.split_once('\t') {
                        if name.trim() == refname {
                            return Ok(RemoteRef::Present(sha.trim().to_string()));
                        }
                    }
                }
                Ok(RemoteRef::Absent)
            }
            Some(2) => Ok(RemoteRef::Absent),
            _ => Err(failure(&out)),
        }
    }

    /// `git fetch --quiet --no-tags --no-write-fetch-head <remote>
    /// +refs/majordomus/continuity:refs/majordomus/remotes/<remote>/continuity` (a remote without
    /// the reference fails too: ask [`Git::ls_remote`] first).
    pub fn fetch_continuity(&self, remote: &str, np: &NoPrompt) -> Result<(), NetError> {
        check_remote(remote)?;
        let refspec = format!("+{CONTINUITY_REF}:{}", remote_tracking_ref(remote));
        let args =
            ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", remote, &refspec];
        let mut attempt = 1;
        loop {
            let out = self.run_net(&args, np)?;
            if out.status.success() {
                return Ok(());
            }
            let text = failure_text(&out);
            if !is_local_lock(&text) {
                return Err(failure(&out));
            }
            // A lock a dead writer left on the tracking ref (this tool killed inside its update
            // of it after a push, or a fetch killed with it) is removed once it is stale, as
            // for the store's own ref; a live writer holds it for milliseconds.
            self.clear_stale_lock(&remote_tracking_ref(remote), &self.writer_lock());
            if attempt == FETCH_LOCK_TRIES {
                return Err(NetError::Local(text));
            }
            // Another git on this clone (a fetch still finishing, a user's own) holds the
            // tracking ref's lock for milliseconds.
            std::thread::sleep(std::time::Duration::from_millis(100 * u64::from(attempt)));
            attempt += 1;
        }
    }

    /// `git push --porcelain --no-verify <remote>
    /// refs/majordomus/continuity:refs/majordomus/continuity`: only our ref, never forced, and
    /// without the user's pre-push hooks (they check code, not records; docs/SYNC.md#outcomes-and-what-to-do). The result is
    /// classified by [`classify_push`].
    pub fn push_continuity(&self, remote: &str, np: &NoPrompt) -> Result<Pushed, NetError> {
        check_remote(remote)?;
        let refspec = format!("{CONTINUITY_REF}:{CONTINUITY_REF}");
        let out = self.run_net(&["push", "--porcelain", "--no-verify", "--no-signed", remote, &refspec], np)?;
        classify_push(out.status.code(), &String::from_utf8_lossy(&out.stdout), &String::from_utf8_lossy(&out.stderr))
    }

    /// `git gc --auto --quiet`, best effort (gix writes loose objects and never packs them).
    pub fn gc_auto(&self) {
        // Packing is maintenance: its failure changes no answer.
        let _ = super::binary::run(&self.git_dir, &self.root, &["gc", "--auto", "--quiet"]);
    }
}

/// Whether git's failure is a lock of this clone, not the remote: "cannot lock ref" or
/// "Unable to create '….lock': File exists".
pub fn is_local_lock(text: &str) -> bool {
    text.contains("cannot lock ref") || (text.contains("Unable to create") && text.contains(".lock"))
}

/// Reasons of a `[remote rejected]` line that mean the ref moved between the advertisement and
/// the update (a crossed push), not a policy (git/git refs.c, receive-pack.c).
const RACE_REASONS: &[&str] =
    &["failed to update ref", "incorrect old value", "cannot lock ref", "reference already exists", "failed to lock"];

/// Messages git prints (not prefixed `remote:`) when this side failed, in either direction:
/// it cannot read its own objects (a push; a local failure can surface as `[remote rejected]
/// (unpacker error)`, the remote seeing a pack cut short, so these are looked at first), or it
/// cannot write what it received (a fetch: the unpacker or indexer died, the disk is full, a
/// file-size limit cut a write).
const LOCAL_MARKERS: &[&str] = &[
    "failed to traverse",
    "bad object",
    "unable to read",
    "is corrupt",
    "insufficient permission",
    "unpack-objects died",
    "unpack-objects failed",
    "index-pack died",
    "index-pack failed",
    "invalid index-pack output",
    "no space left on device",
    "file too large",
    "disk quota exceeded",
    "read-only file system",
    "unable to create temporary",
    "unable to write",
];

/// Whether a line of git's own stderr says this side failed: a marker, or "could not read
/// <object id>" (not "could not read Username", not "from remote repository"). The deadline's
/// own line (`fatal: timed out`) is the remote's: it did not answer in time.
fn is_local_failure(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    let unread_object = l.split("could not read ").nth(1).is_some_and(|rest| {
        let word = rest.split_whitespace().next().unwrap_or("");
        word.len() >= 7 && word.bytes().all(|b| b.is_ascii_hexdigit())
    });
    unread_object || LOCAL_MARKERS.iter().any(|m| l.contains(m))
}

/// The side a failed step's stderr names, for every direction: the first line of git's own
/// (not `remote:`) that says this side failed, or `None` (the remote's, or the connection's).
/// A step the deadline stopped is the remote's whatever git printed while it waited.
pub fn side_of(stderr: &str) -> Option<&str> {
    if stderr.starts_with("fatal: timed out") {
        return None;
    }
    stderr.lines().filter(|l| !l.starts_with("remote:")).find(|l| is_local_failure(l)).map(str::trim)
}

/// A failed fetch or ls-remote, by its side.
fn failure(out: &Output) -> NetError {
    let text = failure_text(out);
    match side_of(&text) {
        Some(_) => NetError::Local(text),
        None => NetError::Unreachable(text),
    }
}

/// Classifies a `git push --porcelain` run of our ref (docs/SYNC.md#outcomes-and-what-to-do): a
/// local-failure message is [`NetError::Local`] ([`side_of`]); then the porcelain ref line
/// decides (flag `!` = refused, and its summary says by whom); with no refused line, exit 0 is
/// success, anything else (exit 128, a dropped connection) is [`NetError::Unreachable`].
pub fn classify_push(exit: Option<i32>, stdout: &str, stderr: &str) -> Result<Pushed, NetError> {
    if let Some(line) = side_of(stderr) {
        return Err(NetError::Local(line.to_string()));
    }
    let refused = stdout.lines().find_map(|l| {
        let mut f = l.splitn(3, '\t');
        match (f.next(), f.next(), f.next()) {
            (Some("!"), Some(_), Some(summary)) => Some(summary.trim().to_string()),
            _ => None,
        }
    });
    match refused {
        Some(summary) if summary.starts_with("[rejected]") => Ok(Pushed::Race(summary)),
        Some(summary) if summary.starts_with("[remote rejected]") => {
            let reason = summary.to_ascii_lowercase();
            if RACE_REASONS.iter().any(|r| reason.contains(r)) {
                Ok(Pushed::Race(summary))
            } else {
                Err(NetError::Rejected { summary, remote: remote_lines(stderr) })
            }
        }
        // `[remote failure]`: the remote never reported back (the connection dropped).
        Some(summary) if summary.starts_with("[remote failure]") => Err(NetError::Unreachable(summary)),
        Some(summary) => Err(NetError::Local(summary)),
        None if exit == Some(0) => Ok(Pushed::Done),
        None => Err(NetError::Unreachable(first_lines(stderr, exit))),
    }
}

/// The remote's message lines: `remote: ` stripped, the sideband padding trimmed, empty lines
/// dropped, at most [`REMOTE_LINES`].
fn remote_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("remote:"))
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .take(REMOTE_LINES)
        .collect()
}

fn first_lines(stderr: &str, exit: Option<i32>) -> String {
    let text = stderr.trim();
    if text.is_empty() {
        format!("git exited with {}", exit.map_or("a signal".to_string(), |c| c.to_string()))
    } else {
        text.to_string()
    }
}

/// Refuses what git would read as an option instead of a remote (a caller's bug: this side).
fn check_remote(remote: &str) -> Result<(), NetError> {
    if remote.is_empty() || remote.starts_with('-') || remote.contains('\0') {
        Err(NetError::Local(format!("not a remote: {remote:?}")))
    } else {
        Ok(())
    }
}

/// git's stderr (trimmed), or the exit status when it said nothing.
fn failure_text(out: &Output) -> String {
    first_lines(&String::from_utf8_lossy(&out.stderr), out.status.code())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The porcelain outputs git 2.39 to 2.47 prints for each outcome, and the ones measured for issue 10.
    #[test]
    fn push_outcomes_are_classified_from_the_porcelain() {
        let line = |summary: &str| format!("To /r.git\n!\t{CONTINUITY_REF}:{CONTINUITY_REF}\t{summary}\nDone\n");
        let fail = "error: failed to push some refs to '/r.git'\n";
        assert_eq!(
            classify_push(Some(0), &format!("To x\n*\t{CONTINUITY_REF}:{CONTINUITY_REF}\t[new reference]\nDone\n"), "")
                .unwrap(),
            Pushed::Done
        );
        assert_eq!(classify_push(Some(0), "To x\n=\ta:b\t[up to date]\nDone\n", "").unwrap(), Pushed::Done);
        for race in [
            "[rejected] (fetch first)",
            "[rejected] (non-fast-forward)",
            "[remote rejected] (failed to update ref)",
            "[remote rejected] (incorrect old value provided)",
            "[remote rejected] (cannot lock ref 'refs/majordomus/continuity': is at 1 but expected 2)",
            "[remote rejected] (reference already exists)",
        ] {
            assert_eq!(classify_push(Some(1), &line(race), fail).unwrap(), Pushed::Race(race.into()), "{race}");
        }
        let hook = "remote: majordomus: updates to refs/majordomus/continuity are not accepted here        \nremote:         \nremote: see the policy        \n";
        match classify_push(Some(1), &line("[remote rejected] (pre-receive hook declined)"), &format!("{hook}{fail}")) {
            Err(NetError::Rejected { summary, remote }) => {
                assert_eq!(summary, "[remote rejected] (pre-receive hook declined)");
                assert_eq!(
                    remote,
                    ["majordomus: updates to refs/majordomus/continuity are not accepted here", "see the policy"]
                );
            }
            other => panic!("expected a rejection, got {other:?}"),
        }
        assert!(matches!(
            classify_push(Some(1), &line("[remote rejected] (deny updating a hidden ref)"), fail),
            Err(NetError::Rejected { .. })
        ));
        assert!(matches!(
            classify_push(Some(1), &line("[remote failure] (remote failed to report status)"), fail),
            Err(NetError::Unreachable(_))
        ));
        for unreachable in [
            "fatal: '/gone.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n",
            "fatal: unable to access 'http://127.0.0.1:9/r.git/': Failed to connect to 127.0.0.1 port 9\n",
            "fatal: repository 'http://127.0.0.1:8/r.git/' not found\n",
            "fatal: could not read Username for 'https://example.com': terminal prompts disabled\n",
            "",
        ] {
            assert!(matches!(classify_push(Some(128), "", unreachable), Err(NetError::Unreachable(_))), "{unreachable}");
        }
        // A missing local object: git reports the remote's unpacker error, but the cause is here.
        let local = "error: Could not read cee3023f252d03af3cac57e922bb635a76171e57\nfatal: Failed to traverse parents of commit 999589fba2ff1febf1313879d06e3d491b9b04bc\nerror: remote unpack failed: eof before pack header was fully read\n";
        match classify_push(Some(1), &line("[remote rejected] (unpacker error)"), &format!("{local}{fail}")) {
            Err(NetError::Local(line)) => {
                assert_eq!(line, "error: Could not read cee3023f252d03af3cac57e922bb635a76171e57")
            }
            other => panic!("expected a local failure, got {other:?}"),
        }
    }

    #[test]
    fn one_classifier_tells_this_side_from_the_remote_in_both_directions() {
        // A fetch whose unpacker a file-size limit killed (git 2.4x's words).
        let cut = "error: unpack-objects died of signal 25\nfatal: unpack-objects failed";
        assert_eq!(side_of(cut), Some("error: unpack-objects died of signal 25"));
        assert!(side_of("fatal: write error: No space left on device").is_some());
        // A push that cannot read its own objects.
        assert!(side_of("error: unable to read 0123456789abcdef").is_some());
        // The remote's or the connection's.
        for remote in [
            "fatal: '/nowhere' does not appear to be a git repository\nfatal: Could not read from remote repository.",
            "ssh: connect to host x port 22: Connection refused",
            "git@x: Permission denied (publickey).",
            "remote: fatal: bad object 0123456",
            "fatal: timed out after 2 s (continuity.network_timeout)\nerror: unable to read whatever",
        ] {
            assert_eq!(side_of(remote), None, "{remote}");
        }
    }
}
