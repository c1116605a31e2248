//! Record files in the working tree: layout, atomic writes, locks, the ledger, the stores.
//!
//! Owns: paths of record files, front-matter files on disk, atomic write (temp + link/rename),
//! append under `File::lock`, scanning.
//! Must not touch: gix, the network, signing, stdout.

#![warn(missing_docs)]

// The crates below, under the module names the code uses (`crate::model::…`).
#[cfg(test)]
use majordomus_core::assets;
use majordomus_core::{clock, error, model, text};

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

/// Errors of the store: which file or directory failed, with the cause kept as the source.
/// `crate::error` maps every one to exit 13; each prints as `<path>: <cause>`.
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
}

/// An I/O failure on `path` as the error that crosses the command edge (exit 13), for the
/// store's functions that return [`crate::error::Result`].
pub(crate) fn io_error(path: &Path, source: std::io::Error) -> crate::error::Error {
    Error::io(path, source).into()
}

impl Error {
    /// An I/O failure on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io { path: path.to_path_buf(), source }
    }
}

/// The store's errors are all I/O failures (13).
impl From<Error> for majordomus_core::error::Error {
    fn from(e: Error) -> Self {
        majordomus_core::error::Error::io(e.to_string()).caused_by(e)
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
