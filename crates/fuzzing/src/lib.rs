//! Entry points for hostile-input testing (not part of the supported API): one function per
//! parser that reads bytes a user, a provider's hook, a remote or a network peer controls, each
//! taking arbitrary bytes and returning nothing. A call must never panic, hang or allocate
//! without bound, whatever the bytes.
//!
//! Used by the cargo-fuzz targets in `fuzz/` (one target per entry of [`TARGETS`], the same name)
//! and by `crates/fuzzing/tests/hostile.rs`, which runs every entry over the seed corpora in `fuzz/corpus/` and a
//! proptest-generated stream. See `docs/SECURITY.md` for what each parser defends.
//!
//! Owns: adapting bytes to each parser's signature. Must not touch: parsing logic of its own
//! (every entry calls the production parser), the filesystem beyond a missing checkout path.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use serde_json::{json, Value};

use majordomus::continuity::admission::{self, Judge};
use majordomus::continuity::record::{self, check_bounds, grammar as text_grammar, id_of_value, store_path, Record};
use majordomus::continuity::{local, mesh, portability, readmodel, signing};
use majordomus::ctx::Env;
use majordomus::model::policy::{Policy, Profile};
use majordomus::model::{knowledge::Knowledge, labels::WorkingTree, session, task::Task};
use majordomus::ops::{hook, queries::lifecycle::GitState};
use majordomus::store::{decisions, format, ledger, questions};

