//! Tests of `context` (docs/REFERENCE.md#context; docs/REFERENCE.md#front-matter items 19, 20, 21).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::json::{self, error};

use crate::common::{Output, Repo, TestEnv, HANDOVER};

/// The budget steps in their fixed order (docs/REFERENCE.md#context).
const DROP_ORDER: &[&str] = &[
    "history",
    "files",
    "documents",
    "reasoning",
    "decisions",
    "handover-state",
    "checkpoint-body",
    "handover-body",
    "checkpoint",
    "handover",
];

/// The headings of sections that are never dropped.
const KEPT: &[&str] = &["## GIT", "## TASK", "## PROFILE ", "## OPEN QUESTIONS ("];

/// A handover whose Current State is longer than the `handover-state` step keeps.
const LONG_STATE: &str = "# Objective\nFix the callback.\n\n# Current State\nReproduced.\nstate two\nstate three\nstate four\nstate five\nstate six\nstate seven\nstate eight\nstate nine\nstate ten\nstate eleven\nstate twelve\n\n# Next Action\nWrite the regression test.\n";

/// `(lines, limit, dropped)` from the `## BUDGET` block.
fn budget(stdout: &str) -> (usize, usize, Vec<String>) {
    let line =
        stdout.lines().skip_while(|l| *l != "## BUDGET").nth(1).unwrap_or_else(|| panic!("no BUDGET line:\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((words[1], words[3]), ("of", "lines"), "{line}");
    let dropped = line
        .split_once("(dropped: ")
        .map(|(_, d)| d.trim_end_matches(')').split(' ').map(str::to_string).collect())
        .unwrap_or_default();
    (words[0].parse().unwrap(), words[2].parse().unwrap(), dropped)
}

/// The lines under `## EXCLUDED`.
fn excluded(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| *l != "## EXCLUDED")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Every `## ` heading of the sections (EXCLUDED and BUDGET left out).
fn headings(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("## ") && *l != "## EXCLUDED" && *l != "## BUDGET")
        .map(str::to_string)
        .collect()
}

/// The section whose heading starts with `prefix`, up to the next `## ` heading.
fn section(stdout: &str, prefix: &str) -> String {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with(prefix));
    let head = lines.next().unwrap_or_else(|| panic!("no {prefix} section:\n{stdout}"));
    let body: Vec<&str> = lines.take_while(|l| !l.starts_with("## ")).collect();
    format!("{head}\n{}\n", body.join("\n")).trim_end().to_string()
}

/// `context --json`, valid under `schemas/context.schema.json`.
fn report(out: &Output) -> Value {
    json::read("context.schema.json", &out.stdout)
}

/// The section `id` of a `context --json` document.
fn json_section<'a>(j: &'a Value, id: &str) -> &'a Value {
    let all = json::at(j, "/sections").as_array().expect("sections");
    all.iter().find(|s| s["id"] == id).unwrap_or_else(|| panic!("no {id} section in\n{j:#}"))
}

fn context(r: &Repo<'_>, n: usize) -> Output {
    r.mj(&["context", "--budget-lines", &n.to_string()])
}

