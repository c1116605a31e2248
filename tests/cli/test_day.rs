//! A working day with the hooks on (issue 21, docs/REFERENCE.md#origin–docs/REFERENCE.md#front-matter, docs/REFERENCE.md#origin): an agent's day driven
//! through the hook commands exactly as `hooks install` writes them into `.claude/settings.json`,
//! with Claude Code's payloads, and at every SessionStart an assertion on exactly what the
//! worker is told.

use serde_json::Value;

use crate::common::snap::has_line;
use crate::common::{Repo, TestEnv};

/// Claude Code's hook input: the common fields and the event's own (docs/HOOKS.md).
fn payload(r: &Repo<'_>, event: &str, session: &str, extra: &str) -> String {
    format!(
        r#"{{"session_id":"{session}","transcript_path":"/home/ada/.claude/projects/app/{session}.jsonl","cwd":"{}","permission_mode":"default","hook_event_name":"{event}"{extra}}}"#,
        r.root.display()
    )
}

/// The command `hooks install` wrote for `event`.
fn installed(r: &Repo<'_>, event: &str) -> String {
    let settings: Value = serde_json::from_str(&r.read(".claude/settings.json")).unwrap();
    settings["hooks"][event]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .map(|h| h["command"].as_str().unwrap().to_string())
        .find(|c| c.contains("majordomus"))
        .unwrap()
}

/// Runs the installed hook of `event` with its payload, from the checkout (as Claude Code does).
fn fire(env: &TestEnv, r: &Repo<'_>, event: &str, session: &str, extra: &str) -> crate::common::Output {
    let out = env.sh(&r.root, &installed(r, event), payload(r, event, session, extra).as_bytes(), &[]).ok();
    if event != "SessionStart" {
        assert_eq!(out.stdout, "", "only SessionStart writes stdout");
    }
    out
}

/// The last ledger receipt of a provider event (parsed as JSON, a receipt's second `event` key
/// wins; `provider_session` marks it).
fn last_receipt(r: &Repo<'_>) -> Value {
    r.ledger().into_iter().rev().find(|l| l.get("provider_session").is_some()).unwrap()
}

