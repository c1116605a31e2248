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

/// A device: `{node, label}` (docs/REFERENCE.md#device-key).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    pub node: String,
    pub label: String,
}

/// `continuity device --json`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceDoc {
    pub device: Device,
    pub public_key: String,
    #[serde(default)]
    pub created: Option<String>,
}

impl DeviceDoc {
    /// The device.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

/// A continuity record as the read documents show it (docs/REFERENCE.md#sync).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordView {
    pub id: String,
    pub line: String,
    pub parent: Option<String>,
    pub device: Device,
    /// The signer's minisign key id (16 uppercase hex).
    pub key_id: String,
    pub this_device: bool,
    pub trust: String,
    /// `untrusted|revoked` when the record is named, not quoted (issue 39).
    pub withheld: Option<String>,
    pub session: Option<String>,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub working_tree: String,
    pub changed_total: u64,
    pub published_at: String,
    pub age_minutes: Option<i64>,
    pub task: Option<String>,
    pub issue: Option<String>,
    /// Absent when `withheld`.
    #[serde(default)]
    pub objective: String,
    pub landed: Option<Landed>,
    #[serde(default)]
    pub ends: Vec<String>,
    #[serde(default)]
    pub ends_only: bool,
    #[serde(default)]
    pub team_label: Option<String>,
}

/// The evidence of a rewrite or a landing (docs/REFERENCE.md#rewrites).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proof {
    pub kind: String,
    pub value: String,
}

/// A proven rewrite `{from, to, by, proof}`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rewrite {
    pub from: String,
    pub to: String,
    pub by: String,
    pub proof: Proof,
}

/// Where a record of another branch landed `{branch, commit, by, proof}`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Landed {
    pub branch: String,
    pub commit: String,
    pub by: String,
    pub proof: Proof,
}

/// A continuity diagnostic: `{severity, code, path?, message}`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Diagnostic {
    pub severity: String,
    pub code: String,
    pub path: Option<String>,
    pub message: String,
}

/// The codes of `diagnostics`, in order.
pub fn codes(d: &[Diagnostic]) -> Vec<&str> {
    d.iter().map(|d| d.code.as_str()).collect()
}

/// `continuity publish --json`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Publish {
    pub record: Option<RecordView>,
    pub written: bool,
    pub tip: Option<String>,
    pub handover: String,
    #[serde(default)]
    pub refused: Vec<Leak>,
    #[serde(default)]
    pub receipt: Vec<ReceiptField>,
    pub dry_run: bool,
    pub next: Vec<String>,
}

impl Publish {
    /// The record's id (a publication that stored or found one).
    pub fn id(&self) -> String {
        self.record.as_ref().expect("a published record").id.clone()
    }
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Leak {
    pub code: String,
    pub pointer: String,
    pub reason: String,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiptField {
    pub pointer: String,
    pub size: usize,
    pub value: String,
}

/// The store as `status` and `sync` show it.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreView {
    pub reference: String,
    pub tip: Option<String>,
    pub remote: Option<String>,
    pub remote_tip: Option<String>,
    pub sync: String,
    pub records: usize,
    pub refused: usize,
}

/// One line of the store compared with the remote's.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineComparison {
    pub line: String,
    pub relation: String,
    pub heads: Vec<String>,
}

/// `continuity sync --json` (docs/REFERENCE.md#sync).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sync {
    pub remote: Option<String>,
    pub action: String,
    pub fetched: usize,
    pub published: usize,
    pub outcome: String,
    pub push_attempts: usize,
    pub lines: Vec<LineComparison>,
    pub store: StoreView,
    pub resumable: Vec<RecordView>,
    pub resumable_total: usize,
    pub diagnostics: Vec<Diagnostic>,
    pub elsewhere: Option<serde_json::Value>,
}

/// This checkout's position on a line.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub line: String,
    pub record: String,
    pub via: String,
    pub at: String,
    #[serde(default)]
    pub ends: Vec<String>,
}

/// The last sync, as `continuity.json` keeps it.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LastSync {
    pub remote: String,
    pub at: String,
    pub outcome: String,
    pub detail: Option<String>,
}

