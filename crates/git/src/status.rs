//! The working-tree status (docs/REFERENCE.md#identity): the porcelain change list as `git status
//! --porcelain=v1 --untracked-files=normal` shows it, with the tool's own layer (`.ai/`) left out.
//!
//! Owns: the one status walk ([`Changes`]), the exclusion of `.ai/`, and the expansion of
//! collapsed untracked directories into the files they hold (for the scope rule and the
//! fingerprint).
//! Must not touch: record semantics, stdout, clap.

use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, ByteSlice};
use gix::dir::entry::{Kind, Status};
use gix::dir::walk::{Action, Delegate, EmissionMode, ForDeletionMode};
use gix::dir::EntryRef;

use super::{status_err, Error, Git};

/// The tool's own layer: never the user's work (docs/REFERENCE.md#identity).
const LAYER: &str = ".ai";

/// Whether `path` (repository-relative, a directory with or without its trailing `/`) is the
/// tool's own layer or inside it.
pub fn in_layer(path: &str) -> bool {
    path.strip_prefix(LAYER).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The change list of a working tree, read once: tracked changes (index against HEAD, worktree
/// against the index; renames as their destination) and untracked entries, the way `git status
/// --porcelain=v1` lists them — an untracked directory that holds anything is one entry `dir/`,
/// not its files. Nothing under `.ai/` is in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Every entry, sorted by bytes, de-duplicated; untracked directories end with `/`.
    entries: Vec<String>,
}

impl Changes {
    /// The entries, sorted by bytes: tracked paths, untracked files, untracked directories as
    /// `dir/`.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// `clean` iff there is no entry (docs/REFERENCE.md#identity: nothing outside `.ai/`).
    pub fn is_clean(&self) -> bool {
        self.entries.is_empty()
    }

    /// The changes without the entries `drop` names (the tool's own host files, docs/REFERENCE.md#identity).
    pub fn without(mut self, drop: &[String]) -> Changes {
        self.entries.retain(|e| !drop.contains(e));
        self
    }

    /// The collapsed untracked directories (entries ending with `/`).
    fn directories(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().filter(|e| e.ends_with('/')).map(String::as_str)
    }
}

impl Git {
    /// The working tree's [`Changes`]: one status of the tracked files and one walk of the
    /// untracked ones, which looks into an untracked directory only until it finds the first
    /// file there (as git does), so a `node_modules/` of many thousand files costs a few reads.
    pub fn changes(&self) -> Result<Changes, Error> {
        let index = self.repo.index_or_empty().map_err(status_err)?;
        let (tracked, untracked) = if index.entries().len() >= BESIDE_FROM {
            // The walk beside the tracked check, on its own handle of the repository.
            let other = self.repo.clone();
            std::thread::scope(|s| {
                let walk = s.spawn(move || {
                    let mut walk = Collapse::default();
                    walk_untracked_in(&other, &mut walk).map(|()| walk)
                });
                let tracked = self.tracked_changes();
                (tracked, walk.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            })
        } else {
            let tracked = self.tracked_changes();
            let mut walk = Collapse::default();
            (tracked, self.walk_untracked(&mut walk).map(|()| walk))
        };
        let mut set = tracked?;
        set.extend(untracked?.finish());
        Ok(Changes { entries: set.into_iter().collect() })
    }

    /// Every changed file of `changes`, each collapsed untracked directory replaced by the
    /// untracked files inside it (only those directories are read again), sorted by bytes.
    /// What the scope rule and the fingerprint judge: a collapsed `lib/` must not hide
    /// `lib/auth/x`.
    pub fn changed_files(&self, changes: &Changes) -> Result<Vec<String>, Error> {
        let dirs: BTreeSet<&str> = changes.directories().collect();
        let mut out: BTreeSet<String> = changes.entries.iter().filter(|e| !e.ends_with('/')).cloned().collect();
        if !dirs.is_empty() {
            let mut walk = Expand { dirs, out: Vec::new() };
            self.walk_untracked(&mut walk)?;
            out.extend(walk.out);
        }
        Ok(out.into_iter().collect())
    }

    /// Whether the working tree has any change outside `.ai/` ([`Changes::is_clean`] negated).
    pub fn is_dirty(&self) -> Result<bool, Error> {
        Ok(!self.changes()?.is_clean())
    }

    /// Tracked changes: HEAD against the index (renames as configured, listed by their
    /// destination) and the index against the worktree, outside `.ai/`. Both run in this
    /// thread, as git's do for an index this size: gix's status iterator starts a producer
    /// thread for each, which costs more than the work on a small index and waits for a core on
    /// a busy machine. Refreshed stat data is written back, as `git status` does.
    fn tracked_changes(&self) -> Result<BTreeSet<String>, Error> {
        use gix::status::index_worktree::{BuiltinSubmoduleStatus, Options};
        use gix::status::plumbing::index_as_worktree::traits::FastEq;
        let index = self.repo.index_or_empty().map_err(status_err)?;
        let mut out = BTreeSet::new();
        let tree = self.repo.head_tree_id_or_empty().map_err(status_err)?;
        if !staged_nothing(&index, tree.detach()) {
            let renames = gix::status::tree_index::TrackRenames::AsConfigured;
            self.repo
                .tree_index_status(&tree, &index, None, renames, |change, _, _| {
                    out.insert(change.location().to_str_lossy().into_owned());
                    Ok(std::ops::ControlFlow::Continue(()))
                })
                .map_err(status_err)?;
        }
        let no_submodules =
            gix::status::Submodule::Given { ignore: gix::submodule::config::Ignore::All, check_dirty: false };
        let submodules =
            BuiltinSubmoduleStatus::new(self.repo.clone().into_sync(), no_submodules).map_err(status_err)?;
        // As git's index preloading does: a thread per 500 entries.
        let options = Options {
            sorting: None,
            dirwalk_options: None,
            rewrites: None,
            thread_limit: Some((index.entries().len() / 500).max(1)),
        };
        let mut modified = Modified::default();
        let interrupt = AtomicBool::new(false);
        self.repo
            .index_worktree_status(
                &index,
                None::<&str>,
                &mut modified,
                FastEq,
                submodules,
                &mut gix::progress::Discard,
                &interrupt,
                options,
            )
            .map_err(status_err)?;
        out.extend(modified.paths);
        out.retain(|p| !in_layer(p));
        if !modified.refresh.is_empty() {
            let mut refreshed: gix::index::File = (**index).clone();
            let entries = refreshed.entries_mut();
            for (i, stat) in modified.refresh {
                match stat {
                    Some(stat) => entries[i].stat = stat,
                    None => entries[i].stat.size = 0,
                }
            }
            // Refreshing stat data is an optimisation, as `git status` does; failure changes no answer.
            let _ = refreshed.write(gix::index::write::Options::default());
        }
        Ok(out)
    }

    /// One directory walk of the whole working tree for untracked entries (ignored ones are
    /// never emitted), steered by `delegate`; `.ai/` is never entered.
    fn walk_untracked(&self, delegate: &mut dyn Delegate) -> Result<(), Error> {
        walk_untracked_in(&self.repo, delegate)
    }
}

/// Whether the index holds exactly HEAD's tree, as its cache-tree (git's `TREE` extension) says:
/// its root valid, naming `head_tree` and covering every entry. Git keeps that root valid only
/// while no entry changed since the tree was written (any change invalidates the path up to
/// the root), and `git status` and `git diff --cached` trust it the same way; then HEAD against
/// the index has nothing to report and no tree need be read. Without it, HEAD's trees are read.
fn staged_nothing(index: &gix::index::State, head_tree: gix::ObjectId) -> bool {
    index.tree().is_some_and(|root| {
        root.name.is_empty()
            && root.id == head_tree
            && root.num_entries.is_some_and(|n| n as usize == index.entries().len())
    })
}

/// From this many index entries, [`Git::changes`] walks for untracked files on a second thread
/// while the tracked files are checked.
const BESIDE_FROM: usize = 2000;

/// [`Git::walk_untracked`] on `repo` (a handle of its own when it runs on another thread).
fn walk_untracked_in(repo: &gix::Repository, delegate: &mut dyn Delegate) -> Result<(), Error> {
    let index = repo.index_or_empty().map_err(status_err)?;
    let options = repo
        .dirwalk_options()
        .map_err(status_err)?
        .emit_untracked(EmissionMode::Matching)
        .emit_ignored(None)
        .emit_tracked(false)
        .emit_pruned(false)
        .emit_empty_directories(false);
    let interrupt = AtomicBool::new(false);
    repo.dirwalk(&index, None::<&str>, &interrupt, options, delegate).map_err(status_err)?;
    Ok(())
}

/// What the index-against-worktree check reports: the changed paths, and the entries whose
/// stat data to refresh (`Some(stat)`; `None`: a racily clean entry whose size is set to 0, as
/// git does, so the next check hashes it).
#[derive(Default)]
struct Modified {
    paths: Vec<String>,
    refresh: Vec<(usize, Option<gix::index::entry::Stat>)>,
}

impl<'index> gix::status::plumbing::index_as_worktree_with_renames::VisitEntry<'index> for Modified {
    type ContentChange = ();
    type SubmoduleStatus = gix::submodule::Status;

    fn visit_entry(
        &mut self,
        entry: gix::status::plumbing::index_as_worktree_with_renames::Entry<'index, (), gix::submodule::Status>,
    ) {
        use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
        use gix::status::plumbing::index_as_worktree_with_renames::Entry;
        let Entry::Modification { entry_index, rela_path, status, .. } = entry else { return };
        match status {
            EntryStatus::NeedsUpdate(stat) => {
                self.refresh.push((entry_index, Some(stat)));
                return;
            }
            EntryStatus::Change(Change::Modification { set_entry_stat_size_zero: true, .. }) => {
                self.refresh.push((entry_index, None))
            }
            _ => {}
        }
        self.paths.push(rela_path.to_str_lossy().into_owned());
    }
}

/// Whether `path` lies inside directory `dir` (`dir` ends with `/`).
fn inside(path: &BStr, dir: &str) -> bool {
    path.starts_with(dir.as_bytes())
}

/// `true` when git's default would recurse, the path is not the layer, and it is a directory.
fn default_recurse(entry: &EntryRef<'_>, for_deletion: Option<ForDeletionMode>, root_is_repo: bool) -> bool {
    !in_layer(&entry.rela_path.to_str_lossy())
        && entry.status.can_recurse(entry.disk_kind, entry.pathspec_match, for_deletion, root_is_repo)
}

/// The text of an untracked entry: a directory (a nested repository) gets its trailing `/`.
fn entry_text(entry: &EntryRef<'_>) -> String {
    let path = entry.rela_path.to_str_lossy();
    match entry.disk_kind {
        Some(Kind::Directory | Kind::Repository) => format!("{path}/"),
        _ => path.into_owned(),
    }
}

/// The walk behind [`Git::changes`]. The walk is depth first, so at most one untracked
/// directory is open at a time: the outermost untracked directory being looked into. It is
/// entered until its first untracked entry turns up (then it is listed as `dir/`); from then on
/// none of its subdirectories is read. A directory holding nothing untracked (empty, or only
/// ignored files) is not listed, as in git.
#[derive(Default)]
struct Collapse {
    out: Vec<String>,
    /// The open untracked directory (with its trailing `/`) and whether it holds something.
    open: Option<(String, bool)>,
}

impl Collapse {
    /// Closes the open directory unless `path` is inside it.
    fn leave_unless_inside(&mut self, path: &BStr) {
        if self.open.as_ref().is_some_and(|(dir, _)| !inside(path, dir)) {
            self.close();
        }
    }

    fn close(&mut self) {
        if let Some((dir, true)) = self.open.take() {
            self.out.push(dir);
        }
    }

    fn finish(mut self) -> Vec<String> {
        self.close();
        self.out
    }
}

impl Delegate for Collapse {
    fn emit(&mut self, entry: EntryRef<'_>, _collapsed: Option<Status>) -> Action {
        if entry.status != Status::Untracked || in_layer(&entry.rela_path.to_str_lossy()) {
            return Action::Continue(());
        }
        self.leave_unless_inside(entry.rela_path.as_ref());
        match &mut self.open {
            Some((_, found)) => *found = true,
            None => self.out.push(entry_text(&entry)),
        }
        Action::Continue(())
    }

    fn can_recurse(&mut self, entry: EntryRef<'_>, for_deletion: Option<ForDeletionMode>, root_is_repo: bool) -> bool {
        if !default_recurse(&entry, for_deletion, root_is_repo) {
            return false;
        }
        self.leave_unless_inside(entry.rela_path.as_ref());
        match &self.open {
            // Inside the open directory: look further only while nothing was found.
            Some((_, found)) => !found,
            None if entry.status == Status::Untracked => {
                self.open = Some((entry_text(&entry), false));
                true
            }
            None => true,
        }
    }
}

/// The walk behind [`Git::changed_files`]: enters only the collapsed directories and the
/// tracked directories that lead to them, and keeps every untracked entry inside them.
struct Expand<'a> {
    dirs: BTreeSet<&'a str>,
    out: Vec<String>,
}

impl Expand<'_> {
    /// The collapsed directory `path` is inside, if any.
    fn within(&self, path: &BStr) -> bool {
        let path = path.to_str_lossy();
        // The greatest directory not after `path` is the only one that can be its prefix:
        // directories never nest (an untracked directory's parent is tracked).
        self.dirs
            .range::<str, _>((Bound::Unbounded, Bound::Included(path.as_ref())))
            .next_back()
            .is_some_and(|d| path.starts_with(d))
    }

    /// Whether directory `path` leads to a collapsed directory.
    fn leads_to(&self, path: &BStr) -> bool {
        let prefix = format!("{}/", path.to_str_lossy());
        self.dirs
            .range::<str, _>((Bound::Included(prefix.as_str()), Bound::Unbounded))
            .next()
            .is_some_and(|d| d.starts_with(&prefix))
    }
}

