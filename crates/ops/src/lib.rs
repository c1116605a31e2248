//! majordomus-ops: the use cases of git-majordomus, in rooms with one rule each (checked by
//! `tests/architecture.rs`):
//!
//! - [`commands`]: one write each (a command and its own read-backs); use services, never
//!   another command or a query.
//! - [`queries`]: read only; use services and other queries.
//! - [`health`]: the `doctor` rules; use services.
//! - [`services`]: what the rooms above share (record resolution, derived bodies, the task,
//!   identity, the briefing, the continuity store, remotes); use other services only.
//! - [`hook`]: the agent hooks, which run commands and queries as a user would; nothing uses it.
//!
//! Owns: `ctx` (the context a use case runs in) and the rooms above.
//! Must not touch: clap, the terminal, text layout (the root crate renders what they return).
#![warn(missing_docs)]

// The crates below, under the module names the code uses (`crate::store::…`).
use majordomus_continuity as continuity;
use majordomus_core::{assets, clock, error, hex, model, oid, text};
use majordomus_git as git;
use majordomus_store as store;

pub mod commands;
pub mod ctx;
pub mod edge;
pub mod health;
pub mod hook;
pub mod queries;
pub mod services;

/// Every body read from stdin or a note file is capped at 1 MiB (docs/REFERENCE.md#records).
pub const BODY_CAP: usize = 1024 * 1024;
