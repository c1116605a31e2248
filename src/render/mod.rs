//! Human layout of each report. Renderers build strings; they decide nothing and read nothing.
//! Must not touch: git, `ctx`, the store's readers and writers, the terminal (`ui` prints).

pub mod annotations;
pub mod briefing;
pub mod context;
pub mod continuity;
pub mod history;
pub mod hook;
pub mod knowledge;
pub mod pre_push;
pub mod read;
pub mod records;
pub mod search;
pub mod session;
pub mod sync;
