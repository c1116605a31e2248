//! The `context` document as text: the report's blocks, one blank line between them.

use crate::ops::context::ContextReport;

/// The whole document; its line count is the report's `budget.lines`.
pub fn text(r: &ContextReport) -> String {
    let mut s = r.blocks().join("\n\n");
    s.push('\n');
    s
}
