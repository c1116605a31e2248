//! The git facts a rewrite proof rests on (docs/REFERENCE.md#rewrites): reflog entries read from the tail,
//! trees, parents, HEAD's first-parent window, and patch ids from `git patch-id --stable` fed by
//! `git diff-tree -p`.
//!
//! Owns: reading reflogs (bounded, newest first), running the patch-id pipe.
//! Must not touch: what counts as a proof (that is `services::rewrite`), caches, record semantics.

use std::collections::HashMap;
use std::io::Write;
use std::process::Stdio;

use gix::bstr::ByteSlice;
use gix::ObjectId;

use super::{odb, Error, Git};

/// What a reflog entry says git did, for the operations that rewrite a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `commit (amend)`.
    Amend,
    /// The end of a rebase (`rebase (finish)`, `rebase -i (finish)`, `pull --rebase (finish)`) in
    /// the branch's own reflog: the branch's old tip and its new one.
    RebaseFinish,
    /// `rebase (squash)` / `rebase (fixup)`: the commit a squash made, in HEAD's reflog.
    Squash,
    /// `cherry-pick`: the commit a cherry-pick made, in HEAD's reflog.
    CherryPick,
    /// Anything else (a plain commit, a reset, a checkout): never a proof.
    Other,
}

/// One reflog entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The ref's value before.
    pub old: ObjectId,
    /// Its value after.
    pub new: ObjectId,
    /// What git did.
    pub op: Op,
    /// `<ref>@{<n>}: <operation>` — how `git reflog show <ref>` names it.
    pub at: String,
}

/// The operation a reflog message names: the text before its first `": "`.
fn op_of(message: &str) -> (Op, &str) {
    let action = message.split_once(": ").map_or(message, |(a, _)| a);
    let op = if action == "commit (amend)" {
        Op::Amend
    } else if action.ends_with(" (finish)") && (action.starts_with("rebase") || action.starts_with("pull")) {
        Op::RebaseFinish
    } else if action.starts_with("rebase") && (action.ends_with(" (squash)") || action.ends_with(" (fixup)")) {
        Op::Squash
    } else if action == "cherry-pick" {
        Op::CherryPick
    } else {
        Op::Other
    };
    (op, action)
}

impl Git {
    /// The newest `max` entries of `refname`'s reflog, newest first, read from the file's end.
    /// A ref without a reflog (or one that cannot be read) has none: a proof fails closed.
    pub fn reflog_tail(&self, refname: &str, max: usize) -> Vec<Entry> {
        let Ok(Some(reference)) = self.repo.try_find_reference(refname) else { return Vec::new() };
        let name = reference.name().as_bstr().to_str_lossy().into_owned();
        let mut platform = reference.log_iter();
        let Ok(Some(lines)) = platform.rev() else { return Vec::new() };
        let mut out = Vec::new();
        for (n, line) in lines.take(max).enumerate() {
            let Ok(line) = line else { break };
            let message = line.message.to_str_lossy();
            let (op, action) = op_of(&message);
            out.push(Entry { old: line.previous_oid, new: line.new_oid, op, at: format!("{name}@{{{n}}}: {action}") });
        }
        out
    }

    /// The tree of a commit.
    pub fn tree_of(&self, commit: ObjectId) -> Option<ObjectId> {
        self.repo.find_commit(commit).ok()?.tree_id().ok().map(|t| t.detach())
    }

    /// A commit's parents, in order.
    pub fn parents(&self, commit: ObjectId) -> Vec<ObjectId> {
        self.repo.find_commit(commit).map(|c| c.parent_ids().map(|p| p.detach()).collect()).unwrap_or_default()
    }

    /// `head` and its first parents, newest first, at most `max` of them.
    pub fn first_parents(&self, head: ObjectId, max: usize) -> Vec<ObjectId> {
        let mut out = Vec::new();
        let mut cur = Some(head);
        while let Some(c) = cur.filter(|_| out.len() < max) {
            out.push(c);
            cur = self.parents(c).first().copied();
        }
        out
    }

