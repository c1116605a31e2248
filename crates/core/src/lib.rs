//! majordomus-core: the shapes everything else speaks — records, labels, the vocabulary macro,
//! policy, the clock and the one error type with its exit codes.
//!
//! Owns: `model` (pure data and validation), `format` (the record files' text: the one
//! front-matter codec and each record kind's on-disk form, no I/O), `clock` (the one reading of the wall clock),
//! `error` (`Error`, `Exit`), `assets` (the embedded defaults `init` writes), `hex`, `oid` (full
//! git object ids and continuity record ids as types), `text`.
//! Must not touch: files other than its embedded assets, git, the network, stdout. Every other
//! crate of the workspace depends on this one; it depends on none of them.
#![warn(missing_docs)]

pub mod assets;
pub mod clock;
pub mod error;
pub mod format;
pub mod hex;
pub mod inject;
pub mod model;
pub mod oid;
pub mod text;
