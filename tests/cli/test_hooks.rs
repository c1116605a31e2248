//! Tests of the provider hooks and their installation: docs/REFERENCE.md#front-matter items 24–28, docs/REFERENCE.md#store scenarios 127,
//! 130 and 131 (briefing side), and the exact commands `hooks install` writes.

use serde_json::Value;

use crate::common::json;
use crate::common::snap::named;
use crate::common::{Repo, TestEnv, HANDOVER};

fn payload(sid: &str, extra: &str) -> String {
    format!(r#"{{"session_id":"{sid}","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"X"{extra}}}"#)
}

fn hook(r: &Repo<'_>, event: &str, body: &str) -> crate::common::Output {
    r.mj_in(&["hook", "claude-code", event], body)
}

/// Ledger lines whose FIRST `event` key is `name` (receipts carry a second one).
fn events(r: &Repo<'_>, name: &str) -> Vec<Value> {
    let raw = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap_or_default();
    let first_event =
        |l: &str| l.split("\"event\":\"").nth(1).and_then(|rest| rest.split('"').next()).map(str::to_string);
    raw.lines().filter(|l| first_event(l).as_deref() == Some(name)).map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn item_24_stale_advanced_handover_is_history_in_the_briefing() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.commit_file("lib/a", "a\n");
    env.set_now("2026-09-09T20:00:00Z");
    let out = hook(&r, "start", &payload("cc-1", r#","source":"startup""#)).ok();
    // The stale handover is history: its Next Action is not quoted.
    insta::assert_snapshot!(out.shown(), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (handed_over, profile implementation): t
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 6d ago, authored).
    It is history (stale, 6d ago): 6d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    --- stderr
    session s-[ID] opened at 2026-09-09T20:00:00Z
    Shared server: not ensured: session.ensure_server_on_start is false
    --- exit 0
    ");
    // with a fresh handover the Next Action is quoted
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    let out = hook(&r, "start", &payload("cc-2", "")).ok();
    insta::assert_snapshot!(out.shown(), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    Task t-[ID] (handed_over, profile implementation): t
    Scope: lib
    Handover .ai/local/state/handovers/20260909T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Write the regression test.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    --- stderr
    session s-[ID] opened at 2026-09-09T20:00:00Z
    Shared server: not ensured: session.ensure_server_on_start is false
    --- exit 0
    ");
}

#[test]
fn item_25_briefing_budgets_and_switch() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    for i in 0..8 {
        r.mj(&["question", "add", &format!("Question number {i}?")]).ok();
    }
    let policy = r.read(".ai/repo/policy.yaml");
    r.write(".ai/repo/policy.yaml", &policy.replace("briefing_budget_lines: 60", "briefing_budget_lines: 6"));
    let out = hook(&r, "start", &payload("a", "")).ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", out.stdout);
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): t
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    ... 8 more line(s) withheld by session.briefing_budget_lines; run `git majordomus context` for the whole briefing.
    ");
    r.write(".ai/repo/policy.yaml", &policy.replace("briefing_budget_chars: 9000", "briefing_budget_chars: 300"));
    let out = hook(&r, "start", &payload("b", "")).ok();
    assert!(out.stdout.chars().count() <= 300, "{}", out.stdout.len());
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    ... 13 more line(s) withheld by session.briefing_budget_chars; run `git majordomus context` for the whole briefing.
    ");
    r.write(".ai/repo/policy.yaml", &policy.replace("briefing_on_start: true", "briefing_on_start: false"));
    let out = hook(&r, "start", &payload("c", "")).ok();
    assert_eq!(out.stdout, "");
    assert!(r.state("sessions-open/c.yaml").exists(), "the episode still opens");
}

#[test]
fn item_26_same_session_id_keeps_one_episode() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    hook(&r, "start", &payload("cc-1", "")).ok();
    let out = hook(&r, "start", &payload("cc-1", r#","source":"resume""#)).ok();
    insta::assert_snapshot!(out.stderr, @"
    session s-[ID] already open here since 2026-09-03T20:00:00Z; kept
    Shared server: not ensured: session.ensure_server_on_start is false
    ");
    assert_eq!(std::fs::read_dir(r.state("sessions-open")).unwrap().count(), 1);
    hook(&r, "start", &payload("cc-2", "")).ok();
    assert_eq!(std::fs::read_dir(r.state("sessions-open")).unwrap().count(), 2);
    assert_eq!(events(&r, "session.started").len(), 2);
}

#[test]
fn item_27_end_reasons_unknown_sessions_and_broken_policy() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    hook(&r, "start", &payload("x", "")).ok();
    hook(&r, "end", &payload("x", r#","reason":"clear""#)).ok();
    hook(&r, "start", &payload("y", "")).ok();
    hook(&r, "end", &payload("y", r#","reason":"other""#)).ok();
    let outcomes: Vec<String> = std::fs::read_dir(r.root.join(".ai/repo/sessions"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .map(|t| t.lines().find_map(|l| l.strip_prefix("outcome: ").map(str::to_string)).unwrap())
        .collect();
    let mut sorted = outcomes.clone();
    sorted.sort();
    assert_eq!(sorted, vec!["closed", "interrupted"]);
    let before = events(&r, "session.closed").len();
    let out = hook(&r, "end", &payload("never-started", "")).ok();
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    end: no open episode for never-started; nothing to close
    --- exit 0
    ");
    assert_eq!(events(&r, "session.closed").len(), before);
    // broken policy: every hook still exits 0 and leaves its receipt
    r.write(".ai/repo/policy.yaml", "version: [broken\n");
    for ev in ["start", "compact", "end"] {
        let out = hook(&r, ev, &payload("z", "")).ok();
        assert!(!out.stderr.is_empty());
    }
    let receipts = events(&r, "provider.event.received");
    assert_eq!(receipts.len(), 4 + 1 + 3, "one receipt per event");
    assert!(!events(&r, "provider.event.failed").is_empty());
    assert!(!r.state("sessions-open/z.yaml").exists(), "end still closes with an unreadable policy");
    insta::assert_snapshot!(r.read(".ai/local/session-contexts/hooks.log"), @"
    2026-09-03T20:00:00Z claude-code compact failed: policy: .ai/repo/policy.yaml: version: invalid type: sequence, expected u32 at line 1 column 10
    2026-09-03T20:00:00Z claude-code end failed: policy: .ai/repo/policy.yaml: version: invalid type: sequence, expected u32 at line 1 column 10
    ");
}

#[test]
fn item_28_end_hook_writes_handover_and_final_checkpoint_whatever_the_task() {
    for case in ["handed_over", "none"] {
        let env = TestEnv::new();
        let _snap = env.snapshots();
        let r = env.ready_repo("r");
        if case == "handed_over" {
            r.start("t");
            r.mj_in(&["handover", "--close"], HANDOVER).ok();
        }
        hook(&r, "start", &payload("s", "")).ok();
        let (h0, c0) = (r.records("handovers").len(), r.records("checkpoints").len());
        // An episode that does something (an edit); an empty one writes nothing
        // (docs/REFERENCE.md#origin).
        r.write("lib/edit.rs", "x\n");
        hook(&r, "end", &payload("s", r#","reason":"logout""#)).ok();
        assert_eq!(r.records("handovers").len(), h0 + 1, "{case}: a derived handover");
        assert_eq!(r.records("checkpoints").len(), c0 + 1, "{case}: a final checkpoint");
        assert_eq!(std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().count(), 1);
        if case == "none" {
            let ho = events(&r, "task.handed_over").pop().unwrap();
            assert!(ho.get("task_id").is_none(), "{ho}");
            let newest = r.records("handovers").pop().unwrap();
            insta::assert_snapshot!(r.read(&format!(".ai/local/state/handovers/{newest}")), @r#"
            ---
            schema_version: 1
            created_at: 2026-09-03T20:00:00Z
            task_id: none
            profile: none
            owner: "tester"
            repository_id: [TMP]/r/.git
            worktree: [TMP]/r
            branch: main
            head: [HEX]
            working_tree: dirty
            changed_files:
              - lib/
            changed_total: 1
            origin: derived
            session: s-[ID]
            ---

            # Objective
            No active task: this handover records the state of the episode outside any task.

            # Current State
            On main at [HEX], working tree dirty.
            Uncommitted files (1):
            - lib/
            Recorded in this episode: 1 checkpoint(s), 0 decision(s), 0 question(s), 0 handover(s).

            # Next Action
            Run `git majordomus context`, then `git majordomus check`, and continue from the current state above.

            ---
            Derived by git-majordomus from its records and git; no model wrote it.
            "#);
        }
    }
}

#[test]
fn scenario_130_lifecycle_survives_a_stale_task() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("the outage");
    r.mj_in(&["handover", "--close"], HANDOVER).ok();
    r.commit_file("lib/x", "x\n");
    env.set_now("2026-09-11T09:00:00Z");
    let out = hook(&r, "start", &payload("cc", "")).ok();
    insta::assert_snapshot!(out.shown(), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (handed_over, profile implementation): the outage
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 7d ago, authored).
    It is history (stale, 7d ago): 7d old, past session.freshness.stale_minutes (5760 min). Its next action is withheld; read it with git majordomus handover --resolve.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    --- stderr
    session s-[ID] opened at 2026-09-11T09:00:00Z
    Shared server: not ensured: session.ensure_server_on_start is false
    --- exit 0
    ");
    let c0 = r.records("checkpoints").len();
    hook(&r, "compact", &payload("cc", r#","trigger":"auto""#)).ok();
    assert_eq!(r.records("checkpoints").len(), c0 + 1, "compact writes a checkpoint despite the handed-over task");
    hook(&r, "end", &payload("cc", r#","reason":"other""#)).ok();
    assert!(!r.state("sessions-open/cc.yaml").exists());
    assert_eq!(std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().count(), 1);
    let receipts: Vec<String> = events(&r, "provider.event.received")
        .iter()
        .map(|l| l["provider_session"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(receipts, vec!["cc", "cc", "cc"]);
    // the receipt's second `event` key is the provider event, the first the ledger event
    let raw = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let compact = raw.lines().find(|l| l.contains(r#""provider":"claude-code","event":"compact""#)).unwrap();
    insta::assert_snapshot!(compact, @r#"{"ts":"2026-09-11T09:00:00Z","event":"provider.event.received","head":"[HEX]","branch":"main","by":"git-majordomus/[VERSION]","session":"s-[ID]","provider":"claude-code","event":"compact","provider_session":"cc"}"#);
    // No task record at all, and an episode that does nothing: no derived record (an empty
    // episode writes none, docs/REFERENCE.md#origin; this test counted one of each before); each
    // receipt says what it skipped.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    hook(&r, "start", &payload("cc", "")).ok();
    hook(&r, "compact", &payload("cc", "")).ok();
    hook(&r, "end", &payload("cc", "")).ok();
    assert_eq!((r.records("checkpoints").len(), r.records("handovers").len()), (0, 0));
    let receipts = events(&r, "provider.event.received");
    assert_eq!(receipts[1]["skipped"], serde_json::json!(["checkpoint"]), "{}", receipts[1]);
    assert_eq!(receipts[2]["skipped"], serde_json::json!(["checkpoint", "handover"]), "{}", receipts[2]);
    assert_eq!(std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().count(), 1, "the episode is still closed");
    // The next episode changes a file: compact writes a checkpoint; nothing changed since it,
    // so the end skips its own (docs/REFERENCE.md#origin) and writes the handover.
    hook(&r, "start", &payload("cd", "")).ok();
    r.write("lib/y", "y\n");
    hook(&r, "compact", &payload("cd", "")).ok();
    hook(&r, "end", &payload("cd", "")).ok();
    assert_eq!(r.records("checkpoints").len(), 1);
    assert_eq!(r.records("handovers").len(), 1);
    let end = events(&r, "provider.event.received").pop().unwrap();
    assert_eq!(end["skipped"], serde_json::json!(["checkpoint"]), "{end}");
    for cp in events(&r, "task.checkpoint") {
        assert!(cp.get("task_id").is_none());
    }
    r.mj(&["checkpoint", "--derive"]).ok();
}

#[test]
fn scenario_127_briefing_freshness_of_the_working_context() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.mj(&["session", "start"]).ok();
    let path = r.mj(&["session", "context"]).ok().stdout;
    assert_eq!(path.lines().count(), 1);
    // the working context frozen at HEAD, and now exactly there
    let working = |ids: &[(&str, &str)]| {
        let out = r.mj(&["--json", "session", "context"]).ok().stdout;
        json::read("session-context.schema.json", &out);
        named(&out, &[&[("PATH", path.trim_end())], ids].concat())
    };
    insta::assert_snapshot!(working(&[("HEAD", &r.head())]), @r#"
    {
      "path": "[PATH]",
      "label": "exact",
      "commits_since": 0,
      "recorded_head": "[HEAD]"
    }
    "#);
    // The GIT section of the context.
    let git_section = |t: String| t.split("\n## TASK").next().unwrap().to_string();
    let head = r.head();
    insta::assert_snapshot!(git_section(r.mj(&["context"]).ok().stdout).replace(&head, "[HEAD]").replace(&head[..7], "[HEAD]"), @"
    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: main
    head: [HEAD]
    working_tree: clean
    task_record: none (no active task)
    briefing exact at [HEAD]
    ");
    let start = r.head();
    r.commit_file("a", "1\n");
    r.commit_file("b", "2\n");
    insta::assert_snapshot!(working(&[("START", &start)]), @r#"
    {
      "path": "[PATH]",
      "label": "advanced",
      "commits_since": 2,
      "recorded_head": "[START]"
    }
    "#);
    let ids = |t: String| {
        let head = r.head();
        git_section(t).replace(&start[..7], "[START]").replace(&head, "[HEAD]").replace(&head[..7], "[HEAD]")
    };
    insta::assert_snapshot!(ids(r.mj(&["context"]).ok().stdout), @"
    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: main
    head: [HEAD]
    working_tree: clean
    task_record: none (no active task)
    briefing advanced — 2 commit(s) since it was frozen at [START]
    ");
    r.git(&["checkout", "-q", "-b", "elsewhere"]);
    let out = r.mj(&["context"]).ok().stdout;
    insta::assert_snapshot!(ids(out), @"
    # Majordomus context — 2026-09-03T20:00:00Z
    # a projection of durable state, not a source of truth: validate every line against git

    ## GIT
    repository: .git
    branch: elsewhere
    head: [HEAD]
    working_tree: clean
    task_record: none (no active task)
    WARNING: briefing different_context at [START] — it no longer describes this checkout
    ");
    r.git(&["checkout", "-q", "main"]);
    let doctor = r.mj(&["doctor"]).ok().stdout;
    insta::assert_snapshot!(doctor, @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    INFO task .ai/local/state/current.yaml — no task record; nothing to compare  [reproduce: git majordomus start "<task>" --scope <path>]
    OK records .ai/local/state/checkpoints — 0 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 0 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — 1 line(s), all valid  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK sessions .ai/local/state/sessions-open — 1 open episode(s), each parses with a working context  [reproduce: git majordomus session status]
    OK retention .ai/local/state/ledger.jsonl — ledger 1 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    "#);
    // a document without head → FAIL; a missing document → FAIL
    let p = path.trim().to_string();
    let text = r.read(&p);
    r.write(&p, &text.lines().filter(|l| !l.starts_with("head:")).collect::<Vec<_>>().join("\n"));
    let out = r.mj(&["doctor"]).code(10);
    insta::assert_snapshot!(out.shown(), @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    INFO task .ai/local/state/current.yaml — no task record; nothing to compare  [reproduce: git majordomus start "<task>" --scope <path>]
    OK records .ai/local/state/checkpoints — 0 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 0 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — 1 line(s), all valid  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    FAIL sessions .ai/local/session-contexts/20260903T200000Z--s-[ID].md — working context without head: it cannot be compared with git  [reproduce: head -n 16 .ai/local/session-contexts/20260903T200000Z--s-[ID].md]
    OK sessions .ai/local/state/sessions-open — 1 open episode(s), each parses with a working context  [reproduce: git majordomus session status]
    OK retention .ai/local/state/ledger.jsonl — ledger 1 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    --- stderr
    --- exit 10
    "#);
    std::fs::remove_file(r.root.join(&p)).unwrap();
    let out = r.mj(&["doctor"]).code(10);
    insta::assert_snapshot!(out.shown(), @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    INFO task .ai/local/state/current.yaml — no task record; nothing to compare  [reproduce: git majordomus start "<task>" --scope <path>]
    OK records .ai/local/state/checkpoints — 0 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 0 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — 1 line(s), all valid  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    FAIL sessions .ai/local/state/sessions-open/hand.yaml — episode s-[ID] has no working-context document in .ai/local/session-contexts (a start killed before it wrote one)  [reproduce: cat .ai/local/state/sessions-open/hand.yaml]  [fix: git majordomus session close --outcome interrupted --provider-session hand]
    OK retention .ai/local/state/ledger.jsonl — ledger 1 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 0 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 0 files, cap 500  [reproduce: git majordomus checkpoint --list]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    --- stderr
    --- exit 10
    "#);
}

#[test]
fn installed_hooks_run_exactly_as_written_with_realistic_payloads() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.write(".claude/settings.json", "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"SessionStart\": [ { \"matcher\": \"startup\", \"hooks\": [ { \"type\": \"command\", \"command\": \"echo mine\" } ] } ]\n  }\n}\n");
    let out = r.mj(&["hooks", "install", "--claude-code"]).ok();
    insta::assert_snapshot!(out.shown(), @"
    .claude/settings.json: added 3 hook entries
    .claude/commands/handover.md: added the /handover command
    --- stderr
    --- exit 0
    ");
    let again = r.mj(&["hooks", "install", "--claude-code"]).ok();
    insta::assert_snapshot!(again.shown(), @"
    .claude/settings.json: already installed
    .claude/commands/handover.md: the /handover command already installed
    --- stderr
    --- exit 0
    ");
    let settings: Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["model"], "opus");
    let start_groups = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start_groups.len(), 2, "the user's entry is kept");
    assert_eq!(start_groups[0]["hooks"][0]["command"], "echo mine");
    let cmd = |ev: &str| -> String {
        let groups = settings["hooks"][ev].as_array().unwrap();
        groups
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .map(|h| h["command"].as_str().unwrap().to_string())
            .find(|c| c.contains("majordomus"))
            .unwrap()
    };
    let (start, compact, end) = (cmd("SessionStart"), cmd("PreCompact"), cmd("SessionEnd"));
    let sub = r.root.join("lib");
    std::fs::create_dir_all(&sub).unwrap();
    let out = env.sh(&sub, &start, payload("win-1", r#","source":"startup""#).as_bytes(), &[]).ok();
    assert!(out.stdout.starts_with("## Majordomus"), "{}", out.stdout);
    insta::assert_snapshot!(out.stderr, @"
    session s-[ID] opened at 2026-09-03T20:00:00Z
    Shared server: not ensured: session.ensure_server_on_start is false
    ");
    let out = env.sh(&sub, &compact, payload("win-1", r#","trigger":"manual""#).as_bytes(), &[]).ok();
    assert_eq!(out.stdout, "", "only start writes stdout");
    // empty, non-JSON and 1 MiB payloads: exit 0, receipt written, key `unknown`
    for body in [Vec::new(), b"this is not json".to_vec(), vec![b'{'; 1024 * 1024]] {
        let before = events(&r, "provider.event.received").len();
        let out = env.sh(&r.root, &start, &body, &[]).ok();
        assert!(out.stdout.starts_with("## Majordomus"));
        let receipts = events(&r, "provider.event.received");
        assert_eq!(receipts.len(), before + 1);
        assert_eq!(receipts.last().unwrap()["provider_session"], "unknown");
    }
    let out = env.sh(&r.root, &end, payload("win-1", r#","reason":"prompt_input_exit""#).as_bytes(), &[]).ok();
    assert_eq!(out.stdout, "");
    let rec = std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().next().unwrap().unwrap().path();
    insta::assert_snapshot!(std::fs::read_to_string(rec).unwrap(), @r#"
    ---
    schema: session/v1
    kind: session
    created_at: 2026-09-03T20:00:00Z
    task_id: none
    profile: none
    repository_id: "local:[HEX]"
    worktree_id: [HEX]
    branch: main
    head: [HEX]
    working_tree: dirty
    changed_files:
      - ".claude/"
    changed_total: 1
    session_id: s-[ID]
    started_at: 2026-09-03T20:00:00Z
    closed_at: 2026-09-03T20:00:00Z
    outcome: closed
    title: "Session s-[ID] on main"
    worker: ""
    start_head: [HEX]
    start_working_tree: dirty
    commits: []
    tasks: []
    checkpoints: []
    handovers: []
    decisions: []
    questions: []
    ---

    # What Happened
    No commits between [HEX] and [HEX].

    # Progress Notes
    None recorded in this episode.

    # Decisions
    None recorded in this episode.

    # Open Questions
    None recorded in this episode.

    # Outcome
    closed at [HEX]; tasks: none.

    ---
    Composed by git-majordomus from the ledger lines stamped with this episode and from git; no model wrote it.
    "#);
    // dry run reports and writes nothing
    let before = std::fs::read_to_string(r.state("ledger.jsonl")).unwrap();
    let out = env.sh(&r.root, &end, payload("unknown", "").as_bytes(), &[("MAJORDOMUS_SESSION_DRY_RUN", "1")]).ok();
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    dry run (claude-code end): would append provider.event.received for session key unknown
    dry run: would skip a final derived checkpoint: nothing changed since the last checkpoint
    dry run: would skip the derived handover: nothing happened in this episode since the last record (same head, same tree by content)
    dry run: would close the episode as interrupted
    --- exit 0
    ");
    assert_eq!(std::fs::read_to_string(r.state("ledger.jsonl")).unwrap(), before);
    assert!(r.state("sessions-open/unknown.yaml").exists());
    // uninstall removes only ours
    r.mj(&["hooks", "uninstall", "--claude-code"]).ok();
    let settings: Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    assert!(settings["hooks"].get("PreCompact").is_none());
    // an unparseable settings file is refused with the entries to add
    r.write(".claude/settings.json", "{ not json");
    let out = r.mj(&["hooks", "install", "--claude-code"]).code(15);
    insta::assert_snapshot!(out.shown(), @r#"
    --- stderr
    error: .claude/settings.json does not parse as a JSON object; nothing was changed. Add under "hooks": {"SessionStart":[{"hooks":[{"type":"command","command":"git majordomus hook claude-code start"}]}],"PreCompact":[{"hooks":[{"type":"command","command":"git majordomus hook claude-code compact","timeout":30}]}],"SessionEnd":[{"hooks":[{"type":"command","command":"git majordomus hook claude-code end","timeout":30}]}]}
    hint: fix the file, then run git majordomus hooks install again (claude-code)
    --- exit 15
    "#);
    assert_eq!(r.read(".claude/settings.json"), "{ not json");
}

#[test]
fn two_windows_interleaved_get_separate_records() {
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    r.start("shared task");
    hook(&r, "start", &payload("win-a", "")).ok();
    hook(&r, "start", &payload("win-b", "")).ok();
    let a = [("CLAUDE_CODE_SESSION_ID", "win-a")];
    let b = [("CLAUDE_CODE_SESSION_ID", "win-b")];
    r.mj_env(&["decision", "add", "choice of a", "--why", "w"], "", &a).ok();
    let cp_b = r.mj_env(&["checkpoint"], "progress of b\n", &b).ok().stdout.trim().to_string();
    r.mj_env(&["decision", "add", "choice of b", "--why", "w"], "", &b).ok();
    let cp_a = r.mj_env(&["checkpoint"], "progress of a\n", &a).ok().stdout.trim().to_string();
    hook(&r, "end", &payload("win-a", r#","reason":"clear""#)).ok();
    assert!(r.state("sessions-open/win-b.yaml").exists(), "a's end closes only a");
    hook(&r, "end", &payload("win-b", r#","reason":"clear""#)).ok();
    let recs: Vec<String> = std::fs::read_dir(r.root.join(".ai/repo/sessions"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(recs.len(), 2);
    let ra = recs.iter().find(|t| t.contains("choice of a")).unwrap();
    let rb = recs.iter().find(|t| t.contains("choice of b")).unwrap();
    assert!(!ra.contains("choice of b") && ra.contains(&cp_a) && !ra.contains(&cp_b), "{ra}");
    assert!(!rb.contains("choice of a") && rb.contains(&cp_b) && !rb.contains(&cp_a), "{rb}");
}

#[test]
fn git_hooks_chain_a_foreign_hook_and_fetch_refspec() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let hooks = r.root.join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(hooks.join("post-checkout"), "#!/bin/sh\necho user-hook \"$3\"\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(hooks.join("post-checkout"), std::fs::Permissions::from_mode(0o755)).unwrap();
    r.mj(&["hooks", "install", "--git"]).ok();
    assert!(hooks.join("post-checkout.majordomus-chained").exists());
    let again = r.mj(&["hooks", "install", "--git"]).ok();
    insta::assert_snapshot!(again.shown(), @"
    pre-push: already installed
    post-checkout: already installed
    post-rewrite: already installed
    --- stderr
    --- exit 0
    ");
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.git(&["checkout", "-q", "-b", "side"]);
    let out = env.sh(&r.root, "git checkout main 2>&1", b"", &[]).ok();
    // The hooks' lines (git's own are git's).
    let hooks_said: Vec<&str> =
        out.stdout.lines().filter(|l| l.starts_with("user-hook") || l.starts_with("majordomus:")).collect();
    insta::assert_snapshot!(hooks_said.join("\n"), @"
    user-hook 1
    majordomus: handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md resolves on this branch (git majordomus handover --resolve)
    ");
    r.mj(&["hooks", "uninstall", "--git"]).ok();
    assert_eq!(
        std::fs::read_to_string(hooks.join("post-checkout")).unwrap(),
        "#!/bin/sh\necho user-hook \"$3\"\nexit 0\n"
    );
    assert!(!hooks.join("post-checkout.majordomus-chained").exists());
    // fetch refspec on a remote; idempotent; removable
    let bare = env.path().join("remote.git");
    env.git_in(env.path(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    r.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    r.mj(&["hooks", "install", "--fetch-refspec"]).ok();
    r.mj(&["hooks", "install", "--fetch-refspec", "origin"]).ok();
    let specs = r.git(&["config", "--get-all", "remote.origin.fetch"]);
    assert_eq!(specs.matches("refs/majordomus/continuity*").count(), 1, "{specs}");
    r.git(&["fetch", "-q", "origin"]);
    r.mj(&["hooks", "uninstall", "--fetch-refspec"]).ok();
    assert_eq!(r.git(&["config", "--get-all", "remote.origin.fetch"]), "+refs/heads/*:refs/remotes/origin/*");
    r.mj(&["hooks", "install", "--fetch-refspec", "a:b"]).code(10);
}

#[test]
fn pre_push_hook_syncs_the_continuity_ref_and_never_fails_the_push() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let bare = env.path().join("remote.git");
    env.git_in(env.path(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    env.git_in(&bare, &["config", "receive.denyNonFastForwards", "true"]);
    let r = env.ready_repo("r");
    r.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    r.mj(&["hooks", "install", "--git"]).ok();
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.mj(&["continuity", "publish"]).ok();
    let out = env.sh(&r.root, "git push -q origin main 2>&1", b"", &[]).ok();
    insta::assert_snapshot!(out.stdout, @"majordomus: continuity synced with origin: 1 record(s) published");
    let remote_ref = env.git_in(&bare, &["for-each-ref", "--format=%(refname)", "refs/majordomus/"]);
    assert_eq!(remote_ref, "refs/majordomus/continuity");
    assert_eq!(env.git_in(&bare, &["rev-parse", "main"]), r.head(), "the user's push went through");
    // a push to a URL (not a remote name) still succeeds; the hook only says it did not sync
    r.commit_file("lib/x", "x\n");
    let out = env.sh(&r.root, &format!("git push -q {} main 2>&1", bare.display()), b"", &[]).ok();
    insta::assert_snapshot!(out.stdout, @"majordomus: continuity not synced: [TMP]/remote.git is not a configured remote name (run: git majordomus continuity sync --remote <name>)");
}

#[test]
fn briefing_names_resumable_handovers_from_other_devices() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    // Omitted when there is no offer.
    let out = hook(&r, "start", &payload("a", "")).ok();
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    r.write(
        ".ai/local/state/continuity.json",
        r#"{"schema":"majordomus-continuity-local/v1","branches":{},"offers":[{"record":"ab","device":"laptop","published_at":"2026-09-03T19:00:00Z"}]}"#,
    );
    let out = hook(&r, "start", &payload("b", "")).ok();
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    No task record: checkpoints and handovers are still written for this episode.
    Mesh: 1 resumable handover(s) from other devices — run git majordomus continuity plan
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // continuity.json keeps the newest 20 offers (docs/REFERENCE.md#local-state); the briefing counts them all.
    r.write(
        ".ai/local/state/continuity.json",
        r#"{"schema":"majordomus-continuity-local/v1","branches":{},"offers":[{"record":"ab","device":"laptop","published_at":"2026-09-03T19:00:00Z"}],"offers_total":27}"#,
    );
    let out = hook(&r, "start", &payload("c", "")).ok();
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 2 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    No task record: checkpoints and handovers are still written for this episode.
    Mesh: 27 resumable handover(s) from other devices — run git majordomus continuity plan
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

/// A direct `continuity sync` pushes; the installed pre-push hook must not sync again (it would
/// wait for the lock the running sync holds).
#[test]
fn direct_sync_with_the_pre_push_hook_installed_does_not_recurse() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let bare = env.path().join("remote.git");
    env.git_in(env.path(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    let r = env.ready_repo("r");
    r.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    r.mj(&["hooks", "install", "--git"]).ok();
    r.mj_in(&["handover", "--no-task"], HANDOVER).ok();
    r.mj(&["continuity", "publish"]).ok();
    let out = env.sh(&r.root, "timeout 60 git majordomus continuity sync", b"", &[]).ok();
    insta::assert_snapshot!(out.shown(), @"
    Sync        published with origin
    moved       0 fetched, 1 published
    store       in_sync
    line        [HEX]  local_only
    --- stderr
    --- exit 0
    ");
}

#[test]
fn empty_episodes_write_no_derived_record_and_an_edit_to_a_changed_file_is_a_change() {
    // 150 start/end pairs with nothing done once wrote 152 handovers; an episode that does
    // nothing writes no derived record (docs/REFERENCE.md#origin).
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    r.write("lib/a.rs", "a\n");
    r.mj_in(&["handover"], HANDOVER).ok();
    let (h0, c0) = (r.records("handovers").len(), r.records("checkpoints").len());
    let mut said = String::new();
    for i in 0..5 {
        let sid = format!("idle-{i}");
        hook(&r, "start", &payload(&sid, "")).ok();
        hook(&r, "compact", &payload(&sid, r#","trigger":"auto""#)).ok();
        said += &hook(&r, "end", &payload(&sid, r#","reason":"logout""#)).ok().shown();
    }
    insta::assert_snapshot!(said, @"
    --- stderr
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    --- exit 0
    --- stderr
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    --- exit 0
    --- stderr
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    --- exit 0
    --- stderr
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    --- exit 0
    --- stderr
    checkpoint: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    handover: skipped — nothing happened in this episode since the last record (same head, same tree by content)
    session s-[ID] closed: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    --- exit 0
    ");
    assert_eq!((r.records("handovers").len(), r.records("checkpoints").len()), (h0, c0), "nothing written");
    assert_eq!(std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().count(), 5, "each episode still closes");
    // An edit to a file that was already changed is a change, by content.
    r.mj_in(&["checkpoint"], "note\n").ok();
    let c1 = r.records("checkpoints").len();
    hook(&r, "start", &payload("busy", "")).ok();
    r.write("lib/a.rs", "a, edited\n");
    hook(&r, "compact", &payload("busy", r#","trigger":"manual""#)).ok();
    assert_eq!(r.records("checkpoints").len(), c1 + 1, "the compact writes a checkpoint of the edit");
    hook(&r, "end", &payload("busy", r#","reason":"logout""#)).ok();
    assert_eq!(r.records("handovers").len(), h0 + 1, "an episode that did something hands over");
}

#[test]
fn a_briefing_during_a_rebase_names_it_and_offers_the_branchs_handover_a_merge_offers_none() {
    // A conflicting rebase was once briefed "on DETACHED at …" and "No relevant handover".
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.commit_file("lib/a.rs", "base\n");
    r.git(&["checkout", "-q", "-b", "feat"]);
    r.start("feat work");
    r.commit_file("lib/a.rs", "feat\n");
    let body = HANDOVER.replace("Write the regression test.", "Finish the feat rebase.");
    r.mj_in(&["handover"], &body).ok();
    r.git(&["checkout", "-q", "main"]);
    r.commit_file("lib/a.rs", "main\n");
    r.git(&["checkout", "-q", "feat"]);
    let out = env.sh(&r.root, "git rebase main >/dev/null 2>&1; git status --porcelain", b"", &[]);
    assert_eq!(out.stdout, "UU lib/a.rs\n", "a conflict");
    let brief = hook(&r, "start", &payload("rb", "")).ok().stdout;
    insta::assert_snapshot!(brief, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on DETACHED at [HEX], working tree dirty.
    Git: a rebase of feat ([HEX]) is in progress; HEAD is detached until it ends: `git status`, then `git rebase --continue` or `git rebase --abort`.
    Offered, not resolved as this checkout's: the newest handover of feat, 20260903T200000Z--feat--[HEX]--[HEX].md (authored, different_context).
      Its Next Action: Finish the feat rebase.
    Task t-[ID] (active, profile implementation): feat work
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    env.sh(&r.root, "git rebase --abort", b"", &[]).ok();
    // A merge with conflicts: named, and no other branch's record is offered.
    env.sh(&r.root, "git merge main >/dev/null 2>&1; true", b"", &[]).ok();
    let brief = hook(&r, "start", &payload("mg", "")).ok().stdout;
    insta::assert_snapshot!(brief, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feat at [HEX], working tree dirty.
    Git: a merge ([HEX]) with conflicts to resolve is in progress; HEAD is detached until it ends: `git status`, then commit or `--abort`.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    Task t-[ID] (active, profile implementation): feat work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feat--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Finish the feat rebase.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

#[test]
fn a_briefing_names_the_other_episodes_open_in_this_checkout() {
    // Issue 41 item 4: two sessions in one worktree; the second is told of the first, as the
    // store knows it (host, opened, last activity), never guessing whether it is attached.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    let first = hook(&r, "start", &payload("one", "")).ok();
    insta::assert_snapshot!(first.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    let codex = |source: &str| {
        let body = format!(r#"{{"session_id":"two","source":"{source}","hook_event_name":"SessionStart"}}"#);
        r.mj_in(&["hook", "codex", "start"], &body).ok().stdout
    };
    let brief = codex("startup");
    insta::assert_snapshot!(brief, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // Once it ends, it is no longer named.
    hook(&r, "end", &payload("one", r#","reason":"logout""#)).ok();
    let again = codex("resume");
    insta::assert_snapshot!(again, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

#[test]
fn an_authored_handover_is_not_hidden_by_another_sessions_newer_derived_one() {
    // Two sessions in one worktree, no task; the agent's handover once went to the newest
    // episode, the other's end hook composed a newer derived one, and the next session was
    // briefed with boilerplate instead of the authored Next Action (an authored handover is
    // never hidden by a derived one: docs/REFERENCE.md#origin).
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    hook(&r, "start", &payload("A-1", "")).ok();
    hook(&r, "start", &payload("B-1", "")).ok();
    let body = HANDOVER.replace("Write the regression test.", "A: rename a.txt to alpha.txt");
    r.mj_in(&["handover", "--no-task"], &body).ok();
    r.write("lib/later.rs", "x\n");
    let h = r.records("handovers").len();
    hook(&r, "end", &payload("A-1", r#","reason":"prompt_input_exit""#)).ok();
    assert_eq!(r.records("handovers").len(), h + 1, "A's end composed a derived handover after the edit");
    let brief = hook(&r, "start", &payload("C-1", "")).ok().stdout;
    insta::assert_snapshot!(brief, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree dirty.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    No task record: checkpoints and handovers are still written for this episode.
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    A newer derived handover (20260903T200000Z--main--[HEX]--[HEX].md) only restates it: the authored one is shown.
    Its Next Action:
      A: rename a.txt to alpha.txt
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

#[test]
fn a_derived_body_counts_the_episodes_records_and_the_tasks_in_all() {
    // The derived text once said "0 handover(s)" while the task had three authored ones.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("t");
    for _ in 0..2 {
        r.mj_in(&["handover"], HANDOVER).ok();
    }
    hook(&r, "start", &payload("later", "")).ok();
    r.write("lib/edit.rs", "x\n");
    hook(&r, "end", &payload("later", r#","reason":"logout""#)).ok();
    let text = r
        .records("handovers")
        .iter()
        .map(|n| r.read(&format!(".ai/local/state/handovers/{n}")))
        .find(|t| t.contains("\norigin: derived\n"))
        .expect("a derived handover");
    insta::assert_snapshot!(text, @r#"
    ---
    schema_version: 1
    created_at: 2026-09-03T20:00:00Z
    task_id: t-[ID]
    profile: implementation
    owner: "tester"
    repository_id: [TMP]/r/.git
    worktree: [TMP]/r
    branch: main
    head: [HEX]
    working_tree: dirty
    changed_files:
      - lib/
    changed_total: 1
    origin: derived
    session: s-[ID]
    ---

    # Objective
    t
    Task t-[ID] (profile implementation, outcome active); scope: lib.
    The authored handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (0m ago) states it as:
    > Fix the callback.

    # Current State
    The authored handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (0m ago) said:
    > Reproduced.
    What git and the records say now:
    On main at [HEX], working tree dirty.
    Since the authored handover: 0 commit(s), exact.
    Since the task started at [HEX]: 0 commit(s), exact.
    Changed files (1):
    - lib/
    Recorded in this episode: 1 checkpoint(s), 0 decision(s), 0 question(s), 0 handover(s); for task t-[ID] in all: 1 checkpoint(s), 0 decision(s), 0 question(s), 2 handover(s).

    # Next Action
    The authored handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (0m ago) gave this Next Action:
    > Write the regression test.

    ---
    Derived by git-majordomus from its records and git; no model wrote it.
    "#);
}

#[test]
fn a_task_whose_branch_landed_is_briefed_as_landed_not_as_the_active_task_here() {
    // After `git merge --squash topic` on main, the topic's task was once briefed as the active
    // task of main (a task whose branch landed is briefed as landed: docs/REFERENCE.md#briefing).
    let mut said = String::new();
    let env = TestEnv::new();
    let _snap = env.snapshots();
    for how in ["squash", "merge"] {
        let r = env.ready_repo(how);
        r.git(&["checkout", "-q", "-b", "topic"]);
        r.start("topic work");
        r.commit_file("lib/t.rs", "t\n");
        r.git(&["checkout", "-q", "main"]);
        let brief = hook(&r, "start", &payload(&format!("{how}-0"), "")).ok().stdout;
        said += &format!("=== {how}, not landed yet\n{brief}");
        match how {
            "squash" => {
                r.git(&["merge", "-q", "--squash", "topic"]);
                r.git(&["commit", "-q", "-m", "topic, squashed"]);
            }
            _ => {
                r.git(&["merge", "-q", "--no-ff", "--no-edit", "topic"]);
            }
        }
        let brief = hook(&r, "start", &payload(&format!("{how}-1"), "")).ok().stdout;
        said += &format!("=== {how}, landed\n{brief}");
    }
    insta::assert_snapshot!(said, @"
    === squash, not landed yet
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): topic work
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    === squash, landed
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    Task t-[ID] (active on topic, profile implementation): topic work — its work landed in main as [HEX] (tree): nothing left to do here but `git majordomus finish --outcome completed`.
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    === merge, not landed yet
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): topic work
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    === merge, landed
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    Task t-[ID] (active on topic, profile implementation): topic work — its work landed in main: its branch's tip [HEX] is in this history (a merge): nothing left to do here but `git majordomus finish --outcome completed`.
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
}

#[test]
fn the_end_hook_after_finish_writes_no_derived_handover_of_the_finished_task() {
    // In a real-host relay Copilot's shell ran `finish`, then its end hook once wrote a derived
    // handover of the completed task.
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let r = env.ready_repo("r");
    r.start("finish me");
    hook(&r, "start", &payload("fin-1", r#","source":"startup""#)).ok();
    r.commit_file("lib/x.rs", "x\n");
    r.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    let out = hook(&r, "end", &payload("fin-1", "")).ok();
    assert_eq!(r.records("handovers"), Vec::<String>::new(), "{}", out.all());
    insta::assert_snapshot!(out.shown(), @"
    --- stderr
    checkpoint: .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md
    handover: skipped — the task is finished: nothing to hand over
    session s-[ID] interrupted: .ai/repo/sessions/20260903T200000Z--s-[ID]--main--[HEX]--[HEX].md
    --- exit 0
    ");
}

#[test]
fn closing_an_episode_sweeps_the_lock_files_of_episodes_closed_long_ago() {
    // 150 empty sessions once left 307 lock files behind.
    let env = TestEnv::new();
    let r = env.ready_repo("r");
    for sid in ["old-1", "old-2"] {
        hook(&r, "start", &payload(sid, r#","source":"startup""#)).ok();
        hook(&r, "end", &payload(sid, "")).ok();
    }
    let locks = r.state("locks");
    let per_episode = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&locks)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().into_string().unwrap())
            .filter(|n| n.starts_with("session-start.") || n.starts_with("session-close."))
            .collect();
        v.sort();
        v
    };
    assert_eq!(per_episode().len(), 4);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 3600);
    for n in per_episode() {
        std::fs::File::options().write(true).open(locks.join(n)).unwrap().set_modified(old).unwrap();
    }
    hook(&r, "start", &payload("new-1", r#","source":"startup""#)).ok();
    hook(&r, "end", &payload("new-1", "")).ok();
    let left = per_episode();
    assert_eq!(left.len(), 2, "only the new episode's locks stay: {left:?}");
    assert!(left.iter().any(|n| n == "session-start.new-1.lock"), "{left:?}");
}
