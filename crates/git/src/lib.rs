//! The only user of gix: discovery, identity, ancestry, status and history.
//!
//! Owns: the `gix::Repository` lifetime, the facts records compute from git (docs/REFERENCE.md#identity).
//! Must not touch: record semantics, stdout, clap.

#![warn(missing_docs)]

pub mod binary;
pub mod citations;
pub mod net;
pub mod rewrite;
mod status;
pub mod store;

pub use gix::ObjectId;
use majordomus_core::oid::Oid;
pub use status::{in_layer, Changes};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

/// A cause gix (or the system) reported, kept as the error's source.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Errors of git access. Each names the part of the local repository that failed, so a caller
/// can tell a local failure from anything about a remote; each prints as `git: <cause>`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No repository at or above the path.
    #[error("not inside a git repository")]
    NotARepository(#[source] Cause),
    /// A `.git` was found but cannot be opened as a repository (its object directory replaced,
    /// its HEAD unreadable): a damaged repository, not the absence of one.
    #[error("{1}")]
    Damaged(PathBuf, #[source] Cause),
    /// A repository without a working tree.
    #[error("{0} is a bare repository; continuity records need a working tree")]
    Bare(PathBuf),
    /// HEAD or the branch it names could not be read.
    #[error("git: {0}")]
    Head(#[source] Cause),
    /// The local object database: a commit, tree or history walk could not be read.
    #[error("git: {0}")]
    Objects(#[source] Cause),
    /// The working-tree status could not be computed.
    #[error("git: {0}")]
    Status(#[source] Cause),
    /// The `git` executable could not be started.
    #[error("git: cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// gix failed on the continuity store's objects or refs (`git::store`); printed with its
    /// whole cause chain on one line (gix's own `Display` is generic).
    #[error("git: {}", cause_chain(.0))]
    Gix(#[source] Box<gix::Error>),
    /// A name the caller gave is not one the store may use.
    #[error("git: {kind} {name:?}")]
    BadName {
        /// What it was to be.
        kind: BadName,
        /// The name as given.
        name: String,
        /// Why git refuses it, when git said.
        #[source]
        source: Option<Cause>,
    },
    /// The commit named is not in this repository.
    #[error("git: no commit {0}")]
    NoCommit(String),
    /// An object that must be a blob is something else.
    #[error("git: {id} is a {kind}, not a blob")]
    NotABlob {
        /// Its id.
        id: String,
        /// What it is.
        kind: gix::object::Kind,
    },
    /// A blob larger than the caller's cap, refused unread.
    #[error("git: blob {id} is {size} bytes, cap {cap}; it was not read")]
    TooLarge {
        /// Its id.
        id: String,
        /// The size its header declares.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// An add to the store was given nothing to add.
    #[error("git: {0}: no records to add")]
    NothingToAdd(String),
    /// Every compare-and-swap attempt on a ref lost to a concurrent writer or found its lock held.
    #[error("git: {refname}: gave up after {attempts} attempts{}: {}", if *.concurrent { " (concurrent writers)" } else { " (its lock file is held)" }, cause_chain(&**.last))]
    GaveUp {
        /// The ref.
        refname: String,
        /// How many attempts were made.
        attempts: u32,
        /// Whether an attempt lost to another writer (else only the lock was held).
        concurrent: bool,
        /// What the last attempt reported.
        #[source]
        last: Cause,
    },
    /// The blob readers stopped short: one panicked, or a blob was never handed back.
    #[error("git: {}", if *.0 { "a blob reader thread panicked" } else { "a blob was not read" })]
    BlobReaders(bool),
    /// A `git` pipeline the code runs failed.
    #[error("git: git {0} failed ({1})")]
    Command(&'static str, std::process::ExitStatus),
}

/// What a refused name was to be ([`Error::BadName`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadName {
    /// A full object id (40 or 64 hex).
    ObjectId,
    /// A full reference name (`refs/...`).
    Reference,
    /// A path in the store's tree.
    StorePath,
}

impl std::fmt::Display for BadName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BadName::ObjectId => "not a full object id:",
            BadName::Reference => "not a full reference name:",
            BadName::StorePath => "invalid store path",
        })
    }
}

/// An error's cause chain on one line, each distinct text once (`a: b: c`).
fn cause_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(cause) = next {
        let text = cause.to_string();
        if !parts.contains(&text) {
            parts.push(text);
        }
        next = cause.source();
    }
    parts.join(": ")
}

/// A gix object id as the full id the other crates take.
pub fn full(id: ObjectId) -> Oid {
    Oid::from_hash(id.as_bytes()).expect("a gix object id is 20 or 32 bytes, because git hashes with SHA-1 or SHA-256")
}

fn head_err(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Head(Box::new(e))
}

fn odb(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Objects(Box::new(e))
}

fn status_err(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Status(Box::new(e))
}

/// What git has in progress in a worktree ([`Git::operation`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// Which operation.
    pub kind: OperationKind,
    /// The branch it is about (a rebase's branch; the branch a bisect started from).
    pub branch: Option<String>,
    /// The commit it works towards: a rebase's `onto`, the commit being merged, picked or
    /// reverted.
    pub onto: Option<String>,
}

