//! One week of a checkout's whole life, driven through the hook commands with real payloads
//! (issue 41 "Done when"): two worktrees, two concurrent sessions in one of them, a merge of
//! `main`, a squash landing, a worktree removal, a moved checkout, a write under `ulimit -f`, a
//! writer stopped during `continuity publish` — the next briefing asserted after each step.

use std::path::Path;

use crate::common::{Output, Repo, TestEnv};

fn payload(sid: &str) -> String {
    format!(
        r#"{{"session_id":"{sid}","source":"startup","hook_event_name":"SessionStart","transcript_path":"/tmp/t.jsonl"}}"#
    )
}

fn hook(r: &Repo<'_>, event: &str, sid: &str) -> Output {
    r.mj_env(&["hook", "claude-code", event], &payload(sid), &[]).ok()
}

/// The briefing a new session gets, its episode ended at once (an empty episode).
fn briefing(r: &Repo<'_>, sid: &str) -> String {
    let out = hook(r, "start", sid).stdout;
    hook(r, "end", sid);
    out
}

fn handover(next: &str) -> String {
    format!("# Objective\nThe retry loop.\n\n# Current State\nHalf written.\n\n# Next Action\n{next}\n")
}

fn at<'a>(env: &'a TestEnv, root: &Path) -> Repo<'a> {
    Repo { env, root: std::fs::canonicalize(root).unwrap() }
}

