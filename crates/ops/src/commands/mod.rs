//! Commands: one write each, with the read-backs of its own records (`checkpoint show`).
//!
//! Owns: the use cases that change the store, the task, the ledger or the continuity ref.
//! Must not touch: another command or a query (what two commands share is a service).

pub mod checkpoint;
pub mod continuity;
pub mod decision;
pub mod finish;
pub mod handover;
pub mod init;
pub mod install;
pub mod knowledge;
pub mod question;
pub mod server;
pub mod session;
pub mod start;
pub mod worktree;
