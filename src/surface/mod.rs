//! The read surfaces beside the command line (docs/REFERENCE.md#surfaces): MCP over stdio and HTTP on loopback,
//! with the cockpit page. Both serve the values `queries::read` computes — the same JSON the CLI
//! prints under `--json` — and never write.
//!
//! Owns: protocol framing, request → model, value → response. Must not touch: the store, git
//! and continuity (only through `ops`), stdout outside a protocol.

pub mod cockpit;
pub mod http;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod openapi;
pub mod schemas;