/// A line with its head records, as `status` shows it.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineView {
    pub line: String,
    pub state: String,
    pub records: usize,
    pub heads: Vec<RecordView>,
}

/// `continuity status --json` (docs/REFERENCE.md#sync).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Status {
    pub repository: String,
    pub device: Option<Device>,
    pub device_trust: Option<String>,
    pub branch: String,
    pub head: Option<String>,
    pub working_tree: String,
    pub position: Option<Position>,
    pub store: StoreView,
    pub standing: Option<serde_json::Value>,
    pub last_sync: Option<LastSync>,
    pub other_syncs: Vec<LastSync>,
    pub lines: Vec<LineView>,
    pub lines_total: usize,
    pub resumable: Vec<RecordView>,
    pub resumable_total: usize,
    pub diagnostics: Vec<Diagnostic>,
    pub next: Vec<String>,
}

/// A line with its head ids, as `records` shows it.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSummary {
    pub line: String,
    pub state: String,
    pub records: usize,
    pub heads: Vec<String>,
}

/// `continuity records --json`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Records {
    pub records: Vec<RecordView>,
    pub records_total: usize,
    pub lines: Vec<LineSummary>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Records {
    /// The record ids, in order.
    pub fn ids(&self) -> Vec<String> {
        self.records.iter().map(|r| r.id.clone()).collect()
    }
}

/// A plan's blocker or warning.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Notice {
    pub code: String,
    pub message: String,
}

/// How the record's source stands to this checkout.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceView {
    pub expected_branch: Option<String>,
    pub expected_head: Option<String>,
    pub local_branch: Option<String>,
    pub local_head: Option<String>,
    pub relation: String,
    pub rewrite: Option<Rewrite>,
    pub origin_dirty: bool,
    pub origin_changed: Vec<String>,
    pub origin_changed_total: u64,
    pub local_dirty: bool,
    pub same_uncommitted_work: Option<bool>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanTask {
    pub id: String,
    pub title: String,
    pub profile: Option<String>,
    pub scope: Vec<String>,
}

/// `continuity plan --json` (docs/REFERENCE.md#plans).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub status: String,
    pub record: Option<RecordView>,
    pub candidates: Vec<RecordView>,
    pub source: Option<SourceView>,
    pub lineage: Option<String>,
    pub task: Option<PlanTask>,
    pub milestone: Option<String>,
    pub decisions: Vec<String>,
    /// `untrusted|revoked` when the chosen record is named, not quoted (issue 39); then the
    /// three sections are absent.
    pub withheld: Option<String>,
    #[serde(default)]
    pub objective: String,
    #[serde(default)]
    pub current_state: String,
    #[serde(default)]
    pub next_action: String,
    pub blockers: Vec<Notice>,
    pub warnings: Vec<Notice>,
    pub actions: Vec<String>,
    pub restores: Vec<String>,
    pub recomputes: Vec<String>,
}

impl Plan {
    /// The blockers' codes, in order.
    pub fn blocker_codes(&self) -> Vec<&str> {
        self.blockers.iter().map(|n| n.code.as_str()).collect()
    }

    /// The warnings' codes, in order.
    pub fn warning_codes(&self) -> Vec<&str> {
        self.warnings.iter().map(|n| n.code.as_str()).collect()
    }

    /// The chosen record's id.
    pub fn record_id(&self) -> Option<&str> {
        self.record.as_ref().map(|r| r.id.as_str())
    }
}

/// `continuity resume --json` (docs/REFERENCE.md#plans).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resume {
    pub resumed: bool,
    pub plan: Plan,
    pub handover: Option<String>,
    pub decisions_carried: usize,
    pub questions_carried: usize,
    pub position: Option<Position>,
}

/// `continuity verify --json`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verify {
    pub verified: usize,
    pub admitted: usize,
    pub refused: usize,
    pub untrusted: usize,
    pub retired: usize,
    pub too_new: usize,
    pub problems: Vec<Diagnostic>,
}