/// The lines the briefing quotes under `Its Next Action:`.
fn next_action(briefing: &str) -> Vec<String> {
    briefing
        .lines()
        .skip_while(|l| *l != "Its Next Action:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

/// Whether `text` has `line` as one whole line.
const AUTHORED: &str = "# Objective\nRate-limit login attempts per account.\n\n# Current State\nlib/auth/limit.rs counts attempts; the lockout is not wired yet.\n\n# Next Action\nRun the fuzz target for 10 minutes, then open the PR.\n";

#[test]
fn a_day_of_agent_work_with_the_hooks_on() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    env.set_now("2026-12-04T16:00:00Z"); // a Friday afternoon
    let r = env.ready_repo("app");
    r.commit_file("lib/auth/login.rs", "pub fn login() {}\n");
    r.mj(&["hooks", "install", "--claude-code"]).ok();
    r.git(&["add", ".claude/settings.json"]);
    r.git(&["commit", "-q", "-m", "hooks"]);
    let id = r
        .mj(&["start", "Rate-limit login", "--scope", "lib/auth"])
        .ok()
        .stdout
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();

    // 16:00 SessionStart startup: a new episode and its briefing.
    let out = fire(&env, &r, "SessionStart", "a1b2c3d4-day-1", r#","source":"startup","model":"claude-sonnet-4-5""#);
    // lines that say nothing (no shared server, no knowledge) are left out
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): Rate-limit login
    Scope: lib/auth
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    // The agent works: an authored checkpoint, a commit inside the scope.
    env.set_now("2026-12-04T16:20:00Z");
    r.commit_file("lib/auth/limit.rs", "pub fn limit() {}\n");
    let authored_cp =
        r.mj_in(&["checkpoint"], "Counting attempts per account; the lockout comes next.\n").ok().first_line();

    // 16:40 PreCompact after more (uncommitted) work: the derived checkpoint quotes the
    // authored one.
    env.set_now("2026-12-04T16:40:00Z");
    r.write("lib/auth/limit.rs", "pub fn limit() -> u32 { 5 }\n");
    fire(&env, &r, "PreCompact", "a1b2c3d4-day-1", r#","trigger":"auto","custom_instructions":"""#);
    let derived_cp = r.records("checkpoints").pop().unwrap();
    let text = r.read(&format!(".ai/local/state/checkpoints/{derived_cp}"));
    // (the authored checkpoint shown as [AUTHORED_CP])
    insta::assert_snapshot!(text.replace(&authored_cp, "[AUTHORED_CP]"), @r#"
    ---
    schema_version: 1
    created_at: 2026-12-04T16:40:00Z
    task_id: t-[ID]
    profile: implementation
    owner: "tester"
    repository_id: [TMP]/app/.git
    worktree: [TMP]/app
    branch: main
    head: [HEX]
    working_tree: dirty
    changed_files:
      - lib/auth/limit.rs
    changed_total: 1
    citations:
      - "lib/auth/limit.rs@[HEX]"
    origin: derived
    session: s-[ID]
    ---

    Newest authored checkpoint [AUTHORED_CP] (20m ago):
    > Counting attempts per account; the lockout comes next.
    At [HEX] on main, working tree dirty; 1 file(s) changed since the task started.
    - [HEX] change lib/auth/limit.rs
    Open questions: 0 unresolved.
    Derived by git-majordomus from its records and git; no model wrote it.
    "#);
    // ... and never hides it: checkpoint --show and context choose the authored one.
    let shown = r.mj(&["checkpoint", "--show"]).ok().stdout;
    assert!(shown.starts_with(&format!("Checkpoint: {authored_cp}\n")), "{shown}");
    insta::assert_snapshot!(shown, @"
    Checkpoint: .ai/local/state/checkpoints/20261204T162000Z--main--[HEX]--[HEX].md
    Created: 2026-12-04T16:20:00Z (20m ago)
    Git state: exact
    Origin: authored
    Preferred to: .ai/local/state/checkpoints/20261204T164000Z--main--[HEX]--[HEX].md (newer, derived; an authored record wins)
    ---
    Counting attempts per account; the lockout comes next.
    ");
    let context = r.mj(&["context"]).ok().stdout;
    assert!(
        has_line(&context, &format!("## LATEST CHECKPOINT ({authored_cp}, 20m ago, exact, authored)")),
        "{context}"
    );
    // A second compaction with nothing new writes nothing, and its receipt says so.
    let before = r.records("checkpoints").len();
    fire(&env, &r, "PreCompact", "a1b2c3d4-day-1", r#","trigger":"manual","custom_instructions":"""#);
    assert_eq!(r.records("checkpoints").len(), before);
    assert_eq!(last_receipt(&r)["skipped"], serde_json::json!(["checkpoint"]));

    // 17:55 the agent writes its handover; 17:55 the session ends (the user quits).
    env.set_now("2026-12-04T17:55:00Z");
    r.git(&["commit", "-q", "-am", "limit: five attempts"]);
    let authored_ho = r.mj_in(&["handover"], AUTHORED).ok().first_line();
    let handovers = r.records("handovers").len();
    fire(&env, &r, "SessionEnd", "a1b2c3d4-day-1", r#","reason":"prompt_input_exit""#);
    assert_eq!(r.records("handovers").len(), handovers, "no derived handover over a newer authored one");
    let receipt = last_receipt(&r);
    assert!(receipt["skipped"].as_array().unwrap().contains(&Value::from("handover")), "{receipt}");
    let task = r.read(".ai/local/state/current.yaml");
    assert!(has_line(&task, "outcome: active"), "a session ending does not end the task:\n{task}");

    // Monday 09:55, 16 h later than a Friday would allow a 48 h threshold: SessionStart startup.
    env.set_now("2026-12-07T09:55:00Z");
    let out = fire(&env, &r, "SessionStart", "e5f6a7b8-day-2", r#","source":"startup","model":"claude-sonnet-4-5""#);
    let b = &out.stdout;
    assert!(
        has_line(b, &format!("Handover {authored_ho} (same_worktree_same_branch, exact, 2d ago, authored).")),
        "{b}"
    );
    assert!(b.lines().any(|l| l.starts_with(&format!("Newest authored checkpoint {authored_cp} ("))), "{b}");
    assert_eq!(next_action(b), ["Run the fuzz target for 10 minutes, then open the PR."], "{b}");
    // the working tree is clean: only .ai/ changed (the closed session record); no derived
    // footer inside a section
    insta::assert_snapshot!(b, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): Rate-limit login
    Scope: lib/auth
    Handover .ai/local/state/handovers/20261204T175500Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 2d ago, authored).
    Its Next Action:
      Run the fuzz target for 10 minutes, then open the PR.
    Newest authored checkpoint .ai/local/state/checkpoints/20261204T162000Z--main--[HEX]--[HEX].md (advanced, 2d ago); read it with git majordomus checkpoint --show.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    // /clear: SessionEnd reason clear, then SessionStart source clear — the task stays.
    env.set_now("2026-12-07T10:05:00Z");
    fire(&env, &r, "SessionEnd", "e5f6a7b8-day-2", r#","reason":"clear""#);
    let out = fire(&env, &r, "SessionStart", "c9d0e1f2-day-3", r#","source":"clear","model":"claude-sonnet-4-5""#);
    let b = &out.stdout;
    assert_eq!(next_action(b), ["Run the fuzz target for 10 minutes, then open the PR."], "{b}");
    insta::assert_snapshot!(b.replace(&id, "[TASK]"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task [TASK] (active, profile implementation): Rate-limit login
    Scope: lib/auth
    Handover .ai/local/state/handovers/20261204T175500Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 2d ago, authored).
    Its Next Action:
      Run the fuzz target for 10 minutes, then open the PR.
    Newest authored checkpoint .ai/local/state/checkpoints/20261204T162000Z--main--[HEX]--[HEX].md (advanced, 2d ago); read it with git majordomus checkpoint --show.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // check still enforces the scope: an edit outside it fails.
    r.write("README.outside", "oops\n");
    let out = r.mj(&["check"]).code(10);
    let fails: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("FAIL ")).collect();
    insta::assert_snapshot!(fails.join("\n"), @"FAIL scope README.outside — touched since the task started, outside its scope (lib/auth)  [reproduce: git diff --name-only [HEX]; git status --porcelain]");
    std::fs::remove_file(r.root.join("README.outside")).unwrap();

    // Work, then SessionEnd logout: a derived handover fills the gap and carries the authored
    // Next Action forward, quoted, never the generic "run context then check".
    env.set_now("2026-12-07T11:30:00Z");
    r.commit_file("lib/auth/lockout.rs", "pub fn lockout() {}\n");
    r.mj_in(&["checkpoint"], "Lockout wired; fuzzing next.\n").ok();
    fire(&env, &r, "SessionEnd", "c9d0e1f2-day-3", r#","reason":"logout""#);
    let derived_ho = r.records("handovers").pop().unwrap();
    let text = r.read(&format!(".ai/local/state/handovers/{derived_ho}"));
    insta::assert_snapshot!(text, @r#"
    ---
    schema_version: 1
    created_at: 2026-12-07T11:30:00Z
    task_id: t-[ID]
    profile: implementation
    owner: "tester"
    repository_id: [TMP]/app/.git
    worktree: [TMP]/app
    branch: main
    head: [HEX]
    working_tree: clean
    changed_files: []
    changed_total: 0
    origin: derived
    session: s-[ID]
    ---

    # Objective
    Rate-limit login
    Task t-[ID] (profile implementation, outcome active); scope: lib/auth.
    The authored handover .ai/local/state/handovers/20261204T175500Z--main--[HEX]--[HEX].md (2d ago) states it as:
    > Rate-limit login attempts per account.

    # Current State
    The authored handover .ai/local/state/handovers/20261204T175500Z--main--[HEX]--[HEX].md (2d ago) said:
    > lib/auth/limit.rs counts attempts; the lockout is not wired yet.
    The newest authored checkpoint .ai/local/state/checkpoints/20261207T113000Z--main--[HEX]--[HEX].md (0m ago):
    > Lockout wired; fuzzing next.
    What git and the records say now:
    On main at [HEX], working tree clean.
    Since the authored handover: 1 commit(s), advanced.
    Since the task started at [HEX]: 3 commit(s), advanced.
    Changed files (2):
    - lib/auth/limit.rs
    - lib/auth/lockout.rs
    Recorded in this episode: 1 checkpoint(s), 0 decision(s), 0 question(s), 0 handover(s); for task t-[ID] in all: 4 checkpoint(s), 0 decision(s), 0 question(s), 1 handover(s).

    # Next Action
    The authored handover .ai/local/state/handovers/20261204T175500Z--main--[HEX]--[HEX].md (2d ago) gave this Next Action:
    > Run the fuzz target for 10 minutes, then open the PR.

    ---
    Derived by git-majordomus from its records and git; no model wrote it.
    "#);
    assert!(has_line(&r.read(".ai/local/state/current.yaml"), "outcome: active"));
    // Every session record of the day is closed, one per episode.
    let closed = std::fs::read_dir(r.root.join(".ai/repo/sessions")).unwrap().filter(|e| {
        e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".md")
            && e.as_ref().unwrap().file_name() != "README.md"
    });
    assert_eq!(closed.count(), 3);
    // The next morning's briefing still tells the worker what the agent wrote, and names the
    // derived record it passed over.
    env.set_now("2026-12-08T09:00:00Z");
    let out = fire(&env, &r, "SessionStart", "a9b8c7d6-day-4", r#","source":"startup","model":"claude-sonnet-4-5""#);
    assert_eq!(next_action(&out.stdout), ["Run the fuzz target for 10 minutes, then open the PR."], "{}", out.stdout);
    assert!(
        has_line(
            &out.stdout,
            &format!("A newer derived handover ({derived_ho}) only restates it: the authored one is shown.")
        ),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(out.stdout, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): Rate-limit login
    Scope: lib/auth
    Handover .ai/local/state/handovers/20261204T175500Z--main--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 3d ago, authored).
    A newer derived handover (20261207T113000Z--main--[HEX]--[HEX].md) only restates it: the authored one is shown.
    Its Next Action:
      Run the fuzz target for 10 minutes, then open the PR.
    Newest authored checkpoint .ai/local/state/checkpoints/20261207T113000Z--main--[HEX]--[HEX].md (exact, 21h ago); read it with git majordomus checkpoint --show.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    let resolved = r.mj(&["handover", "--resolve"]).ok().stdout;
    assert!(resolved.starts_with(&format!("Handover: {authored_ho}\n")), "{resolved}");
    assert!(
        has_line(
            &resolved,
            &format!("Preferred to: .ai/local/state/handovers/{derived_ho} (newer, derived; an authored record wins)")
        ),
        "{resolved}"
    );
}
