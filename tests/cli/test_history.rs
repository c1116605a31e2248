//! Tests of `history` (docs/REFERENCE.md#history; docs/REFERENCE.md#front-matter items 17 and 18).
#![allow(clippy::unwrap_used)]

use crate::common::json::{self, findings};
use crate::common::{Repo, TestEnv, HANDOVER};

const LEDGER: &str = ".ai/local/state/ledger.jsonl";

/// What `history --rotate --json` printed, once it is valid under `schemas/history-rotate.schema.json`.
fn rotation(stdout: &str) -> &str {
    json::read("history-rotate.schema.json", stdout);
    stdout
}

/// A hand-written, valid ledger line.
fn hand_line(n: usize) -> String {
    format!(
        r#"{{"ts":"2026-09-03T19:0{n}:00Z","event":"decision.recorded","head":"NONE","branch":"main","by":"hand","task_id":"none","decision":"d{n}"}}"#
    )
}

fn write_ledger(r: &Repo<'_>, lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    r.write(LEDGER, &text);
}

fn set_cap(r: &Repo<'_>, cap: usize) {
    let policy = r.read(".ai/repo/policy.yaml");
    assert!(policy.lines().any(|l| l.trim() == "retention_max_lines: 50000"), "{policy}");
    r.write(
        ".ai/repo/policy.yaml",
        &policy.replace("retention_max_lines: 50000", &format!("retention_max_lines: {cap}")),
    );
}

/// Builds a ledger with real commands at distinct times: two tasks, checkpoints, a handover,
/// a decision and a question. Returns the two task ids.
fn busy_repo(env: &TestEnv) -> (Repo<'_>, String, String) {
    let r = env.ready_repo("r");
    env.set_now("2026-09-03T19:00:00Z");
    let a = r.start("first task");
    env.set_now("2026-09-03T19:10:00Z");
    let _ = r.mj_in(&["checkpoint"], "one step\n").ok();
    env.set_now("2026-09-03T19:15:00Z");
    let _ = r.mj_in(&["checkpoint"], "").ok();
    env.set_now("2026-09-03T19:20:00Z");
    let _ = r.mj_in(&["handover", "--close"], HANDOVER).ok();
    env.set_now("2026-09-03T19:30:00Z");
    let b = r.start("second task");
    env.set_now("2026-09-03T19:40:00Z");
    let _ = r.mj(&["decision", "add", "Use the ledger", "--why", "it is durable"]).ok();
    env.set_now("2026-09-03T19:50:00Z");
    let _ = r.mj(&["question", "add", "Which URL?"]).ok();
    env.set_now("2026-09-03T20:00:00Z");
    (r, a, b)
}

