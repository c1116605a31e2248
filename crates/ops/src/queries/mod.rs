//! Queries: what the read commands and the read surfaces (MCP, HTTP, the cockpit) show.
//!
//! Owns: the read models (`*Report`, `Continuity`, `Explain`, …) and `read`, the one entry the
//! surfaces call.
//! Must not touch: a command; anything that writes beyond a cache.

pub mod continuity;
pub mod decisions;
pub mod explain;
pub mod history;
pub mod lifecycle;
pub mod questions;
pub mod read;
pub mod search;
pub mod sessions;
pub mod state;
pub mod trust;
pub mod worktrees;