/// Every file under `.ai/` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().map(|e| e.unwrap()) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A debugging task with every droppable section filled: documents, a decision, a question, a
/// four-line checkpoint, a handover, a touched file and ledger history.
fn rich_repo(env: &TestEnv) -> (Repo<'_>, String) {
    let r = env.ready_repo("r");
    r.write("lib/README.md", "lib\ndocs\n");
    r.write("CLAUDE.md", "rules\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "docs"]);
    let out = r.mj(&["start", "Fix the callback", "--scope", "lib", "--profile", "debugging"]).ok();
    let id = out.stdout.split_whitespace().nth(1).unwrap().to_string();
    r.mj(&["decision", "add", "Use the ledger order", "--why", "seconds are too coarse"]).ok();
    r.mj(&["question", "add", "Which callback URL?"]).ok();
    r.mj_in(&["checkpoint"], "step one\nstep two\n\nstep three\nstep four\n").ok();
    r.mj_in(&["handover"], LONG_STATE).ok();
    r.write("lib/a.rs", "touched\n");
    (r, id)
}

#[test]
fn item_19_budget_drops_in_fixed_order_and_counts_the_printed_lines() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let (r, _) = rich_repo(&env);
    let full = r.mj(&["context"]).ok().stdout;
    let (lines, limit, dropped) = budget(&full);
    assert_eq!((lines, limit), (full.lines().count(), 300), "{full}");
    assert!(dropped.is_empty());
    insta::assert_snapshot!(full, @"
    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: main
    head: [HEX]
    working_tree: dirty (1 changed)
    task_record: exact (recorded head [HEX])

    ## TASK
    id: t-[ID]
    task: Fix the callback
    profile: debugging
    owner: tester
    outcome: active
    scope: lib
    started: 2026-09-03T20:00:00Z (0m ago)
    checkpoint: 2026-09-03T20:00:00Z (0m ago; interval 15m)

    ## PROFILE debugging
    capability: standard
    effort: high (escalation: none)
    verbosity: normal
    presentation: plain
    reasoning: hypothesis-driven
    verification: verify_command_required true, regression_test_required true, decision_record_required false
    output: findings

    ## OPEN QUESTIONS (1 unresolved — every one refuses finish --outcome completed)
    - [unresolved] t-[ID] — Which callback URL?

    ## CONTEXT DOCUMENTS (3, from the scope paths up to the root; not quoted)
    - lib/README.md (2 lines)
    - README.md (1 line)
    - CLAUDE.md (1 line)

    ## DECISIONS (1 most recent for this task)
    - 2026-09-03 — Use the ledger order — why: seconds are too coarse

    ## REASONING
    hypothesis-driven: reproduce first, then state a hypothesis, test it, and keep what refuted it; fix with a regression test

    ## LATEST CHECKPOINT (.ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md, 0m ago, exact, authored)
    step one
    step two
    step three
    step four

    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    Divergence: working tree was clean, now dirty
    ---
    # Objective
    Fix the callback.
    # Current State
    Reproduced.
    state two
    state three
    state four
    state five
    state six
    state seven
    state eight
    state nine
    state ten
    state eleven
    state twelve
    # Next Action
    Write the regression test.

    ## FILES TOUCHED IN SCOPE (1)
    - lib/a.rs

    ## RECENT HISTORY (last 5 events)
    - 2026-09-03T20:00:00Z task.started t-[ID]
    - 2026-09-03T20:00:00Z decision.recorded t-[ID]
    - 2026-09-03T20:00:00Z question.opened t-[ID]
    - 2026-09-03T20:00:00Z task.checkpoint t-[ID] .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    - 2026-09-03T20:00:00Z task.handed_over t-[ID] .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md

    ## EXCLUDED
    - failing_output — profile debugging sets context.failing_output: true, but context does not capture command output

    ## BUDGET
    91 of 300 lines
    ");
    let mut seen: Vec<Vec<String>> = Vec::new();
    let mut min_ok = lines + 1;
    for n in (0..=lines).rev() {
        let out = context(&r, n);
        if out.code == 10 {
            assert!(out.stdout.is_empty(), "a refusal prints no document:\n{}", out.stdout);
            assert!(
                out.stderr.starts_with("error: context: git, task, profile and open questions need "),
                "{}",
                out.stderr
            );
            continue;
        }
        let out = out.ok();
        assert_eq!(min_ok, n + 1, "once the undroppable sections exceed the budget, every smaller budget refuses too");
        min_ok = n;
        let (lines, limit, dropped) = budget(&out.stdout);
        assert_eq!(lines, out.stdout.lines().count(), "BUDGET counts header, EXCLUDED and itself:\n{}", out.stdout);
        assert!(lines <= n && limit == n, "{}", out.stdout);
        assert_eq!(dropped[..], DROP_ORDER[..dropped.len()], "fixed drop order at {n}");
        let ex = excluded(&out.stdout);
        for d in &dropped {
            assert!(
                ex.contains(&format!("- {d} — context budget {n} lines")),
                "{d} not named under EXCLUDED:\n{}",
                out.stdout
            );
        }
        for k in KEPT {
            assert!(out.stdout.lines().any(|l| l.starts_with(k)), "{k} dropped at {n}:\n{}", out.stdout);
        }
        if dropped.contains(&"history".to_string()) {
            assert!(!out.stdout.contains("## RECENT HISTORY"));
        }
        let handover = || section(&out.stdout, "## LATEST COMPATIBLE HANDOVER");
        // the same section at every budget of one stage of the drop order
        insta::allow_duplicates! {
            if dropped.contains(&"checkpoint-body".to_string()) && !dropped.contains(&"checkpoint".to_string()) {
                insta::assert_snapshot!(section(&out.stdout, "## LATEST CHECKPOINT"), @"
                ## LATEST CHECKPOINT (.ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md, 0m ago, exact, authored)
                body omitted for budget — read .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
                ");
            }
            if dropped.contains(&"handover-state".to_string()) && !dropped.contains(&"handover-body".to_string()) {
                // Current State is cut with a visible marker, Objective and Next Action stay
                insta::assert_snapshot!(handover(), @"
                ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
                Match: same_worktree_same_branch
                Git state: exact
                Created: 2026-09-03T20:00:00Z (0m ago)
                Task: t-[ID]
                Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
                Origin: authored
                Divergence: working tree was clean, now dirty
                ---
                # Objective
                Fix the callback.
                # Current State
                Reproduced.
                state two
                state three
                state four
                state five
                (Current State truncated for the context budget: 5 of 12 lines — read .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
                # Next Action
                Write the regression test.
                ");
            }
            if dropped.contains(&"handover-body".to_string()) && !dropped.contains(&"handover".to_string()) {
                // the body goes, the Next Action stays
                insta::assert_snapshot!(handover(), @"
                ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
                # Objective
                Fix the callback.
                # Next Action
                Write the regression test.
                body omitted for budget — read .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
                ");
            }
        }
        if seen.last() != Some(&dropped) {
            seen.push(dropped);
        }
    }
    assert_eq!(seen.len(), DROP_ORDER.len() + 1, "every stage of the drop order was reached: {seen:?}");
    // Exit 10 only when git/task/profile/questions alone exceed N: the count the refusal names
    // is exactly the document holding those four and nothing else.
    let refused = context(&r, min_ok - 1).code(10);
    let need: usize = refused.stderr.split("need ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(need, min_ok, "{}", refused.stderr);
    let at_need = r.mj(&["context", "--json", "--budget-lines", &need.to_string()]).ok();
    assert_eq!(json::each(&report(&at_need), "/sections", "id"), ["git", "task", "profile", "questions"]);
}

#[test]
fn item_20_json_has_the_report_shape_and_matches_the_text_selection() {
    let env = TestEnv::new();
    let (r, id) = rich_repo(&env);
    for n in [300, 60, 50] {
        let text = context(&r, n).ok().stdout;
        let out = r.mj(&["context", "--json", "--budget-lines", &n.to_string()]).ok();
        assert!(!out.stdout.contains("\"provider\""), "no --for, no provider key");
        let j = report(&out);
        assert_eq!((&j["schema"], json::text(&j, "/generated_at")), (&json!(1), "2026-09-03T20:00:00Z"));
        assert_eq!(json::text(&j, "/git/branch"), "main");
        assert_eq!(json::text(&j, "/git/head"), r.head());
        assert_eq!(json::text(&j, "/git/working_tree"), "dirty");
        assert_eq!(json::text(&j, "/git/task_record"), "exact");
        assert_eq!(json::text(&j, "/task/id"), id, "the active task");
        assert_eq!(j["task"]["scope"], json!(["lib"]));
        assert_eq!(json::text(&j, "/task/profile"), "debugging");
        let mut heads = Vec::new();
        for s in json::at(&j, "/sections").as_array().expect("sections") {
            let t = s["text"].as_str().expect("a section's text");
            assert_eq!(s["lines"], t.lines().count(), "{t}");
            assert!(text.contains(&format!("\n\n{t}\n\n")), "section {} is printed verbatim:\n{text}", s["id"]);
            heads.push(t.lines().next().unwrap().to_string());
        }
        assert_eq!(heads, headings(&text), "same sections, same order");
        let items = json::each(&j, "/excluded", "item").into_iter().zip(json::each(&j, "/excluded", "reason"));
        let ex: Vec<String> = items.map(|(item, reason)| format!("- {item} — {reason}")).collect();
        assert_eq!(ex, excluded(&text));
        let (lines, limit, dropped) = budget(&text);
        assert_eq!((&j["budget"]["lines"], &j["budget"]["limit"]), (&json!(lines), &json!(limit)));
        assert_eq!(j["budget"]["dropped"], json!(dropped));
        assert_eq!(lines, text.lines().count());
    }
    // Under --json a refusal leaves stdout empty and prints one JSON error on stderr.
    let out = r.mj(&["context", "--json", "--budget-lines", "5"]).code(10);
    assert!(out.stdout.is_empty());
    assert_eq!(error(&out.stderr)["exit"], 10);
}

#[test]
fn item_21_routine_excludes_decisions_and_deep_work_reads_the_repository() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let a = r.start("first");
    r.mj(&["decision", "add", "Decision of the first task", "--why", "w"]).ok();
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(section(&out, "## DECISIONS"), @"
    ## DECISIONS (1 most recent for this task)
    - 2026-09-03 — Decision of the first task — why: w
    ");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();

    r.mj(&["start", "second", "--scope", "lib", "--profile", "routine"]).ok();
    r.mj(&["decision", "add", "Decision of the routine task", "--why", "w"]).ok();
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(headings(&out).join("\n"), @"
    ## GIT
    ## TASK
    ## PROFILE routine
    ## OPEN QUESTIONS (0 unresolved — every one refuses finish --outcome completed)
    ## CONTEXT DOCUMENTS (1, from the scope paths up to the root; not quoted)
    ## REASONING
    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
    ");
    insta::assert_snapshot!(excluded(&out).join("\n"), @"
    - decisions — profile routine sets context.decisions: false
    - checkpoint — no checkpoint for task t-[ID] on this worktree and branch
    - files — profile routine sets context.relevant_files: false
    - history — profile routine sets context.recent_history_depth: 0
    ");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();

    r.mj(&["start", "third", "--scope", "lib", "--profile", "deep-work"]).ok();
    // deep-work reads the history; the task shown is the active one
    // the task shown is the active one (the first task's id shown as [A])
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(out.replace(&a, "[A]"), @"
    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: main
    head: [HEX]
    working_tree: clean
    task_record: exact (recorded head [HEX])

    ## TASK
    id: t-[ID]
    task: third
    profile: deep-work
    owner: tester
    outcome: active
    scope: lib
    started: 2026-09-03T20:00:00Z (0m ago)
    checkpoint: 2026-09-03T20:00:00Z (0m ago; interval 30m)

    ## PROFILE deep-work
    capability: advanced
    effort: high (escalation: none)
    verbosity: detailed
    presentation: structured
    reasoning: deliberate
    verification: verify_command_required true, regression_test_required true, decision_record_required true
    output: report

    ## OPEN QUESTIONS (0 unresolved — every one refuses finish --outcome completed)
    - none

    ## CONTEXT DOCUMENTS (1, from the scope paths up to the root; not quoted)
    - README.md (1 line)

    ## DECISIONS (2 most recent in this repository)
    - 2026-09-03 — Decision of the routine task — why: w
    - 2026-09-03 — Decision of the first task — why: w

    ## REASONING
    deliberate: deliberate before changing: read the decisions and scope documents, weigh the alternatives, record the decision and why

    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.
    # Current State
    Reproduced.
    # Next Action
    Write the regression test.

    ## FILES TOUCHED IN SCOPE (0)
    - none

    ## RECENT HISTORY (last 7 events)
    - 2026-09-03T20:00:00Z task.started [A]
    - 2026-09-03T20:00:00Z decision.recorded [A]
    - 2026-09-03T20:00:00Z task.handed_over [A] .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    - 2026-09-03T20:00:00Z task.started t-[ID]
    - 2026-09-03T20:00:00Z decision.recorded t-[ID]
    - 2026-09-03T20:00:00Z task.handed_over t-[ID] .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md
    - 2026-09-03T20:00:00Z task.started t-[ID]

    ## EXCLUDED
    - checkpoint — no checkpoint for task t-[ID] on this worktree and branch

    ## BUDGET
    74 of 300 lines
    ");
}

#[test]
fn stale_handover_is_history_and_its_next_action_is_withheld() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    r.mj_in(&["handover"], HANDOVER).ok();
    r.commit_file("lib/a.rs", "x\n");
    let fresh = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(section(&fresh, "## LATEST COMPATIBLE HANDOVER ("), @"
    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.
    # Current State
    Reproduced.
    # Next Action
    Write the regression test.
    ");
    env.set_now("2026-09-09T20:00:00Z");
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(section(&out, "## LATEST COMPATIBLE HANDOVER ("), @"
    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
    HISTORY: this handover is stale — read it as background, not as the thing to do now; its Next Action is withheld
    Match: same_worktree_same_branch
    Git state: advanced
    Created: 2026-09-03T20:00:00Z (6d ago)
    Task: t-[ID]
    Freshness: stale — 6d old, past session.freshness.stale_minutes (5760 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.
    # Current State
    Reproduced.
    # Next Action
    (Next Action withheld: stale, 6d old, past session.freshness.stale_minutes (5760 min))
    ");
    let j = report(&r.mj(&["context", "--json"]).ok());
    assert!(!json::text(json_section(&j, "handover"), "/text").contains("Write the regression test."));
}

#[test]
fn missing_handover_is_named_as_absence() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    // A handover on another branch never resolves here.
    r.git(&["checkout", "-q", "-b", "other"]);
    r.mj_in(&["handover"], HANDOVER).ok();
    r.git(&["checkout", "-q", "main"]);
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(headings(&out).join("\n"), @"
    ## GIT
    ## TASK
    ## PROFILE implementation
    ## OPEN QUESTIONS (0 unresolved — every one refuses finish --outcome completed)
    ## CONTEXT DOCUMENTS (1, from the scope paths up to the root; not quoted)
    ## DECISIONS (0 most recent for this task)
    ## REASONING
    ## FILES TOUCHED IN SCOPE (0)
    ");
    insta::assert_snapshot!(excluded(&out).join("\n"), @"
    - checkpoint — no checkpoint for task t-[ID] on this worktree and branch
    - handover — no record for this worktree and branch — absence, not a stale match
    - history — profile implementation sets context.recent_history_depth: 0
    ");
}

#[test]
fn handover_of_the_task_first_then_of_any_task() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("first");
    r.mj_in(&["handover", "--close"], &HANDOVER.replace("Reproduced.", "first task state")).ok();
    let b = r.start("second");
    let out = r.mj(&["context"]).ok().stdout;
    // no handover of this task: any task's resolves
    insta::assert_snapshot!(section(&out, "## LATEST COMPATIBLE HANDOVER"), @"
    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.
    # Current State
    first task state
    # Next Action
    Write the regression test.
    ");
    env.set_now("2026-09-03T20:05:00Z");
    r.mj_in(&["handover"], &HANDOVER.replace("Reproduced.", "second task state")).ok();
    env.set_now("2026-09-03T20:10:00Z");
    r.mj_in(&["handover", "--no-task"], &HANDOVER.replace("Reproduced.", "newest, no task")).ok();
    let out = r.mj(&["context"]).ok().stdout;
    // the task's own handover wins, not the newest one of no task
    insta::assert_snapshot!(section(&out, "## LATEST COMPATIBLE HANDOVER").replace(&b, "[B]"), @"
    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200500Z--main--[HEX]--[HEX].md)
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:05:00Z (5m ago)
    Task: [B]
    Freshness: fresh — 5m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.
    # Current State
    second task state
    # Next Action
    Write the regression test.
    ");
}

#[test]
fn provider_line_and_unknown_provider() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.write("CLAUDE.md", "one\ntwo\n");
    let out = r.mj(&["context", "--for", "claude-code"]).ok().stdout;
    let head: Vec<&str> = out.lines().take(4).collect();
    assert_eq!(
        head,
        [
            "# Majordomus context — 2026-09-03T20:00:00Z",
            "# a projection of durable state, not a source of truth: validate every line against git",
            "# provider claude-code — its always-loaded instructions are CLAUDE.md",
            ""
        ]
    );
    // documents are named, not quoted
    insta::assert_snapshot!(section(&out, "## CONTEXT DOCUMENTS"), @"
    ## CONTEXT DOCUMENTS (2, from the scope paths up to the root; not quoted)
    - README.md (1 line)
    - CLAUDE.md (2 lines; always loaded by claude-code)
    ");
    assert_eq!(budget(&out).0, out.lines().count());
    let j = report(&r.mj(&["context", "--json", "--for", "codex"]).ok());
    assert_eq!(j["provider"], json!({"name": "codex", "always_loaded": "AGENTS.md"}), "--for names the provider");
    insta::assert_snapshot!(r.mj(&["context", "--for", "vim"]).code(2).shown(), @r#"
    --- stderr
    error: unknown provider "vim"
    hint: known providers: claude-code, codex, gemini-cli, cursor, copilot-cli
    --- exit 2
    "#);
}

#[test]
fn context_writes_nothing() {
    let env = TestEnv::new();
    let (r, _) = rich_repo(&env);
    r.write(".ai/repo/prompts/review.md", "Review the diff.\n");
    let ai = r.root.join(".ai");
    let before = snapshot(&ai);
    let ledger = r.read(".ai/local/state/ledger.jsonl");
    r.mj(&["context"]).ok();
    r.mj(&["context", "--json", "--for", "claude-code", "--prompt", "review"]).ok();
    r.mj(&["context", "--budget-lines", "3"]).code(10);
    r.mj(&["context", "--prompt", "missing"]).code(12);
    assert_eq!(r.read(".ai/local/state/ledger.jsonl"), ledger, "not even the ledger");
    assert!(snapshot(&ai) == before, "context changed files under .ai/");
}

#[test]
fn works_with_no_active_task() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let out = r.mj(&["context"]).ok().stdout;
    // the default profile applies, the root chain of documents without a scope
    insta::assert_snapshot!(out, @r#"
    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: main
    head: [HEX]
    working_tree: clean
    task_record: none (no active task)

    ## TASK
    none active — run: git majordomus start "<task>" --scope <path>

    ## PROFILE implementation
    capability: standard
    effort: medium (escalation: none)
    verbosity: normal
    presentation: plain
    reasoning: stepwise
    verification: verify_command_required true, regression_test_required false, decision_record_required false
    output: summary-and-diff

    ## OPEN QUESTIONS (0 unresolved — every one refuses finish --outcome completed)
    - none

    ## CONTEXT DOCUMENTS (1, from the scope paths up to the root; not quoted)
    - README.md (1 line)

    ## DECISIONS (0 most recent in this repository)
    - none recorded

    ## REASONING
    stepwise: work in small verified steps: plan, change, run the checks, checkpoint

    ## EXCLUDED
    - checkpoint — no checkpoint for this worktree and branch
    - handover — no record for this worktree and branch — absence, not a stale match
    - files — no active task: touched files are counted from a task's start and scope
    - history — profile implementation sets context.recent_history_depth: 0

    ## BUDGET
    42 of 300 lines
    "#);
    let j = report(&r.mj(&["context", "--json"]).ok());
    assert!(json::at(&j, "/task").is_null(), "task: null");
    insta::assert_snapshot!(format!("{:#}", json::at(&j, "/git")), @r#"
    {
      "repository": ".git",
      "branch": "main",
      "head": "[HEX]",
      "working_tree": "clean",
      "task_record": null
    }
    "#);
    // A finished task is not shown as the active one.
    r.start("t");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    let out = r.mj(&["context"]).ok().stdout;
    assert_eq!(section(&out, "## TASK"), "## TASK\nnone active — run: git majordomus start \"<task>\" --scope <path>");
    // any task's handover
    insta::assert_snapshot!(section(&out, "## LATEST COMPATIBLE HANDOVER"), @"
    ## LATEST COMPATIBLE HANDOVER (.ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md)
    Match: same_worktree_same_branch
    Git state: exact
    Created: 2026-09-03T20:00:00Z (0m ago)
    Task: t-[ID]
    Freshness: fresh — 0m old, under session.freshness.fresh_minutes (720 min)
    Origin: authored
    ---
    # Objective
    Fix the callback.
    # Current State
    Reproduced.
    # Next Action
    Write the regression test.
    ");
}

#[test]
fn failing_output_is_listed_under_excluded_for_debugging() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["start", "t", "--scope", "lib", "--profile", "debugging"]).ok();
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(excluded(&out).join("\n"), @"
    - failing_output — profile debugging sets context.failing_output: true, but context does not capture command output
    - checkpoint — no checkpoint for task t-[ID] on this worktree and branch
    - handover — no record for this worktree and branch — absence, not a stale match
    ");
    insta::assert_snapshot!(section(&out, "## REASONING"), @"
    ## REASONING
    hypothesis-driven: reproduce first, then state a hypothesis, test it, and keep what refuted it; fix with a regression test
    ");
    let plain = env.ready_repo("q");
    plain.start("t");
    assert!(!plain.mj(&["context"]).ok().stdout.contains("failing_output"));
}

#[test]
fn prompt_is_appended_refused_or_excluded() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.write(".ai/repo/prompts/review.md", "Review the diff.\n\nBe brief.\n");
    r.write(".ai/repo/prompts/wrap.md", "Before\n{{CONTEXT}}\nAfter\n");
    let out = r.mj(&["context", "--prompt", "review"]).ok().stdout;
    assert_eq!(section(&out, "## PROMPT"), "## PROMPT review\nReview the diff.\n\nBe brief.", "{out}");
    assert_eq!(headings(&out).last().map(String::as_str), Some("## PROMPT review"), "appended last: {out}");
    assert_eq!(budget(&out).0, out.lines().count());
    let out = r.mj(&["context", "--prompt", "wrap"]).ok().stdout;
    insta::assert_snapshot!(headings(&out).join("\n"), @"
    ## GIT
    ## TASK
    ## PROFILE implementation
    ## OPEN QUESTIONS (0 unresolved — every one refuses finish --outcome completed)
    ## CONTEXT DOCUMENTS (1, from the scope paths up to the root; not quoted)
    ## DECISIONS (0 most recent in this repository)
    ## REASONING
    ");
    insta::assert_snapshot!(excluded(&out).join("\n"), @"
    - checkpoint — no checkpoint for this worktree and branch
    - handover — no record for this worktree and branch — absence, not a stale match
    - files — no active task: touched files are counted from a task's start and scope
    - history — profile implementation sets context.recent_history_depth: 0
    - prompt — wrap holds {{CONTEXT}} alone on a line: it wraps the context rather than adding to it
    ");
    insta::assert_snapshot!(r.mj(&["context", "--prompt", "absent"]).code(12).shown(), @r#"
    --- stderr
    error: no prompt "absent": .ai/repo/prompts/absent.md does not exist
    hint: prompts live in .ai/repo/prompts/<name>.md; pass an existing name
    --- exit 12
    "#);
    r.mj(&["context", "--prompt", "../policy"]).code(2);
    r.mj(&["context", "--prompt", "sub/x"]).code(2);
}

#[test]
fn scope_documents_files_and_questions() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.write("lib/auth/AGENTS.md", "a\nb\nc\n");
    r.write("lib/README.md", "x\n");
    r.write("docs/README.md", "not in scope\n");
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "docs"]);
    let policy = r.read(".ai/repo/policy.yaml").replace("max_list_items: 20", "max_list_items: 2");
    r.write(".ai/repo/policy.yaml", &policy);
    r.mj(&["start", "t", "--scope", "lib/auth,lib/README.md"]).ok();
    for q in ["one?", "two?", "three?"] {
        r.mj(&["question", "add", q]).ok();
    }
    r.commit_file("lib/auth/a.rs", "committed\n");
    r.write("lib/auth/b.rs", "porcelain\n");
    r.write("lib/auth/c.rs", "porcelain\n");
    r.write("docs/out.md", "out of scope\n");
    r.write(".ai/repo/prompts/p.md", "layer file\n");
    let out = r.mj(&["context"]).ok().stdout;
    // documents from the scope paths up (docs/README.md is not in it); questions are never
    // bounded by max_list_items, files are (docs/out.md and the layer's own files are not listed)
    insta::assert_snapshot!(out, @"
    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: main
    head: [HEX]
    working_tree: dirty (3 changed)
    task_record: advanced (recorded head [HEX])

    ## TASK
    id: t-[ID]
    task: t
    profile: implementation
    owner: tester
    outcome: active
    scope: lib/auth, lib/README.md
    started: 2026-09-03T20:00:00Z (0m ago)
    checkpoint: 2026-09-03T20:00:00Z (0m ago; interval 15m)

    ## PROFILE implementation
    capability: standard
    effort: medium (escalation: none)
    verbosity: normal
    presentation: plain
    reasoning: stepwise
    verification: verify_command_required true, regression_test_required false, decision_record_required false
    output: summary-and-diff

    ## OPEN QUESTIONS (3 unresolved — every one refuses finish --outcome completed)
    - [unresolved] t-[ID] — one?
    - [unresolved] t-[ID] — two?
    - [unresolved] t-[ID] — three?

    ## CONTEXT DOCUMENTS (3, from the scope paths up to the root; not quoted)
    - lib/auth/AGENTS.md (3 lines)
    - lib/README.md (1 line)
    - README.md (1 line)

    ## DECISIONS (0 most recent for this task)
    - none recorded

    ## REASONING
    stepwise: work in small verified steps: plan, change, run the checks, checkpoint

    ## FILES TOUCHED IN SCOPE (3)
    - lib/auth/a.rs
    - lib/auth/b.rs
    ... and 1 more (context.max_list_items)

    ## EXCLUDED
    - checkpoint — no checkpoint for task t-[ID] on this worktree and branch
    - handover — no record for this worktree and branch — absence, not a stale match
    - history — profile implementation sets context.recent_history_depth: 0

    ## BUDGET
    57 of 300 lines
    ");
}

#[test]
fn diverged_task_record_prints_a_warning() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.commit_file("lib/a.rs", "one\n");
    r.start("t");
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.commit_file("lib/b.rs", "two\n");
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(section(&out, "## GIT"), @"
    ## GIT
    repository: .git
    branch: main
    head: [HEX]
    working_tree: clean
    task_record: diverged (recorded head [HEX])
    WARNING: the task was recorded on main at [HEX], which is diverged from here — validate the task against git before acting on it
    ");
}

#[test]
fn without_the_layer_context_exits_12() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.repo("bare");
    insta::assert_snapshot!(r.mj(&["context"]).code(12).shown(), @"
    --- stderr
    error: no majordomus layer in this repository
    hint: run git majordomus init
    --- exit 12
    ");
}

#[test]
fn a_task_profile_that_does_not_load_falls_back_to_the_default_with_a_warning() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    let current = r.read(".ai/local/state/current.yaml").replace("profile: implementation", "profile: gone");
    r.write(".ai/local/state/current.yaml", &current);
    let out = r.mj(&["context"]).ok();
    insta::assert_snapshot!(format!("{}\n{}\n--- stderr\n{}", section(&out.stdout, "## TASK"), section(&out.stdout, "## PROFILE"), out.stderr), @r#"
    ## TASK
    id: t-[ID]
    task: t
    profile: gone
    owner: tester
    outcome: active
    scope: lib
    started: 2026-09-03T20:00:00Z (0m ago)
    checkpoint: 2026-09-03T20:00:00Z (0m ago; interval 15m)
    ## PROFILE implementation
    capability: standard
    effort: medium (escalation: none)
    verbosity: normal
    presentation: plain
    reasoning: stepwise
    verification: verify_command_required true, regression_test_required false, decision_record_required false
    output: summary-and-diff
    --- stderr
    warning: unknown profile "gone"; context uses profiles.default (implementation)
    "#);
}
