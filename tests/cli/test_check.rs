//! Tests of check, watch and doctor (docs/REFERENCE.md#findings, docs/REFERENCE.md#front-matter item 15).
// A failed unwrap is a failed test: that is the point of these assertions.
#![allow(clippy::unwrap_used)]

use crate::common::json::{self, doc, error, findings};
use crate::common::{Output, Repo, TestEnv, HANDOVER};

/// Stdout lines starting with `<LEVEL> <category>`.
fn lines_of<'a>(out: &'a Output, level: &str, category: &str) -> Vec<&'a str> {
    let prefix = format!("{level} {category} ");
    out.stdout.lines().filter(|l| l.starts_with(&prefix)).collect()
}

/// Stdout has no FAIL, DRIFT or WARN line.
#[track_caller]
fn assert_clean(out: &Output) {
    for bad in ["FAIL ", "DRIFT ", "WARN "] {
        assert!(!out.stdout.lines().any(|l| l.starts_with(bad)), "unexpected {bad}line\n{}", out.stdout);
    }
}

/// Rewrites the task record's `outcome`.
fn set_outcome(r: &Repo<'_>, outcome: &str) {
    let p = r.state("current.yaml");
    let text = std::fs::read_to_string(&p).unwrap().replace("outcome: active", &format!("outcome: {outcome}"));
    std::fs::write(p, text).unwrap();
}