/// The operations [`Git::operation`] knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperationKind {
    /// `git rebase`.
    Rebase,
    /// `git merge` with conflicts.
    Merge,
    /// `git cherry-pick` with conflicts.
    CherryPick,
    /// `git revert` with conflicts.
    Revert,
    /// `git bisect`.
    Bisect,
}

impl OperationKind {
    /// The word `git status` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            OperationKind::Rebase => "rebase",
            OperationKind::Merge => "merge",
            OperationKind::CherryPick => "cherry-pick",
            OperationKind::Revert => "revert",
            OperationKind::Bisect => "bisect",
        }
    }
}

/// An opened checkout.
pub struct Git {
    repo: gix::Repository,
    root: PathBuf,
    common_dir: PathBuf,
    git_dir: PathBuf,
    bare: bool,
}

/// The identity fields every record computes from git at write time (docs/REFERENCE.md#identity).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Absolute git common dir.
    pub repository_id: String,
    /// Absolute toplevel path.
    pub worktree: String,
    /// Short branch name; `None` when HEAD is detached.
    pub branch: Option<String>,
    /// Full SHA of HEAD; `None` when HEAD is unborn.
    pub head: Option<Oid>,
}

/// The `.git` (a directory holding `HEAD`, or a gitfile) at or above `start` when discovery
/// failed: what was found there is a damaged repository, not the absence of one.
fn damaged_git_dir(start: &Path) -> Option<PathBuf> {
    let start = canonical(start);
    start.ancestors().map(|d| d.join(".git")).find(|g| g.join("HEAD").is_file() || g.is_file())
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl Git {
    /// Discovers the repository containing `start`; a bare one is [`Error::Bare`].
    pub fn discover(start: &Path) -> Result<Git, Error> {
        Git::discover_with(start, false)
    }

    /// Discovers the repository containing `start`, a bare one included: then [`Git::root`] is
    /// its git directory and [`Git::is_bare`] says so (the readers that need no working tree:
    /// a server-side hook or a CI mirror verifying the store).
    pub fn discover_bare_ok(start: &Path) -> Result<Git, Error> {
        Git::discover_with(start, true)
    }

    fn discover_with(start: &Path, bare_ok: bool) -> Result<Git, Error> {
        let repo = gix::discover(start).map_err(|e| match damaged_git_dir(start) {
            // Opening it by its path says what is wrong with it; discovery only that none was found.
            Some(dir) => match gix::open(&dir) {
                Err(why) => Error::Damaged(dir, Box::new(why)),
                Ok(_) => Error::Damaged(dir, Box::new(e)),
            },
            None => Error::NotARepository(Box::new(e)),
        })?;
        let bare = repo.workdir().is_none();
        let root = match repo.workdir() {
            Some(workdir) => canonical(workdir),
            None if bare_ok => canonical(repo.git_dir()),
            None => return Err(Error::Bare(canonical(repo.git_dir()))),
        };
        let common_dir = canonical(repo.common_dir());
        let git_dir = canonical(repo.git_dir());
        let mut repo = repo;
        repo.object_cache_size_if_unset(4 << 20);
        repo.objects.set_pack_cache(|| Box::new(store::BaseCache::new(8 << 20)));
        Ok(Git { repo, root, common_dir, git_dir, bare })
    }

    /// Whether this is a bare repository (opened by [`Git::discover_bare_ok`]).
    pub fn is_bare(&self) -> bool {
        self.bare
    }

    /// The absolute toplevel of the working tree (of a bare repository: its git directory).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute git common dir (shared by all worktrees of a clone).
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The directory git runs hooks from: `core.hooksPath` (relative to the working tree), else
    /// `<common dir>/hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        match self.config_string("core.hooksPath") {
            Some(p) if Path::new(&p).is_absolute() => PathBuf::from(p),
            Some(p) => self.root.join(p),
            None => self.common_dir.join("hooks"),
        }
    }

    /// The absolute git dir of this worktree.
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The operation git has in progress in this worktree, read from its state files in the
    /// worktree's git dir (as `git status` does): a rebase, a merge, a cherry-pick, a revert or
    /// a bisect, with the branch it is about when git records one.
    pub fn operation(&self) -> Option<Operation> {
        let d = &self.git_dir;
        let read = |p: PathBuf| std::fs::read_to_string(p).ok().map(|s| s.trim().to_string());
        let branch_of = |r: Option<String>| {
            r.and_then(|n| n.strip_prefix("refs/heads/").map(str::to_string).or(Some(n)))
                .filter(|n| !n.is_empty() && n != "detached HEAD")
        };
        for dir in ["rebase-merge", "rebase-apply"] {
            if d.join(dir).is_dir() {
                let onto = read(d.join(dir).join("onto"));
                return Some(Operation {
                    kind: OperationKind::Rebase,
                    branch: branch_of(read(d.join(dir).join("head-name"))),
                    onto,
                });
            }
        }
        for (file, kind) in [
            ("MERGE_HEAD", OperationKind::Merge),
            ("CHERRY_PICK_HEAD", OperationKind::CherryPick),
            ("REVERT_HEAD", OperationKind::Revert),
        ] {
            if d.join(file).is_file() {
                return Some(Operation { kind, branch: None, onto: read(d.join(file)) });
            }
        }
        if d.join("BISECT_LOG").is_file() {
            return Some(Operation {
                kind: OperationKind::Bisect,
                branch: branch_of(read(d.join("BISECT_START"))),
                onto: None,
            });
        }
        None
    }

    /// The short branch name, or `None` when HEAD is detached.
    pub fn branch(&self) -> Result<Option<String>, Error> {
        let head = self.repo.head().map_err(head_err)?;
        if head.is_detached() {
            return Ok(None);
        }
        Ok(self.repo.head_name().map_err(head_err)?.map(|n| n.shorten().to_string()))
    }

    /// HEAD's commit, or `None` when the branch is unborn.
    pub fn head(&self) -> Result<Option<ObjectId>, Error> {
        let mut head = self.repo.head().map_err(head_err)?;
        if head.is_unborn() {
            return Ok(None);
        }
        let id = head.try_peel_to_id().map_err(head_err)?;
        Ok(id.map(|i| i.detach()))
    }

    /// Identity fields without the (slower) working-tree status.
    pub fn identity(&self) -> Result<Identity, Error> {
        Ok(Identity {
            repository_id: self.common_dir.display().to_string(),
            worktree: self.root.display().to_string(),
            branch: self.branch()?,
            head: self.head()?.map(full),
        })
    }

    /// Where history since a record's head starts here: `Some(None)` for an unborn head (from
    /// the root), `Some(Some(commit))` when the head is a commit here, `None` when it is not.
    pub fn base_of(&self, head: Option<&str>) -> Option<Option<ObjectId>> {
        match head {
            None => Some(None),
            Some(h) => self.commit_id(h).map(Some),
        }
    }

    /// Parses a full or abbreviated hex id naming a commit of this repository.
    pub fn commit_id(&self, hex: &str) -> Option<ObjectId> {
        let id = ObjectId::from_hex(hex.as_bytes()).ok()?;
        let obj = self.repo.find_object(id).ok()?;
        (obj.kind == gix::object::Kind::Commit).then_some(id)
    }

    /// Whether `ancestor` is an ancestor of (or equal to) `descendant`.
    pub fn is_ancestor(&self, ancestor: ObjectId, descendant: ObjectId) -> Result<bool, Error> {
        if ancestor == descendant {
            return Ok(true);
        }
        if let Ok(Some(graph)) = self.repo.commit_graph_if_enabled() {
            if let Some(answer) = is_ancestor_graph(&graph, ancestor, descendant) {
                return Ok(answer);
            }
        }
        match self.repo.merge_base(ancestor, descendant) {
            Ok(base) => Ok(base.map(|b| b.detach()) == Some(ancestor)),
            Err(e) => Err(odb(e)),
        }
    }

    /// Commits reachable from `head` but not from `base`, oldest first, with their summaries.
    /// `base` of `None` means every commit reachable from `head`.
    pub fn commits_between(&self, base: Option<ObjectId>, head: ObjectId) -> Result<Vec<(ObjectId, String)>, Error> {
        let mut walk = self.repo.rev_walk(Some(head));
        if let Some(b) = base {
            walk = walk.with_hidden(Some(b));
        }
        let mut out = Vec::new();
        for info in walk.all().map_err(odb)? {
            let info = info.map_err(odb)?;
            let commit = info.object().map_err(odb)?;
            let summary = commit.message().map(|m| m.summary().to_str_lossy().into_owned()).unwrap_or_default();
            out.push((info.id, summary));
        }
        out.reverse();
        Ok(out)
    }

    /// Paths that differ between the trees of two commits (`None` = the empty tree).
    pub fn changed_between(&self, base: Option<ObjectId>, head: ObjectId) -> Result<Vec<String>, Error> {
        let tree_of = |c: ObjectId| -> Result<ObjectId, Error> {
            Ok(self.repo.find_commit(c).map_err(odb)?.tree_id().map_err(odb)?.detach())
        };
        let a = match base {
            Some(b) => Some(tree_of(b)?),
            None => None,
        };
        let b = tree_of(head)?;
        let mut out = BTreeSet::new();
        self.diff_trees(a, Some(b), "", &mut out)?;
        Ok(out.into_iter().collect())
    }

    /// The tips of the other branches (`refs/heads/*` but `branch`, and `refs/remotes/*/*` but
    /// those named `branch`): where commits a merge or a rebase brings in come from.
    pub fn other_branch_tips(&self, branch: Option<&str>) -> Vec<ObjectId> {
        let Ok(platform) = self.repo.references() else { return Vec::new() };
        let mut tips = Vec::new();
        for kind in [platform.local_branches(), platform.remote_branches()] {
            let Ok(iter) = kind else { continue };
            for r in iter.flatten() {
                let name = r.name().as_bstr().to_str_lossy().into_owned();
                let short = name.rsplit('/').next().unwrap_or("");
                let own = branch.is_some_and(|b| {
                    name == format!("refs/heads/{b}")
                        || (name.starts_with("refs/remotes/") && name.ends_with(&format!("/{b}")))
                }) || short == "HEAD";
                if let (false, Some(id)) = (own, r.try_id().map(|i| i.detach())) {
                    tips.push(id);
                }
            }
        }
        tips.sort();
        tips.dedup();
        tips
    }

    /// The paths the commits from `base` to `head` changed themselves (the task's own work,
    /// docs/REFERENCE.md#identity), along `head`'s first parents: a commit that another branch
    /// (`others`) already holds was brought in (a rebase onto it, a fast-forward), and of a merge
    /// only the paths it leaves different from every other parent count (a conflict resolved, an
    /// edit in the merge); what it took from the merged branch does not. At most 10,000 commits are
    /// walked; past that, or when `base` is not on the first-parent chain, the plain tree
    /// difference answers.
    pub fn own_changes_between(
        &self,
        base: Option<ObjectId>,
        head: ObjectId,
        others: &[ObjectId],
    ) -> Result<Vec<String>, Error> {
        let mut out = BTreeSet::new();
        let mut cur = head;
        for _ in 0..10_000 {
            if Some(cur) == base || base.is_some_and(|b| self.is_ancestor(cur, b).unwrap_or(false)) {
                return Ok(out.into_iter().collect());
            }
            let commit = self.repo.find_commit(cur).map_err(odb)?;
            let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
            let brought = others.iter().any(|o| self.is_ancestor(cur, *o).unwrap_or(false));
            if !brought {
                let first = parents.first().copied();
                let changed = self.changed_between(first, cur)?;
                if parents.len() > 1 {
                    for f in changed {
                        let here = self.file_at(Some(cur), &f)?;
                        let taken = parents[1..].iter().any(|p| self.file_at(Some(*p), &f).ok().flatten() == here);
                        if !taken {
                            out.insert(f);
                        }
                    }
                } else {
                    out.extend(changed);
                }
            }
            match parents.first() {
                Some(p) => cur = *p,
                None => return Ok(out.into_iter().collect()),
            }
        }
        self.changed_between(base, head)
    }

    /// The blob id of the file at `path` in `commit`'s tree: `None` when the commit is `None`
    /// (an unborn head) or the path is no regular file there.
    pub fn blob_at(&self, commit: Option<ObjectId>, path: &str) -> Result<Option<ObjectId>, Error> {
        let Some(c) = commit else { return Ok(None) };
        let tree = self.repo.find_commit(c).map_err(odb)?.tree().map_err(odb)?;
        match tree.lookup_entry_by_path(path).map_err(odb)? {
            Some(e) if e.mode().is_blob() => Ok(Some(e.object_id())),
            _ => Ok(None),
        }
    }

    /// The bytes of the file at `path` in `commit`'s tree: `None` when the commit is `None`
    /// (an unborn head) or the path is no regular file there.
    pub fn file_at(&self, commit: Option<ObjectId>, path: &str) -> Result<Option<Vec<u8>>, Error> {
        let Some(c) = commit else { return Ok(None) };
        let tree = self.repo.find_commit(c).map_err(odb)?.tree().map_err(odb)?;
        match tree.lookup_entry_by_path(path).map_err(odb)? {
            Some(e) if e.mode().is_blob() => Ok(Some(e.object().map_err(odb)?.detach().data)),
            _ => Ok(None),
        }
    }

    /// The regular files directly in directory `dir` of HEAD's tree, by name, with their bytes
    /// (none when HEAD is unborn or `dir` is no directory there): what a bare repository holds
    /// of the committed layer.
    pub fn files_at_head(&self, dir: &str) -> Result<Vec<(String, Vec<u8>)>, Error> {
        let Some(head) = self.head()? else { return Ok(Vec::new()) };
        let tree = self.repo.find_commit(head).map_err(odb)?.tree().map_err(odb)?;
        let Some(entry) = tree.lookup_entry_by_path(dir).map_err(odb)? else { return Ok(Vec::new()) };
        if !entry.mode().is_tree() {
            return Ok(Vec::new());
        }
        let mut files = Vec::new();
        for e in self.repo.find_tree(entry.object_id()).map_err(odb)?.iter() {
            let e = e.map_err(odb)?;
            // Regular files only: a symlink, a gitlink or a directory is no declaration.
            if e.mode().is_blob() {
                let name = e.filename().to_str_lossy().into_owned();
                files.push((name, self.repo.find_object(e.object_id()).map_err(odb)?.detach().data));
            }
        }
        Ok(files)
    }

    fn tree_entries(&self, id: Option<ObjectId>) -> Result<Vec<(String, ObjectId, bool)>, Error> {
        let Some(id) = id else { return Ok(Vec::new()) };
        let tree = self.repo.find_tree(id).map_err(odb)?;
        let mut v = Vec::new();
        for e in tree.iter() {
            let e = e.map_err(odb)?;
            v.push((e.filename().to_str_lossy().into_owned(), e.object_id(), e.mode().is_tree()));
        }
        Ok(v)
    }

    fn diff_trees(
        &self,
        a: Option<ObjectId>,
        b: Option<ObjectId>,
        prefix: &str,
        out: &mut BTreeSet<String>,
    ) -> Result<(), Error> {
        if a == b {
            return Ok(());
        }
        let ea = self.tree_entries(a)?;
        let eb = self.tree_entries(b)?;
        let mut names: BTreeSet<&str> = ea.iter().map(|e| e.0.as_str()).collect();
        names.extend(eb.iter().map(|e| e.0.as_str()));
        for name in names {
            let x = ea.iter().find(|e| e.0 == name);
            let y = eb.iter().find(|e| e.0 == name);
            if let (Some(x), Some(y)) = (x, y) {
                if x.1 == y.1 && x.2 == y.2 {
                    continue;
                }
            }
            let path = format!("{prefix}{name}");
            let xt = x.filter(|e| e.2).map(|e| e.1);
            let yt = y.filter(|e| e.2).map(|e| e.1);
            if xt.is_some() || yt.is_some() {
                self.diff_trees(xt, yt, &format!("{path}/"), out)?;
            }
            if x.is_some_and(|e| !e.2) || y.is_some_and(|e| !e.2) {
                out.insert(path);
            }
        }
        Ok(())
    }

    /// The configured URL of remote `name`, if any.
    pub fn remote_url(&self, name: &str) -> Option<String> {
        self.repo.config_snapshot().string(format!("remote.{name}.url").as_str()).map(|u| u.to_str_lossy().into_owned())
    }

    /// A configuration value as a string.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.repo.config_snapshot().string(key).map(|v| v.to_str_lossy().into_owned())
    }

    /// `core.sshCommand` as the `git` binary this process runs sees it — the user's
    /// `git -c core.sshCommand=…` (`GIT_CONFIG_PARAMETERS`) included, which is how a sync run as
    /// `git -c … majordomus continuity sync`, or the pre-push hook of `git -c … push`, gets it.
    pub fn ssh_command(&self) -> Option<String> {
        let out = binary::run(&self.git_dir, &self.root, &["config", "--get", "core.sshCommand"]).ok()?;
        let value = String::from_utf8_lossy(&out.stdout).trim_end_matches('\n').to_string();
        (out.status.success() && !value.trim().is_empty()).then_some(value)
    }

    /// Every value of a multi-valued configuration key.
    pub fn config_strings(&self, key: &str) -> Vec<String> {
        self.repo
            .config_snapshot()
            .strings(key)
            .unwrap_or_default()
            .into_iter()
            .map(|v| v.to_str_lossy().into_owned())
            .collect()
    }

    /// Runs the `git` binary on this checkout (see [`binary::run`]).
    pub fn git_binary(&self, args: &[&str]) -> Result<std::process::Output, Error> {
        binary::run(&self.git_dir, &self.root, args)
    }

    /// The names of the configured remotes, sorted.
    pub fn remote_names(&self) -> Vec<String> {
        self.repo.remote_names().iter().map(|n| n.to_str_lossy().into_owned()).collect()
    }

    /// The root commits of HEAD's history (sorted, de-duplicated, hex); empty when unborn.
    /// Cached per HEAD in `<common-dir>/majordomus/roots` (this worktree's HEAD on the first
    /// line, the roots after it): the same HEAD answers from the file; a HEAD that descends from
    /// the cached one walks only the new commits; anything else walks the whole history. The
    /// cache is an optimisation: a missing or damaged file changes no answer.
    pub fn root_commits(&self) -> Result<Vec<String>, Error> {
        let Some(head) = self.head()? else { return Ok(Vec::new()) };
        let path = self.common_dir.join("majordomus/roots");
        let cached: Option<(ObjectId, Vec<String>)> = std::fs::read_to_string(&path).ok().and_then(|t| {
            let mut lines = t.lines();
            let h = ObjectId::from_hex(lines.next()?.as_bytes()).ok()?;
            let roots: Vec<String> = lines.map(str::to_string).collect();
            roots.iter().all(|r| ObjectId::from_hex(r.as_bytes()).is_ok()).then_some((h, roots))
        });
        let mut roots = BTreeSet::new();
        let mut walk = self.repo.rev_walk(Some(head));
        match cached {
            Some((h, r)) if h == head => return Ok(r),
            Some((h, r)) if self.is_ancestor(h, head).unwrap_or(false) => {
                roots.extend(r);
                walk = walk.with_hidden(Some(h));
            }
            _ => {}
        }
        for info in walk.all().map_err(odb)? {
            let info = info.map_err(odb)?;
            if info.parent_ids().next().is_none() {
                roots.insert(info.id.to_string());
            }
        }
        let roots: Vec<String> = roots.into_iter().collect();
        let text = std::iter::once(head.to_string()).chain(roots.iter().cloned()).collect::<Vec<_>>().join("\n") + "\n";
        let _ = write_atomic(&path, text.as_bytes());
        Ok(roots)
    }

    /// Whether `commit` is on a remote-tracking branch (`refs/remotes/*`): the tip of one, or
    /// an ancestor of one. A tip equal to the commit answers before any history is walked;
    /// then at most [`REMOTE_BRANCH_CHECKS`] tips are asked for ancestry, stopping at the first
    /// that holds it. `None` when the answer is not known within that bound or the refs cannot
    /// be read: a caller that warns on `Some(false)` keeps quiet then.
    pub fn on_remote_branch(&self, commit: ObjectId) -> Option<bool> {
        let platform = self.repo.references().ok()?;
        let mut known = true;
        let mut tips: Vec<ObjectId> = Vec::new();
        // Symbolic refs (`refs/remotes/origin/HEAD`) name a branch listed on its own.
        for r in platform.remote_branches().ok()? {
            let Ok(r) = r else {
                known = false;
                continue;
            };
            let Some(id) = r.try_id().map(|i| i.detach()) else { continue };
            if id == commit {
                return Some(true);
            }
            tips.push(id);
        }
        tips.sort();
        tips.dedup();
        let asked = tips.len().min(REMOTE_BRANCH_CHECKS);
        known &= asked == tips.len();
        for t in &tips[..asked] {
            match self.is_ancestor(commit, *t) {
                Ok(true) => return Some(true),
                Ok(false) => {}
                Err(_) => known = false,
            }
        }
        known.then_some(false)
    }

    /// The toplevel paths of every worktree of this clone, this one included.
    pub fn worktree_roots(&self) -> Vec<PathBuf> {
        let mut v = Vec::new();
        if let Some(main) = self.common_dir.parent() {
            if self.common_dir.file_name().is_some_and(|n| n == ".git") {
                v.push(main.to_path_buf());
            }
        }
        if let Ok(wts) = self.repo.worktrees() {
            for wt in wts {
                if let Ok(base) = wt.base() {
                    v.push(canonical(&base));
                }
            }
        }
        v.sort();
        v.dedup();
        v
    }
}

