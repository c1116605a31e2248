//! Typed `--json` documents: the tests read what the binary prints into these structs instead of
//! probing untyped values by string keys. `deny_unknown_fields` where the SPEC fixes the shape, so
//! an added, renamed or missing key fails the test that reads it.

use serde::de::DeserializeOwned;
use serde::Deserialize;

/// Parses one JSON document into `T`, naming the text when it does not fit.
pub fn doc<T: DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text.trim_end()).unwrap_or_else(|e| panic!("not the expected JSON document ({e}):\n{text}"))
}

/// `{"error":{"exit","message","hint"}}` on stderr (ARCHITECTURE.md, Output and errors).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorDoc {
    pub error: ErrorBody,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    pub exit: u8,
    pub message: String,
    pub hint: Option<String>,
}

/// The findings document of `check`, `watch`, `doctor` and `history --validate` (SPEC §8.9).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Findings {
    pub findings: Vec<Finding>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub level: Level,
    pub category: String,
    pub subject: String,
    pub message: String,
    pub reproduce: String,
}

/// A finding's level: any other text fails to parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Ok,
    Info,
    Warn,
    Fail,
    Drift,
    Refuse,
}

impl Findings {
    /// Whether some finding has this level and category.
    pub fn any(&self, level: Level, category: &str) -> bool {
        self.findings.iter().any(|f| f.level == level && f.category == category)
    }
}

/// `search --json` (SPEC §8.10): `{"hits":[{"kind","path","line","text"}],"count":N}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Search {
    pub hits: Vec<Hit>,
    pub count: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hit {
    pub kind: String,
    pub path: String,
    pub line: usize,
    pub text: String,
}

/// `context --json` (SPEC §8.4).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Context {
    pub schema: u32,
    pub generated_at: String,
    #[serde(default)]
    pub provider: Option<ContextProvider>,
    pub git: ContextGit,
    pub task: Option<ContextTask>,
    pub sections: Vec<Section>,
    pub excluded: Vec<Excluded>,
    pub budget: Budget,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextProvider {
    pub name: String,
    pub always_loaded: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextGit {
    pub repository: String,
    pub branch: String,
    pub head: String,
    pub working_tree: String,
    pub task_record: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextTask {
    pub id: String,
    pub task: String,
    pub profile: String,
    pub owner: String,
    pub outcome: String,
    pub started_at: String,
    pub checkpoint_at: String,
    pub scope: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    pub id: String,
    pub lines: usize,
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Excluded {
    pub item: String,
    pub reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub lines: usize,
    pub limit: usize,
    pub dropped: Vec<String>,
}

impl Context {
    /// The section ids, in order.
    pub fn ids(&self) -> Vec<&str> {
        self.sections.iter().map(|s| s.id.as_str()).collect()
    }

    /// The section with this id.
    pub fn section(&self, id: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.id == id)
    }
}

/// `history --rotate --json` (SPEC §8.7): tagged by `result`.
#[derive(Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case", deny_unknown_fields)]
pub enum Rotation {
    Nothing { lines: usize, cap: usize },
    Rotated { archived: usize, kept: usize, archive: String },
}

/// `session status --json`: this process's episode (the episode file's fields flattened in,
/// so only the ones read here are named) and the others.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionStatus {
    pub schema: u32,
    pub open: Option<OpenSession>,
    pub others: Vec<OtherSession>,
}

#[derive(Debug, Deserialize)]
pub struct OpenSession {
    pub session_id: String,
    pub foreign: bool,
    pub label: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherSession {
    pub session_id: String,
    pub key: String,
}

/// A closed session record as `session latest|show|list --json` print it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosedSession {
    pub session_id: String,
    pub created_at: String,
    pub outcome: String,
    pub branch: String,
    pub head: String,
    pub title: String,
    pub path: String,
    pub label: String,
    #[serde(default)]
    pub matched: Option<String>,
}