/// One fuzz target: its name (the file name under `fuzz/fuzz_targets/` and the folder under
/// `fuzz/corpus/`) and its entry function.
pub type Target = (&'static str, fn(&[u8]));

/// Every target of this build: `mcp` needs the feature `mcp` (the bounded libFuzzer run of
/// `make test` builds the library without it).
pub const TARGETS: &[Target] = &[
    ("front_matter", front_matter),
    ("policy", policy),
    ("decisions", decisions),
    ("questions", questions),
    ("ledger", ledger_line),
    ("hook_payload", hook_payload),
    ("continuity_record", continuity_record),
    ("grammar", grammar),
    ("portability", portability_scan),
    ("mesh", mesh_declaration),
    ("local_state", local_state),
    ("read_model", read_model),
    ("ed25519", ed25519),
    #[cfg(feature = "mcp")]
    ("mcp", mcp_request),
    ("http", http_request),
];

/// The target named `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// A checkout path that does not exist: the surfaces answer their error path without touching a
/// repository, after every check of the request itself.
fn no_checkout() -> PathBuf {
    PathBuf::from("/nonexistent/majordomus-fuzzing")
}

/// Every record-file reader of `.ai/` (checkpoints, handovers, sessions, the task, knowledge):
/// the front-matter split, the typed read and each kind's parser.
pub fn front_matter(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = format::split(&text);
    if let Some((yaml, _)) = format::split(&text) {
        let _ = format::typed::<serde_yaml::Mapping>(yaml);
    }
    let _ = format::record::parse(&text);
    let _ = session::OpenSession::parse(&text);
    let _ = session::ClosedSession::parse(&text);
    let _ = Task::parse(&text);
    let _ = Knowledge::parse(&text);
}

/// `.ai/repo/policy.yaml` and a profile.
pub fn policy(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = Policy::parse(&text);
    let _ = Profile::parse(&text);
}

/// `.ai/repo/decisions.md`.
pub fn decisions(data: &[u8]) {
    let _ = decisions::parse(&String::from_utf8_lossy(data));
}

/// `.ai/repo/open-questions.md`.
pub fn questions(data: &[u8]) {
    let _ = questions::parse(&String::from_utf8_lossy(data));
}

/// One ledger line, whole and picked, and a ledger's text line by line.
pub fn ledger_line(data: &[u8]) {
    for line in data.split(|&b| b == b'\n') {
        let parsed = ledger::Line::parse(Some(1), line);
        let _ = parsed.event();
        let _ = ledger::Picked::parse(line, &["event", "ts", "session", "task"]);
    }
}

/// A provider hook's stdin payload (docs/REFERENCE.md#hook-events).
pub fn hook_payload(data: &[u8]) {
    for p in majordomus::model::providers::PROVIDERS {
        let _ = hook::parse_payload(p, data);
    }
}

/// The signature check at the Ed25519 level against ed25519-dalek's `verify_strict` under a
/// canonical key ([`signing::assert_libsodium_verdict`]).
pub fn ed25519(data: &[u8]) {
    signing::assert_libsodium_verdict(data);
}

/// A store file as a remote could write it (docs/REFERENCE.md#admission): admitted as found, at a stray path, and
/// with its id and path made to match its content so that mutations reach the shape, bounds,
/// signature and portability checks; where the one-pass admission accepts a file, its verdict
/// is compared with the general path's, and an admitted file reads back through the strict
/// reader every later read uses as the record admitted.
pub fn continuity_record(data: &[u8]) {
    let repository = "0".repeat(40);
    let judge = Judge { repository: &repository, mesh: None, own_key: None, pins: &admission::NO_PINS };
    let _ = admission::admit(&store_path(&"0".repeat(64)), "blob", data, &judge);
    let _ = admission::admit("records/0/x.json", "blob", data, &judge);
    let Ok(Value::Object(mut top)) = serde_json::from_slice::<Value>(data) else { return };
    let Some(record) = top.get("record").cloned() else { return };
    let id = id_of_value(&record);
    let _ = portability::scan_admission(&record);
    if let Ok(r) = serde_json::from_value::<Record>(record) {
        let _ = check_bounds(&r);
    }
    top.insert("id".into(), Value::from(id.clone()));
    // In the stored form (envelope keys in their order, the record's sorted, pretty, one
    // newline), so that mutations reach the checks after the strict reader.
    let mut envelope = serde_json::Map::new();
    for k in ["id", "public_key", "signature"] {
        envelope.insert(k.into(), top.get(k).cloned().unwrap_or_default());
    }
    envelope.insert("record".into(), record::sorted(top.get("record").unwrap_or(&Value::Null)));
    let mut bytes = serde_json::to_vec_pretty(&Value::Object(envelope)).unwrap_or_default();
    bytes.push(b'\n');
    // What admission admits, every later read (plan, resume, export) reads: one strict reader.
    for (path, bytes) in [(store_path(&"0".repeat(64)), data), (store_path(&id), &bytes[..])] {
        if let admission::Intrinsic::Record { record: admitted, .. } = admission::intrinsic(&path, bytes) {
            let read = record::read_record(bytes).map(|(_, r)| r);
            assert_eq!(read.as_ref().ok(), Some(&*admitted), "admitted, then not read: {read:?}");
        }
    }
    // The one-pass admission never accepts with another verdict than the general path.
    admission::assert_one_pass_agrees(&store_path(&"0".repeat(64)), data);
    admission::assert_one_pass_agrees(&store_path(&id), &bytes);
}

/// The text grammar of a record's fields (docs/REFERENCE.md#continuity-record,
/// `continuity::record::grammar`): the bytes up to the first NUL as a title or a question, the
/// rest as a decision's text. Never panics, and what it accepts is data: a title and a text it
/// accepts, written into the decision log as `continuity resume` writes a carried decision,
/// read back as exactly one entry with that title and those lines; a question it accepts,
/// written with the question log's writer, reads back as exactly one unresolved entry with that
/// text; and neither holds a control character.
pub fn grammar(data: &[u8]) {
    use majordomus::assets::{DECISIONS_TEMPLATE, QUESTIONS_TEMPLATE};
    let text = String::from_utf8_lossy(data);
    let (title, body) = text.split_once('\u{0}').unwrap_or((&text, ""));
    let _ = text_grammar::structural_line(body);
    let _ = text_grammar::task_id(title);
    let _ = text_grammar::is_date(title);
    let single = text_grammar::single_line(title).is_ok();
    let multi = text_grammar::multi_line(body).is_ok();
    let decision = text_grammar::decision_text(body).is_ok();
    assert!(!single || !title.chars().any(text_grammar::is_control), "a control character passed: {title:?}");
    let line_ends = body.replace("\r\n", "\n");
    assert!(
        !multi || !line_ends.chars().any(|c| text_grammar::is_control(c) && c != '\n' && c != '\t'),
        "a control character passed: {body:?}"
    );
    assert!(!decision || multi, "a decision text is a body");
    // Whatever a record's title and text hold, the log's own writer makes one entry of them,
    // under the title as the writer folds it (control characters and the Unicode line and
    // paragraph separators to a space, which the grammar leaves to the writer).
    let carried = "continuity 0123456789ab from laptop";
    let entry = decisions::render_carried("2026-01-01", title, body, carried);
    let log = decisions::parse(&format!("{DECISIONS_TEMPLATE}{entry}"));
    assert_eq!(log.len(), 1, "{title:?} / {body:?} read back as {log:?}");
    assert_eq!(log[0].text.last().map(String::as_str), Some(&*format!("Carried: {carried}")), "{title:?} / {body:?}");
    assert_eq!(log[0].title, decisions::carried_title(title), "{title:?}");
    if single && decision && title.trim() == title && !title.contains(['\u{2028}', '\u{2029}']) && !title.is_empty() {
        assert_eq!(log[0].title, title);
    }
    let line = questions::unresolved_line("t-1", title, "2026-01-01");
    let entries = questions::parse(&format!("{QUESTIONS_TEMPLATE}{line}\n"));
    let folded = decisions::one_line(title);
    match entries.as_slice() {
        [questions::Entry::Unresolved { task, question, opened, .. }] => {
            assert_eq!((task.as_str(), question.as_str(), opened.as_str()), ("t-1", &*folded, "2026-01-01"));
        }
        [] | [questions::Entry::Malformed { .. }] if folded.is_empty() => {}
        other => panic!("{title:?} read back as {other:?}"),
    }
}

/// The secret and machine-path scan, at admission and at publish, over the bytes as a body, a
/// listed path and an environment value.
pub fn portability_scan(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let v = json!({ "handover": { "body": text }, "source": { "changed": [text] }, "task": { "scope": [text] } });
    let _ = portability::scan_admission(&v);
    let env = [("DEPLOY_TOKEN".to_owned(), text.chars().take(64).collect::<String>())];
    let _ = portability::scan_publish(&v, &env, "/work/checkout");
    let _ = portability::is_secret_env_name(&text);
}

/// A mesh declaration (`.ai/repo/mesh/*.yaml`, committed, so remote-controlled).
pub fn mesh_declaration(data: &[u8]) {
    let normalise = |k: &str| signing::raw_public_key(k).map(|raw| majordomus::hex::encode(&raw));
    if let Ok(Some(m)) = mesh::parse(".ai/repo/mesh/x.yaml", &String::from_utf8_lossy(data), &normalise) {
        let _ = mesh::trust_of(&"0".repeat(64), None, Some(&m));
    }
}

/// `.ai/local/state/continuity.json`.
pub fn local_state(data: &[u8]) {
    let _ = local::LocalState::parse(&String::from_utf8_lossy(data));
}

/// The read model's on-disk cache (under the git common dir).
pub fn read_model(data: &[u8]) {
    let _ = readmodel::View::parse(data.to_vec(), "rules");
}

/// JSON-RPC requests on the MCP server's stdin: the line pump (1 MiB cap), then each line as an
/// rmcp client message, and every `tools/call` and `resources/read` through the server's own
/// argument checks.
#[cfg(feature = "mcp")]
pub fn mcp_request(data: &[u8]) {
    majordomus::surface::mcp::fuzz_lines(data, no_checkout());
}

/// An HTTP request to `serve`: the first line is `<method> <url>`, a `Host:` line sets the Host
/// header; answered by the server's own Host check, method check, path decoding and routes.
pub fn http_request(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let (method, url) = first.split_once(' ').unwrap_or((first, "/"));
    let host = lines.find_map(|l| l.strip_prefix("Host:"));
    let served = GitState { head: "0".repeat(40), branch: "main".into(), working_tree: WorkingTree::Clean };
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 8765));
    for allow_remote in [false, true] {
        let shared =
            majordomus::surface::http::Shared::new(no_checkout(), Env::default(), served.clone(), addr, allow_remote);
        let _ = shared.answer(method, url, host);
    }
}
