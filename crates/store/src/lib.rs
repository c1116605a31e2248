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
    /// A file written under a registered checkout's `.ai/local/` could not be copied under the
    /// git directory ([`keep::take_failures`]); the write itself stands.
    #[error("could not keep a copy of .ai/local/{} under the git directory: {source}", path.display())]
    NotKept {
        /// The file, relative to `.ai/local/`.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
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
            | Error::Vanished { .. }
            | Error::NotKept { .. } => Edge::io(e.to_string()),
        };
        edge.caused_by(e)
    }
}

#[cfg(test)]
mod edge_tests {
    use std::path::{Path, PathBuf};

    use majordomus_core::error::{Error, Exit};

    use super::Error as S;

    /// The edge error of `e`: exit, message, hint, and the `caused by:` lines it prints.
    fn edge(e: S) -> (Exit, String, Option<String>, Vec<String>) {
        let e = Error::from(e);
        let causes = e.causes();
        (e.exit, e.message, e.hint, causes)
    }

    #[test]
    fn store_errors_are_io_errors_naming_the_path() {
        let e = super::Error::io(Path::new("/r/.ai"), std::io::Error::other("disk on fire"));
        assert!(std::error::Error::source(&e).is_some());
        let e = Error::from(e);
        assert_eq!((e.exit, e.message.as_str()), (Exit::Io, "/r/.ai: disk on fire"));
        // The same text the untyped helper wrote.
        assert_eq!(e.message, Error::io_at(Path::new("/r/.ai"), "disk on fire").message);
    }

    /// The source an I/O failure keeps is the system's error itself, kind and all, and the edge
    /// keeps the whole chain without printing the cause its message already says.
    #[test]
    fn an_io_failure_keeps_its_source_through_the_edge() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("file");
        std::fs::write(&file, "x").unwrap();
        // A directory under a regular file cannot be created.
        let e = crate::atomic::ensure_dir(&file.join("sub")).unwrap_err();
        let S::Io { path, source } = &e else { panic!("{e:?}") };
        assert_eq!(path, &file.join("sub"));
        let kind = source.kind();
        let cause = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<std::io::Error>()).unwrap();
        assert_eq!(cause.kind(), kind);
        let old = Error::io_at(&file.join("sub"), source).message;
        let e = Error::from(e);
        let kept = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<S>());
        assert!(matches!(kept, Some(S::Io { .. })), "the store error is the edge error's cause");
        assert!(e.causes().is_empty(), "{:?}", e.causes());
        assert_eq!((e.exit, e.message, e.hint), (Exit::Io, old, None));
    }

    /// Every situation prints what the store printed before it was typed (the `format!` each
    /// replaced), exit 13, no cause line beyond the message.
    #[test]
    fn each_situation_prints_as_before() {
        let p = PathBuf::from("/r/.ai/local/state/x.md");
        let d = PathBuf::from("/r/.ai/local/state");
        let io = |message: String| (Exit::Io, message, None, Vec::new());
        let cases = [
            (S::NoTempName { dir: d.clone() }, io(format!("{}: no unique temporary name", d.display()))),
            (
                S::NoFreeName { dir: d.clone(), tries: 10 },
                io(format!("{}: no unique file name after 10 tries", d.display())),
            ),
            (S::NoParent { path: p.clone() }, io(format!("{}: no parent directory", p.display()))),
            (S::NotUtf8 { path: p.clone() }, io(format!("{} is not valid UTF-8", p.display()))),
            (S::NotAnEpisode { path: p.clone() }, io(format!("{} does not parse as an open episode", p.display()))),
            (S::Vanished { path: p.clone() }, io("vanished".into())),
            (
                S::NotKept { path: "state/x.md".into(), source: std::io::Error::other("disk full") },
                io("could not keep a copy of .ai/local/state/x.md under the git directory: disk full".into()),
            ),
            (
                S::SymlinkedDirectory { path: ".ai/local/state".into() },
                (
                    Exit::Io,
                    ".ai/local/state is a symlink pointing outside the checkout; refusing to write through it".into(),
                    Some(
                        "replace the symlink with a directory of the checkout (git rm it if a commit brought it)"
                            .into(),
                    ),
                    Vec::new(),
                ),
            ),
            (
                S::SymlinkedFile { path: ".ai/local/state/ledger.jsonl".into() },
                (
                    Exit::Io,
                    ".ai/local/state/ledger.jsonl is a symlink pointing outside the checkout; refusing to follow it"
                        .into(),
                    Some("replace the symlink with a regular file".into()),
                    Vec::new(),
                ),
            ),
        ];
        for (e, expected) in cases {
            assert_eq!(edge(e), expected);
        }
    }

    /// An oversize record is the refusal (10) the writer returned before, hint and all.
    #[test]
    fn an_oversize_record_is_refused_as_before() {
        let source = crate::format::Oversize { bytes: 70_000, key: "changed_files".into(), key_bytes: 69_000 };
        let old = source.refusal("checkpoint");
        let e = S::Oversize { dir: "/r/.ai/local/state/checkpoints".into(), source };
        assert!(std::error::Error::source(&e).is_some_and(|s| s.is::<crate::format::Oversize>()));
        assert_eq!(edge(e), (Exit::Refused, old.message, old.hint, Vec::new()));
    }

    /// What the store's operations return, read back at the edge.
    #[test]
    fn operations_fail_with_their_situation() {
        let t = tempfile::tempdir().unwrap();
        let bad = t.path().join("bad.md");
        std::fs::write(&bad, b"\xff\xfe").unwrap();
        let e = crate::atomic::read_opt(&bad).unwrap_err();
        assert!(matches!(&e, S::NotUtf8 { path } if path == &bad));
        assert_eq!(edge(e).1, format!("{} is not valid UTF-8", bad.display()));
        let e = crate::atomic::replace(Path::new("/"), b"x").unwrap_err();
        assert_eq!(edge(e).1, "/: no parent directory");
        let taken = || "taken.md".to_string();
        crate::atomic::create_new(t.path(), taken, b"x").unwrap();
        let e = crate::atomic::create_new(t.path(), taken, b"y").unwrap_err();
        assert!(matches!(e, S::NoFreeName { tries: 10, .. }));
    }

    /// A write that streams through the caller's closure returns the caller's error type: the
    /// closure's own error passes through untouched, the store's converts into it.
    #[test]
    fn a_closure_write_returns_the_callers_error() {
        let t = tempfile::tempdir().unwrap();
        let target = t.path().join("f");
        let refused = crate::atomic::replace_with(&target, |_| Err(Error::refused("no, thanks"))).unwrap_err();
        assert_eq!((refused.exit, refused.message.as_str()), (Exit::Refused, "no, thanks"));
        assert!(!target.exists());
        let e: Error = crate::atomic::replace_with(Path::new("/"), |_| Ok(())).unwrap_err();
        assert_eq!((e.exit, e.message.as_str()), (Exit::Io, "/: no parent directory"));
        // Inside the closure the store's own failures convert with `?`.
        let created = crate::atomic::create_if_absent_with(&target, |w| {
            crate::atomic::write_to(w, &target, b"x")?;
            Ok::<_, Error>(())
        });
        assert!(created.unwrap());
        assert_eq!(std::fs::read(&target).unwrap(), b"x");
    }
}
