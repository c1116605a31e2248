//! Typed `--json` documents: the tests read what the binary prints into these structs instead of
//! probing untyped values by string keys. `deny_unknown_fields` where docs/REFERENCE.md fixes the shape, so
//! an added, renamed or missing key fails the test that reads it.

use serde::de::DeserializeOwned;
use serde::Deserialize;

/// Parses one JSON document into `T`, naming the text when it does not fit.
pub fn doc<T: DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text.trim_end()).unwrap_or_else(|e| panic!("not the expected JSON document ({e}):\n{text}"))
}

/// The error document a command prints on stderr under `--json` (`{"error":{exit, message,
/// hint, caused_by?}}`), valid under `schemas/error.schema.json`: its `error`.
pub fn error(text: &str) -> serde_json::Value {
    read("error.schema.json", text)["error"].clone()
}

/// A findings document (`check`, `watch`, `doctor`, `history --validate`, `knowledge check`),
/// valid under `schemas/findings.schema.json` — the schema the project generates from the type
/// that prints it: its `findings`, each read by key (`f["level"] == "FAIL"`).
pub fn findings(text: &str) -> Vec<serde_json::Value> {
    let v = read("findings.schema.json", text);
    v["findings"].as_array().cloned().unwrap_or_else(|| panic!("no findings array:\n{text}"))
}

/// Asserts that `v` is valid under the project's schema `file` (`schemas/`), with the test venv's
/// `jsonschema` (skipped without it, as the surface tests are; CI has it).
pub fn valid(file: &str, v: &serde_json::Value) {
    if !super::have(super::Tool::SurfacesVenv) {
        return;
    }
    let (ok, said) = super::validate(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas").join(file), v);
    assert!(ok, "not valid under schemas/{file}: {said}\n{v}");
}

/// A `--json` document valid under the project's generated schema `file` (`schemas/`), parsed:
/// read it by key (`v["record"]["id"] == id`, [`at`], [`text`], [`each`]) or snapshot it whole.
#[track_caller]
pub fn read(file: &str, text: &str) -> serde_json::Value {
    let v: serde_json::Value = doc(text);
    valid(file, &v);
    v
}

/// The value at the JSON pointer `at` (`"/record/id"`), failing the test naming the pointer when
/// it is absent (a `null` member is present).
#[track_caller]
pub fn at<'a>(v: &'a serde_json::Value, pointer: &str) -> &'a serde_json::Value {
    v.pointer(pointer).unwrap_or_else(|| panic!("no {pointer} in\n{v:#}"))
}

/// The string at the JSON pointer `pointer`, failing the test when it is absent or not a string.
#[track_caller]
pub fn text<'a>(v: &'a serde_json::Value, pointer: &str) -> &'a str {
    at(v, pointer).as_str().unwrap_or_else(|| panic!("{pointer} is not a string in\n{v:#}"))
}

/// The string member `key` of each element of the array at `pointer`, in order
/// (`each(&sync, "/diagnostics", "code")`, `each(&records, "/records", "id")`).
#[track_caller]
pub fn each(v: &serde_json::Value, pointer: &str, key: &str) -> Vec<String> {
    let items = at(v, pointer).as_array().unwrap_or_else(|| panic!("{pointer} is not an array in\n{v:#}"));
    items
        .iter()
        .map(|i| i[key].as_str().unwrap_or_else(|| panic!("{pointer}[]/{key} is not a string")).to_string())
        .collect()
}

/// `search --json` (docs/REFERENCE.md#search): `{"hits":[{kind, path, line, text}],"count":N}`,
/// valid under `schemas/search.schema.json`.
pub fn search(text: &str) -> serde_json::Value {
    read("search.schema.json", text)
}

/// `context --json` (docs/REFERENCE.md#context).
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

/// `history --rotate --json` (docs/REFERENCE.md#history): tagged by `result`.
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

/// `session context --json` (docs/REFERENCE.md#working-context): the episode's working context and its label.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionContext {
    pub path: String,
    pub label: String,
    pub commits_since: usize,
    pub recorded_head: String,
}

/// `knowledge derive --json`: `lines` are `[verdict, path]` pairs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeDerive {
    pub episode: Option<String>,
    pub lines: Vec<(String, String)>,
    pub written: usize,
    pub unchanged: usize,
    pub skipped: usize,
}

/// `knowledge candidates --json`: the candidate files' front matter (only the keys read here).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeCandidates {
    pub candidates: Vec<KnowledgeCandidate>,
}

#[derive(Debug, Deserialize)]
pub struct KnowledgeCandidate {
    pub id: String,
    pub class: String,
    pub status: String,
    pub epistemics: String,
    pub date: String,
    pub derived_from: Vec<String>,
}