    /// The best common ancestor of two commits, if they have one.
    pub fn merge_base_of(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>, Error> {
        self.repo.merge_base(a, b).map(|base| base.map(|b| b.detach())).map_err(odb)
    }

    /// The `git patch-id --stable` of each commit's own change (`git diff-tree -p`), one pipe
    /// for all of them. A merge or a commit that changes nothing has none.
    pub fn patch_ids(&self, commits: &[ObjectId]) -> Result<HashMap<ObjectId, String>, Error> {
        if commits.is_empty() {
            return Ok(HashMap::new());
        }
        let input: String = commits.iter().map(|c| format!("{c}\n")).collect();
        let out = self.patch_id_pipe(
            &["diff-tree", "--stdin", "--root", "-p", "--no-renames", "--no-ext-diff", "--no-textconv"],
            &input,
        )?;
        Ok(parse_patch_ids(&out)
            .into_iter()
            .filter_map(|(id, c)| ObjectId::from_hex(c.as_bytes()).ok().map(|c| (c, id)))
            .collect())
    }

    /// The `git patch-id --stable` of the combined change from `base` to `tip` (`git diff-tree -p
    /// base tip`): what a squash of the range would carry. `None` when the range changes nothing.
    pub fn range_patch_id(&self, base: ObjectId, tip: ObjectId) -> Result<Option<String>, Error> {
        let (b, t) = (base.to_string(), tip.to_string());
        let out =
            self.patch_id_pipe(&["diff-tree", "-p", "--no-renames", "--no-ext-diff", "--no-textconv", &b, &t], "")?;
        Ok(parse_patch_ids(&out).into_iter().next().map(|(id, _)| id))
    }

    /// `git <diff args> | git patch-id --stable`, `input` on the first's stdin.
    fn patch_id_pipe(&self, diff: &[&str], input: &str) -> Result<String, Error> {
        let mut first = super::binary::command(&self.git_dir, &self.root);
        first.args(diff).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut first = first.spawn().map_err(Error::Spawn)?;
        let diff_out = first.stdout.take().map(Stdio::from).unwrap_or_else(Stdio::null);
        let mut second = super::binary::command(&self.git_dir, &self.root);
        second.args(["patch-id", "--stable"]).stdin(diff_out).stdout(Stdio::piped()).stderr(Stdio::null());
        let second = second.spawn().map_err(Error::Spawn);
        // The input is a list of ids, far below a pipe's buffer: written whole, then closed.
        if let Some(mut stdin) = first.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        let out = second.and_then(|s| s.wait_with_output().map_err(Error::Spawn));
        let first_status = first.wait().map_err(Error::Spawn)?;
        let out = out?;
        if !first_status.success() || !out.status.success() {
            return Err(Error::Command("patch-id", if first_status.success() { out.status } else { first_status }));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// `<patch-id> <commit-id>` lines.
fn parse_patch_ids(out: &str) -> Vec<(String, String)> {
    out.lines().filter_map(|l| l.split_once(' ')).map(|(p, c)| (p.to_string(), c.trim().to_string())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_read_from_the_action() {
        assert_eq!(op_of("commit (amend): fix it").0, Op::Amend);
        assert_eq!(op_of("rebase (finish): refs/heads/f onto 0eb58b8").0, Op::RebaseFinish);
        assert_eq!(op_of("rebase -i (finish): refs/heads/f onto 0eb58b8").0, Op::RebaseFinish);
        assert_eq!(op_of("pull -q --rebase (finish): refs/heads/main onto 0967ee7").0, Op::RebaseFinish);
        assert_eq!(op_of("rebase (squash): x1").0, Op::Squash);
        assert_eq!(op_of("rebase (fixup): x1").0, Op::Squash);
        assert_eq!(op_of("cherry-pick: c3").0, Op::CherryPick);
        // A commit message that merely says "commit (amend)" is the text after the action.
        assert_eq!(op_of("commit: commit (amend): x").0, Op::Other);
        assert_eq!(op_of("rebase (finish): returning to refs/heads/f").1, "rebase (finish)");
        assert_eq!(op_of("reset: moving to HEAD~1").0, Op::Other);
    }
}
