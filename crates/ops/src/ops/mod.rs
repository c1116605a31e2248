//! Use cases: one function per command, returning a report the CLI renders.
//!
//! Owns: orchestration of store, git and model; the read models (`*Report`).
//! Must not touch: clap, `Ui`, terminal detection.

pub mod briefing;
pub mod checkpoint;
pub mod context;
pub mod continuity;
pub mod decision;
pub mod derive;
pub mod explain;
pub mod finish;
pub mod gap;
pub mod handover;
pub mod health;
pub mod history;
pub mod hook;
pub mod identity;
pub mod init;
pub mod install;
pub mod knowledge;
pub mod lifecycle;
pub mod question;
pub mod read;
pub mod resolve;
pub mod rewrite;
pub mod search;
pub mod server;
pub mod session;
pub mod start;
pub mod state;
pub mod task;

/// Every body read from stdin or a note file is capped at 1 MiB (docs/REFERENCE.md#records).
pub const BODY_CAP: usize = 1024 * 1024;
