//! The continuity commands: publish, sync, resume, the device and its verification, and the
//! team's trust list.
//!
//! Owns: the writes of `refs/majordomus/continuity`, `continuity.json` and the mesh declaration.
//! Must not touch: another command or a query.

pub mod device;
pub mod publish;
pub mod resume;
pub mod snapshot;
pub mod sync;
pub mod trust;