/// How many remote-tracking tips [`Git::on_remote_branch`] asks for ancestry at most.
pub const REMOTE_BRANCH_CHECKS: usize = 256;

/// Ancestry through commit-graph generation numbers; `None` when either commit is not in the graph.
fn is_ancestor_graph(g: &gix::commitgraph::Graph, a: ObjectId, b: ObjectId) -> Option<bool> {
    let ga = g.commit_by_id(a)?.generation();
    let pa = g.lookup(a)?;
    if g.commit_by_id(b)?.generation() < ga {
        return Some(false);
    }
    let mut seen = vec![false; g.num_commits() as usize];
    let mut stack = vec![g.lookup(b)?];
    while let Some(pos) = stack.pop() {
        if pos == pa {
            return Some(true);
        }
        if std::mem::replace(&mut seen[pos.0 as usize], true) {
            continue;
        }
        let c = g.commit_at(pos);
        if c.generation() <= ga {
            continue;
        }
        for p in c.iter_parents().flatten() {
            stack.push(p);
        }
    }
    Some(false)
}

/// Writes a small cache file atomically (temp file + rename); failure is the caller's to ignore.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent"))?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("cache"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// The live identity read the way a record's file writes it (the sentinels of docs/REFERENCE.md#identity for an
/// unborn HEAD and a detached branch).
impl majordomus_core::model::labels::Anchor for Identity {
    fn head_text(&self) -> &str {
        majordomus_core::model::labels::head_text(self.head.as_deref())
    }
    fn branch_text(&self) -> &str {
        majordomus_core::model::labels::branch_text(self.branch.as_deref())
    }
}