#[test]
fn list_format_filters_and_trailer() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, a, b) = busy_repo(&env);
    let head7 = &r.head()[..7];
    let events: Vec<String> = r.ledger().iter().map(|v| v["event"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        events,
        [
            "task.started",
            "task.checkpoint",
            "task.checkpoint",
            "task.handed_over",
            "task.started",
            "decision.recorded",
            "question.opened"
        ]
    );

    let out = r.mj(&["history"]).ok().stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "everything fits in the default limit, no trailer\n{out}");
    let line = |ts: &str, ev: &str, task: &str, detail: &str| {
        format!("{}  {:<19} {:<22} {:<8} {}", ts, ev, task, head7, detail)
    };
    assert_eq!(lines[0], line("2026-09-03T19:00:00Z", "task.started", &a, "profile=implementation scope=lib"));
    let ckpt = r.records("checkpoints");
    assert_eq!(ckpt.len(), 1);
    assert_eq!(lines[1], line("2026-09-03T19:10:00Z", "task.checkpoint", &a, &ckpt[0]));
    assert_eq!(lines[2], line("2026-09-03T19:15:00Z", "task.checkpoint", &a, "(no body)"));
    let ho = r.records("handovers");
    assert_eq!(lines[3], line("2026-09-03T19:20:00Z", "task.handed_over", &a, &format!("{} closed=true", ho[0])));
    assert_eq!(lines[5], line("2026-09-03T19:40:00Z", "decision.recorded", &b, "Use the ledger"));
    assert_eq!(lines[6], line("2026-09-03T19:50:00Z", "question.opened", &b, "Which URL?"));

    // --task
    // (the two tasks' ids shown as [A] and [B])
    let ab = |out: String| out.replace(&a, "[A]").replace(&b, "[B]");
    insta::assert_snapshot!(ab(r.mj(&["history", "--task", &a]).ok().stdout), @"
    2026-09-03T19:00:00Z  task.started        [A]  [HEX]  profile=implementation scope=lib
    2026-09-03T19:10:00Z  task.checkpoint     [A]  [HEX]  20260903T191000Z--main--[HEX]--[HEX].md
    2026-09-03T19:15:00Z  task.checkpoint     [A]  [HEX]  (no body)
    2026-09-03T19:20:00Z  task.handed_over    [A]  [HEX]  20260903T192000Z--main--[HEX]--[HEX].md closed=true
    ");
    // --event
    insta::assert_snapshot!(ab(r.mj(&["history", "--event", "task.started"]).ok().stdout), @"
    2026-09-03T19:00:00Z  task.started        [A]  [HEX]  profile=implementation scope=lib
    2026-09-03T19:30:00Z  task.started        [B]  [HEX]  profile=implementation scope=lib
    ");
    // --since relative (now is 20:00) and ISO
    let out = r.mj(&["history", "--since", "25m"]).ok().stdout;
    let ts: Vec<&str> = out.lines().map(|l| &l[..20]).collect();
    assert_eq!(ts, ["2026-09-03T19:40:00Z", "2026-09-03T19:50:00Z"]);
    assert_eq!(r.mj(&["history", "--since", "1h"]).ok().stdout.lines().count(), 7);
    assert_eq!(r.mj(&["history", "--since", "600s"]).ok().stdout.lines().count(), 1);
    assert_eq!(r.mj(&["history", "--since", "2026-09-03T19:30:00Z"]).ok().stdout.lines().count(), 3);
    assert_eq!(r.mj(&["history", "--since", "2026-09-04"]).ok().stdout, "no matching events\n");
    insta::assert_snapshot!(r.mj(&["history", "--since", "yesterday"]).code(2).shown(), @r#"
    --- stderr
    error: history: --since "yesterday" is neither Nm, Nh, Nd, Ns nor an ISO time
    hint: use a form such as 30m, 2h, 7d, 45s or 2026-09-03T19:30:12Z
    --- exit 2
    "#);
    // combined
    assert_eq!(r.mj(&["history", "--task", &b, "--event", "task.started"]).ok().stdout.lines().count(), 1);
    assert_eq!(r.mj(&["history", "--task", "no-such-task"]).ok().stdout, "no matching events\n");
    // --limit: the newest N, oldest first, then the trailer
    let out = r.mj(&["history", "--limit", "2"]).ok().stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("2026-09-03T19:40:00Z  decision.recorded"), "{out}");
    assert!(lines[1].starts_with("2026-09-03T19:50:00Z  question.opened"), "{out}");
    assert_eq!(lines[2], "(2 of 7 events; --all for everything)");
    let out = r.mj(&["history", "--event", "task.checkpoint", "--limit", "1"]).ok().stdout;
    assert!(out.ends_with("(1 of 2 events; --all for everything)\n"), "{out}");
    assert!(out.starts_with("2026-09-03T19:15:00Z"), "{out}");
    assert_eq!(r.mj(&["history", "--all"]).ok().stdout.lines().count(), 7);
    let _ = r.mj(&["history", "--limit", "2", "--all"]).code(2);
    let _ = r.mj(&["history", "--limit", "0"]).code(2);
}

#[test]
fn default_limit_is_twenty() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let lines: Vec<String> = (0..25)
        .map(|i| format!(r#"{{"ts":"2026-09-03T19:{i:02}:00Z","event":"decision.recorded","head":"NONE","branch":"main","by":"hand","task_id":"none","decision":"d{i}"}}"#))
        .collect();
    write_ledger(&r, &lines);
    let out = r.mj(&["history"]).ok().stdout;
    let shown: Vec<&str> = out.lines().collect();
    assert_eq!(shown.len(), 21);
    assert!(shown[0].starts_with("2026-09-03T19:05:00Z") && shown[0].ends_with(" d5"), "{out}");
    assert!(shown[19].ends_with(" d24"), "{out}");
    assert_eq!(shown[20], "(20 of 25 events; --all for everything)");
    assert_eq!(r.mj(&["history", "--all"]).ok().stdout.lines().count(), 25);
}

/// docs/PERFORMANCE.md#what-keeps-costs-flat-as-records-grow: a limited listing reads the ledger from its tail and does not count a long
/// ledger's earlier matches; `--all` and `--validate` stream every line.
#[test]
fn a_long_ledger_is_read_from_its_tail() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let lines: Vec<String> = (0..6000)
        .map(|i| format!(r#"{{"ts":"2026-09-03T19:00:00Z","event":"decision.recorded","head":"NONE","branch":"main","by":"hand","task_id":"t{}","decision":"d{i}"}}"#, i % 3))
        .collect();
    write_ledger(&r, &lines);
    let out = r.mj(&["history", "--limit", "3"]).ok().stdout;
    let shown: Vec<&str> = out.lines().collect();
    assert_eq!(shown.len(), 4, "{out}");
    assert!(shown[0].ends_with(" d5997") && shown[2].ends_with(" d5999"), "oldest first among the newest: {out}");
    assert_eq!(shown[3], "(the newest 3 events; --all for everything)");
    insta::assert_snapshot!(r.mj(&["history", "--task", "t1", "--limit", "2"]).ok().stdout, @"
    2026-09-03T19:00:00Z  decision.recorded   t1                     NONE     d5995
    2026-09-03T19:00:00Z  decision.recorded   t1                     NONE     d5998
    (the newest 2 events; --all for everything)
    ");
    let json = r.mj(&["history", "--limit", "2", "--json"]).ok().stdout;
    assert_eq!(json, format!("{}\n{}\n", lines[5998], lines[5999]), "JSON Lines carry no trailer");
    assert_eq!(r.mj(&["history", "--all"]).ok().stdout.lines().count(), 6000);
    insta::assert_snapshot!(r.mj(&["history", "--validate"]).ok().stdout, @"OK ledger .ai/local/state/ledger.jsonl — 6000 line(s), every one valid  [reproduce: git majordomus history --validate]");
}

#[test]
fn item_18_unknown_event_is_usage_error() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    // every known event is listed
    insta::assert_snapshot!(r.mj(&["history", "--event", "no.such"]).code(2).shown(), @r#"
    --- stderr
    error: history: unknown event "no.such"; known events: task.started, task.checkpoint, task.handed_over, task.finished, task.resumed, decision.recorded, question.opened, question.resolved, session.started, session.closed, ledger.rotated, provider.event.received, provider.event.failed, knowledge.derived, knowledge.promoted, knowledge.rejected, worktree.adopted
    --- exit 2
    "#);
}

#[test]
fn item_18_validate() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    let out = r.mj(&["history", "--validate"]).ok();
    assert!(out.stdout.starts_with("OK ledger .ai/local/state/ledger.jsonl — "), "{}", out.stdout);
    assert_eq!(r.mj(&["history", "--validate", "--quiet"]).ok().stdout, "", "quiet silences OK");

    let mut text = r.read(LEDGER);
    text.push_str(r#"{"event":"task.started","head":"NONE","branch":"main"}"#);
    text.push('\n');
    r.write(LEDGER, &text);
    let out = r.mj(&["history", "--validate"]).code(10);
    assert_eq!(
        out.stdout,
        "FAIL ledger .ai/local/state/ledger.jsonl:2 — line lacks ts  [reproduce: git majordomus history --validate]\n"
    );
    // readers skip the malformed line
    assert_eq!(r.mj(&["history"]).ok().stdout.lines().count(), 1);

    text.push_str("not json at all\n");
    text.push_str(r#"{"ts":"2026-09-03T20:00:00Z","event":"no.such","head":"NONE"}"#);
    text.push('\n');
    r.write(LEDGER, &text);
    let out = r.mj(&["history", "--validate"]).code(10);
    insta::assert_snapshot!(out.stdout, @r#"
    FAIL ledger .ai/local/state/ledger.jsonl:2 — line lacks ts  [reproduce: git majordomus history --validate]
    FAIL ledger .ai/local/state/ledger.jsonl:3 — line is not a JSON object  [reproduce: git majordomus history --validate]
    FAIL ledger .ai/local/state/ledger.jsonl:4 — unregistered event "no.such"  [reproduce: git majordomus history --validate]
    "#);

    // --json: the findings document, same exit code
    let out = r.mj(&["history", "--validate", "--json"]).code(10);
    let findings = findings(&out.stdout);
    assert_eq!(findings.len(), 3);
    assert_eq!(
        findings[0],
        serde_json::json!({
            "level": "FAIL",
            "category": "ledger",
            "subject": ".ai/local/state/ledger.jsonl:2",
            "message": "line lacks ts",
            "reproduce": "git majordomus history --validate"
        })
    );

    let _ = r.mj(&["history", "--validate", "--task", "x"]).code(2);
}

#[test]
fn json_prints_lines_verbatim_with_duplicate_event_key() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    let receipt = r#"{"ts":"2026-09-03T20:00:01Z","event":"provider.event.received","head":"NONE","branch":"main","by":"git-majordomus/0.1.0","provider":"claude-code","event":"start","provider_session":"abc"}"#;
    let mut text = r.read(LEDGER);
    text.push_str(receipt);
    text.push('\n');
    r.write(LEDGER, &text);

    let out = r.mj(&["history", "--json"]).ok();
    assert_eq!(out.stdout, text, "JSON Lines: every matching line verbatim");
    let out = r.mj(&["history", "--json", "--event", "provider.event.received"]).ok();
    assert_eq!(out.stdout, format!("{receipt}\n"), "the second event key survives");
    // readers take the FIRST event key: filtering on the second finds nothing
    assert_eq!(r.mj(&["history", "--json", "--event", "task.started"]).ok().stdout.lines().count(), 1);
    // text detail names the provider and the hook event
    let t = r.mj(&["history", "--event", "provider.event.received"]).ok().stdout;
    assert!(t.trim_end().ends_with("claude-code start"), "{t}");
    // --json honours --limit (no trailer)
    assert_eq!(r.mj(&["history", "--json", "--limit", "1"]).ok().stdout, format!("{receipt}\n"));
    assert_eq!(r.mj(&["history", "--json", "--task", "nope"]).ok().stdout, "");
}

#[test]
fn no_ledger_and_no_layer() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let _ = std::fs::remove_file(r.state("ledger.jsonl"));
    let out = r.mj(&["history"]).ok();
    assert!(out.stdout.starts_with("no ledger yet ("), "{}", out.stdout);
    assert_eq!(r.mj(&["history", "--json"]).ok().stdout, "");
    let _ = r.mj(&["history", "--validate"]).ok();
    set_cap(&r, 3);
    assert_eq!(r.mj(&["history", "--rotate"]).ok().stdout, "nothing to rotate: 0 lines, cap 3\n");

    let bare = env.repo("bare");
    insta::assert_snapshot!(bare.mj(&["history"]).code(12).shown(), @"
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    ");
}

#[test]
fn item_17_rotate() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    set_cap(&r, 3);
    // under (or at) the cap
    write_ledger(&r, &(1..=3).map(hand_line).collect::<Vec<_>>());
    assert_eq!(r.mj(&["history", "--rotate"]).ok().stdout, "nothing to rotate: 3 lines, cap 3\n");
    let out = r.mj(&["history", "--rotate", "--json"]).ok();
    insta::assert_snapshot!(rotation(&out.stdout), @r#"
    {
      "result": "nothing",
      "lines": 3,
      "cap": 3
    }
    "#);
    assert_eq!(r.read(LEDGER).lines().count(), 3);

    // five lines, cap 3: the oldest two move
    let five: Vec<String> = (1..=5).map(hand_line).collect();
    write_ledger(&r, &five);
    let archive = ".ai/local/state/ledger.20260903T200000Z.jsonl.archived";
    let out = r.mj(&["history", "--rotate"]).ok();
    assert_eq!(out.stdout, format!("rotated: 2 line(s) to {archive}, 3 kept\n"));
    assert_eq!(r.read(archive), format!("{}\n{}\n", five[0], five[1]));
    let kept = r.read(LEDGER);
    let lines: Vec<&str> = kept.lines().collect();
    assert_eq!(lines.len(), 4, "cap + the ledger.rotated line");
    assert_eq!(lines[..3], [five[2].as_str(), five[3].as_str(), five[4].as_str()]);
    let ev = r.ledger().pop().unwrap();
    assert_eq!(ev["event"], "ledger.rotated");
    assert_eq!(ev["ts"], "2026-09-03T20:00:00Z");
    assert_eq!(ev["archived"], 2);
    assert_eq!(ev["kept"], 3);
    assert_eq!(ev["archive"], archive);
    assert_eq!(ev["head"], r.head());
    let _ = r.mj(&["history", "--validate"]).ok();
    let shown = r.mj(&["history", "--event", "ledger.rotated"]).ok().stdout;
    assert!(shown.trim_end().ends_with("archived=2 kept=3"), "{shown}");

    // same second again: the archive name exists → 15, nothing moves
    let mut text = kept.clone();
    text.push_str(&format!("{}\n{}\n", hand_line(6), hand_line(7)));
    r.write(LEDGER, &text);
    insta::assert_snapshot!(r.mj(&["history", "--rotate"]).code(15).shown(), @"
    --- stderr
    error: history --rotate: .ai/local/state/ledger.20260903T200000Z.jsonl.archived already exists; nothing was moved
    hint: archive names carry the second; rerun in a second, or move the existing archive aside
    --- exit 15
    ");
    assert_eq!(r.read(LEDGER), text, "ledger untouched");
    assert_eq!(r.read(archive), format!("{}\n{}\n", five[0], five[1]), "archive untouched");

    // a second later it works, and the ledger again ends at cap + 1
    env.set_now("2026-09-03T20:00:01Z");
    let out = r.mj(&["history", "--rotate", "--json"]).ok();
    insta::assert_snapshot!(rotation(&out.stdout), @r#"
    {
      "result": "rotated",
      "archived": 3,
      "kept": 3,
      "archive": ".ai/local/state/ledger.20260903T200001Z.jsonl.archived"
    }
    "#);
    assert_eq!(r.read(LEDGER).lines().count(), 4);
    assert_eq!(r.read(".ai/local/state/ledger.20260903T200001Z.jsonl.archived").lines().count(), 3);

    let _ = r.mj(&["history", "--rotate", "--limit", "3"]).code(2);
    let _ = r.mj(&["history", "--rotate", "--validate"]).code(2);
}