/// Accessors for the optional fields (and the fields whose name another document uses for an
/// optional one), so a test reads `plan.record().id` and fails naming the field when it is absent.
fn present<T>(v: Option<T>, ty: &str, field: &str) -> T {
    v.unwrap_or_else(|| panic!("{ty} has no {field}"))
}

impl RecordView {
    #[track_caller]
    pub fn parent(&self) -> &str {
        present(self.parent.as_deref(), "RecordView", "parent")
    }

    #[track_caller]
    pub fn session(&self) -> &str {
        present(self.session.as_deref(), "RecordView", "session")
    }

    #[track_caller]
    pub fn branch(&self) -> &str {
        present(self.branch.as_deref(), "RecordView", "branch")
    }

    #[track_caller]
    pub fn head(&self) -> &str {
        present(self.head.as_deref(), "RecordView", "head")
    }

    #[track_caller]
    pub fn task(&self) -> &str {
        present(self.task.as_deref(), "RecordView", "task")
    }

    #[track_caller]
    pub fn issue(&self) -> &str {
        present(self.issue.as_deref(), "RecordView", "issue")
    }

    #[track_caller]
    pub fn device(&self) -> &Device {
        present(Some(&self.device), "RecordView", "device")
    }
}

impl Publish {
    #[track_caller]
    pub fn record(&self) -> &RecordView {
        present(self.record.as_ref(), "Publish", "record")
    }

    #[track_caller]
    pub fn handover(&self) -> &str {
        present(Some(self.handover.as_str()), "Publish", "handover")
    }
}

impl Status {
    #[track_caller]
    pub fn device(&self) -> &Device {
        present(self.device.as_ref(), "Status", "device")
    }

    #[track_caller]
    pub fn position(&self) -> &Position {
        present(self.position.as_ref(), "Status", "position")
    }

    #[track_caller]
    pub fn last_sync(&self) -> &LastSync {
        present(self.last_sync.as_ref(), "Status", "last_sync")
    }
}

impl LastSync {
    #[track_caller]
    pub fn remote(&self) -> &str {
        present(Some(self.remote.as_str()), "LastSync", "remote")
    }

    #[track_caller]
    pub fn detail(&self) -> &str {
        present(self.detail.as_deref(), "LastSync", "detail")
    }
}

impl Position {
    #[track_caller]
    pub fn record(&self) -> &str {
        present(Some(self.record.as_str()), "Position", "record")
    }
}

impl Plan {
    #[track_caller]
    pub fn record(&self) -> &RecordView {
        present(self.record.as_ref(), "Plan", "record")
    }

    #[track_caller]
    pub fn source(&self) -> &SourceView {
        present(self.source.as_ref(), "Plan", "source")
    }

    #[track_caller]
    pub fn lineage(&self) -> &str {
        present(self.lineage.as_deref(), "Plan", "lineage")
    }

    #[track_caller]
    pub fn task(&self) -> &PlanTask {
        present(self.task.as_ref(), "Plan", "task")
    }

    #[track_caller]
    pub fn milestone(&self) -> &str {
        present(self.milestone.as_deref(), "Plan", "milestone")
    }
}

impl SourceView {
    #[track_caller]
    pub fn same_uncommitted_work(&self) -> bool {
        present(self.same_uncommitted_work, "SourceView", "same_uncommitted_work")
    }
}

impl Resume {
    #[track_caller]
    pub fn handover(&self) -> &str {
        present(self.handover.as_deref(), "Resume", "handover")
    }

    #[track_caller]
    pub fn position(&self) -> &Position {
        present(self.position.as_ref(), "Resume", "position")
    }
}

/// The codes of a plan's blockers or warnings, in order.
pub fn notice_codes(n: &[Notice]) -> Vec<String> {
    n.iter().map(|n| n.code.clone()).collect()
}

/// The codes of diagnostics, in order, owned.
pub fn diag_codes(d: &[Diagnostic]) -> Vec<String> {
    d.iter().map(|d| d.code.clone()).collect()
}

/// The ids of records, in order.
pub fn record_ids(r: &[RecordView]) -> Vec<String> {
    r.iter().map(|r| r.id.clone()).collect()
}

