//! The read surfaces (docs/REFERENCE.md#surfaces, docs/REFERENCE.md#mcp, docs/REFERENCE.md#http, docs/REFERENCE.md#front-matter item 52): `state`, `explain`, `lifecycle <x>`
//! on the CLI; `serve` (HTTP, the cockpit, OpenAPI) and `mcp` — each tested against a real peer:
//! the Python `jsonschema` validator, the official MCP Python SDK, schemathesis and headless
//! Chromium, all from the virtual environment `contrib/test-deps.sh` creates under `target/`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::common::json;
use crate::common::machine::{pick, printed, strings};
use crate::common::serve::serve;
use crate::common::{Output, Repo, TestEnv, HANDOVER, NOW};

const LATER: &str = "2026-09-08T20:00:00Z"; // five days after NOW: past stale_minutes (96 h)

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_git-majordomus")
}

fn python() -> PathBuf {
    crate::common::venv_python()
}

/// What `git-majordomus <args>` (`--json` among them) printed in `r`, exit 0, valid under the
/// command's schema.
#[track_caller]
fn read(r: &Repo<'_>, args: &[&str]) -> Value {
    printed(args, &r.mj(args).ok().stdout)
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", out.stdout, out.stderr))
}

/// The answer to `question` in an `explain --json` document.
#[track_caller]
fn answer<'a>(v: &'a Value, question: &str) -> &'a Value {
    let answers = v["answers"].as_array().unwrap_or_else(|| panic!("no answers: {v:#}"));
    answers.iter().find(|a| a["question"] == question).unwrap_or_else(|| panic!("no answer {question}: {v:#}"))
}

/// Validates `doc` against `schemas/<schema>`.
fn validate(schema: &str, doc: &Value) -> (bool, String) {
    crate::common::validate(&manifest().join("schemas").join(schema), doc)
}

/// A checkout holding one of everything: a task, an open episode, a question, two decisions
/// (the second supersedes the first), a checkpoint, a
/// handover (stale once the clock is moved to LATER), one from another branch, and a continuity
/// line that diverged (two records continue the same parent).
fn fixture(env: &TestEnv) -> Repo<'_> {
    let r = env.ready_repo("w");
    r.start("Fix the callback");
    r.mj(&["session", "start"]).ok();
    r.mj(&["question", "add", "Which retry policy?"]).ok();
    r.mj(&["decision", "add", "Retry with backoff", "--why", "The race is transient."]).ok();
    r.mj(&[
        "decision",
        "add",
        "Retry three times",
        "--why",
        "Backoff hid the race.",
        "--supersedes",
        "Retry with backoff",
    ])
    .ok();
    r.mj_in(&["checkpoint"], "Reproduced the race.\n").ok();
    // A handover on another branch: never offered here.
    r.git(&["checkout", "-q", "-b", "side"]);
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.git(&["checkout", "-q", "main"]);
    // A continuity line with two heads: R1, R2 continuing it, then R3 continuing R1 again.
    let publish = |body: &str| {
        r.mj_in(&["handover", "--no-task"], body).ok();
        json::text(&read(&r, &["--json", "continuity", "publish"]), "/record/id").to_string()
    };
    let body =
        |na: &str| format!("# Objective\nShip the release.\n\n# Current State\nTagged.\n\n# Next Action\n{na}\n");
    publish(&body("Write the changelog."));
    let saved = std::fs::read(r.state("continuity.json")).unwrap();
    publish(&body("Announce the release."));
    std::fs::write(r.state("continuity.json"), saved).unwrap();
    publish(&body("Bump the version for the next cycle."));
    r.mj_in(&["handover"], HANDOVER).ok();
    r
}

// ---------------------------------------------------------------------------------------------
// CLI: state, explain, lifecycle

#[test]
fn state_json_validates_against_the_verbatim_seed_schema() {
    if !crate::common::have(crate::common::Tool::SurfacesVenv) {
        return;
    }
    let env = TestEnv::new();
    let r = fixture(&env);
    for now in [NOW, LATER] {
        env.set_now(now);
        let v = json(&r.mj(&["--json", "state"]).ok());
        let (ok, why) = validate("continuity-state.schema.json", &v);
        assert!(ok, "state --json at {now} does not validate:\n{why}\n{v:#}");
    }
    // An invalid value is refused by the same validator: the check is not vacuous.
    let mut bad = json(&r.mj(&["--json", "state"]).ok());
    bad["handover"]["divergence"] = Value::from("sideways");
    assert!(!validate("continuity-state.schema.json", &bad).0);
    // A fresh checkout: present false, every nullable member null, and still valid.
    let fresh = env.ready_repo("fresh");
    let v = json(&fresh.mj(&["--json", "state"]).ok());
    assert!(validate("continuity-state.schema.json", &v).0);
    assert_eq!(v["present"], false, "{v:#}");
    for member in ["session", "task", "handover", "checkpoint"] {
        assert!(v[member].is_null(), "{member}: {v:#}");
    }
}

