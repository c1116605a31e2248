//! The continuity commands: publish, sync, resume, and the device and its verification.
//!
//! Owns: the writes of `refs/majordomus/continuity` and `continuity.json`.
//! Must not touch: another command or a query.

pub mod device;
pub mod publish;
pub mod resume;
pub mod sync;
