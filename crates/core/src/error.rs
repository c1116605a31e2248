//! Error kinds and the one error type that crosses the command edge.
//!
//! Owns: the exit-code table of docs/REFERENCE.md#exit-codes, stable error codes and hints, which the lower crates'
//! own error enums (`majordomus_git::Error`, `majordomus_store::Error`) map into, each in its own crate.
//! Must not touch: any I/O other than formatting.

use std::fmt;

/// The documented exit codes (docs/REFERENCE.md#exit-codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Success, including absence answers.
    Ok = 0,
    /// Usage error, or not inside a git repository.
    Usage = 2,
    /// Refused: validation failed, a gate said no.
    Refused = 10,
    /// Drift found (`watch`).
    Drift = 11,
    /// Not found, or a prerequisite is missing.
    NotFound = 12,
    /// The store or a file could not be read or written; internal error.
    Io = 13,
    /// Conflicts with existing state.
    Conflict = 15,
}

impl Exit {
    /// Returns the numeric process exit code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// An error that ends a command: what went wrong, the exit code, and what to do next.
#[derive(Debug)]
pub struct Error {
    /// The exit code this error maps to.
    pub exit: Exit,
    /// One line naming what is wrong (lowercase start, no trailing period).
    pub message: String,
    /// One line telling the user what to do, when there is something to do.
    pub hint: Option<String>,
    /// What caused it, kept from below the edge and printed as `caused by:` lines.
    pub source: Option<Cause>,
}

/// An error below the edge, kept as an [`Error`]'s source.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Builds an error with the given exit code and message.
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        Error { exit, message: message.into(), hint: None, source: None }
    }
    /// Keeps `cause` (and its own sources) as what caused this error.
    pub fn caused_by(mut self, cause: impl Into<Cause>) -> Self {
        self.source = Some(cause.into());
        self
    }
    /// The `caused by:` lines: each error of the source chain, outermost first, except one whose
    /// words the message (or a line before it) already says.
    pub fn causes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut next = self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static));
        while let Some(e) = next {
            let text = e.to_string();
            let text = text.trim();
            if !text.is_empty() && !self.message.contains(text) && !out.iter().any(|l| l.contains(text)) {
                out.push(text.to_string());
            }
            next = e.source();
        }
        out
    }
    /// Adds a hint line.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Exit::Usage, message)
    }
    /// A refusal (exit 10).
    pub fn refused(message: impl Into<String>) -> Self {
        Self::new(Exit::Refused, message)
    }
    /// A missing thing or prerequisite (exit 12).
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Exit::NotFound, message)
    }
    /// A read/write failure (exit 13).
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(Exit::Io, message)
    }
    /// A conflict with existing state (exit 15).
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(Exit::Conflict, message)
    }
    /// An I/O error on a path (exit 13).
    pub fn io_at(path: &std::path::Path, err: impl fmt::Display) -> Self {
        Self::io(format!("{}: {err}", path.display()))
    }
    /// The error for a repository without the layer.
    pub fn no_layer() -> Self {
        Self::not_found("no majordomus layer in this repository").hint("run git majordomus init")
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The error document a command prints on stderr under `--json` when it produced no result
/// (`schemas/error.schema.json`).
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct ErrorDocument {
    /// What went wrong.
    pub error: ErrorJson,
}

/// The body of [`ErrorDocument`].
#[derive(Debug, serde::Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema), schemars(deny_unknown_fields))]
pub struct ErrorJson {
    /// The exit code (docs/REFERENCE.md#exit-codes).
    pub exit: u8,
    /// One line naming what is wrong.
    pub message: String,
    /// What to do, when there is something to do (`null` otherwise).
    pub hint: Option<String>,
    /// The causes below the message, outermost first; absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caused_by: Vec<String>,
}

impl ErrorDocument {
    /// The document of `e`.
    pub fn of(e: &Error) -> ErrorDocument {
        ErrorDocument {
            error: ErrorJson {
                exit: e.exit.code(),
                message: e.message.clone(),
                hint: e.hint.clone(),
                caused_by: e.causes(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_the_source_chain_less_what_the_message_says() {
        #[derive(Debug, thiserror::Error)]
        #[error("fetch failed")]
        struct Outer(#[source] std::io::Error);
        let e = Error::io("continuity sync: the fetch from origin failed on this side")
            .caused_by(Outer(std::io::Error::other("no space left on device")));
        assert_eq!(e.causes(), ["fetch failed", "no space left on device"]);
        assert!(std::error::Error::source(&e).is_some());
        // A cause the message already quotes is not repeated.
        let cause = std::io::Error::other("not found");
        let e = Error::io(format!("git: cannot run git: {cause}")).caused_by(cause);
        assert!(e.causes().is_empty(), "{:?}", e.causes());
        assert!(Error::io("plain").causes().is_empty());
    }
}
