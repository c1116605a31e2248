//! git-majordomus: durable, typed continuity records beside the code.
//! Must not touch: logic of any kind: it lists modules and re-exports the crates below.
//!
//! This crate is the edge: the command line (`cli`), the texts (`render`), the read surfaces
//! (`surface`) and the terminal (`ui`). Everything under it lives in the workspace's crates,
//! which Cargo keeps in one direction (see `ARCHITECTURE.md`):
//! `majordomus-core` ← `majordomus-git`, `majordomus-store` ← `majordomus-continuity` ←
//! `majordomus-ops` ← this crate. They are re-exported here under the module names the code and
//! the tests use (`majordomus::model`, `majordomus::ops`, …).
#![warn(missing_docs)]

pub use majordomus_continuity as continuity;
pub use majordomus_core::{assets, clock, error, hex, model, text};
pub use majordomus_git as git;
pub use majordomus_ops::{self as ops, ctx};
pub use majordomus_store as store;

pub mod cli;
pub mod render;
pub mod surface;
pub mod ui;