/// `state --json` (the seed's `continuity-state.schema.json`, which the surface tests also
/// validate against): only the members the tests read are named.
#[derive(Debug, Deserialize)]
pub struct State {
    pub present: bool,
    pub session: Option<StateSession>,
    pub task: Option<StateTask>,
    pub handover: Option<StateRecord>,
    pub checkpoint: Option<StateRecord>,
    pub blockers: Vec<String>,
    pub tallies: std::collections::BTreeMap<String, u64>,
    pub findings: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct StateSession {
    pub foreign: bool,
}

#[derive(Debug, Deserialize)]
pub struct StateTask {
    pub task: String,
}

#[derive(Debug, Deserialize)]
pub struct StateRecord {
    pub path: String,
    pub branch: String,
    pub matched: String,
    pub divergence: String,
    pub freshness: String,
    pub age_minutes: Option<i64>,
    pub next_action: Option<String>,
    pub next_action_withheld: Option<String>,
    pub origin: String,
    /// Where a resumed handover came from (issue 39).
    pub arrived: Option<Arrived>,
    /// Its citations, labelled (issue 43).
    #[serde(default)]
    pub citations: Vec<serde_json::Value>,
}

/// `arrived` of a resumed handover in `state --json` and `handover --resolve --json`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arrived {
    pub record: String,
    pub device: Option<String>,
    pub node: String,
    pub key_id: String,
}

impl State {
    /// The handover (present in the fixture).
    #[track_caller]
    pub fn handover(&self) -> &StateRecord {
        present(self.handover.as_ref(), "State", "handover")
    }
}

/// `explain --json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explain {
    pub worktree: String,
    pub answers: Vec<Answer>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub question: String,
    pub answer: String,
    pub reason: String,
    pub citations: Vec<Citation>,
    #[serde(default)]
    pub candidates: Vec<ExplainCandidate>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Citation {
    pub kind: String,
    pub path: String,
    pub line: Option<u64>,
    pub key: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainCandidate {
    pub file: String,
    pub verdict: String,
    pub reason: String,
}

impl Explain {
    /// The answer to `question`.
    #[track_caller]
    pub fn answer(&self, question: &str) -> &Answer {
        self.answers.iter().find(|a| a.question == question).unwrap_or_else(|| panic!("no answer {question}"))
    }
}

/// `lifecycle episodes --json`.
#[derive(Debug, Deserialize)]
pub struct Episodes {
    pub episodes: Vec<Episode>,
}

#[derive(Debug, Deserialize)]
pub struct Episode {
    pub session_id: String,
    pub key: String,
    pub standing: String,
    pub events: u64,
    pub last_event: Option<String>,
}

/// `lifecycle recovery --json`.
#[derive(Debug, Deserialize)]
pub struct Recovery {
    pub pointer: Pointer,
    pub stranded: Vec<Stranded>,
    pub balance: Balance,
}

#[derive(Debug, Deserialize)]
pub struct Pointer {
    pub layout: String,
    pub resolves: bool,
}

#[derive(Debug, Deserialize)]
pub struct Stranded {
    pub worktree: String,
    pub remedy: String,
}

#[derive(Debug, Deserialize)]
pub struct Balance {
    pub started: u64,
    pub open: u64,
    pub unaccounted: i64,
    pub agrees: bool,
}

/// `lifecycle closed --json`.
#[derive(Debug, Deserialize)]
pub struct Closed {
    pub total: u64,
    pub on_this_branch: u64,
    pub newest: Vec<ClosedNewest>,
}

#[derive(Debug, Deserialize)]
pub struct ClosedNewest {
    pub outcome: String,
}

/// `lifecycle runtime --json`.
#[derive(Debug, Deserialize)]
pub struct Runtime {
    pub repository: RuntimeGit,
    pub agree: bool,
}

#[derive(Debug, Deserialize)]
pub struct RuntimeGit {
    pub head: String,
}

/// `lifecycle providers --json`.
#[derive(Debug, Deserialize)]
pub struct Providers {
    pub providers: Vec<ProviderView>,
    pub git_hooks: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct ProviderView {
    pub name: String,
    pub events: Vec<String>,
    pub wired: Vec<String>,
}
