//! git-majordomus: durable, typed continuity records beside the code.
//!
//! See `ARCHITECTURE.md` for the module map. Dependencies point downwards only:
//! `cli` → `ops` → `store` → (`git`, `model`); `render` sees only reports; `ui` owns the terminal.
#![warn(missing_docs)]

pub mod assets;
pub mod cli;
pub mod clock;
pub mod continuity;
pub mod ctx;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod git;
pub mod model;
pub mod ops;
pub mod render;
pub mod store;
pub mod surface;
pub mod ui;