/// The one mapping from git's errors to exit codes: outside a checkout, or in a bare one, is a
/// usage error (2); every failure of the local repository is an I/O error (13).
impl From<Error> for majordomus_core::error::Error {
    fn from(e: Error) -> Self {
        use majordomus_core::error::Error as Edge;
        use Error as G;
        let edge = match &e {
            G::NotARepository(_) => Edge::usage("not inside a git repository").hint("use --repo <path>"),
            G::Bare(_) => Edge::usage(e.to_string())
                .hint("run it in a checkout with a working tree; continuity verify and continuity records also read a bare repository"),
            G::Damaged(path, _) => Edge::io(format!("the repository at {} cannot be opened", path.display()))
                .hint("git fsck shows what is damaged; nothing was read or written"),
            _ => Edge::io(e.to_string()),
        };
        edge.caused_by(e)
    }
}

#[cfg(test)]
mod edge_tests {
    #[test]
    fn git_errors_map_to_their_exit_codes() {
        use super::Error as G;
        use majordomus_core::error::{Error, Exit};
        let io = || std::io::Error::other("disk on fire");
        let e = Error::from(G::NotARepository(Box::new(io())));
        assert_eq!(
            (e.exit, e.message.as_str(), e.hint.as_deref()),
            (Exit::Usage, "not inside a git repository", Some("use --repo <path>"))
        );
        assert_eq!(Error::from(G::Bare("/r".into())).exit, Exit::Usage);
        for local in [G::Head(Box::new(io())), G::Objects(Box::new(io())), G::Status(Box::new(io())), G::Spawn(io())] {
            assert!(std::error::Error::source(&local).is_some());
            let e = Error::from(local);
            assert_eq!(e.exit, Exit::Io);
            assert!(e.message.starts_with("git: ") && e.message.ends_with("disk on fire"), "{}", e.message);
        }
    }