#[test]
fn a_week_of_worktrees_sessions_merges_landings_removal_a_move_a_size_limit_and_a_killed_publish() {
    let env = TestEnv::new();
    let _snap = env.snapshots();
    let main = env.ready_repo("proj");
    main.commit_file("lib/a.rs", "a\n");
    main.mj(&["hooks", "install"]).ok();
    // host files are the tool's: the tree is clean
    insta::assert_snapshot!(briefing(&main, "mon-0"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    No task record: checkpoints and handovers are still written for this episode.
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    // Monday: a task on `topic` in the main checkout, handed over by its agent.
    main.git(&["checkout", "-q", "-b", "topic"]);
    let topic = main.start("topic work");
    hook(&main, "start", "mon-1");
    main.commit_file("lib/t.rs", "t\n");
    main.mj_env(&["handover"], &handover("Land topic on main."), &[("CLAUDE_CODE_SESSION_ID", "mon-1")]).ok();
    hook(&main, "end", "mon-1");
    insta::assert_snapshot!(briefing(&main, "mon-2"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on topic at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): topic work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--topic--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Land topic on main.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    // Tuesday: a second worktree, two sessions at once in it; the first one's agent hands over.
    main.git(&["checkout", "-q", "main"]);
    main.git(&["worktree", "add", "-q", "-b", "feature", "../wt"]);
    let wt = at(&env, &env.path().join("wt"));
    let feature = wt.start("feature work");
    hook(&wt, "start", "tue-a");
    let b = hook(&wt, "start", "tue-b").stdout;
    insta::assert_snapshot!(b, @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feature at [HEX], working tree clean.
    Also open in this checkout: 1 other episode(s).
    - claude-code episode s-[ID], opened 0m ago, last activity 0m ago
    Task t-[ID] (active, profile implementation): feature work
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    wt.commit_file("lib/f.rs", "f\n");
    wt.mj_env(&["handover"], &handover("Finish the retry loop in lib/f.rs."), &[("CLAUDE_CODE_SESSION_ID", "tue-a")])
        .ok();
    hook(&wt, "end", "tue-a");
    hook(&wt, "end", "tue-b");
    // authored beats derived: no derived boilerplate
    insta::assert_snapshot!(briefing(&wt, "tue-c"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feature at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): feature work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feature--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, authored).
    Its Next Action:
      Finish the retry loop in lib/f.rs.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    assert_eq!(wt.records("handovers").len(), 1, "the empty episodes wrote no derived handover");

    // Wednesday: main moves on and is merged into `feature`: upstream's files are not the task's.
    main.commit_file("lib/upstream.rs", "u\n");
    wt.git(&["merge", "-q", "--no-edit", "main"]);
    insta::assert_snapshot!(wt.mj(&["check"]).ok().shown(), @r#"
    OK task t-[ID] — "feature work" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK task t-[ID] — task record advanced (recorded head [HEX] on feature)  [reproduce: git majordomus context]
    OK scope lib — 1 file(s) touched since the task started, all inside its scope  [reproduce: git diff --name-only [HEX]; git status --porcelain]
    OK checkpoint t-[ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 18 line(s), all valid  [reproduce: git majordomus history --validate]
    --- stderr
    --- exit 0
    "#);
    insta::assert_snapshot!(briefing(&wt, "wed-1"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feature at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): feature work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feature--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 0m ago, authored).
    Its Next Action:
      Finish the retry loop in lib/f.rs.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    // Thursday: `topic` lands on main as a squash; the main checkout's task is briefed as landed.
    main.git(&["merge", "-q", "--squash", "topic"]);
    main.git(&["commit", "-q", "-m", "topic, squashed"]);
    // (the tasks' ids shown as [TOPIC] and [FEATURE])
    let named = |text: String| text.replace(&topic, "[TOPIC]").replace(&feature, "[FEATURE]");
    insta::assert_snapshot!(named(briefing(&main, "thu-1")), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task [TOPIC] (active on topic, profile implementation): topic work — its work landed in main as [HEX] (patch-id): nothing left to do here but `git majordomus finish --outcome completed`.
    Scope: lib
    No relevant handover for this worktree and branch; absence is the answer, not a stale match.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    // The cockpit's findings (state's) and check agree; finish judges the landed commit.
    insta::assert_snapshot!(named(main.mj(&["state"]).ok().stdout), @r#"
    Checkout [TMP]/proj on main at [HEX], working tree clean
    Episode: none open here
    Task: [TOPIC] "topic work" (active, implementation)
    Handover: .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md — exact, fresh (0m old, under session.freshness.fresh_minutes (720 min)), derived
      Next Action: Run `git majordomus context`, then `git majordomus check`, and continue from the current state above.
    Checkpoint: .ai/local/state/checkpoints/20260903T200000Z--main--[HEX]--[HEX].md — exact, fresh (0m old, under session.freshness.fresh_minutes (720 min)), derived
    Blockers: 0 open question(s)
    - Task [TOPIC]'s work landed in main as [HEX] (patch-id): nothing is left to do here but git majordomus finish --outcome completed.
    (git majordomus state --json: the whole value, as MCP and HTTP return it)
    "#);
    insta::assert_snapshot!(main.mj(&["check"]).shown(), @r#"
    OK task t-[ID] — "topic work" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    INFO task t-[ID] — task record different_context; its work landed in main as [HEX] (patch-id)  [reproduce: git majordomus check]  [fix: git majordomus finish --outcome completed]
    OK scope lib — 1 file(s) touched since the task started, all inside its scope  [reproduce: git diff --name-only [HEX]; git status --porcelain]
    OK checkpoint t-[ID] — last checkpoint 0m ago, interval 15m (profile implementation)  [reproduce: grep checkpoint_at .ai/local/state/current.yaml]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK ledger .ai/local/state/ledger.jsonl — 25 line(s), all valid  [reproduce: git majordomus history --validate]
    --- stderr
    --- exit 0
    "#);
    let finish = main.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok();
    insta::assert_snapshot!(finish.shown(), @"
    OK contract scope_respected — pass: 1 touched file(s), all inside lib  [reproduce: git majordomus finish --check --outcome completed]
    OK contract verification_ran — pass: `true` exited 0 in [N] s  [reproduce: git majordomus finish --check --outcome completed]
    OK contract state_updated — pass: task record is different_context; its work landed in main as [HEX] (patch-id)  [reproduce: git majordomus finish --check --outcome completed]
    OK contract no_open_blockers — pass: no unresolved question  [reproduce: git majordomus finish --check --outcome completed]
    INFO contract note_present — skipped: no --note given (completed needs none)  [reproduce: git majordomus finish --check --outcome completed]
    finished t-[ID]: completed
    --- stderr
    --- exit 0
    ");

    // Friday: the worktree is removed; its records are kept, named from main, and adopted.
    main.git(&["worktree", "remove", "--force", "../wt"]);
    insta::assert_snapshot!(briefing(&main, "fri-1"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on main at [HEX], working tree clean.
    Task t-[ID] (completed on topic, profile implementation): topic work — its work landed in main as [HEX] (patch-id): nothing left to do here but `git majordomus finish --outcome completed`.
    Scope: lib
    The records of the removed worktree [TMP]/wt are kept (task t-[ID] 'feature work', 2 handover(s), 0 decision(s), 0 open question(s)); adopt them here with git majordomus worktree adopt wt.
    Handover .ai/local/state/handovers/20260903T200000Z--main--[HEX]--[HEX].md (same_worktree_same_branch, exact, 0m ago, derived).
    Its Next Action:
      Run `git majordomus context`, then `git majordomus check`, and continue from the current state above.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    main.mj(&["worktree", "adopt", "wt"]).ok();
    main.git(&["checkout", "-q", "feature"]);
    // the adopted handover resolves here
    insta::assert_snapshot!(named(briefing(&main, "fri-2")), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feature at [HEX], working tree clean.
    Task [FEATURE] (active, profile implementation): feature work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feature--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 0m ago, authored).
    A newer derived handover (20260903T200000Z--feature--[HEX]--[HEX].md) only restates it: the authored one is shown.
    Its Next Action:
      Finish the retry loop in lib/f.rs.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    // Saturday: the whole checkout is moved; its task and handover follow it.
    std::fs::rename(&main.root, env.path().join("proj-moved")).unwrap();
    let moved = at(&env, &env.path().join("proj-moved"));
    insta::assert_snapshot!(named(briefing(&moved, "sat-1")), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feature at [HEX], working tree clean.
    Task [FEATURE] (active, profile implementation): feature work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feature--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 0m ago, authored).
    A newer derived handover (20260903T200000Z--feature--[HEX]--[HEX].md) only restates it: the authored one is shown.
    Its Next Action:
      Finish the retry loop in lib/f.rs.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    // Sunday: a write under a file-size limit, and a publish stopped before its reference moved.
    let bin = env!("CARGO_BIN_EXE_git-majordomus");
    let limited = env.sh(&moved.root, &format!("ulimit -f 1; {bin} checkpoint"), b"under a limit\n", &[]);
    assert_eq!(limited.code, 13, "{}", limited.all());
    let hooked =
        env.sh(&moved.root, &format!("ulimit -f 1; {bin} hook claude-code compact"), payload("sun-0").as_bytes(), &[]);
    assert_eq!(hooked.code, 0, "a hook always exits 0: {}", hooked.all());
    moved.mj(&["history", "--validate"]).ok();
    insta::assert_snapshot!(briefing(&moved, "sun-1"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feature at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): feature work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feature--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 0m ago, authored).
    A newer derived handover (20260903T200000Z--feature--[HEX]--[HEX].md) only restates it: the authored one is shown.
    Its Next Action:
      Finish the retry loop in lib/f.rs.
    Newest authored checkpoint .ai/local/state/checkpoints/20260903T200000Z--feature--[HEX]--[HEX].md (exact, 0m ago); read it with git majordomus checkpoint --show.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");

    let stopped = moved.mj_env(&["continuity", "publish"], "", &[("MAJORDOMUS_STOP_AT", "store.before-ref")]);
    assert_ne!(stopped.code, 0, "{}", stopped.all());
    // What a kill inside the ref transaction can leave: the ref's lock file.
    std::fs::create_dir_all(moved.root.join(".git/refs/majordomus")).unwrap();
    std::fs::write(moved.root.join(".git/refs/majordomus/continuity.lock"), "").unwrap();
    moved.mj(&["continuity", "publish"]).ok();
    moved.mj(&["continuity", "verify"]).ok();
    insta::assert_snapshot!(briefing(&moved, "sun-2"), @"
    ## Majordomus — what this repository already knows
    Episode s-[ID], on feature at [HEX], working tree clean.
    Task t-[ID] (active, profile implementation): feature work
    Scope: lib
    Handover .ai/local/state/handovers/20260903T200000Z--feature--[HEX]--[HEX].md (same_worktree_same_branch, advanced, 0m ago, authored).
    A newer derived handover (20260903T200000Z--feature--[HEX]--[HEX].md) only restates it: the authored one is shown.
    Its Next Action:
      Finish the retry loop in lib/f.rs.
    Newest authored checkpoint .ai/local/state/checkpoints/20260903T200000Z--feature--[HEX]--[HEX].md (exact, 0m ago); read it with git majordomus checkpoint --show.
    Run `git majordomus context` for the whole briefing and `git majordomus check` before finishing.
    Before you stop, hand over: pipe # Objective, # Current State and # Next Action into `git majordomus handover --close` (`git majordomus context --prompt handover` shows how).
    ");
    moved.mj(&["history", "--validate"]).ok();
    insta::assert_snapshot!(moved.mj(&["doctor"]).shown(), @r#"
    OK policy .ai/repo/policy.yaml — parses  [reproduce: git majordomus check]
    OK profile .ai/repo/profiles/debugging.yaml — parses  [reproduce: cat .ai/repo/profiles/debugging.yaml]
    OK profile .ai/repo/profiles/deep-work.yaml — parses  [reproduce: cat .ai/repo/profiles/deep-work.yaml]
    OK profile .ai/repo/profiles/implementation.yaml — parses  [reproduce: cat .ai/repo/profiles/implementation.yaml]
    OK profile .ai/repo/profiles/routine.yaml — parses  [reproduce: cat .ai/repo/profiles/routine.yaml]
    OK task t-[ID] — "feature work" (active, profile implementation, scope lib)  [reproduce: cat .ai/local/state/current.yaml]
    OK records .ai/local/state/checkpoints — 5 checkpoint record(s), all readable  [reproduce: git majordomus checkpoint --list]
    OK records .ai/local/state/handovers — 4 handover record(s), all readable  [reproduce: git majordomus handover --list]
    OK ledger .ai/local/state/ledger.jsonl — 52 line(s), all valid  [reproduce: git majordomus history --validate]
    OK questions .ai/local/state/open-questions.md — no question store yet  [reproduce: git majordomus question list]
    OK decisions .ai/local/state/decisions.md — no decision log yet  [reproduce: git majordomus decision list]
    OK sessions .ai/local/state/sessions-open — 0 open episode(s), each parses with a working context  [reproduce: git majordomus session status]
    OK sessions .ai/repo/sessions — 9 closed session record(s), all readable  [reproduce: git majordomus session list --all]
    OK retention .ai/local/state/ledger.jsonl — ledger 52 lines, cap 50000  [reproduce: wc -l .ai/local/state/ledger.jsonl]
    OK retention .ai/local/state/handovers — handovers 4 files, cap 200  [reproduce: git majordomus handover --list]
    OK retention .ai/local/state/checkpoints — checkpoints 5 files, cap 500  [reproduce: git majordomus checkpoint --list]
    OK knowledge majordomus.knowledge-observed — newest closed episode s-[ID]: knowledge writer observed  [reproduce: git majordomus history --event knowledge.derived]
    [OK|WARN] budget doctor — ran in [N] ms, budget 300 ms (benchmark.budget.doctor_ms)  [reproduce: time git majordomus doctor]
    --- stderr
    --- exit 0
    "#);
}