impl Delegate for Expand<'_> {
    fn emit(&mut self, entry: EntryRef<'_>, _collapsed: Option<Status>) -> Action {
        if entry.status == Status::Untracked {
            let text = entry_text(&entry);
            if self.within(text.as_str().into()) {
                self.out.push(text);
            }
        }
        Action::Continue(())
    }

    fn can_recurse(&mut self, entry: EntryRef<'_>, for_deletion: Option<ForDeletionMode>, root_is_repo: bool) -> bool {
        let path = entry.rela_path.as_ref();
        default_recurse(&entry, for_deletion, root_is_repo)
            && (path.is_empty() || self.within(path) || self.leads_to(path))
    }
}

#[cfg(test)]
mod tests {
    use super::in_layer;
    use crate::store::tests::{checkout, sh};
    use crate::Git;

    /// A checkout of [`super::BESIDE_FROM`] tracked files walks for untracked ones on a second
    /// thread: the answer is the same list the walk in turn gives.
    #[test]
    fn a_large_index_walks_beside_the_tracked_check_with_the_same_answer() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        checkout(&dir);
        for i in 0..super::BESIDE_FROM {
            let sub = dir.join(format!("src/d{}", i % 40));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
        }
        sh(&dir, &["add", "src"]);
        sh(&dir, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "many"]);
        std::fs::write(dir.join("src/d3/f3.txt"), "changed\n").unwrap();
        std::fs::create_dir_all(dir.join("build/out")).unwrap();
        std::fs::write(dir.join("build/out/x.o"), "x").unwrap();
        std::fs::write(dir.join("src/d7/new.txt"), "new\n").unwrap();
        let g = Git::discover(&dir).unwrap();
        assert!(g.repo.index_or_empty().unwrap().entries().len() > super::BESIDE_FROM);
        let beside = g.changes().unwrap();
        assert_eq!(beside.entries(), ["build/", "src/d3/f3.txt", "src/d7/new.txt", "untracked.txt"]);
        let mut walk = super::Collapse::default();
        g.walk_untracked(&mut walk).unwrap();
        let mut serial = g.tracked_changes().unwrap();
        serial.extend(walk.finish());
        assert_eq!(beside.entries(), serial.into_iter().collect::<Vec<_>>());
    }

    /// The cache-tree shortcut: nothing staged is answered from the index's `TREE` extension,
    /// and whatever makes it disagree with HEAD falls back to reading HEAD's trees.
    #[test]
    fn staged_changes_are_found_whether_or_not_the_cache_tree_names_head() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("w");
        let g = checkout(&dir);
        let shortcut = |g: &Git| {
            let head = g.repo.head_tree_id_or_empty().unwrap().detach();
            super::staged_nothing(&g.repo.index_or_empty().unwrap(), head)
        };
        let tracked = |g: &Git| g.tracked_changes().unwrap().into_iter().collect::<Vec<_>>();
        // Clean: the cache-tree the commit wrote names HEAD's tree; HEAD's trees are not read.
        assert!(shortcut(&g));
        assert!(tracked(&g).is_empty());
        // A staged change: git invalidates the cache-tree's root.
        std::fs::write(dir.join("a.txt"), "b\n").unwrap();
        sh(&dir, &["add", "a.txt"]);
        let g = Git::discover(&dir).unwrap();
        assert!(!shortcut(&g));
        assert_eq!(tracked(&g), ["a.txt"]);
        // Committed, then HEAD moved back with the index kept: the cache-tree is valid but names
        // the newer tree, not HEAD's.
        sh(&dir, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "second"]);
        sh(&dir, &["reset", "-q", "--soft", "HEAD~1"]);
        let g = Git::discover(&dir).unwrap();
        assert!(g.repo.index_or_empty().unwrap().tree().is_some_and(|t| t.num_entries.is_some()));
        assert!(!shortcut(&g));
        assert_eq!(tracked(&g), ["a.txt"]);
    }

    #[test]
    fn the_layer_is_the_directory_and_what_is_inside_it() {
        for p in [".ai", ".ai/", ".ai/repo/policy.yaml", ".ai/repo/sessions/"] {
            assert!(in_layer(p), "{p}");
        }
        for p in [".aix", ".ai.md", "lib/.ai/x", "ai/x", ""] {
            assert!(!in_layer(p), "{p}");
        }
    }
}