    #[test]
    fn store_errors_keep_their_sources_and_say_what_failed() {
        use super::{BadName, Error as G};
        let e = G::GaveUp {
            refname: "refs/majordomus/continuity".into(),
            attempts: 20,
            concurrent: true,
            last: Box::new(std::io::Error::other("lost the race")),
        };
        assert_eq!(
            e.to_string(),
            "git: refs/majordomus/continuity: gave up after 20 attempts (concurrent writers): lost the race"
        );
        assert!(std::error::Error::source(&e).is_some());
        let e = G::BadName { kind: BadName::Reference, name: "HEAD".into(), source: None };
        assert_eq!(e.to_string(), "git: not a full reference name: \"HEAD\"");
        let e = G::BadName { kind: BadName::StorePath, name: "a/../b".into(), source: None };
        assert_eq!(e.to_string(), "git: invalid store path \"a/../b\"");
        let edge = majordomus_core::error::Error::from(G::NoCommit("abc".into()));
        assert_eq!((edge.exit, edge.message.as_str()), (majordomus_core::error::Exit::Io, "git: no commit abc"));
    }

    #[test]
    fn a_cause_the_message_quotes_is_not_repeated() {
        let e = majordomus_core::error::Error::from(super::Error::Spawn(std::io::Error::other("not found")));
        assert_eq!(e.message, "git: cannot run git: not found");
        assert!(e.causes().is_empty(), "{:?}", e.causes());
    }
}
