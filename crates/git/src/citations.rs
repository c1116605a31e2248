//! What git says about a cited path since a record was written (docs/REFERENCE.md#citations):
//! the commits that changed it along HEAD's first parents, and where its blob went when the path
//! is gone.
//!
//! Owns: the bounded walks. Must not touch: what a label says (the caller words it), stdout.

use gix::ObjectId;

use super::{odb, Error, Git};

/// The commits along HEAD's first parents, back to a record's head, that changed one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathHistory {
    /// How many changed it within the walk.
    pub commits: usize,
    /// The walk stopped at its bound before it reached the record's head: "more than".
    pub more: bool,
    /// The newest of them: its id and its author's name.
    pub newest: Option<(ObjectId, String)>,
}

impl Git {
    /// The commits that changed `path` along `head`'s first parents until `since` (exclusive),
    /// at most `max` commits walked.
    pub fn path_history(
        &self,
        head: ObjectId,
        since: Option<ObjectId>,
        path: &str,
        max: usize,
    ) -> Result<PathHistory, Error> {
        let mut h = PathHistory { commits: 0, more: false, newest: None };
        let mut cur = Some(head);
        let mut walked = 0;
        while let Some(c) = cur {
            if Some(c) == since {
                return Ok(h);
            }
            if walked == max {
                h.more = true;
                return Ok(h);
            }
            walked += 1;
            let parent = self.parents(c).first().copied();
            if self.blob_at(Some(c), path)? != self.blob_at(parent, path)? {
                h.commits += 1;
                if h.newest.is_none() {
                    let commit = self.repo.find_commit(c).map_err(odb)?;
                    let author = commit.author().map(|a| a.name.to_string()).unwrap_or_default();
                    h.newest = Some((c, author));
                }
            }
            cur = parent;
        }
        Ok(h)
    }

    /// A path of `commit`'s tree holding blob `blob` (a file renamed, or its directory), looking
    /// at most `max` entries; `None` when there is none or the bound is reached.
    pub fn path_of_blob(&self, commit: ObjectId, blob: ObjectId, max: usize) -> Result<Option<String>, Error> {
        let tree = self.repo.find_commit(commit).map_err(odb)?.tree_id().map_err(odb)?.detach();
        let mut stack = vec![(tree, String::new())];
        let mut seen = 0;
        while let Some((id, prefix)) = stack.pop() {
            for e in self.repo.find_tree(id).map_err(odb)?.iter() {
                let e = e.map_err(odb)?;
                seen += 1;
                if seen > max {
                    return Ok(None);
                }
                let name = format!("{prefix}{}", e.filename());
                if e.mode().is_tree() {
                    stack.push((e.object_id(), format!("{name}/")));
                } else if e.mode().is_blob() && e.object_id() == blob {
                    return Ok(Some(name));
                }
            }
        }
        Ok(None)
    }
}
