//! Cross-machine continuity (docs/REFERENCE.md#continuity-record): signed, content-addressed handover records
//! in `refs/majordomus/continuity`.
//!
//! Owns: the record format and canonical form (`record`), signing and device keys (`signing`,
//! the only user of ed25519), the text grammar of its fields (`record::grammar`), the portability scan (`portability`), lineage and the pure plan
//! (`lineage`, `plan`), admission (`admission`), the read model and its on-disk form (`readmodel`).
//! Must not touch: stdout, clap, gix (object and ref access goes through `crate::git`).

#![warn(missing_docs)]

// The crates below, under the module names the code uses (`crate::git::…`).
use majordomus_core::{clock, error, hex, model, oid, text};
use majordomus_git as git;
use majordomus_store as store;

pub mod admission;
pub mod lineage;
pub mod local;
pub mod mesh;
pub mod plan;
pub mod portability;
pub mod readmodel;
pub mod record;
pub mod signing;
pub mod snapshot;
pub mod view;