#[test]
fn r52_state_reports_divergence_and_freshness_apart_and_withholds_a_stale_next_action() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = fixture(&env);
    let v = read(&r, &["--json", "state"]);
    let h = json::at(&v, "/handover");
    assert_eq!(h["freshness"], "fresh", "{v:#}");
    assert_eq!(h["divergence"], "exact");
    assert_eq!(h["next_action"], "Write the regression test.");
    assert!(h["next_action_withheld"].is_null());
    assert_eq!(h["branch"], "main", "a record from another branch is never listed");
    assert_eq!(v["task"]["task"], "Fix the callback");
    assert_eq!(v["session"]["foreign"], false);
    assert_eq!(v["blockers"].as_array().map(Vec::len), Some(1));
    assert!(json::text(&v, "/blockers/0").contains("Which retry policy?"));
    assert_eq!(v["tallies"]["handovers"], 5);
    assert_eq!(v["checkpoint"]["matched"], "same_worktree_same_branch");

    r.commit_file("lib/a.rs", "fn a() {}\n");
    env.set_now(LATER);
    let v = read(&r, &["--json", "state"]);
    let h = json::at(&v, "/handover");
    assert_eq!(h["divergence"], "advanced", "{v:#}");
    assert_eq!(h["freshness"], "stale");
    assert!(h["next_action"].is_null(), "a stale record's Next Action is withheld: {v:#}");
    assert!(json::text(h, "/next_action_withheld").starts_with("stale: "));
    assert!(h["age_minutes"].as_i64().is_some_and(|m| m >= 3 * 24 * 60), "{h:#}");
    let findings = strings(&v["findings"]);
    assert!(findings.iter().any(|f| f.contains("stale")), "{findings:?}");
    assert!(findings.iter().any(|f| f.contains("unresolved question")), "{findings:?}");
    // Without --json a short text of the same value (docs/REFERENCE.md#origin): the labels apart, the Next
    // Action withheld, the findings, and where the whole value is.
    let text = r.mj(&["state"]).ok().stdout;
    for f in &findings {
        assert!(text.lines().any(|l| l == format!("- {f}")), "{f} in {text}");
    }
    insta::assert_snapshot!(text, @r#"
    Checkout [TMP]/w on main at [HEX], working tree clean
    Episode: s-[ID] (since 2026-09-03T20:00:00Z)
    Task: t-[ID] "Fix the callback" (active, implementation)
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md — advanced, stale (5d old, past session.freshness.stale_minutes (5760 min)), authored
      Next Action withheld: stale: 5d old, past session.freshness.stale_minutes (5760 min)
    Checkpoint: .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md — advanced, stale (5d old, past session.freshness.stale_minutes (5760 min)), authored
    Blockers: 1 open question(s)
    - The resolved handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md is stale (5d old, past session.freshness.stale_minutes (5760 min)); it is history and its next action is withheld.
    - The resolved checkpoint .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md is stale (5d old, past session.freshness.stale_minutes (5760 min)); it is history and its next action is withheld.
    - 1 unresolved question(s) refuse finish --outcome completed until each is resolved.
    (git majordomus state --json: the whole value, as MCP and HTTP return it)
    "#);
    assert!(serde_json::from_str::<Value>(&text).is_err());
    // explain and lifecycle: one answer a line, an outline.
    let text = r.mj(&["explain"]).ok().stdout;
    assert!(text.lines().any(|l| l.starts_with("handover.selected: ")), "{text}");
    let text = r.mj(&["lifecycle", "providers"]).ok().stdout;
    assert!(text.lines().any(|l| l == "  - name: claude-code"), "{text}");
}

