//! `--json` documents as the tests read them: each valid under the schema the project generates
//! from the type that prints it (`schemas/`, none allowing a key beyond its type's, every member
//! that is always printed required), then read by key or snapshotted whole. There is no
//! hand-written mirror of the report types: a renamed, added or missing key fails validation.

use serde::de::DeserializeOwned;

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
