//! Record files in the working tree: layout, atomic writes, locks, the ledger, the stores.
//!
//! Owns: paths of record files, front-matter files on disk, atomic write (temp + link/rename),
//! append under `File::lock`, scanning.
//! Must not touch: gix, the network, signing, stdout.

#![warn(missing_docs)]

// The crates below, under the module names the code uses (`crate::model::…`).
#[cfg(test)]
use majordomus_core::assets;
use majordomus_core::{clock, model, text};

pub mod atomic;
pub mod decisions;
pub mod keep;
pub use majordomus_core::format;
pub mod layout;
pub mod ledger;
pub mod name_index;
pub mod questions;
pub mod records;
pub mod rewrites;
pub mod session_context;
pub mod sessions;

pub use layout::Layout;

/// The name prefix of a write's staging file (never read as a record, never kept).
pub const STAGING_PREFIX: &str = ".tmp.";

use std::path::{Path, PathBuf};

/// Errors of the store, each a named situation with its cause kept as the source: which file or
/// directory failed, and how. The one `From<Error>` for the edge error maps every one to its exit
/// code (13, but 10 for [`Error::Oversize`]), its message (this `Display`) and its hint.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read, listed or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// No unused temporary name could be found beside a file.
    #[error("{}: no unique temporary name", dir.display())]
    NoTempName {
        /// The directory the temporary file was to go in.
        dir: PathBuf,
    },
    /// Every fresh name a new record was given was taken.
    #[error("{}: no unique file name after {tries} tries", dir.display())]
    NoFreeName {
        /// The directory the record was to go in.
        dir: PathBuf,
        /// How many names were tried.
        tries: usize,
    },
    /// A file to write has no parent directory (a root or an empty path).
    #[error("{}: no parent directory", path.display())]
    NoParent {
        /// The path.
        path: PathBuf,
    },
    /// A file that must be text is not valid UTF-8.
    #[error("{} is not valid UTF-8", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
    /// A directory of the `.ai/` layer on the way to a write is a symlink leading outside the
    /// checkout or nowhere ([`atomic::confined`]).
    #[error("{} is a symlink pointing outside the checkout; refusing to write through it", path.display())]
    SymlinkedDirectory {
        /// The symlink, relative to the checkout.
        path: PathBuf,
    },
    /// A file is a symlink leading outside the checkout or nowhere ([`atomic::guard`]).
    #[error("{} is a symlink pointing outside the checkout; refusing to follow it", path.display())]
    SymlinkedFile {
        /// The symlink, relative to the checkout when inside it.
        path: PathBuf,
    },
    /// An open-episode file does not parse ([`sessions::read_open`]).
    #[error("{} does not parse as an open episode", path.display())]
    NotAnEpisode {
        /// The file.
        path: PathBuf,
    },
    /// An open-episode file listed in its directory was gone when read ([`sessions::list_open`]).
    #[error("vanished")]
    Vanished {
        /// The file.
        path: PathBuf,
    },
    /// A record whose front matter every reader would skip, refused unwritten
    /// ([`records::write`]).
    #[error("{}: {source}", records::record_kind(dir))]
    Oversize {
        /// The record directory it was to go in (its name says what the record is).
        dir: PathBuf,
        /// How large the front matter would be.
        #[source]
        source: format::Oversize,
    },
}

/// The store's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An I/O failure on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io { path: path.to_path_buf(), source }
    }
}

/// The one table from the store's errors to the edge: exit code, message, hint. Every error is
/// an I/O failure (13) but an oversize record, which is refused (10); the error is kept as the
/// cause.
impl From<Error> for majordomus_core::error::Error {
    fn from(e: Error) -> Self {
        use majordomus_core::error::Error as Edge;
        let edge = match &e {
            Error::Oversize { dir, source } => source.refusal(&records::record_kind(dir)),
            Error::SymlinkedDirectory { .. } => Edge::io(e.to_string())
                .hint("replace the symlink with a directory of the checkout (git rm it if a commit brought it)"),
            Error::SymlinkedFile { .. } => Edge::io(e.to_string()).hint("replace the symlink with a regular file"),
            Error::Io { .. }
            | Error::NoTempName { .. }
            | Error::NoFreeName { .. }
            | Error::NoParent { .. }
            | Error::NotUtf8 { .. }
            | Error::NotAnEpisode { .. }
            | Error::Vanished { .. } => Edge::io(e.to_string()),
        };
        edge.caused_by(e)
    }
}

#[cfg(test)]
mod edge_tests {
    use majordomus_core::error::{Error, Exit};

    #[test]
    fn store_errors_are_io_errors_naming_the_path() {
        let e = super::Error::io(std::path::Path::new("/r/.ai"), std::io::Error::other("disk on fire"));
        assert!(std::error::Error::source(&e).is_some());
        let e = Error::from(e);
        assert_eq!((e.exit, e.message.as_str()), (Exit::Io, "/r/.ai: disk on fire"));
        // The same text the untyped helper wrote.
        assert_eq!(e.message, Error::io_at(std::path::Path::new("/r/.ai"), "disk on fire").message);
    }
}
