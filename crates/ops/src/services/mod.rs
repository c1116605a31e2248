//! Services: what commands, queries, health and hooks share.
//!
//! Owns: record resolution and labels, derived bodies, the task, identity, the briefing and the
//! context document, the two logs, record metadata, knowledge candidates, remotes, the
//! continuity store.
//! Must not touch: a command, a query, a health rule or the hooks.

pub mod briefing;
pub mod citations;
pub mod context;
pub mod continuity;
pub mod derive;
pub mod gap;
pub mod identity;
pub mod kept;
pub mod knowledge;
pub mod labelled;
pub mod logs;
pub mod records;
pub mod remotes;
pub mod resolve;
pub mod rewrite;
pub mod task;