fn append(path: &std::path::Path, text: &str) {
    use std::io::Write;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// A record-shaped file name on branch main.
const RECORD_NAME: &str = "20260903T195000Z--main--abcdef1--0123456789abcdef.md";

// ---------------------------------------------------------------------------------------------
// check

#[test]
fn check_without_a_task_exits_12_with_the_start_hint() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    insta::assert_snapshot!(r.mj(&["check"]).code(12).shown(), @r#"
    --- stderr
    error: check: no task record
    hint: start one: git majordomus start "<task>" --scope <path>
    --- exit 12
    "#);
    let json = r.mj(&["check", "--json"]).code(12);
    assert!(json.stdout.is_empty());
    let e = error(&json.stderr);
    assert_eq!((&e["exit"], &e["message"]), (&serde_json::json!(12), &serde_json::json!("check: no task record")));
    assert!(e["hint"].as_str().is_some_and(|h| h.starts_with("start one: git majordomus start")), "{e}");
}

#[test]
fn check_on_a_fresh_task_is_clean() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("fix the callback");
    r.commit_file("lib/auth.rs", "fn a() {}\n");
    let out = r.mj(&["check"]).ok();
    assert_clean(&out);
    insta::assert_snapshot!(out.stdout, @r#"
    OK task t-[ID] — "fix the callback" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK task t-[ID] — task record advanced (recorded head [HEX] on main)  [reproduce: git majordomus context]
    OK scope lib — 1 file(s) touched since the task started, all inside its scope  [reproduce: git diff --name-only [HEX]; git status --porcelain]
    OK checkpoint t-[ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 1 line(s), all valid  [reproduce: git majordomus history --validate]
    "#);
    // Every line has the findings shape.
    for l in out.stdout.lines() {
        assert!(l.contains(" — "), "not a finding line: {l}");
        assert!(l.contains("  [reproduce: "), "no reproduce: {l}");
    }
    // --quiet hides OK lines.
    let quiet = r.mj(&["check", "--quiet"]).ok();
    assert_eq!(quiet.stdout, "");
}

#[test]
fn r14_15_malformed_question_line_fails_check_but_the_template_example_never_counts() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    // Seed the store from the template (its HTML comment holds example entries), then resolve.
    r.mj(&["question", "add", "Which URL?"]).ok();
    r.mj(&["question", "resolve", "1", "--answer", "the staging one"]).ok();
    let store = r.read(".ai/local/state/open-questions.md");
    assert!(
        store.contains("<!--") && store.contains("- [unresolved] t-20260903193012-a4f1"),
        "template example expected in the store:\n{store}"
    );
    let out = r.mj(&["check"]).ok();
    assert_clean(&out);
    insta::assert_snapshot!(lines_of(&out, "OK", "questions").join("\n"), @"OK questions .ai/local/state/open-questions.md — every entry parses; none unresolved  [reproduce: git majordomus question list]");

    append(&r.state("open-questions.md"), "- [unresoved] t-1 — typo in the marker (2026-09-03)\n");
    let n = r.read(".ai/local/state/open-questions.md").lines().count();
    let out = r.mj(&["check"]).code(10);
    let fails = lines_of(&out, "FAIL", "questions");
    assert_eq!(fails.len(), 1, "{}", out.stdout);
    assert!(fails[0].starts_with(&format!("FAIL questions .ai/local/state/open-questions.md:{n} — ")), "{}", fails[0]);
    insta::assert_snapshot!(fails[0], @r#"FAIL questions .ai/local/state/open-questions.md:11 — not a valid entry: "- [unresoved] t-1 — typo in the marker (2026-09-03)"; the shapes are "- [unresolved] <task> — <question> (<date>)" and "- [resolved <date>] <task> — <text>"  [reproduce: sed -n 11p .ai/local/state/open-questions.md]"#);
    // watch and doctor fail on it too.
    r.mj(&["watch"]).code(10);
    r.mj(&["doctor"]).code(10);
}

#[test]
fn check_fails_on_each_unresolved_question() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    let out = r.mj(&["check"]).code(10);
    let fails = lines_of(&out, "FAIL", "blockers");
    assert_eq!(fails.len(), 1, "{}", out.stdout);
    insta::assert_snapshot!(fails[0], @r#"FAIL blockers .ai/local/state/open-questions.md:10 — unresolved since 2026-09-03 (task t-[ID]): Which callback URL? — refuses finish --outcome completed  [reproduce: git majordomus question list]  [fix: git majordomus question resolve 1 --answer "<answer>"]"#);
    // In watch an unresolved question is information, not drift.
    let w = r.mj(&["watch"]).ok();
    insta::assert_snapshot!(lines_of(&w, "INFO", "blockers").join("\n"), @"INFO blockers .ai/local/state/open-questions.md — 1 unresolved question(s); each refuses finish --outcome completed  [reproduce: git majordomus question list]");
    r.mj(&["question", "resolve", "1", "--answer", "x"]).ok();
    r.mj(&["check"]).ok();
}

#[test]
fn check_fails_on_a_file_committed_outside_the_scope() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.commit_file("lib/ok.rs", "x\n");
    r.commit_file("docs/outside.md", "x\n");
    r.write("src/untracked.rs", "x\n");
    let out = r.mj(&["check"]).code(10);
    // lib/ok.rs is in the scope; the layer's own files never count.
    insta::assert_snapshot!(out.stdout, @r#"
    OK task t-[ID] — "task" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK task t-[ID] — task record advanced (recorded head [HEX] on main)  [reproduce: git majordomus context]
    FAIL scope docs/outside.md — touched since the task started, outside its scope (lib)  [reproduce: git diff --name-only [HEX]; git status --porcelain]
    FAIL scope src/untracked.rs — touched since the task started, outside its scope (lib)  [reproduce: git diff --name-only [HEX]; git status --porcelain]
    OK checkpoint t-[ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 1 line(s), all valid  [reproduce: git majordomus history --validate]
    "#);
}

#[test]
fn a_checkpoint_older_than_the_interval_warns_and_check_checkpoint_moves_it() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let id = r.start("task"); // implementation profile: 15m
    env.set_now("2026-09-03T20:15:00Z");
    let out = r.mj(&["check"]).ok();
    insta::assert_snapshot!(lines_of(&out, "OK", "checkpoint").join("\n"), @"OK checkpoint t-[ID] — last checkpoint 15m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]");
    env.set_now("2026-09-03T20:42:00Z");
    let out = r.mj(&["check"]).ok();
    let warns = lines_of(&out, "WARN", "checkpoint");
    assert_eq!(warns.len(), 1, "{}", out.stdout);
    assert!(warns[0].starts_with(&format!("WARN checkpoint {id} — ")), "{}", warns[0]);
    insta::assert_snapshot!(warns[0], @"WARN checkpoint t-[ID] — last checkpoint 42m ago, older than the interval 15m (profile implementation); run git majordomus checkpoint or check --checkpoint  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]  [fix: git majordomus checkpoint < <note>]");
    assert!(
        r.read(".ai/local/state/current.yaml").lines().any(|l| l == "checkpoint_at: 2026-09-03T20:00:00Z"),
        "check wrote without --checkpoint"
    );
    let before = r.ledger().len();

    let out = r.mj(&["check", "--checkpoint"]).ok();
    insta::assert_snapshot!(out.stdout, @r#"
    OK checkpoint t-[ID] — checkpoint_at moved to 2026-09-03T20:42:00Z; task.checkpoint recorded  [reproduce: git majordomus history --event task.checkpoint]
    OK task t-[ID] — "task" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK task t-[ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    OK scope lib — 0 file(s) touched since the task started, all inside its scope  [reproduce: git diff --name-only [HEX]; git status --porcelain]
    OK checkpoint t-[ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 2 line(s), all valid  [reproduce: git majordomus history --validate]
    "#);
    assert!(r.read(".ai/local/state/current.yaml").lines().any(|l| l == "checkpoint_at: 2026-09-03T20:42:00Z"));
    let ledger = r.ledger();
    assert_eq!(ledger.len(), before + 1);
    let last = ledger.last().unwrap();
    assert_eq!(last["event"], "task.checkpoint");
    assert_eq!(last["task_id"], id.as_str());
    assert_eq!(last["ts"], "2026-09-03T20:42:00Z");
    assert!(last.get("checkpoint_path").is_none(), "{last}");
    assert!(r.records("checkpoints").is_empty(), "check --checkpoint writes no record file");
}

#[test]
fn check_warns_on_decision_entries_missing_fields_and_fails_on_bad_ledger_lines() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj(&["decision", "add", "Use X", "--why", "because"]).ok();
    r.mj(&["check"]).ok();
    append(&r.state("decisions.md"), "\n## 2026-09-03 — Hand written\nTask: none\n");
    let out = r.mj(&["check"]).ok();
    insta::assert_snapshot!(lines_of(&out, "WARN", "decisions").join("\n"), @r#"WARN decisions .ai/local/state/decisions.md:24 — entry "Hand written" lacks Head, Why  [reproduce: git majordomus decision list]"#);

    let n = r.read(".ai/local/state/ledger.jsonl").lines().count();
    append(&r.state("ledger.jsonl"), "not json\n{\"event\":\"task.started\"}\n");
    let out = r.mj(&["check"]).code(10);
    let fails = lines_of(&out, "FAIL", "ledger");
    assert_eq!(fails.len(), 2, "{}", out.stdout);
    assert!(fails[0].starts_with(&format!("FAIL ledger .ai/local/state/ledger.jsonl:{} — ", n + 1)), "{}", fails[0]);
    assert!(fails[1].starts_with(&format!("FAIL ledger .ai/local/state/ledger.jsonl:{} — ", n + 2)), "{}", fails[1]);
    insta::assert_snapshot!(fails.join("\n"), @"
    FAIL ledger .ai/local/state/ledger.jsonl:3 — not a JSON object  [reproduce: git majordomus history --validate]
    FAIL ledger .ai/local/state/ledger.jsonl:4 — lacks ts  [reproduce: git majordomus history --validate]
    ");
}

#[test]
fn check_reports_a_diverged_task_record() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.commit_file("lib/a.rs", "1\n");
    r.start("task");
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.commit_file("lib/b.rs", "2\n");
    let out = r.mj(&["check"]).ok();
    insta::assert_snapshot!(lines_of(&out, "WARN", "task").join("\n"), @"WARN task t-[ID] — task record diverged (recorded head [HEX] on main); the recorded head is not an ancestor of HEAD: trust git, not the record  [reproduce: git majordomus context]");
    // watch calls it state drift.
    let w = r.mj(&["watch"]).code(11);
    insta::assert_snapshot!(lines_of(&w, "DRIFT", "state").join("\n"), @"DRIFT state t-[ID] — task record diverged (recorded head [HEX] on main); the recorded head is not an ancestor of HEAD: trust git, not the record  [reproduce: git majordomus context]");
}

#[test]
fn check_json_is_one_findings_document_whatever_the_exit_code() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj(&["question", "add", "Open?"]).ok();
    let out = r.mj(&["check", "--json"]).code(10);
    // Exactly the keys of the findings document: its schema allows no other.
    let v = findings(&out.stdout);
    assert!(!v.is_empty());
    if crate::common::have(crate::common::Tool::SurfacesVenv) {
        let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/findings.schema.json");
        let mut extra: serde_json::Value = doc(&out.stdout);
        extra["findings"][0]["extra"] = serde_json::json!(1);
        assert!(!crate::common::validate(&schema, &extra).0, "a key the type does not print is refused");
    }
    assert!(v.iter().any(|f| f["level"] == "FAIL"
        && f["category"] == "blockers"
        && f["message"].as_str().is_some_and(|m| m.contains("Open?"))));
    // Also when everything passes, with the global flag after the command.
    r.mj(&["question", "resolve", "1", "--answer", "yes"]).ok();
    let ok = r.mj(&["check", "--json"]).ok();
    let v = findings(&ok.stdout);
    assert!(v.iter().all(|f| f["level"] == "OK"), "{v:?}");
}

// ---------------------------------------------------------------------------------------------
// watch

#[test]
fn watch_exit_codes_clean_drift_and_fail() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // No task: reported, exit 0.
    insta::assert_snapshot!(r.mj(&["watch"]).ok().stdout, @r#"
    INFO task .ai/local/state/current.yaml — no task record; nothing to compare  [reproduce: git majordomus start "<task>" --scope <path>]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — no ledger yet  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 0 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    "#);

    r.start("task");
    let clean = r.mj(&["watch"]).ok();
    insta::assert_snapshot!(clean.stdout, @r#"
    OK task t-[ID] — "task" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK state t-[ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    OK state t-[ID] — outcome active; the ledger has not finished it  [reproduce: git majordomus history --task t-[ID] --all]
    OK checkpoint t-[ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 1 line(s), all valid  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 1 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    "#);

    // handed_over by hand: no task.handed_over in the ledger, no handover names it.
    set_outcome(&r, "handed_over");
    let drift = r.mj(&["watch"]).code(11);
    insta::assert_snapshot!(drift.stdout, @r#"
    OK task t-[ID] — "task" (handed_over, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK state t-[ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    DRIFT state t-[ID] — outcome handed_over, but no task.handed_over in the ledger closes it  [reproduce: git majordomus history --task t-[ID] --all]
    DRIFT handover t-[ID] — task handed_over, but no handover record names it  [reproduce: git majordomus handover --resolve --task t-[ID]]  [fix: git majordomus handover < <body>]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 1 line(s), all valid  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 1 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    "#);
    let json = r.mj(&["watch", "--json"]).code(11);
    let v = findings(&json.stdout);
    assert!(v.iter().any(|f| f["level"] == "DRIFT" && f["category"] == "handover"), "{v:?}");

    // A malformed ledger line is a FAIL, which wins over DRIFT.
    append(&r.state("ledger.jsonl"), "{\"ts\":\"2026-09-03T20:00:00Z\"}\n");
    let fail = r.mj(&["watch"]).code(10);
    insta::assert_snapshot!(lines_of(&fail, "FAIL", "ledger").join("\n"), @"FAIL ledger .ai/local/state/ledger.jsonl:2 — lacks event  [reproduce: git majordomus history --validate]");
}

#[test]
fn watch_is_clean_after_a_real_handover_close_and_drifts_on_a_hand_written_terminal_outcome() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let out = r.mj(&["watch"]).ok();
    insta::assert_snapshot!(out.stdout, @r#"
    OK task t-[ID] — "task" (handed_over, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK state t-[ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    OK state t-[ID] — outcome handed_over; task.handed_over closed it at 2026-09-03T20:00:00Z  [reproduce: git majordomus history --task t-[ID] --all]
    OK handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md — newest handover of t-[ID]; every required section present  [reproduce: git majordomus handover --resolve --task t-[ID]]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 2 line(s), all valid  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 2 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 1 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    "#);

    r.start("second");
    set_outcome(&r, "completed");
    let out = r.mj(&["watch"]).code(11);
    insta::assert_snapshot!(out.stdout, @r#"
    OK task t-[ID] — "second" (completed, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK state t-[ID] — task record exact (recorded head [HEX] on main)  [reproduce: git majordomus context]
    DRIFT verification t-[ID] — outcome completed without a task.finished line in the ledger: nothing verified it  [reproduce: git majordomus history --task t-[ID] --all]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 3 line(s), all valid  [reproduce: git majordomus history --validate]
    OK retention .ai/local/state/ledger.jsonl — ledger 3 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 1 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget watch — ran in [N] ms, budget 300 ms (benchmark.budget.watch_ms)  [reproduce: time git majordomus watch]
    "#);
}

#[test]
fn watch_drifts_on_an_old_checkpoint_and_on_retention() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    env.set_now("2026-09-03T21:00:00Z");
    let out = r.mj(&["watch"]).code(11);
    let drifts = lines_of(&out, "DRIFT", "checkpoint");
    insta::assert_snapshot!(drifts.join("\n"), @"DRIFT checkpoint t-[ID] — last checkpoint 60m ago, older than the interval 15m (profile implementation); run git majordomus checkpoint or check --checkpoint  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]  [fix: git majordomus checkpoint < <note>]");
    r.mj(&["check", "--checkpoint"]).ok();
    r.mj(&["watch"]).ok();

    let policy = r.read(".ai/repo/policy.yaml").replace("retention_max_lines: 50000", "retention_max_lines: 1");
    r.write(".ai/repo/policy.yaml", &policy);
    insta::assert_snapshot!(lines_of(&r.mj(&["watch"]).code(11), "DRIFT", "retention").join("\n"), @"DRIFT retention .ai/local/state/ledger.jsonl — ledger 2 lines, cap 1 (ledger.retention_max_lines); run git majordomus history --rotate  [reproduce: wc -l .ai/local/state/ledger.jsonl]");
}

// ---------------------------------------------------------------------------------------------
// doctor

#[test]
fn doctor_is_ok_on_a_healthy_store_with_retention_figures() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj_in(&["checkpoint"], "progress\n").ok();
    r.mj_in(&["handover"], HANDOVER).ok();
    // No session or knowledge store: nothing is said about them.
    insta::assert_snapshot!(r.mj(&["doctor"]).ok().stdout, @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    OK task t-[ID] — "task" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK records .ai/local/state/checkpoints — 1 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 1 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — 3 line(s), all valid  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK retention .ai/local/state/ledger.jsonl — ledger 3 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 1 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 1 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    "#);
    // Over a cap is a WARN with the figures, never a FAIL.
    r.write(
        ".ai/repo/policy.yaml",
        &r.read(".ai/repo/policy.yaml").replace("retention_max_files: 200", "retention_max_files: 0"),
    );
    insta::assert_snapshot!(lines_of(&r.mj(&["doctor"]).ok(), "WARN", "retention").join("\n"), @"WARN retention .ai/local/state/handovers — handovers 1 files, cap 0 (handover.retention_max_files); move old handovers out of the store  [reproduce: git majordomus handover --list]");
}

#[test]
fn doctor_fails_naming_a_garbage_record_file() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj_in(&["checkpoint"], "fine\n").ok();
    r.write(&format!(".ai/local/state/checkpoints/{RECORD_NAME}"), "garbage, no front matter\n");
    let bad_schema = RECORD_NAME.replace("0123456789abcdef", "fedcba9876543210");
    r.write(
        &format!(".ai/local/state/handovers/{bad_schema}"),
        "---\nschema_version: 7\nhead: NONE\ncreated_at: 2026-09-03T19:50:00Z\n---\n\nbody\n",
    );
    r.write(".ai/local/state/handovers/README.md", "not a record; ignored\n");
    let out = r.mj(&["doctor"]).code(10);
    insta::assert_snapshot!(lines_of(&out, "FAIL", "records").join("\n"), @"
    FAIL records .ai/local/state/checkpoints/20260903T195000Z--main--[HEX]--[HEX].md — the resolver skips this checkpoint: no front matter  [reproduce: git majordomus checkpoint --list]
    FAIL records .ai/local/state/handovers/20260903T195000Z--main--[HEX]--[HEX].md — the resolver skips this handover: unknown schema_version  [reproduce: git majordomus handover --list]
    ");
    // Readers only warn.
    insta::assert_snapshot!(r.mj(&["checkpoint", "--list"]).ok().shown(), @"
    2026-09-03T20:00:00Z  t-[ID]    exact              .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    --- stderr
    warning: skipped .ai/local/state/checkpoints/20260903T195000Z--main--[HEX]--[HEX].md: no front matter
    --- exit 0
    ");

    let json = r.mj(&["doctor", "--json"]).code(10);
    let f = findings(&json.stdout);
    assert!(
        f.iter().any(|x| x["level"] == "FAIL" && x["subject"] == format!(".ai/local/state/checkpoints/{RECORD_NAME}")),
        "{f:?}"
    );
    assert!(
        f.iter()
            .any(|x| x["category"] == "retention" && x["message"].as_str().is_some_and(|m| m.starts_with("ledger "))),
        "{f:?}"
    );
}

#[test]
fn doctor_warns_naming_each_staging_file_an_interrupted_write_left() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["doctor"]).ok();
    r.write(".ai/local/state/handovers/.tmp.a1b2c3", "---\nschema_version: 1\n");
    r.write(".ai/repo/sessions/.tmp.d4e5f6", "");
    let out = r.mj(&["doctor"]).ok(); // a WARN, not a FAIL: nothing half-written is ever read
    let warns = lines_of(&out, "WARN", "records");
    assert_eq!(
        warns,
        [
            "WARN records .ai/local/state/handovers/.tmp.a1b2c3 — staging file of an interrupted write, never read as a record; delete it when no git majordomus command is running  [reproduce: git majordomus doctor]  [fix: rm .ai/local/state/handovers/.tmp.a1b2c3]",
            "WARN records .ai/repo/sessions/.tmp.d4e5f6 — staging file of an interrupted write, never read as a record; delete it when no git majordomus command is running  [reproduce: git majordomus doctor]  [fix: rm .ai/repo/sessions/.tmp.d4e5f6]",
        ],
        "{}",
        out.stdout
    );
    std::fs::remove_file(r.root.join(".ai/local/state/handovers/.tmp.a1b2c3")).unwrap();
    std::fs::remove_file(r.root.join(".ai/repo/sessions/.tmp.d4e5f6")).unwrap();
    assert!(lines_of(&r.mj(&["doctor"]).ok(), "WARN", "records").is_empty());
}

#[test]
fn doctor_fails_on_a_record_symlinked_outside_the_checkout() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj_in(&["handover"], HANDOVER).ok();
    let real = r.records("handovers").pop().unwrap();
    let outside = env.path().join("outside.md");
    std::fs::copy(r.state("handovers").join(&real), &outside).unwrap();
    let link = RECORD_NAME.replace("195000Z", "195500Z");
    std::os::unix::fs::symlink(&outside, r.state("handovers").join(&link)).unwrap();
    let out = r.mj(&["doctor"]).code(10);
    insta::assert_snapshot!(lines_of(&out, "FAIL", "records").join("\n"), @"FAIL records .ai/local/state/handovers/20260903T195500Z--main--[HEX]--[HEX].md — the resolver skips this handover: .ai/local/state/handovers/20260903T195500Z--main--[HEX]--[HEX].md is a symlink pointing outside the checkout; refusing to follow it  [reproduce: git majordomus handover --list]");
    // A symlink inside the checkout is fine.
    std::fs::remove_file(r.state("handovers").join(&link)).unwrap();
    std::os::unix::fs::symlink(r.state("handovers").join(&real), r.state("handovers").join(&link)).unwrap();
    r.mj(&["doctor"]).ok();
}

#[test]
fn doctor_fails_on_unregistered_events_broken_profiles_and_a_broken_policy() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    append(&r.state("ledger.jsonl"), "{\"ts\":\"2026-09-03T20:00:00Z\",\"event\":\"no.such\"}\n");
    insta::assert_snapshot!(lines_of(&r.mj(&["doctor"]).code(10), "FAIL", "ledger").join("\n"), @r#"FAIL ledger .ai/local/state/ledger.jsonl:2 — unregistered event "no.such"  [reproduce: git majordomus history --validate]"#);
    // check does not judge the registry (history --validate and doctor do).
    r.mj(&["check"]).ok();

    r.write(".ai/repo/profiles/routine.yaml", "name: routine\nbogus: 1\n");
    insta::assert_snapshot!(lines_of(&r.mj(&["doctor"]).code(10), "FAIL", "profile").join("\n"), @"FAIL profile .ai/repo/profiles/routine.yaml — .ai/repo/profiles/routine.yaml: unknown field `bogus`, expected one of `name`, `capability`, `effort`, `effort_escalation`, `verbosity`, `presentation`, `reasoning`, `checkpoint_interval`, `context`, `verification`, `output_contract` at line 2 column 1  [reproduce: cat .ai/repo/profiles/routine.yaml]");

    r.write(".ai/repo/policy.yaml", &format!("{}bogus_key: 1\n", r.read(".ai/repo/policy.yaml")));
    let out = r.mj(&["doctor"]).code(10);
    insta::assert_snapshot!(lines_of(&out, "FAIL", "policy").join("\n"), @"FAIL policy .ai/repo/policy.yaml — .ai/repo/policy.yaml: unknown field `bogus_key`, expected one of `version`, `context`, `profiles`, `verification`, `checkpoint`, `handover`, `ledger`, `session`, `knowledge`, `benchmark`, `continuity` at line 42 column 1  [reproduce: git majordomus check]");
    // check and watch need the policy: exit 10 as an error.
    insta::assert_snapshot!(r.mj(&["check"]).code(10).shown(), @"
    --- stderr
    error: .ai/repo/policy.yaml: unknown field `bogus_key`, expected one of `version`, `context`, `profiles`, `verification`, `checkpoint`, `handover`, `ledger`, `session`, `knowledge`, `benchmark`, `continuity` at line 42 column 1
    hint: fix the key it names; git majordomus init writes the defaults of every key
    --- exit 10
    ");
}

#[test]
fn doctor_fails_on_a_task_record_that_does_not_parse() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    std::fs::write(r.state("current.yaml"), "id: [unclosed\n").unwrap();
    insta::assert_snapshot!(lines_of(&r.mj(&["doctor"]).code(10), "FAIL", "task").join("\n"), @"FAIL task .ai/local/state/current.yaml — .ai/local/state/current.yaml does not parse: id: invalid type: sequence, expected a string at line 1 column 5  [reproduce: cat .ai/local/state/current.yaml]");
    r.mj(&["watch"]).code(10);
}

#[test]
fn without_the_layer_the_three_exit_12() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.repo("r");
    for cmd in ["check", "watch", "doctor"] {
        let out = r.mj(&[cmd]).code(12);
        assert_eq!(
            out.shown(),
            "--- stderr\nerror: no majordomus layer in this repository\nhint: run git majordomus init\n--- exit 12\n",
            "{cmd}"
        );
    }
}

#[test]
fn doctor_checks_the_session_stores_as_far_as_they_exist() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let out = r.mj(&["session", "start"]).ok();
    let sid = out.stdout.split_whitespace().nth(1).unwrap().to_string();
    let doc = r.mj(&["session", "context"]).ok().stdout.trim().to_string();
    insta::assert_snapshot!(lines_of(&r.mj(&["doctor"]).ok(), "OK", "sessions").join("\n"), @"OK sessions .ai/local/state/sessions-open — 1 open episode(s), each parses with a working context  [reproduce: git majordomus session status]");

    // A working context without head cannot be compared with git; an episode without one fails.
    let text = r.read(&doc);
    let no_head: String = text.lines().filter(|l| !l.starts_with("head:")).map(|l| format!("{l}\n")).collect();
    r.write(&doc, &no_head);
    let out = r.mj(&["doctor"]).code(10);
    let fails = lines_of(&out, "FAIL", "sessions");
    assert!(fails.iter().all(|l| l.starts_with(&format!("FAIL sessions {doc} — "))), "{}", out.stdout);
    insta::assert_snapshot!(fails.join("\n"), @"FAIL sessions .ai/local/session-contexts/20260903T200000Z--s-[ID].md — working context without head: it cannot be compared with git  [reproduce: head -n 16 .ai/local/session-contexts/20260903T200000Z--s-[ID].md]");
    std::fs::remove_file(r.root.join(&doc)).unwrap();
    let out = r.mj(&["doctor"]).code(10);
    let fails = lines_of(&out, "FAIL", "sessions");
    insta::assert_snapshot!(fails.join("\n"), @"FAIL sessions .ai/local/state/sessions-open/hand.yaml — episode s-[ID] has no working-context document in .ai/local/session-contexts (a start killed before it wrote one)  [reproduce: cat .ai/local/state/sessions-open/hand.yaml]  [fix: git majordomus session close --outcome interrupted --provider-session hand]");

    // A closed record of another schema is skipped by readers: doctor fails naming it.
    std::fs::write(r.state("sessions-open/hand.yaml"), "not: [an episode\n").unwrap();
    let bad = format!("20260903T195000Z--{sid}--main--abcdef1--0123456789abcdef.md");
    r.write(
        &format!(".ai/repo/sessions/{bad}"),
        "---\nschema: session/v9\nsession_id: x\nhead: NONE\ncreated_at: 2026-09-03T19:50:00Z\n---\n\nbody\n",
    );
    let out = r.mj(&["doctor"]).code(10);
    insta::assert_snapshot!(lines_of(&out, "FAIL", "sessions").join("\n"), @"
    FAIL sessions .ai/local/state/sessions-open/hand.yaml — open episode record does not parse  [reproduce: cat .ai/local/state/sessions-open/hand.yaml]
    FAIL sessions .ai/repo/sessions/20260903T195000Z--s-[ID]--main--[HEX]--[HEX].md — readers skip this closed session record: unknown schema  [reproduce: head -n 30 .ai/repo/sessions/20260903T195000Z--s-[ID]--main--[HEX]--[HEX].md]
    ");
}

#[test]
fn doctor_is_clean_after_a_session_is_closed() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "start"]).ok();
    r.mj(&["session", "close"]).ok();
    insta::assert_snapshot!(lines_of(&r.mj(&["doctor"]).ok(), "OK", "sessions").join("\n"), @"
    OK sessions .ai/local/state/sessions-open — 0 open episode(s), each parses with a working context  [reproduce: git majordomus session status]
    OK sessions .ai/repo/sessions — 1 closed session record(s), all readable  [reproduce: git majordomus session list --all]
    ");
}

#[test]
fn doctor_knowledge_rules_apply_only_where_knowledge_exists() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // The stopped-writer rule counts stale_minutes; this test's ages are set for 48 h.
    r.write(
        ".ai/repo/policy.yaml",
        &r.read(".ai/repo/policy.yaml").replace("stale_minutes: 5760", "stale_minutes: 2880"),
    );
    // No knowledge.derived in the ledger and no knowledge store: nothing is said.
    insta::assert_snapshot!(r.mj(&["doctor"]).ok().stdout, @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    INFO policy session.freshness.stale_minutes — 2880 is the old default (48 h: a Friday-evening handover is stale on Monday); the default is now 5760 — change it in .ai/repo/policy.yaml if a working week should not age a handover into history  [reproduce: git majordomus doctor]
    INFO task .ai/local/state/current.yaml — no task record; nothing to compare  [reproduce: git majordomus start "<task>" --scope <path>]
    OK records .ai/local/state/checkpoints — 0 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 0 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — no ledger yet  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK retention .ai/local/state/ledger.jsonl — ledger 0 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    "#);
    // The newest closed episode has no knowledge.derived and is older than stale_minutes.
    append(
        &r.state("ledger.jsonl"),
        concat!(
            "{\"ts\":\"2026-08-20T10:00:00Z\",\"event\":\"knowledge.derived\",\"head\":\"NONE\",\"branch\":\"main\",\"by\":\"x\",\"episode\":\"s-old\",\"written\":1,\"unchanged\":0,\"paths\":[],\"skipped\":0}\n",
            "{\"ts\":\"2026-09-01T10:00:00Z\",\"event\":\"session.closed\",\"head\":\"NONE\",\"branch\":\"main\",\"by\":\"x\",\"session\":\"s-new\",\"outcome\":\"closed\",\"session_path\":\"p\"}\n",
        ),
    );
    insta::assert_snapshot!(lines_of(&r.mj(&["doctor"]).code(10), "FAIL", "knowledge").join("\n"), @"FAIL knowledge majordomus.knowledge-observed — the newest closed episode s-new (2d ago) has no knowledge.derived: the knowledge writer has stopped  [reproduce: git majordomus history --event knowledge.derived]");
    // A candidate whose id does not match its file name breaks integrity.
    r.write(
        ".ai/repo/knowledge/candidates/s-new-0123456789ab.md",
        "---\nschema: knowledge/v1\nid: s-other-0123456789ab\nkind: knowledge\nclass: fact\ntitle: t\nstatus: candidate\ndate: 2026-09-01\n---\n# t\nd\n",
    );
    let out = r.mj(&["doctor"]).code(10);
    let knowledge: Vec<&str> = out.stdout.lines().filter(|l| l.contains(" knowledge")).collect();
    insta::assert_snapshot!(knowledge.join("\n"), @"
    FAIL knowledge majordomus.knowledge-observed — the newest closed episode s-new (2d ago) has no knowledge.derived: the knowledge writer has stopped  [reproduce: git majordomus history --event knowledge.derived]
    FAIL knowledge-integrity .ai/repo/knowledge/candidates/s-new-[HEX].md — id does not match the file name s-new-[HEX]  [reproduce: git majordomus knowledge check]
    OK knowledge candidates-reviewed — 0 candidates awaiting review, cap 40  [reproduce: git majordomus knowledge candidates]
    ");
}

/// docs/REFERENCE.md#origin: `init` writes the new freshness defaults; an existing policy keeps its values and
/// `doctor` says (INFO) when they are the old ones.
#[test]
fn doctor_names_the_old_freshness_defaults() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let policy = r.read(".ai/repo/policy.yaml");
    assert!(policy.lines().any(|l| l.trim() == "stale_minutes: 5760"), "{policy}");
    insta::assert_snapshot!(r.mj(&["doctor"]).ok().stdout, @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    INFO task .ai/local/state/current.yaml — no task record; nothing to compare  [reproduce: git majordomus start "<task>" --scope <path>]
    OK records .ai/local/state/checkpoints — 0 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 0 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — no ledger yet  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK retention .ai/local/state/ledger.jsonl — ledger 0 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    "#);
    r.write(".ai/repo/policy.yaml", &policy.replace("stale_minutes: 5760", "stale_minutes: 2880"));
    let out = r.mj(&["doctor"]).ok();
    insta::assert_snapshot!(lines_of(&out, "INFO", "policy").join("\n"), @"INFO policy session.freshness.stale_minutes — 2880 is the old default (48 h: a Friday-evening handover is stale on Monday); the default is now 5760 — change it in .ai/repo/policy.yaml if a working week should not age a handover into history  [reproduce: git majordomus doctor]");
}

#[test]
fn check_bounds_each_list_and_says_how_many_more_with_the_total_in_json() {
    // Without a bound, check printed one line per untracked file: 40,207 lines on a clone with
    // 20,000 of them.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    let n = 300;
    for i in 0..n {
        r.write(&format!("out/f{i:03}.txt"), "x\n");
    }
    let out = r.mj(&["check"]).code(10);
    let fails = lines_of(&out, "FAIL", "scope");
    let max = 20; // context.max_list_items of the default policy
    assert_eq!(fails.len(), max + 1, "{}", out.stdout);
    insta::assert_snapshot!(fails[max], @"FAIL scope … and 280 more — 280 more scope finding(s) at FAIL like those above (300 in all; `total` in --json)  [reproduce: git diff --name-only [HEX]; git status --porcelain]");
    assert!(out.stdout.len() < 8 * 1024, "{} bytes", out.stdout.len());
    let all = findings(&r.mj(&["--json", "check"]).code(10).stdout);
    let scope: Vec<&serde_json::Value> = all.iter().filter(|f| f["category"] == "scope").collect();
    assert_eq!(scope.len(), max + 1);
    assert_eq!(scope[max]["total"], n);
    assert!(scope[..max].iter().all(|f| f.get("total").is_none()));
}

#[test]
fn the_host_files_hooks_install_wrote_are_the_tools_not_the_tasks_work() {
    // `hooks install` creates `.claude/`; that is not the task's own work (docs/REFERENCE.md#identity): were
    // it, publish would say dirty and finish --check would fail outside scope on
    // `.claude/settings.json`.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("task");
    r.mj(&["hooks", "install", "--claude-code"]).ok();
    assert!(r.git(&["status", "--porcelain"]).contains(".claude/"), "git sees the new directory");
    let scope_fails = |out: &Output| lines_of(out, "FAIL", "scope").len();
    let out = r.mj(&["check"]);
    assert_eq!(scope_fails(&out), 0, "{}", out.stdout);
    let st = json::read("continuity-status.schema.json", &r.mj(&["--json", "continuity", "status"]).ok().stdout);
    assert_eq!(st["working_tree"], "clean", "{st}");
    // Committed as it is, it is still the tool's.
    r.git(&["add", ".claude/settings.json"]);
    r.git(&["commit", "-q", "-m", "hooks"]);
    let out = r.mj(&["check"]);
    assert_eq!(scope_fails(&out), 0, "{}", out.stdout);
    // The user's own setting in it makes it the user's change again.
    let text = r.read(".claude/settings.json");
    r.write(".claude/settings.json", &text.replacen('{', "{\n  \"model\": \"mine\",", 1));
    insta::assert_snapshot!(lines_of(&r.mj(&["check"]).code(10), "FAIL", "scope").join("\n"), @"FAIL scope .claude/settings.json — touched since the task started, outside its scope (lib)  [reproduce: git diff --name-only [HEX]; git status --porcelain]");
    let st = json::read("continuity-status.schema.json", &r.mj(&["--json", "continuity", "status"]).ok().stdout);
    assert_eq!(st["working_tree"], "dirty");
}

#[test]
fn doctor_flags_an_episode_left_open_past_the_stale_threshold_and_its_fix_closes_it() {
    // An episode left open by a crash is flagged, and the finding names the command that fixes it.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj_in(
        &["hook", "codex", "start"],
        r#"{"session_id":"crashed-1","source":"startup","hook_event_name":"SessionStart"}"#,
    )
    .ok();
    let out = r.mj(&["doctor"]).ok();
    assert!(!out.stdout.contains("past session.freshness.stale_minutes"), "{}", out.stdout);
    env.set_now("2026-09-20T00:00:00Z");
    let out = r.mj(&["doctor"]).ok();
    let line = out
        .stdout
        .lines()
        .find(|l| l.contains("past session.freshness.stale_minutes"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    insta::assert_snapshot!(line, @"WARN sessions .ai/local/state/sessions-open/crashed-1.yaml — episode s-[ID] (codex) has been open with no activity for 388 h, past session.freshness.stale_minutes (96 h): its host never sent its end  [reproduce: cat .ai/local/state/sessions-open/crashed-1.yaml]  [fix: git majordomus session close --outcome interrupted --provider-session crashed-1]");
    let fix = line.split("[fix: ").nth(1).and_then(|f| f.strip_suffix(']')).expect("a fix");
    assert_eq!(fix, "git majordomus session close --outcome interrupted --provider-session crashed-1");
    let all = findings(&r.mj(&["--json", "doctor"]).ok().stdout);
    assert!(all.iter().any(|f| f["fix"] == fix));
    // The fix, run as printed, closes it.
    let words: Vec<&str> = fix.split(' ').skip(2).collect();
    r.mj(&words).ok();
    assert!(!r.mj(&["doctor"]).ok().stdout.contains("past session.freshness.stale_minutes"));
}

#[test]
fn files_a_merge_or_a_rebase_of_main_brings_in_are_not_the_tasks_work() {
    // After `git rebase main` or `git merge main`, upstream's README.md is not "touched since the
    // task started, outside its scope": only the task's own work counts (docs/REFERENCE.md#identity).
    for how in ["rebase", "merge"] {
        let env = TestEnv::new();
        let _snap = env.snapshots();
        let _snap = env.snapshots();
        let r = env.ready_repo("r");
        r.commit_file("src/a.c", "a\n");
        r.git(&["checkout", "-q", "-b", "feat"]);
        r.mj(&["start", "src work", "--scope", "src"]).ok();
        r.commit_file("src/a.c", "a\nb\n");
        r.git(&["checkout", "-q", "main"]);
        r.commit_file("README.md", "up\n");
        r.git(&["checkout", "-q", "feat"]);
        match how {
            "rebase" => r.git(&["rebase", "-q", "main"]),
            _ => r.git(&["merge", "-q", "--no-edit", "main"]),
        };
        let out = r.mj(&["check"]);
        let scope = |out: &Output| out.stdout.lines().filter(|l| l.contains(" scope ")).collect::<Vec<_>>().join("\n");
        insta::allow_duplicates! {
            insta::assert_snapshot!(scope(&out), @r#"
            OK task t-[ID] — "src work" (active, profile implementation, scope src)  [reproduce: cat .ai/local/state/current.yaml]
            OK scope src — 1 file(s) touched since the task started, all inside its scope  [reproduce: git diff --name-only [HEX]; git status --porcelain]
            "#);
            // The task's own edit outside its scope still fails, merged or not.
            r.commit_file("docs/mine.md", "x\n");
            insta::assert_snapshot!(scope(&r.mj(&["check"]).code(10)), @r#"
            OK task t-[ID] — "src work" (active, profile implementation, scope src)  [reproduce: cat .ai/local/state/current.yaml]
            FAIL scope docs/mine.md — touched since the task started, outside its scope (src)  [reproduce: git diff --name-only [HEX]; git status --porcelain]
            "#);
        }
    }
}
