//! majordomus-ops: the use cases of git-majordomus — one function per command returning a report,
//! the queries the read surfaces share, the health rules, and the services they use (record
//! resolution, derived bodies, the task, identity, the briefing, the continuity store).
//!
//! Owns: `ctx` (the context a use case runs in) and `ops` (the use cases).
//! Must not touch: clap, the terminal, text layout (the root crate renders what `ops` returns).
#![warn(missing_docs)]

// The crates below, under the module names the code uses (`crate::store::…`).
use majordomus_continuity as continuity;
use majordomus_core::{assets, clock, error, hex, model};
use majordomus_git as git;
use majordomus_store as store;

pub mod ctx;
pub mod ops;
