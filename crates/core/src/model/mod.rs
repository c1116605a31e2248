//! Record types, labels and validation: pure data, no I/O.
//!
//! Owns: the shapes of policy, profiles, tasks, records, findings and ledger events; labels.
//! Must not touch: files, git, the clock, clap.

pub mod citations;
pub mod events;
pub mod finding;
pub mod knowledge;
pub mod labels;
pub mod markdown;
pub mod policy;
pub mod providers;
pub mod record;
pub mod session;
pub mod task;
pub mod vocabulary;
