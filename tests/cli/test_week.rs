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
    let main = env.ready_repo("proj");
    main.commit_file("lib/a.rs", "a\n");
    main.mj(&["hooks", "install"]).ok();
    assert!(briefing(&main, "mon-0").contains("working tree clean"), "host files are the tool's");

    // Monday: a task on `topic` in the main checkout, handed over by its agent.
    main.git(&["checkout", "-q", "-b", "topic"]);
    let topic = main.start("topic work");
    hook(&main, "start", "mon-1");
    main.commit_file("lib/t.rs", "t\n");
    main.mj_env(&["handover"], &handover("Land topic on main."), &[("CLAUDE_CODE_SESSION_ID", "mon-1")]).ok();
    hook(&main, "end", "mon-1");
    assert!(briefing(&main, "mon-2").contains("Land topic on main."));

    // Tuesday: a second worktree, two sessions at once in it; the first one's agent hands over.
    main.git(&["checkout", "-q", "main"]);
    main.git(&["worktree", "add", "-q", "-b", "feature", "../wt"]);
    let wt = at(&env, &env.path().join("wt"));
    let feature = wt.start("feature work");
    hook(&wt, "start", "tue-a");
    let b = hook(&wt, "start", "tue-b").stdout;
    assert!(b.contains("Also open in this checkout: 1 other episode(s).\n- claude-code episode s-"), "{b}");
    wt.commit_file("lib/f.rs", "f\n");
    wt.mj_env(&["handover"], &handover("Finish the retry loop in lib/f.rs."), &[("CLAUDE_CODE_SESSION_ID", "tue-a")])
        .ok();
    hook(&wt, "end", "tue-a");
    hook(&wt, "end", "tue-b");
    let next = briefing(&wt, "tue-c");
    assert!(next.contains("Finish the retry loop in lib/f.rs."), "authored beats derived: {next}");
    assert!(!next.contains("Run `git majordomus context`, then"), "no derived boilerplate: {next}");
    assert_eq!(wt.records("handovers").len(), 1, "the empty episodes wrote no derived handover");

    // Wednesday: main moves on and is merged into `feature`: upstream's files are not the task's.
    main.commit_file("lib/upstream.rs", "u\n");
    wt.git(&["merge", "-q", "--no-edit", "main"]);
    let check = wt.mj(&["check"]);
    assert!(!check.stdout.contains("lib/upstream.rs"), "{}", check.all());
    assert_eq!(check.code, 0, "{}", check.all());
    let next = briefing(&wt, "wed-1");
    assert!(next.contains("Finish the retry loop in lib/f.rs."), "{next}");

    // Thursday: `topic` lands on main as a squash; the main checkout's task is briefed as landed.
    main.git(&["merge", "-q", "--squash", "topic"]);
    main.git(&["commit", "-q", "-m", "topic, squashed"]);
    let next = briefing(&main, "thu-1");
    assert!(next.contains(&format!("Task {topic}")) && next.contains("its work landed in main"), "{next}");
    // The cockpit's findings (state's) and check agree; finish judges the landed commit.
    let state = main.mj(&["state"]).ok().stdout;
    assert!(state.contains(&format!("- Task {topic}'s work landed in main as ")), "{state}");
    let check = main.mj(&["check"]);
    assert!(check.stdout.contains("INFO task") && check.stdout.contains("its work landed in main"), "{}", check.all());
    let finish = main.mj(&["finish", "--outcome", "completed", "--verify-command", "true"]).ok().stdout;
    assert!(finish.contains("OK contract scope_respected — pass: 1 touched file(s), all inside lib"), "{finish}");
    assert!(finish.contains("[reproduce: git majordomus finish --check --outcome completed]"), "{finish}");

    // Friday: the worktree is removed; its records are kept, named from main, and adopted.
    main.git(&["worktree", "remove", "--force", "../wt"]);
    let next = briefing(&main, "fri-1");
    assert!(next.contains("adopt them here with git majordomus worktree adopt wt."), "{next}");
    main.mj(&["worktree", "adopt", "wt"]).ok();
    main.git(&["checkout", "-q", "feature"]);
    let next = briefing(&main, "fri-2");
    assert!(next.contains(&format!("Task {feature}")), "{next}");
    assert!(next.contains("Finish the retry loop in lib/f.rs."), "the adopted handover resolves here: {next}");

    // Saturday: the whole checkout is moved; its task and handover follow it.
    std::fs::rename(&main.root, env.path().join("proj-moved")).unwrap();
    let moved = at(&env, &env.path().join("proj-moved"));
    let next = briefing(&moved, "sat-1");
    assert!(!next.contains("names another checkout"), "{next}");
    assert!(next.contains(&format!("Task {feature}")) && next.contains("Finish the retry loop in lib/f.rs."), "{next}");

    // Sunday: a write under a file-size limit, and a publish stopped before its reference moved.
    let bin = env!("CARGO_BIN_EXE_git-majordomus");
    let limited = env.sh(&moved.root, &format!("ulimit -f 1; {bin} checkpoint"), b"under a limit\n", &[]);
    assert_eq!(limited.code, 13, "{}", limited.all());
    let hooked =
        env.sh(&moved.root, &format!("ulimit -f 1; {bin} hook claude-code compact"), payload("sun-0").as_bytes(), &[]);
    assert_eq!(hooked.code, 0, "a hook always exits 0: {}", hooked.all());
    moved.mj(&["history", "--validate"]).ok();
    let next = briefing(&moved, "sun-1");
    assert!(next.contains("Finish the retry loop in lib/f.rs."), "{next}");

    let stopped = moved.mj_env(&["continuity", "publish"], "", &[("MAJORDOMUS_STOP_AT", "store.before-ref")]);
    assert_ne!(stopped.code, 0, "{}", stopped.all());
    // What a kill inside the ref transaction leaves (2 of 12 kills in TRIAL): the ref's lock.
    std::fs::create_dir_all(moved.root.join(".git/refs/majordomus")).unwrap();
    std::fs::write(moved.root.join(".git/refs/majordomus/continuity.lock"), "").unwrap();
    moved.mj(&["continuity", "publish"]).ok();
    moved.mj(&["continuity", "verify"]).ok();
    let next = briefing(&moved, "sun-2");
    assert!(next.contains("Finish the retry loop in lib/f.rs."), "{next}");
    moved.mj(&["history", "--validate"]).ok();
    let doctor = moved.mj(&["doctor"]);
    assert!(!doctor.stdout.contains("FAIL"), "{}", doctor.all());
}