#[test]
fn explain_answers_every_question_with_a_reason_and_a_citation() {
    let env = TestEnv::new();
    let r = fixture(&env);
    r.mj(&["session", "close"]).ok();
    env.set_now(LATER);
    let v = read(&r, &["--json", "explain"]);
    let qs = json::each(&v, "/answers", "question");
    assert_eq!(
        qs,
        [
            "episode.current",
            "episode.close",
            "episode.task",
            "episode.recovery",
            "handover.selected",
            "checkpoint.selected",
            "handover.freshness",
            "checkpoint.freshness"
        ]
    );
    for a in v["answers"].as_array().unwrap() {
        assert!(!json::text(a, "/reason").is_empty(), "{a:#}");
        assert!(a["citations"].as_array().is_some_and(|c| !c.is_empty()), "{a:#}");
    }
    let close = answer(&v, "episode.close");
    assert_eq!(close["answer"], "closed");
    assert!(json::text(close, "/reason").contains("by hand"));
    assert_eq!(close["citations"][0]["kind"], "ledger_line");
    assert!(close["citations"][0]["line"].as_u64().is_some_and(|l| l > 0), "{close:#}");
    assert_eq!(answer(&v, "episode.current")["answer"], "none");
    let sel = answer(&v, "handover.selected");
    assert!(json::text(sel, "/answer").starts_with(".ai/local/state/handovers/"));
    let candidates = sel["candidates"].as_array().unwrap();
    assert!(candidates
        .iter()
        .any(|c| c["verdict"] == "rejected" && c["reason"].as_str().is_some_and(|r| r.contains("another branch"))));
    assert!(candidates.iter().any(|c| c["verdict"] == "superseded"));
    let fr = answer(&v, "handover.freshness");
    assert_eq!(fr["answer"], "stale");
    assert!(fr["citations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["kind"] == "policy_key" && c["key"] == "session.freshness.stale_minutes"));
}

#[test]
fn explain_cites_the_provider_end_event_that_closed_the_episode() {
    let env = TestEnv::new();
    let r = env.ready_repo("w");
    r.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"cc-9"}"#).ok();
    r.mj_in(&["hook", "claude-code", "end"], r#"{"session_id":"cc-9","reason":"logout"}"#).ok();
    let v = read(&r, &["--json", "explain"]);
    let a = answer(&v, "episode.close");
    assert_eq!(a["answer"], "closed", "{a:#}");
    assert!(json::text(a, "/reason").contains("claude-code end event"), "{a:#}");
    let lines: Vec<u64> = a["citations"].as_array().unwrap().iter().filter_map(|c| c["line"].as_u64()).collect();
    assert_eq!(lines.len(), 2, "{a:#}");
    let ledger = r.ledger();
    assert_eq!(ledger[lines[0] as usize - 1]["event"], "session.closed");
    // The receipt's duplicate `event` key: a JSON parser keeps the provider's (the last).
    assert_eq!(ledger[lines[1] as usize - 1]["event"], "end");
    assert_eq!(ledger[lines[1] as usize - 1]["provider"], "claude-code");
}

#[test]
fn lifecycle_reads_the_episode_store() {
    let env = TestEnv::new();
    let r = env.ready_repo("w");
    r.start("Fix it");
    let sid = r.mj(&["session", "start"]).ok().stdout;
    let ep = read(&r, &["--json", "lifecycle", "episodes"]);
    assert_eq!(ep["episodes"].as_array().map(Vec::len), Some(1), "{ep:#}");
    let e = &ep["episodes"][0];
    assert_eq!(e["standing"], "current");
    let (key, session_id) = (json::text(e, "/key"), json::text(e, "/session_id"));
    assert!(sid.contains(session_id));
    assert!(e["events"].as_u64().is_some_and(|n| n >= 1), "{e:#}");
    assert_eq!(e["last_event"], "session.started");
    // An episode whose worktree is gone is stranded, and recovery names it with a remedy.
    let gone = env.path().join("gone").display().to_string();
    let text = std::fs::read_to_string(r.state(&format!("sessions-open/{key}.yaml"))).unwrap();
    let stranded = text.replace(&r.root.display().to_string(), &gone).replace(session_id, "s-20260101T000000Z-dead");
    std::fs::write(r.state("sessions-open/other.yaml"), stranded).unwrap();
    let rec = read(&r, &["--json", "lifecycle", "recovery"]);
    assert_eq!(rec["pointer"]["layout"], "pointer", "{rec:#}");
    assert_eq!(rec["pointer"]["resolves"], true);
    assert_eq!(rec["stranded"][0]["worktree"], gone);
    assert!(json::text(&rec, "/stranded/0/remedy").contains("sessions-open/other.yaml"));
    let balance = pick(&rec["balance"], &["started", "open", "unaccounted", "agrees"]);
    assert_eq!(balance, serde_json::json!({"started": 1, "open": 2, "unaccounted": -1, "agrees": false}));
    std::fs::remove_file(r.state("sessions-open/other.yaml")).unwrap();
    r.mj(&["session", "close"]).ok();
    let closed = read(&r, &["--json", "lifecycle", "closed"]);
    assert_eq!([&closed["total"], &closed["on_this_branch"]], [1, 1], "{closed:#}");
    assert_eq!(closed["newest"][0]["outcome"], "closed");
    let rec = read(&r, &["--json", "lifecycle", "recovery"]);
    assert_eq!(rec["balance"]["agrees"], true, "{rec:#}");
    assert_eq!(rec["pointer"]["layout"], "absent");
    let rt = read(&r, &["--json", "lifecycle", "runtime"]);
    assert_eq!(rt["agree"], true);
    assert_eq!(rt["repository"]["head"], r.head());
    r.mj(&["hooks", "install"]).ok();
    let pv = read(&r, &["--json", "lifecycle", "providers"]);
    let cc = pv["providers"].as_array().unwrap().iter().find(|p| p["name"] == "claude-code").unwrap();
    assert_eq!(cc["events"], serde_json::json!(["start", "compact", "end"]));
    assert!(cc["wired"].as_array().is_some_and(|w| !w.is_empty()), "{pv:#}");
    assert!(strings(&pv["git_hooks"]).iter().any(|h| h == ".git/hooks/pre-push"), "{pv:#}");
}

#[test]
fn read_commands_refuse_without_the_layer_and_reject_unknown_models() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.repo("bare-layer");
    for args in [&["state"][..], &["explain"], &["lifecycle", "episodes"], &["serve", "status"]] {
        let out = r.mj(args).code(12);
        assert_eq!(
            out.shown(),
            "--- stderr\nerror: no majordomus layer in this repository\nhint: run git majordomus init\n--- exit 12\n",
            "{args:?}"
        );
    }
    insta::assert_snapshot!(env.ready_repo("w").mj(&["lifecycle", "everything"]).code(2).shown(), @"
    --- stderr
    error: unrecognized subcommand 'everything'

    Usage: git majordomus lifecycle [OPTIONS] <COMMAND>

    For more information, try '--help'.
    --- exit 2
    ");
}

#[cfg(feature = "mcp")]
#[test]
fn committed_schemas_match_the_types() {
    let dir = manifest().join("schemas");
    let update = std::env::var("MAJORDOMUS_UPDATE_SCHEMAS").is_ok_and(|v| v == "1");
    let mut drift = Vec::new();
    for (file, text) in majordomus::surface::schemas::generated() {
        let path = dir.join(file);
        if update {
            std::fs::write(&path, &text).unwrap();
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != text {
            drift.push(file);
        }
    }
    assert!(drift.is_empty(), "schemas differ from their types: {drift:?}; regenerate with MAJORDOMUS_UPDATE_SCHEMAS=1 cargo test --test cli committed_schemas");
    // The state type's own properties are exactly the seed schema's.
    let seed: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("continuity-state.schema.json")).unwrap()).unwrap();
    let derived = majordomus::surface::schemas::state_derived();
    let keys =
        |v: &Value| v["properties"].as_object().unwrap().keys().cloned().collect::<std::collections::BTreeSet<_>>();
    assert_eq!(keys(&derived), keys(&seed));
    let rkeys = |v: &Value| {
        v["$defs"]["Record"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(rkeys(&derived), rkeys(&seed));
}

// ---------------------------------------------------------------------------------------------
// HTTP

/// One raw HTTP/1.1 request; returns (status, head, body).
pub(crate) fn http(addr: &str, method: &str, target: &str, host: Option<&str>) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let host = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
    write!(s, "{method} {target} HTTP/1.1\r\n{host}Connection: close\r\n\r\n").unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

pub(crate) fn get(addr: &str, target: &str) -> (u16, String, String) {
    http(addr, "GET", target, Some(addr))
}

#[test]
fn serve_routes_refusals_and_host_check() {
    let env = TestEnv::new();
    let r = fixture(&env);
    let s = serve(&env, &r.root);
    let a = s.addr.as_str();
    let (st, _, body) = get(a, "/healthz");
    assert_eq!(st, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["worktree"], r.root.display().to_string().as_str());
    for m in ["POST", "PUT", "DELETE", "PATCH", "TRACE"] {
        let (st, head, body) = http(a, m, "/api/v1/continuity", Some(a));
        assert_eq!(st, 405, "{m}");
        assert!(head.contains("Allow: GET, HEAD"), "{head}");
        assert!(serde_json::from_str::<Value>(&body).unwrap()["error"]["message"].is_string());
    }
    let (st, head, body) = http(a, "HEAD", "/api/v1/continuity", Some(a));
    assert_eq!(st, 200, "{head}");
    assert!(body.is_empty());
    let (st, _, body) = get(a, "/api/v2/nothing");
    assert_eq!(st, 404);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["error"]["status"], 404);
    for t in [
        "/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/cockpit.css/..%2f..%2fCargo.toml",
        "/%2E%2E%5cfoo",
        "/..%252f",
    ] {
        let (st, _, body) = get(a, t);
        assert!(st == 400 || st == 404, "{t}: {st}");
        assert!(body.starts_with('{') && !body.contains("root:") && !body.contains("[package]"), "{t}: {body}");
    }
    for h in [Some("evil.example"), Some("127.0.0.1.evil.example"), Some("localhost:1"), None] {
        let (st, _, body) = http(a, "GET", "/api/v1/continuity", h);
        assert!(st == 403 || st == 400, "{h:?}: {st}");
        assert!(body.contains("\"error\""));
    }
    let port = a.rsplit(':').next().unwrap();
    assert_eq!(http(a, "GET", "/healthz", Some(&format!("localhost:{port}"))).0, 200);
    assert_eq!(http(a, "GET", "/healthz", Some(&format!("LOCALHOST:{port}"))).0, 200);
    // OpenAPI 3.1 with every route and its response schema.
    let (st, _, body) = get(a, "/api/v1/openapi.json");
    assert_eq!(st, 200);
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    for route in
        ["/api/v1/continuity", "/api/v1/continuity/explain", "/api/v1/lifecycle/episodes", "/api/v1/continuity/plan"]
    {
        let schema = &doc["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"];
        let name = schema.as_str().unwrap().rsplit('/').next().unwrap();
        assert!(doc["components"]["schemas"][name].is_object(), "{route}");
    }
    assert!(!body.contains("#/$defs/"), "every reference is rewritten into components");
    assert_eq!(doc["paths"]["/api/v1/search"]["get"]["parameters"][0]["required"], true);
    // A model's arguments are checked: a missing query, a limit that is not a count.
    for t in ["/api/v1/search", "/api/v1/search?query=", "/api/v1/history?limit=0", "/api/v1/history?limit=x"] {
        let (st, _, body) = get(a, t);
        assert_eq!(st, 400, "{t}: {body}");
        assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["error"]["status"], 400, "{t}");
    }
    // The cockpit's assets are exact routes; nothing else is served from disk.
    assert_eq!(get(a, "/cockpit.css").0, 200);
    assert_eq!(get(a, "/assets/cockpit/cockpit.css").0, 404);
}

#[test]
fn serve_refuses_a_non_loopback_bind_without_allow_remote() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("w");
    insta::assert_snapshot!(r.mj(&["serve", "--listen", "0.0.0.0:0"]).code(2).shown(), @"
    --- stderr
    error: serve --listen 0.0.0.0:0: not a loopback address
    hint: bind 127.0.0.1 or ::1, or pass --allow-remote to serve other machines
    --- exit 2
    ");
    insta::assert_snapshot!(r.mj(&["serve", "--listen", "nonsense"]).code(2).shown(), @"
    --- stderr
    error: serve --listen nonsense: not an address
    hint: give an IP address and port, for example 127.0.0.1:[PORT]
    --- exit 2
    ");
    insta::assert_snapshot!(r.mj(&["--json", "serve"]).code(2).shown(), @r#"
    --- stderr
    {"error":{"exit":2,"message":"serve has no JSON form; drop --json","hint":null}}
    --- exit 2
    "#);
}

#[test]
fn serve_answers_many_clients_while_one_is_slow() {
    let env = TestEnv::new();
    let r = fixture(&env);
    let s = serve(&env, &r.root);
    // A client that sends half a request and stalls.
    let mut slow = TcpStream::connect(&s.addr).unwrap();
    write!(slow, "GET /api/v1/continuity HTTP/1.1\r\nHost: {}\r\n", s.addr).unwrap();
    let started = std::time::Instant::now();
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                let path = if i % 2 == 0 { "/api/v1/continuity" } else { "/api/v1/lifecycle/episodes" };
                get(&addr, path).0
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 200);
    }
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    drop(slow);
    // Computed afresh (or cached ≤ 2 s): a new question shows up after the cache expires.
    let before = printed(&["state"], &get(&s.addr, "/api/v1/continuity").2);
    r.mj(&["question", "add", "Second question?"]).ok();
    std::thread::sleep(Duration::from_millis(2100));
    let after = printed(&["state"], &get(&s.addr, "/api/v1/continuity").2);
    let blockers = |v: &Value| v["tallies"]["blockers"].as_u64().unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(blockers(&after), blockers(&before) + 1);
}

#[test]
fn serve_ensure_status_stop_and_the_start_hook() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("w");
    insta::assert_snapshot!(r.mj(&["serve", "status"]).ok().shown(), @"
    Shared server: none recorded for this checkout
    --- stderr
    --- exit 0
    ");
    // A stale record (a process that is gone) is detected and replaced.
    std::fs::create_dir_all(r.state("")).unwrap();
    std::fs::write(
        r.state("server.json"),
        r#"{"pid":999999,"listen":"127.0.0.1:9","port":9,"url":"http://127.0.0.1:9/","worktree":"x","head":"NONE","started_at":"2026-09-03T20:00:00Z"}"#,
    )
    .unwrap();
    insta::assert_snapshot!(r.mj(&["serve", "status"]).ok().shown(), @"
    Shared server: stale http://127.0.0.1:[PORT]/ pid 999999
    --- stderr
    --- exit 0
    ");
    let out = r.mj(&["serve", "ensure"]).ok();
    assert!(out.stdout.starts_with("Shared server: ready http://127.0.0.1:"), "{}", out.stdout);
    let rec: Value = serde_json::from_str(&r.read(".ai/local/state/server.json")).unwrap();
    assert_ne!(rec["pid"], 999999);
    assert_eq!(rec["worktree"], r.root.display().to_string().as_str());
    assert_eq!(rec["head"], r.head().as_str());
    let addr = rec["listen"].as_str().unwrap().to_string();
    assert_eq!(get(&addr, "/healthz").0, 200);
    // A second ensure finds it: one server per checkout.
    let again = r.mj(&["serve", "ensure"]).ok();
    assert!(again.stdout.contains(&format!("pid {}", rec["pid"])), "{}", again.stdout);
    assert!(r.mj(&["serve", "status"]).ok().stdout.contains("Shared server: running"));
    let out = r.mj(&["serve", "stop"]).ok();
    assert!(out.stdout.contains("stopped pid"), "{}", out.stdout);
    assert!(TcpStream::connect(&addr).is_err() || get(&addr, "/healthz").0 != 200);
    assert!(!r.exists(".ai/local/state/server.json"));

    // The start hook: not ensured by default; ensured when the policy says so.
    let payload = r#"{"session_id":"cc-1","source":"startup"}"#;
    insta::assert_snapshot!(r.mj_in(&["hook", "claude-code", "start"], payload).ok().shown(), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    --- stderr
    session s-[ID] opened at 2026-09-03T20:00:00Z
    Shared server: not ensured: session.ensure_server_on_start is false
    --- exit 0
    ");
    let policy =
        r.read(".ai/repo/policy.yaml").replace("ensure_server_on_start: false", "ensure_server_on_start: true");
    r.write(".ai/repo/policy.yaml", &policy);
    let out = r.mj_in(&["hook", "claude-code", "start"], r#"{"session_id":"cc-2","source":"startup"}"#).ok();
    assert!(out.stdout.contains("Shared server: ready http://127.0.0.1:"), "{}", out.all());
    r.mj(&["serve", "stop"]).ok();
}

// ---------------------------------------------------------------------------------------------
// Real peers: the MCP Python SDK, the three-surface equality, schemathesis, Chromium

/// Every MCP tool: its name, the arguments the tests call it with (JSON), the CLI command it
/// mirrors (run with `--json`) and the HTTP route (with the query the arguments become).
const TOOLS: &[(&str, &str, &[&str], &str)] = &[
    ("majordomus_continuity", "{}", &["state"], "/api/v1/continuity"),
    ("majordomus_continuity_explain", "{}", &["explain"], "/api/v1/continuity/explain"),
    ("majordomus_lifecycle_episodes", "{}", &["lifecycle", "episodes"], "/api/v1/lifecycle/episodes"),
    ("majordomus_lifecycle_recovery", "{}", &["lifecycle", "recovery"], "/api/v1/lifecycle/recovery"),
    ("majordomus_lifecycle_runtime", "{}", &["lifecycle", "runtime"], "/api/v1/lifecycle/runtime"),
    ("majordomus_lifecycle_providers", "{}", &["lifecycle", "providers"], "/api/v1/lifecycle/providers"),
    ("majordomus_lifecycle_closed", "{}", &["lifecycle", "closed"], "/api/v1/lifecycle/closed"),
    ("majordomus_continuity_status", "{}", &["continuity", "status"], "/api/v1/continuity/status"),
    ("majordomus_continuity_records", "{}", &["continuity", "records"], "/api/v1/continuity/records"),
    ("majordomus_continuity_plan", "{}", &["continuity", "plan"], "/api/v1/continuity/plan"),
    ("majordomus_handover", "{}", &["handover", "--resolve"], "/api/v1/handover"),
    ("majordomus_context", "{}", &["context"], "/api/v1/context"),
    ("majordomus_decisions", "{}", &["decision", "list"], "/api/v1/decisions"),
    ("majordomus_questions", "{}", &["question", "list"], "/api/v1/questions"),
    ("majordomus_search", r#"{"query":"the RELEASE"}"#, &["search", "the RELEASE"], "/api/v1/search?query=the+RELEASE"),
    ("majordomus_history", r#"{"limit":5}"#, &["history", "--limit", "5"], "/api/v1/history?limit=5"),
];

/// The resources and the CLI command each mirrors.
const RESOURCES: &[(&str, &[&str])] = &[
    ("majordomus://continuity", &["state"]),
    ("majordomus://lifecycle/episodes", &["lifecycle", "episodes"]),
    ("majordomus://lifecycle/recovery", &["lifecycle", "recovery"]),
];

/// The SDK's two protocol eras: `legacy` forces the initialize handshake; `auto` (the SDK's
/// default) probes `server/discover` and must land on the 2026-07-28 revision.
const ERAS: &[&str] = &["legacy", "auto"];

/// The CLI's `--json` value for a command of [`TOOLS`] or [`RESOURCES`]. `history --json` is
/// JSON Lines; the surfaces carry those lines as one value, `{"events": [<line>, ...]}`.
fn cli_json(r: &Repo<'_>, cli: &[&str]) -> Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(cli);
    let out = r.mj(&args);
    if cli[0] == "history" {
        let events: Vec<Value> = out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert!(!events.is_empty(), "{}", out.stderr);
        return serde_json::json!({ "events": events });
    }
    json(&out)
}

/// Runs the SDK's client in `mode`: each of `calls` (label, tool, arguments as JSON) and each
/// resource read. The client validates every result (wire schema, `outputSchema`); it fails
/// on a mismatch, and so does this.
fn mcp_client(env: &TestEnv, root: &Path, mode: &str, calls: &[(&str, &str, &str)], uris: &[&str]) -> Value {
    let calls: serde_json::Map<String, Value> = calls
        .iter()
        .map(|(label, tool, args)| {
            let args: Value = serde_json::from_str(args).unwrap();
            (label.to_string(), serde_json::json!({"tool": tool, "arguments": args}))
        })
        .collect();
    let out = env
        .command(python().to_str().unwrap())
        .arg(manifest().join("tests/surfaces/mcp_client.py"))
        .arg(root)
        .arg(mode)
        .arg(Value::Object(calls).to_string())
        .arg(uris.join(","))
        .arg("--")
        .arg(bin())
        .arg("mcp")
        .output()
        .unwrap();
    assert!(out.status.success(), "mcp client ({mode}) failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every tool of [`TOOLS`], labelled by its name.
fn every_tool() -> Vec<(&'static str, &'static str, &'static str)> {
    TOOLS.iter().map(|(tool, args, _, _)| (*tool, *tool, *args)).collect()
}

/// The official SDK in both eras: legacy negotiates a handshake revision (≤ 2025-11-25), auto
/// negotiates 2026-07-28 through `server/discover`; in each, every tool declares an output
/// schema, every call's `structuredContent` passed the client's validation against it, and
/// every call and resource read is the CLI's `--json` value — the same in both eras.
#[test]
fn mcp_python_sdk_client_in_both_eras_reads_every_tool_and_resource() {
    if !crate::common::have(crate::common::Tool::SurfacesVenv) {
        return;
    }
    let env = TestEnv::new();
    let r = fixture(&env);
    env.set_now(LATER);
    let uris: Vec<&str> = RESOURCES.iter().map(|x| x.0).collect();
    let runs: Vec<Value> = ERAS.iter().map(|mode| mcp_client(&env, &r.root, mode, &every_tool(), &uris)).collect();
    let (legacy, modern) = (&runs[0], &runs[1]);
    assert_eq!(legacy["era"], "legacy");
    let v = legacy["protocol_version"].as_str().unwrap();
    assert!(v.len() == 10 && ("2024-11-05"..="2025-11-25").contains(&v), "legacy negotiated {v}");
    assert_eq!(modern["era"], "modern", "auto mode went through server/discover");
    assert_eq!(modern["protocol_version"], "2026-07-28");
    let work = tempfile::tempdir().unwrap();
    for (mode, v) in ERAS.iter().zip(&runs) {
        if *mode == "legacy" {
            assert_eq!(v["server"], "git-majordomus");
        }
        let tools = v["tools"].as_object().unwrap();
        assert_eq!(tools.len(), TOOLS.len(), "{mode}: {:?}", tools.keys());
        let res: Vec<&str> = v["resources"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
        assert_eq!(res, uris, "{mode}");
        for (name, _, cli, _) in TOOLS {
            assert_eq!(tools[*name]["input"]["type"], "object", "{mode}: {name} declares an input schema");
            let schema = &tools[*name]["output"];
            assert_eq!(schema["type"], "object", "{mode}: {name} declares an output schema");
            assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema", "{mode}: {name}");
            let call = &v["calls"][*name];
            assert_eq!(call["is_error"], false, "{mode}: {name}: {call}");
            assert_eq!(call["structured"], call["text"], "{mode}: {name}: text and structuredContent carry one value");
            assert_eq!(call["structured"], cli_json(&r, cli), "{mode}: {name} = CLI {cli:?}");
            // The client's check is not vacuous: without a required member the value fails the
            // declared schema (the client validates with the same `jsonschema` package).
            let path = work.path().join(format!("{name}.json"));
            std::fs::write(&path, schema.to_string()).unwrap();
            let required = schema["required"].as_array().unwrap();
            let mut bad = call["structured"].clone();
            bad.as_object_mut().unwrap().remove(required[0].as_str().unwrap());
            assert!(
                !validate(path.to_str().unwrap(), &bad).0,
                "{name}: the schema refuses a value without {}",
                required[0]
            );
        }
        for (uri, cli) in RESOURCES {
            assert_eq!(v["reads"][*uri], cli_json(&r, cli), "{mode}: {uri} = CLI {cli:?}");
        }
    }
    assert_eq!(legacy["calls"], modern["calls"], "every tool answers the same value in both eras");
    assert_eq!(legacy["reads"], modern["reads"], "every resource reads the same in both eras");
    assert_eq!(legacy["tools"], modern["tools"], "one tool list in both eras");
    assert_eq!(legacy["calls"]["majordomus_continuity"]["structured"]["handover"]["freshness"], "stale");
}

/// The three-surface equality test: CLI `--json` = MCP `structuredContent` = HTTP body, for every
/// read model, on one fixture state.
#[test]
fn cli_mcp_http_return_the_same_value_for_every_read_model() {
    if !crate::common::have(crate::common::Tool::SurfacesVenv) {
        return;
    }
    let env = TestEnv::new();
    let r = fixture(&env);
    env.set_now(LATER);
    let before = snapshot(&r);
    let s = serve(&env, &r.root);
    let uris: Vec<&str> = RESOURCES.iter().map(|x| x.0).collect();
    let m = mcp_client(&env, &r.root, "auto", &every_tool(), &uris);
    for (tool, _, cli, route) in TOOLS {
        let c = cli_json(&r, cli);
        let (st, _, body) = get(&s.addr, route);
        assert_eq!(st, 200, "{route}: {body}");
        let h: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(c, h, "CLI {cli:?} = HTTP {route}");
        assert_eq!(c, m["calls"][*tool]["structured"], "CLI {cli:?} = MCP {tool}");
    }
    for page in ["/", "/cockpit/fragment", "/api/v1/openapi.json", "/healthz"] {
        assert_eq!(get(&s.addr, page).0, 200, "{page}");
    }
    drop(s);
    assert_eq!(snapshot(&r), before, "no surface wrote anything (files under .ai/, refs, HEAD, index)");
}

/// The cockpit's human side (issue 23): a Resume panel with the plan's answer, its record and
/// the command to run; a handover of another task than the active one flagged; an episode
/// open longer than a fresh record lives flagged, as `lifecycle episodes` says it is.
#[test]
fn cockpit_shows_the_resume_panel_and_flags_another_tasks_handover_and_a_long_open_episode() {
    let env = TestEnv::new();
    let r = fixture(&env);
    let first = json(&r.mj(&["--json", "state"]).ok())["task"]["id"].as_str().unwrap().to_string();
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let second = r.start("Write the docs");
    let (_, _, fresh) = get(&serve(&env, &r.root).addr, "/cockpit/fragment");
    assert!(!fresh.contains("l-long_open"), "an episode opened just now is not long open");
    env.set_now(LATER);
    let plan = json(&r.mj(&["--json", "continuity", "plan"]).ok());
    let eps = json(&r.mj(&["--json", "lifecycle", "episodes"]).ok());
    assert_eq!(eps["episodes"][0]["long_open"], true, "{eps:#}");
    assert_eq!(eps["episodes"][0]["open_minutes"], 5 * 24 * 60);
    let s = serve(&env, &r.root);
    let (st, _, page) = get(&s.addr, "/cockpit/fragment");
    assert_eq!(st, 200);
    let panel = page.split("id=\"h-resume\"").nth(1).expect("a Resume panel").split("</section>").next().unwrap();
    let status = plan["status"].as_str().unwrap();
    assert!(panel.contains(&format!("label l-{status}\">{status}<")), "{panel}");
    // This checkout's own records are not resumed here: nothing to resume, and the plan's
    // recommendation (sync) is what the panel offers (the unit tests of `cockpit::resume`
    // cover a ready plan's command).
    assert_eq!(status, "nothing_to_resume", "{plan:#}");
    let action = plan["actions"][0].as_str().unwrap();
    assert!(panel.contains(&format!("Recommended:</p>\n<ul>\n<li><code>{action}</code>")), "{panel}");
    for n in plan["blockers"].as_array().unwrap().iter().chain(plan["warnings"].as_array().unwrap()) {
        assert!(panel.contains(n["code"].as_str().unwrap()), "{n} in {panel}");
    }
    assert!(
        page.contains(&format!(
            "Another task's handover: it is of <code>{first}</code>, the active task is <code>{second}</code>"
        )),
        "{page}"
    );
    assert!(page.contains("l-long_open") && page.contains("git majordomus session close"), "{page}");
}

/// A handover whose commit was amended: CLI, MCP and HTTP carry the same proven `rewrite`, and
/// the state still validates against the seed schema (docs/REFERENCE.md#rewrites).
#[test]
fn every_surface_carries_the_proven_rewrite() {
    if !crate::common::have(crate::common::Tool::SurfacesVenv) {
        return;
    }
    let env = TestEnv::new();
    let r = fixture(&env);
    let recorded = r.head();
    r.git(&["commit", "-q", "--amend", "-m", "reworded"]);
    let c = json(&r.mj(&["--json", "state"]).ok());
    assert_eq!(c["handover"]["divergence"], "exact");
    assert_eq!(c["handover"]["head"], recorded.as_str());
    assert_eq!(c["handover"]["rewrite"]["by"], "amend");
    assert_eq!(c["handover"]["rewrite"]["to"], r.head().as_str());
    let (ok, why) = validate("continuity-state.schema.json", &c);
    assert!(ok, "{why}");
    let mut bad = c.clone();
    bad["handover"]["rewrite"]["by"] = Value::from("guess");
    assert!(!validate("continuity-state.schema.json", &bad).0, "the schema names every way a rewrite is proven");
    let s = serve(&env, &r.root);
    let (st, _, body) = get(&s.addr, "/api/v1/continuity");
    assert_eq!(st, 200);
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["handover"]["rewrite"], c["handover"]["rewrite"]);
    let page = get(&s.addr, "/").2;
    assert!(page.contains(&format!("rewritten from <code>{}</code> by amend", &recorded[..7])), "{page}");
    assert!(!page.contains("Its commit is not in this history"), "{page}");
    drop(s);
    let calls = [
        ("majordomus_continuity", "majordomus_continuity", "{}"),
        ("majordomus_handover", "majordomus_handover", "{}"),
    ];
    let m = mcp_client(&env, &r.root, "auto", &calls, &[]);
    assert_eq!(m["calls"]["majordomus_continuity"]["structured"]["handover"]["rewrite"], c["handover"]["rewrite"]);
    // The resolved handover carries the same record, rewrite included, as the CLI gives it.
    let h = json(&r.mj(&["--json", "handover", "--resolve"]).ok());
    assert_eq!(h["handover"], c["handover"]);
    assert_eq!(m["calls"]["majordomus_handover"]["structured"], h);
}

/// The JSON forms the new read tools mirror: `handover --resolve --json` (the body by section,
/// the Next Action withheld once the record is history), `decision list --json`, `question
/// list --json`; each validates against its committed schema. Commands that write keep
/// refusing `--json`.
#[test]
fn handover_decision_and_question_lists_have_json_forms() {
    if !crate::common::have(crate::common::Tool::SurfacesVenv) {
        return;
    }
    let env = TestEnv::new();
    let r = fixture(&env);
    let h = json(&r.mj(&["--json", "handover", "--resolve"]).ok());
    assert!(validate("handover-resolved.schema.json", &h).0, "{h:#}");
    assert_eq!(h["sections"]["Objective"], "Fix the callback.");
    assert_eq!(h["sections"]["Current State"], "Reproduced.");
    assert_eq!(h["sections"]["Next Action"], "Write the regression test.");
    assert_eq!(h["handover"]["next_action"], "Write the regression test.");
    assert_eq!(h["handover"]["matched"], "same_worktree_same_branch");
    assert_eq!(h["handover"], json(&r.mj(&["--json", "state"]).ok())["handover"], "the labels continuity.state gives");
    env.set_now(LATER);
    let h = json(&r.mj(&["--json", "handover", "--resolve"]).ok());
    assert!(validate("handover-resolved.schema.json", &h).0, "{h:#}");
    let na = h["sections"]["Next Action"].as_str().unwrap();
    assert!(na.starts_with("(Next Action withheld: stale"), "{h:#}");
    assert!(!h.to_string().contains("Write the regression test."), "a history record's Next Action is withheld: {h:#}");
    assert!(h["handover"]["next_action_withheld"].as_str().unwrap().starts_with("stale: "));
    // No handover here: null, and no sections.
    let other = env.ready_repo("other");
    let none = json(&other.mj(&["--json", "handover", "--resolve"]).ok());
    assert_eq!(none, serde_json::json!({"handover": null, "sections": {}}));
    assert!(validate("handover-resolved.schema.json", &none).0);

    let d = json(&r.mj(&["--json", "decision", "list"]).ok());
    assert!(validate("decisions.schema.json", &d).0, "{d:#}");
    let titles: Vec<&str> = d["decisions"].as_array().unwrap().iter().map(|x| x["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Retry three times", "Retry with backoff"], "newest first");
    assert_eq!(d["decisions"][1]["superseded_by"], "Retry three times");
    assert_eq!(d["decisions"][0]["why"], "Backoff hid the race.");
    let one = json(&r.mj(&["--json", "decision", "list", "--limit", "1"]).ok());
    assert_eq!(one["decisions"].as_array().unwrap().len(), 1);

    let q = json(&r.mj(&["--json", "question", "list"]).ok());
    assert!(validate("questions.schema.json", &q).0, "{q:#}");
    assert_eq!(q["questions"][0]["status"], "unresolved");
    assert_eq!(q["questions"][0]["n"], 1);
    assert_eq!(q["questions"][0]["question"], "Which retry policy?");

    for args in [
        &["--json", "handover", "--list"][..],
        &["--json", "handover", "--resolve", "--path"],
        &["--json", "decision", "show", "Retry"],
        &["--json", "question", "add", "Another?"],
    ] {
        assert!(r.mj(args).code(2).stderr.contains("no JSON form"), "{args:?}");
    }
}

/// Every file under `.ai/` with its bytes, every ref, HEAD and the index: what a read must not change.
fn snapshot(r: &Repo<'_>) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap()) {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push((p.strip_prefix(root).unwrap().display().to_string(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&r.root, &r.root.join(".ai"), &mut out);
    out.push(("refs".into(), r.git(&["for-each-ref", "--format=%(refname) %(objectname)"]).into_bytes()));
    out.push(("HEAD".into(), r.head().into_bytes()));
    out.push(("index".into(), std::fs::read(r.root.join(".git/index")).unwrap()));
    out.sort();
    out
}

#[test]
fn schemathesis_finds_no_failure_in_the_served_openapi() {
    if !crate::common::have(crate::common::Tool::SurfacesVenv) {
        return;
    }
    let env = TestEnv::new();
    let r = fixture(&env);
    let s = serve(&env, &r.root);
    let st = manifest().join("target/surfaces-venv/bin/st");
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(st)
        .args([
            "run",
            &format!("http://{}/api/v1/openapi.json", s.addr),
            "--max-examples",
            "20",
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,unsupported_method",
            "--phases",
            "examples,coverage,fuzzing",
            "--seed",
            "1",
            "--no-color",
        ])
        .current_dir(work.path())
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "schemathesis failed:\n{text}");
    assert!(text.contains("passed"), "{text}");
}

fn chromium(args: &[&str]) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--log-level=3",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cockpit_in_headless_chromium_shows_history_and_a_diverged_line() {
    if !crate::common::have(crate::common::Tool::Chromium) {
        return;
    }
    let env = TestEnv::new();
    let r = fixture(&env);
    env.set_now(LATER);
    let s = serve(&env, &r.root);
    let url = format!("http://{}/", s.addr);
    let state = read(&r, &["--json", "state"]);
    let handover = json::text(&state, "/handover/path");
    // JavaScript off: the first paint is server-rendered.
    let (st, head, page) = get(&s.addr, "/");
    assert_eq!(st, 200);
    assert!(head.contains("text/html"));
    assert!(page.contains(handover) && page.contains("HISTORY") && page.contains("DIVERGED"), "{page}");
    assert!(!page.contains("Write the regression test."), "a stale Next Action is never shown");
    // Chromium with the refresh script: the DOM after it ran.
    let out = chromium(&["--virtual-time-budget=3000", "--dump-dom", &url]);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(dom.contains("data-ready=\"1\""), "the refresh ran: {dom}");
    assert!(dom.contains(handover), "{dom}");
    assert!(dom.contains("l-stale\">stale<"), "{dom}");
    assert!(dom.contains("Handover (history)"), "{dom}");
    assert!(!dom.contains("Write the regression test."), "{dom}");
    assert!(dom.contains("class=\"diverged\"") && dom.contains("DIVERGED: 2 heads"), "{dom}");
    assert!(dom.contains("Which retry policy?"));
    // Keyboard: a skip link to the content, and every section heading is focusable.
    assert!(dom.contains("class=\"skip\" href=\"#main\""), "{dom}");
    let headings = dom.matches("<h2 ").count();
    assert!(headings >= 6 && dom.matches("<h2 id=\"h-").count() == headings, "{dom}");
    assert_eq!(dom.matches("tabindex=\"0\">").count(), headings, "{dom}");
    // Screenshots at 1280×800 and on a narrow window: non-blank PNGs of the requested size.
    let shots = manifest().join("target/cockpit-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (w, h) in [(1280, 800), (400, 800)] {
        let png = shots.join(format!("cockpit-{w}x{h}.png"));
        let _ = std::fs::remove_file(&png);
        let out = chromium(&[
            &format!("--screenshot={}", png.display()),
            &format!("--window-size={w},{h}"),
            "--hide-scrollbars",
            "--virtual-time-budget=3000",
            &url,
        ]);
        assert!(png.exists(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
        let check = Command::new(python())
            .arg(manifest().join("tests/surfaces/png_check.py"))
            .arg(&png)
            .arg(w.to_string())
            .arg(h.to_string())
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

/// docs/REFERENCE.md#mcp: malformed input never crashes the server and stdout carries only protocol.
#[test]
fn mcp_answers_malformed_requests_with_errors_and_keeps_serving() {
    let env = TestEnv::new();
    let r = env.ready_repo("w");
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}",
        "x".repeat(1_100_000)
    );
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        "this is not json".to_string(),
        long,
        r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"majordomus_nothing","arguments":{}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"majordomus_continuity","arguments":{"x":1}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"majordomus://nothing"}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"majordomus_continuity","arguments":{}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"majordomus_search","arguments":{}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"majordomus_history","arguments":{"limit":"5"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"majordomus_history","arguments":{"limit":0}}}"#.to_string(),
    ];
    let input = lines.join("\n") + "\n";
    let out = env.run(&r.root, &["mcp"], Some(input.as_bytes()), &[]).ok();
    let replies: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout line is not JSON-RPC ({e}): {l}")))
        .collect();
    let by_id = |id: u64| {
        replies.iter().find(|v| v["id"] == id).unwrap_or_else(|| panic!("no reply {id}: {replies:?}")).clone()
    };
    assert!(by_id(1)["result"]["serverInfo"]["name"] == "git-majordomus");
    assert!(replies.iter().all(|v| v["id"] != 99), "the over-long line was dropped");
    assert_eq!(by_id(2)["error"]["code"], -32601);
    assert_eq!(by_id(3)["error"]["code"], -32602);
    assert_eq!(by_id(4)["error"]["code"], -32602);
    assert!(by_id(5)["error"]["code"].is_i64());
    for id in [7, 8, 9] {
        assert_eq!(by_id(id)["error"]["code"], -32602, "{:?}", by_id(id));
    }
    let ok = by_id(6);
    assert_eq!(ok["result"]["structuredContent"], json(&r.mj(&["--json", "state"]).ok()));
    assert!(out.stderr.contains("not JSON") && out.stderr.contains("over 1048576 bytes"), "{}", out.stderr);
}
