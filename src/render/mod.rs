//! Human layout of each report. Renderers build strings; they decide nothing and read nothing.

pub mod annotations;
pub mod context;
pub mod continuity;
pub mod history;
pub mod knowledge;
pub mod pre_push;
pub mod read;
pub mod records;
pub mod search;
pub mod session;
