//! Tests of `search` (docs/REFERENCE.md#search; docs/REFERENCE.md#front-matter item 22).
#![allow(clippy::unwrap_used)]

use crate::common::json::search;
use crate::common::{Repo, TestEnv};

const ALL_KINDS: &str = "handover, checkpoint, decision, question, prompt, history";

/// The kind column of each hit line (the trailer excluded).
fn kinds_of(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| !l.starts_with("search: "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// One record of every kind mentions "Zebra" in some case; returns the task id.
fn zoo(env: &TestEnv) -> (Repo<'_>, String) {
    let r = env.ready_repo("r");
    r.write(".ai/repo/prompts/review.md", "# Review\nLook for the ZEBRA crossing.\n");
    env.set_now("2026-09-03T19:00:00Z");
    let id = r.start("find the zebra");
    env.set_now("2026-09-03T19:10:00Z");
    let _ = r.mj_in(&["checkpoint"], "saw a zebra today\n").ok();
    env.set_now("2026-09-03T19:20:00Z");
    let _ = r
        .mj_in(
            &["handover"],
            "# Objective\nCatch the Zebra.\n\n# Current State\nRunning.\n\n# Next Action\nRun faster.\n",
        )
        .ok();
    env.set_now("2026-09-03T19:30:00Z");
    let _ = r.mj(&["decision", "add", "Zebras are striped", "--why", "evidence"]).ok();
    let _ = r.mj(&["question", "add", "Which zebra?"]).ok();
    env.set_now("2026-09-03T20:00:00Z");
    (r, id)
}

#[test]
fn item_22_no_hits_exit_12() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    let out = r.mj(&["search", "foo"]).code(12);
    assert_eq!(out.stdout, format!("no match for \"foo\" in {ALL_KINDS}\n"));
    let out = r.mj(&["search", "foo", "--kind", "history", "--kind", "decision"]).code(12);
    assert_eq!(out.stdout, "no match for \"foo\" in decision, history\n");
    let out = r.mj(&["search", "foo", "--json"]).code(12);
    assert_eq!(search(&out.stdout), serde_json::json!({"hits": [], "count": 0}));
}

#[test]
fn item_22_authority_order_and_case() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, _) = zoo(&env);
    let out = r.mj(&["search", "zEbRa"]).ok().stdout;
    let kinds = kinds_of(&out);
    let mut order: Vec<String> = kinds.clone();
    order.dedup();
    assert_eq!(order, ["handover", "checkpoint", "decision", "question", "prompt", "history"], "{out}");
    assert!(out.ends_with(&format!("search: {} match(es)\n", kinds.len())), "{out}");

    insta::assert_snapshot!(out, @r#"
    handover    .ai/local/state/handovers/20260903T192000Z--main--[HEX]--[HEX].md:19  Catch the Zebra.
    checkpoint  .ai/local/state/checkpoints/20260903T191000Z--main--[HEX]--[HEX].md:18  saw a zebra today
    decision    .ai/local/state/decisions.md:16  ## 2026-09-03 — Zebras are striped
    question    .ai/local/state/open-questions.md:10  - [unresolved] t-[ID] — Which zebra? (2026-09-03)
    prompt      .ai/repo/prompts/review.md:2  Look for the ZEBRA crossing.
    history     .ai/local/state/ledger.jsonl:5  {"ts":"2026-09-03T19:30:00Z","event":"question.opened","head":"[HEX]","branch":"main"
    history     .ai/local/state/ledger.jsonl:4  {"ts":"2026-09-03T19:30:00Z","event":"decision.recorded","head":"[HEX]","branch":"mai
    search: 7 match(es)
    "#);
    let lines: Vec<&str> = out.lines().collect();
    // history hits are ledger lines, newest first, cut to 120 characters
    let hist: Vec<&&str> = lines.iter().filter(|l| l.starts_with("history ")).collect();
    assert_eq!(hist.len(), 2, "{out}");
    for h in &hist {
        let text = h.split_once(".jsonl:").unwrap().1.split_once("  ").unwrap().1;
        assert!(text.chars().count() <= 120, "{h}");
    }
}

#[test]
fn json_kinds_limit_and_task() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, id) = zoo(&env);
    let out = r.mj(&["search", "zebra", "--json"]).ok();
    let found = search(&out.stdout);
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(found["count"], hits.len());
    for h in hits {
        let (path, n, text) =
            (h["path"].as_str().unwrap(), h["line"].as_u64().unwrap() as usize, h["text"].as_str().unwrap());
        assert!(!path.starts_with('/'), "repository-relative: {path}");
        let line = r.read(path).lines().nth(n - 1).unwrap().to_string();
        assert_eq!(text, line, "line numbers point at the hit");
        assert!(line.to_lowercase().contains("zebra"));
    }
    assert_eq!(found["hits"][0]["kind"], "handover");

    // --kind restricts (repeatable, commas too) and keeps authority order
    let out = r.mj(&["search", "zebra", "--kind", "prompt", "--kind", "checkpoint"]).ok().stdout;
    let mut kinds = kinds_of(&out);
    kinds.dedup();
    assert_eq!(kinds, ["checkpoint", "prompt"], "{out}");
    let out = r.mj(&["search", "zebra", "--kind", "decision,question"]).ok().stdout;
    let mut kinds = kinds_of(&out);
    kinds.dedup();
    assert_eq!(kinds, ["decision", "question"], "{out}");
    // the known kinds are named
    insta::assert_snapshot!(r.mj(&["search", "zebra", "--kind", "nope"]).code(2).shown(), @r#"
    --- stderr
    error: search: unknown kind "nope"; known kinds: handover, checkpoint, decision, question, prompt, history
    --- exit 2
    "#);

    // --limit is per kind
    let out = r.mj(&["search", "zebra", "--limit", "1"]).ok().stdout;
    assert_eq!(kinds_of(&out), ["handover", "checkpoint", "decision", "question", "prompt", "history"], "{out}");
    assert!(out.ends_with("search: 6 match(es)\n"));

    // --task: another task's records and events drop out
    let _ =
        r.mj_in(&["handover", "--close"], "# Objective\nZebra again.\n\n# Current State\nx\n\n# Next Action\ny\n").ok();
    env.set_now("2026-09-03T20:10:00Z");
    let other = r.start("other");
    let _ = r.mj_in(&["checkpoint"], "zebra of the other task\n").ok();
    let out = r.mj(&["search", "zebra", "--task", &id, "--json"]).ok();
    let found = search(&out.stdout);
    let hits = found["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    for h in hits {
        let text = h["text"].as_str().unwrap();
        assert!(!text.contains("other task"), "{h:?}");
        assert_ne!(h["kind"], "prompt", "prompts belong to no task");
        if h["kind"] == "history" {
            assert!(text.contains(&format!("\"task_id\":\"{id}\"")), "{h:?}");
        }
    }
    insta::assert_snapshot!(r.mj(&["search", "zebra", "--task", &other]).ok().stdout, @"
    checkpoint  .ai/local/state/checkpoints/20260903T201000Z--main--[HEX]--[HEX].md:18  zebra of the other task
    search: 1 match(es)
    ");
}

#[test]
fn records_newest_file_first() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    env.set_now("2026-09-03T20:01:00Z");
    let _ = r.mj_in(&["checkpoint"], "older needle\n").ok();
    env.set_now("2026-09-03T20:02:00Z");
    let _ = r.mj_in(&["checkpoint"], "newer needle\n").ok();
    let out = r.mj(&["search", "NEEDLE", "--kind", "checkpoint"]).ok().stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].ends_with("newer needle"), "{out}");
    assert!(lines[1].ends_with("older needle"), "{out}");
    assert_eq!(lines[2], "search: 2 match(es)");
    // no layer → 12 with the init hint
    let bare = env.repo("bare");
    insta::assert_snapshot!(bare.mj(&["search", "x"]).code(12).shown(), @"
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    ");
}
