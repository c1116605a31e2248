//! Record files in the working tree: layout, atomic writes, locks, the ledger, the stores.
//!
//! Owns: paths of record files, front-matter files on disk, atomic write (temp + link/rename),
//! append under `File::lock`, scanning.
//! Must not touch: gix, the network, signing, stdout.

pub mod atomic;
pub mod decisions;
pub mod format;
pub mod layout;
pub mod ledger;
pub mod questions;
pub mod records;
pub mod session_context;
pub mod sessions;

pub use layout::Layout;
