//! Where every file of the `.ai/` layer lives (docs/REFERENCE.md#layout).
//! Must not touch: reading or writing the files it names.

use std::path::{Path, PathBuf};

/// The layer's paths for one checkout.
#[derive(Debug, Clone)]
pub struct Layout {
    root: PathBuf,
}

#[allow(missing_docs)]
impl Layout {
    /// The layout of the checkout rooted at `root` (absolute, canonical).
    pub fn new(root: &Path) -> Layout {
        Layout { root: root.to_path_buf() }
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn ai(&self) -> PathBuf {
        self.root.join(".ai")
    }
    pub fn repo(&self) -> PathBuf {
        self.root.join(".ai/repo")
    }
    pub fn policy(&self) -> PathBuf {
        self.repo().join("policy.yaml")
    }
    pub fn profiles(&self) -> PathBuf {
        self.repo().join("profiles")
    }
    pub fn templates(&self) -> PathBuf {
        self.repo().join("templates")
    }
    pub fn prompts(&self) -> PathBuf {
        self.repo().join("prompts")
    }
    pub fn local(&self) -> PathBuf {
        self.root.join(".ai/local")
    }
    pub fn state(&self) -> PathBuf {
        self.local().join("state")
    }
    pub fn current(&self) -> PathBuf {
        self.state().join("current.yaml")
    }
    pub fn archive(&self) -> PathBuf {
        self.state().join("archive")
    }
    pub fn completed(&self) -> PathBuf {
        self.state().join("completed")
    }
    pub fn checkpoints(&self) -> PathBuf {
        self.state().join("checkpoints")
    }
    pub fn handovers(&self) -> PathBuf {
        self.state().join("handovers")
    }
    pub fn decisions(&self) -> PathBuf {
        self.state().join("decisions.md")
    }
    pub fn questions(&self) -> PathBuf {
        self.state().join("open-questions.md")
    }
    pub fn ledger(&self) -> PathBuf {
        self.state().join("ledger.jsonl")
    }
    pub fn locks(&self) -> PathBuf {
        self.state().join("locks")
    }
    pub fn sessions_open(&self) -> PathBuf {
        self.state().join("sessions-open")
    }
    pub fn pointer(&self) -> PathBuf {
        self.state().join("session-current.yaml")
    }
    pub fn sessions(&self) -> PathBuf {
        self.repo().join("sessions")
    }
    pub fn session_contexts(&self) -> PathBuf {
        self.local().join("session-contexts")
    }
    /// The `.gitignore` at the root of the checkout (`init` adds the line that keeps `.ai/local/` out).
    pub fn gitignore(&self) -> PathBuf {
        self.root.join(".gitignore")
    }

    /// Whether the layer exists (it does iff `.ai/repo/policy.yaml` exists).
    pub fn exists(&self) -> bool {
        self.policy().is_file()
    }

    /// A path as printed: repository-relative when inside the checkout.
    pub fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.root).unwrap_or(p).display().to_string()
    }
}

/// Whether a `.gitignore` line is one that keeps `.ai/local/` out of git (the line `init` adds,
/// or one of its spellings).
pub fn ignores_local(line: &str) -> bool {
    matches!(line.trim(), ".ai/local/" | "/.ai/local/" | ".ai/local" | "/.ai/local")
}
